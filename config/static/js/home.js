// "Choose an opponent": shows only the form fields the chosen opponent needs,
// and keeps the lists of open challenges and invitations live through the
// notification socket (/ws/notify/), refetching /lobby.json on every change.

import { backoffDelay } from "./play/client.js";
import { sentenceWithName } from "./play/text.js";
import { format, gettext, ngettext } from "./i18n.js";
import { localiseDeadlines } from "./deadline.js";

const form = document.getElementById("new-game-form");
const home = document.querySelector("[data-home]");

function gameNames() {
  const names = {};
  for (const card of document.querySelectorAll(".game-card")) {
    names[card.dataset.game] = card.querySelector(".game-card-name").textContent;
  }
  return names;
}

// --- the form --------------------------------------------------------------------------

function syncForm() {
  const opponent = form.elements.opponent.value;
  // Correspondence (days per move) is for games between people, and replaces the live clock.
  const days = form.elements.days;
  if (days && opponent === "computer") days.value = "0";
  const correspondence = Boolean(days && days.value !== "0");
  const show = {
    level: opponent === "computer",
    invitee: opponent === "direct",
    rated: opponent !== "computer",
    days: opponent !== "computer",
    clock: !correspondence,
  };
  for (const [name, visible] of Object.entries(show)) {
    const field = form.querySelector(`[data-field="${name}"]`);
    if (field) field.hidden = !visible;
  }
  // Games between people always have a clock; "untimed" is for the computer only.
  const untimed = form.querySelector('.clock-choice[data-clock="untimed"]');
  if (untimed) {
    untimed.hidden = opponent !== "computer";
    if (untimed.hidden && clockChoice() === "untimed") pickClock(clockField.dataset.defaultClock);
  }
  showClock();
  for (const help of form.querySelectorAll(".opponent-help")) help.hidden = help.dataset.help !== opponent;
}

// A game whose kind says so (games/kinds: Ultimate Tic-Tac-Toe, where who starts is X and
// moves first) marks its radio data-first-by-default: "Play as" defaults to First there
// (the other games keep Random), unless the player chose a side themselves.
let sideChosen = false;

function syncSide() {
  const side = form.elements.side;
  if (!side || sideChosen) return;
  const game = form.querySelector('input[name="game"]:checked');
  side.value = game && "firstByDefault" in game.dataset ? "0" : "random";
}

// The time control: a preset ("5+3") fills in the two custom numbers; numbers typed in pick the
// preset they match, or "Custom". The readout says what the game will be; a number out of range is
// said at once under the group (the server says the same if the form is sent anyway).
const clockField = form?.querySelector(".clock-field");

function clockChoice() {
  return form.querySelector('input[name="clock"]:checked')?.value || "custom";
}

function pickClock(value, { fill = true } = {}) {
  const radio = form.querySelector(`input[name="clock"][value="${CSS.escape(value)}"]`);
  if (!radio) return;
  radio.checked = true;
  const [base, added] = value.split("+");
  if (fill && added !== undefined) {
    form.elements.minutes.value = base;
    form.elements.increment.value = added;
  }
}

function outOfRange(input) {
  const value = input.value.trim();
  const number = Number(value);
  return value === "" || !Number.isInteger(number) || number < Number(input.min) || number > Number(input.max);
}

function showClock() {
  if (!clockField) return;
  const { minutes, increment } = form.elements;
  const choice = clockChoice();
  const readout = clockField.querySelector(".clock-readout");
  if (choice === "untimed") readout.textContent = clockField.querySelector('[data-clock="untimed"] span').textContent;
  else if (choice === "custom") readout.textContent = `${minutes.value.trim() || "?"}+${increment.value.trim() || "0"}`;
  else readout.textContent = choice;
  // Only a custom clock's numbers count.
  const custom = choice === "custom";
  const badMinutes = custom && outOfRange(minutes);
  const badIncrement = custom && increment.value.trim() !== "" && outOfRange(increment);
  for (const [input, bad] of [[minutes, badMinutes], [increment, badIncrement]]) {
    if (bad) input.setAttribute("aria-invalid", "true");
    else input.removeAttribute("aria-invalid");
  }
  const live = clockField.querySelector(".clock-live-error");
  const messages = [];
  if (badMinutes) messages.push(clockField.dataset.minutesMessage);
  if (badIncrement) messages.push(clockField.dataset.incrementMessage);
  // The server's own message, while it is still shown, says it already.
  const said = [...clockField.querySelectorAll(".clock-errors > ul.errorlist")].some((list) => !list.hidden);
  live.textContent = said ? "" : messages.join(" ");
  live.hidden = !live.textContent;
}

// After a change, the server's errors from the last post are about a choice no longer there.
function clockChanged() {
  for (const old of clockField.querySelectorAll(".clock-errors > ul.errorlist")) old.hidden = true;
  showClock();
}

function wireClock() {
  if (!clockField) return;
  const { minutes, increment } = form.elements;
  for (const radio of clockField.querySelectorAll('input[name="clock"]')) {
    radio.addEventListener("change", () => {
      pickClock(radio.value);
      clockChanged();
    });
  }
  for (const input of [minutes, increment]) {
    input.addEventListener("input", () => {
      const label = `${Number(minutes.value)}+${Number(increment.value || 0)}`;
      const preset = minutes.value.trim() !== "" && form.querySelector(`input[name="clock"][value="${CSS.escape(label)}"]`);
      pickClock(preset ? label : "custom", { fill: false });
      clockChanged();
    });
  }
}

if (form) {
  form.elements.opponent.addEventListener("change", syncForm);
  form.elements.days?.addEventListener("change", syncForm);
  wireClock();
  syncForm();
  // A refused form comes back with the player's own choice: keep it.
  sideChosen = Boolean(form.querySelector(".errorlist"));
  form.elements.side?.addEventListener("change", () => { sideChosen = true; });
  for (const radio of form.querySelectorAll('input[name="game"]')) radio.addEventListener("change", syncSide);
  syncSide();
}

// "Abandon" (untimed games against the computer) asks before it ends a game.
for (const abandon of document.querySelectorAll("form[data-confirm]")) {
  abandon.addEventListener("submit", (event) => {
    if (!window.confirm(abandon.dataset.confirm)) event.preventDefault();
  });
}

// --- live lists --------------------------------------------------------------------------

function postButton(action, label, className = "") {
  const wrapper = document.createElement("form");
  wrapper.method = "post";
  wrapper.action = action;
  wrapper.className = "inline";
  const csrf = document.createElement("input");
  csrf.type = "hidden";
  csrf.name = "csrfmiddlewaretoken";
  csrf.value = home.dataset.csrf;
  const button = document.createElement("button");
  button.type = "submit";
  button.textContent = label;
  if (className) button.className = className;
  wrapper.append(csrf, button);
  return wrapper;
}

// Only registered players take open challenges: a guest gets a way to log in instead.
function takeControl(item) {
  const loginUrl = home.dataset.loginUrl;
  if (!loginUrl) return postButton(`/play/${item.id}/take/`, gettext("Take"));
  const link = document.createElement("a");
  link.className = "login-to-take";
  link.href = loginUrl;
  link.textContent = gettext("Log in to take");
  return link;
}

function renderChallenges(challenges, names) {
  const list = document.getElementById("challenges");
  list.replaceChildren();
  if (!challenges.length) {
    const empty = document.createElement("li");
    empty.className = "muted empty";
    empty.textContent = gettext("No open challenges right now.");
    list.appendChild(empty);
  }
  for (const item of challenges) {
    const row = document.createElement("li");
    row.dataset.gameId = item.id;
    row.dataset.speed = item.speed;
    const text = item.days_per_move
      ? gettext("%(name)s against %(who)s (%(rating)s), %(clock)s per move")
      : gettext("%(name)s against %(who)s (%(rating)s), %(clock)s");
    // The challenger's name keeps its BOT mark (a bot may post open challenges through the API).
    row.append(...sentenceWithName(text, {
      name: names[item.game] || item.name, who: item.by, rating: item.provisional ? item.rating + "?" : item.rating, clock: item.clock,
    }, "who", item.bot), " ");
    if (item.casual) {
      const tag = document.createElement("span");
      tag.className = "casual-tag";
      tag.textContent = gettext("casual");
      row.append(tag, " ");
    }
    row.appendChild(item.mine
      ? postButton(`/play/${item.id}/cancel/`, gettext("Cancel"), "secondary")
      : takeControl(item));
    list.appendChild(row);
  }
}

function renderInvitations(invitations, names) {
  const list = document.getElementById("invitations");
  document.getElementById("invitations-section").hidden = invitations.length === 0;
  list.replaceChildren();
  for (const item of invitations) {
    const row = document.createElement("li");
    row.dataset.gameId = item.id;
    const sentence = gettext("%(who)s invites you to play %(name)s");
    row.append(...sentenceWithName(sentence, { who: item.by, name: names[item.game] || item.name }, "who", item.bot), " ");
    // The clock, rated or casual, and the colour (worded by the server: Game.invitation_terms).
    const terms = document.createElement("span");
    terms.className = "invitation-terms";
    terms.textContent = `(${item.terms})`;
    row.append(terms, " ");
    row.append(postButton(`/play/${item.id}/take/`, gettext("Accept")), " ");
    row.append(postButton(`/play/${item.id}/decline/`, gettext("Decline"), "secondary"));
    list.appendChild(row);
  }
}

let refreshing = null;
let refreshAgain = false;
async function refresh() {
  // Several notifications in a burst need one fetch, not one each; but a change that comes
  // while a fetch is on its way (a new filter, say) gets one more fetch after it, never none.
  if (refreshing) {
    refreshAgain = true;
    return refreshing;
  }
  refreshing = (async () => {
    try {
      const query = filterQuery();
      const response = await fetch(`/lobby.json${query ? `?${query}` : ""}`, {
        headers: { Accept: "application/json" }, credentials: "same-origin",
      });
      const data = await response.json().catch(() => null);
      if (!data) return; // a server error page: the next notification tries again
      if (data.error) {
        // A bad filter: said under its field; the list stays as it was.
        if (!showFilterError(data.field, data.message)) document.getElementById("home-status").textContent = data.message;
        return;
      }
      const names = gameNames();
      renderChallenges(data.challenges, names);
      renderInvitations(data.invitations, names);
    } finally {
      refreshing = null;
      if (refreshAgain) {
        refreshAgain = false;
        refresh();
      }
    }
  })();
  return refreshing;
}

// --- the lobby's filters: kept in the address and for the next visit; every change refetches ---

const filter = document.getElementById("lobby-filter");
const FILTER_KEY = "lobbyFilter";

function filterQuery() {
  if (!filter) return "";
  const query = new URLSearchParams();
  for (const [name, value] of new FormData(filter)) if (value !== "") query.append(name, value);
  return query.toString();
}

function restoreFilter() {
  // A filter in the address wins (the page was rendered with it); else the last one chosen here.
  if (location.search) return false;
  let saved = "";
  try { saved = localStorage.getItem(FILTER_KEY) || ""; } catch { return false; }
  if (!saved) return false;
  for (const [name, value] of new URLSearchParams(saved)) {
    if (filter.elements[name]) filter.elements[name].value = value;
  }
  return true;
}

// The error of one filter field, under it (null: clear them all). False when there is no such field.
function showFilterError(name, message) {
  if (!filter) return false;
  for (const node of filter.querySelectorAll(".field-error")) {
    const mine = node.id === `filter-error-${name}`;
    node.hidden = !mine;
    node.textContent = mine ? message : "";
    const input = filter.elements[node.id.replace("filter-error-", "")];
    if (input && mine) input.setAttribute("aria-invalid", "true");
    else if (input) input.removeAttribute("aria-invalid");
  }
  return Boolean(name && filter.querySelector(`#filter-error-${name}`));
}

function filterChanged() {
  if (!filter.reportValidity()) return;
  showFilterError(null);
  const query = filterQuery();
  try { localStorage.setItem(FILTER_KEY, query); } catch { /* private mode: the address keeps it */ }
  history.replaceState(null, "", query ? `?${query}` : location.pathname);
  document.getElementById("home-status").textContent = "";
  refresh();
}

if (filter) {
  filter.querySelector("[data-filter-submit]").hidden = true; // every change applies at once
  filter.addEventListener("change", filterChanged);
  filter.addEventListener("submit", (event) => { event.preventDefault(); filterChanged(); });
  if (restoreFilter()) refresh();
}

function onNotification(payload) {
  if (payload.type === "lobby") refresh();
  if (payload.type === "invitation") {
    refresh();
    if (payload.status === "waiting") {
      const status = document.getElementById("home-status");
      status.replaceChildren(...sentenceWithName(gettext("%(who)s invited you to a game."), { who: payload.from }, "who", payload.bot));
    }
  }
}

function listen(attempt = 0) {
  const socket = new WebSocket(`${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/ws/notify/`);
  socket.addEventListener("open", () => {
    if (attempt > 0) refresh(); // we may have missed changes while away
    attempt = 0;
  });
  socket.addEventListener("message", (event) => {
    try {
      onNotification(JSON.parse(event.data));
    } catch {
      // not JSON: nothing for this page
    }
  });
  socket.addEventListener("close", () => setTimeout(() => listen(attempt + 1), backoffDelay(attempt)));
}

// Registered players already have the site-wide socket (notify.js, loaded before
// this module), which re-announces every payload as a "site:notify" event; guests
// have no such socket, so the home page opens its own for the lobby.
if (home && window.siteNotifySocket) {
  document.addEventListener("site:notify", (event) => onNotification(event.detail));
} else if (home) {
  listen();
}

// --- "Quick game": wait in a pool until the server pairs us ("paired" over /ws/notify/) ---
// A live seek lasts as long as the page; a correspondence seek (days per move) is kept by
// the server until it is paired or cancelled, and the page that comes back shows it.

const quick = document.querySelector("[data-quick]");
let seeking = null; // the button's { game, minutes, increment, days, casual } while waiting
if (quick && quick.dataset.waitingGame) {
  seeking = {
    game: quick.dataset.waitingGame, minutes: "0", increment: "0",
    days: quick.dataset.waitingDays, casual: "waitingCasual" in quick.dataset,
  };
}

async function post(url, fields) {
  const body = new FormData();
  body.append("csrfmiddlewaretoken", home.dataset.csrf);
  for (const [name, value] of Object.entries(fields)) body.append(name, value);
  const response = await fetch(url, { method: "POST", body, credentials: "same-origin" });
  return response.json();
}

function showSeeking(text) {
  quick.querySelector("#quick-waiting").hidden = !seeking;
  quick.querySelector("#quick-waiting-text").textContent = text || "";
  for (const button of quick.querySelectorAll("[data-quick-game]")) {
    const chosen = seeking && button.dataset.quickGame === seeking.game
      && button.dataset.quickMinutes === seeking.minutes && button.dataset.quickIncrement === seeking.increment
      && (button.dataset.quickDays || "0") === seeking.days;
    button.setAttribute("aria-pressed", String(Boolean(chosen)));
  }
}

function waitingText(choice) {
  const name = gameNames()[choice.game] || choice.game;
  if (choice.days !== "0") {
    // The same words as the home page's when the player comes back (games/_quick_games.html).
    const days = Number(choice.days);
    const parts = [format(ngettext(
      "Waiting for a correspondence game: %(name)s, %(days)s day per move.",
      "Waiting for a correspondence game: %(name)s, %(days)s days per move.", days), { name, days })];
    if (choice.casual) parts.push(gettext("Casual, no rating change."));
    parts.push(gettext("It stays open when you leave this page."));
    return parts.join(" ");
  }
  const clock = `${choice.minutes}+${choice.increment}`;
  return format(choice.casual
    ? gettext("Waiting for an opponent: %(name)s, %(clock)s, casual…")
    : gettext("Waiting for an opponent: %(name)s, %(clock)s…"), { name, clock });
}

async function seek(choice) {
  seeking = choice;
  showSeeking(waitingText(choice));
  const answer = await post(quick.dataset.seekUrl, {
    game: choice.game, minutes: choice.minutes, increment: choice.increment,
    days_per_move: choice.days, casual: choice.casual ? "1" : "",
  });
  if (answer.status === "paired") window.location.assign(answer.url);
  else if (answer.error) {
    seeking = null;
    showSeeking();
    document.getElementById("home-status").textContent = answer.message;
  }
}

if (quick) {
  const casual = quick.querySelector("#quick-casual");
  for (const button of quick.querySelectorAll("[data-quick-game]")) {
    button.addEventListener("click", () => seek({
      game: button.dataset.quickGame,
      minutes: button.dataset.quickMinutes,
      increment: button.dataset.quickIncrement,
      days: button.dataset.quickDays || "0",
      casual: casual.checked,
    }));
  }
  const cancel = quick.querySelector("#quick-cancel");
  cancel.addEventListener("click", async () => {
    // Still waiting until the server says the seek is gone: a pairing made before the cancel
    // reached it must still take the player to their game, not leave it to run out of time.
    cancel.disabled = true;
    try {
      await post(quick.dataset.cancelUrl, {});
      seeking = null;
      showSeeking();
    } finally {
      cancel.disabled = false;
    }
  });
  document.addEventListener("site:notify", (event) => {
    if (event.detail?.type === "paired" && seeking) window.location.assign(event.detail.url);
  });
  // The server drops a live seek when the page's socket closes; after a reconnect, seek again.
  // A correspondence seek is still there (seeking again would only restart its wait).
  document.addEventListener("site:notify-open", () => { if (seeking && seeking.days === "0") seek(seeking); });
}

// The "Your move" deadlines in the reader's local time, as the game page writes them.
localiseDeadlines(home || document);
