// The live board page: wires the socket (client.js), the game's renderer, the
// players' clocks, the move list, the buttons and the status line together.

import { startChat } from "./chat.js";
import { GameClient } from "./client.js";
import { loadRenderer, readJson } from "./renderers.js";
import { formatClock, playerName, resultText, turnText } from "./text.js";
import { format, gettext, ngettext } from "../i18n.js";

const root = document.querySelector("[data-play]");
const $ = (selector) => root.querySelector(selector);
const $$ = (selector) => Array.from(root.querySelectorAll(selector));

const initial = readJson("game-snapshot");
const options = {
  hints: root.dataset.hints === "true",
  sound: root.dataset.sound === "true",
};
let you = initial.you;
let online = [true, true];
// Whether each player has been online since this page opened: the first time the
// opponent's socket opens (they just joined) is not "back".
const seen = [false, false];
let leaving = false; // set after "exit": the page goes home once the game has ended
let clockBase = { snapshot: initial, receivedAt: performance.now() };

const renderers = await loadRenderer(initial.game);
const renderer = renderers.createRenderer($("#board"), {
  play: playMove,
  lines: readJson("four-tac-toe-lines", []),
});

const client = new GameClient(initial.id, { game: initial, you }, {
  onSnapshot,
  onError,
  onPresence,
  onConnection,
  onRedirect: (url) => window.location.assign(url),
});
const chat = startChat(client);

// For people using the browser console and for the browser tests: read-only views.
window.__game = {
  get snapshot() { return client.game; },
  get you() { return you; },
  get online() { return online; },
  get busy() { return client.busy; },
  client,
  chat,
  play: playMove,
};

// --- moves -----------------------------------------------------------------------------

function canMove(snapshot) {
  return snapshot.status === "active" && you !== null && you === snapshot.position.to_move;
}

function playMove(token) {
  const snapshot = client.game;
  if (you === null) return say(gettext("You are watching this game, not playing it."));
  if (snapshot.status === "waiting") return say(gettext("The game has not started yet."));
  if (snapshot.status !== "active") return say(gettext("The game is over."));
  if (client.busy) return; // the previous move is still on its way
  // Legality is the server's business: whatever it refuses comes back as an error message.
  client.move(token);
}

// --- snapshots and events ----------------------------------------------------------

function onSnapshot(snapshot, info) {
  const previous = info.previous;
  you = info.you;
  online = info.online;
  online.forEach((on, side) => { if (on) seen[side] = true; });
  clockBase = { snapshot, receivedAt: performance.now() };
  draw(snapshot);
  announce(snapshot, previous, info.event);
  if (previous && snapshot.v > previous.v) sound(snapshot, previous, info.event);
  if (leaving && snapshot.status !== "active") window.location.assign("/");
}

function draw(snapshot) {
  renderer.render({
    snapshot,
    position: snapshot.position,
    you,
    canMove: canMove(snapshot),
    showHints: options.hints && canMove(snapshot),
  });
  root.dataset.status = snapshot.status;
  root.dataset.toMove = snapshot.position.to_move;
  drawPlayers(snapshot);
  drawMoves(snapshot);
  drawActions(snapshot);
  drawResult(snapshot);
  tickClocks();
}

function announce(snapshot, previous, event) {
  const parts = [];
  if (previous && snapshot.ply > previous.ply && snapshot.last_move) {
    const mover = previous.position.to_move;
    parts.push(format(gettext("%(name)s played %(move)s."), { name: playerName(snapshot, mover), move: snapshot.last_move }));
  }
  const messages = {
    start: gettext("The game has started."),
    draw_declined: gettext("The draw offer was declined."),
    draw_lapsed: gettext("The draw offer lapsed."),
    undo: gettext("Moves taken back."),
    redo: gettext("Moves played again."),
  };
  if (messages[event]) parts.push(messages[event]);
  if (event === "draw_offer" && snapshot.draw_offer !== null) {
    parts.push(snapshot.draw_offer === you
      ? gettext("You offered a draw.")
      : format(gettext("%(name)s offers a draw."), { name: playerName(snapshot, snapshot.draw_offer) }));
  }
  // The result itself is announced by its own live region (#result).
  parts.push(snapshot.result ? gettext("Game over.") : turnText(snapshot, you));
  say(parts.join(" "));
}

function say(text, { error = false } = {}) {
  const status = $("#status");
  status.textContent = text;
  status.classList.toggle("error", error);
}

function onError(message) {
  say(message.message || gettext("That did not work."), { error: true });
  $("#board").classList.remove("refused");
  void $("#board").offsetWidth;
  $("#board").classList.add("refused");
}

function onPresence(message, now) {
  online = now;
  drawPlayers(client.game);
  const snapshot = client.game;
  const name = playerName(snapshot, message.side);
  if (message.online && !seen[message.side]) {
    seen[message.side] = true;
    // The opponent just joined (their page opened after the "start" event): keep
    // telling the player the game started and whose move it is.
    if (snapshot.status === "active" && snapshot.ply === 0) {
      say(`${gettext("The game has started.")} ${turnText(snapshot, you)}`);
    }
    return;
  }
  say(message.online
    ? format(gettext("%(name)s is back."), { name })
    : format(gettext("%(name)s disconnected."), { name }));
}

function onConnection(state) {
  const banner = $("#connection-banner");
  if (state === "gone") {
    banner.textContent = gettext("This game no longer exists.");
    banner.hidden = false;
  } else {
    banner.hidden = state === "open";
  }
  root.dataset.connection = state;
}

// --- the side panel ---------------------------------------------------------------------

function drawPlayers(snapshot) {
  const names = renderers.sideNames();
  for (const side of [0, 1]) {
    const box = $(`.player[data-side="${side}"]`);
    const player = snapshot.players[side];
    box.querySelector(".name").textContent = playerName(snapshot, side);
    box.querySelector(".side-name").textContent = names[side];
    box.querySelector(".score").textContent = snapshot.position.score[side];
    box.classList.toggle("to-move", snapshot.status === "active" && snapshot.position.to_move === side);
    box.classList.toggle("is-you", you === side);
    const away = player && player.kind !== "computer" && snapshot.status === "active" && !online[side];
    box.querySelector(".presence").textContent = away ? gettext("disconnected") : "";
  }
}

function drawMoves(snapshot) {
  const list = $("#move-list");
  list.replaceChildren();
  snapshot.moves.forEach((token, ply) => {
    const item = document.createElement("li");
    item.textContent = token;
    item.dataset.ply = ply;
    if (ply === snapshot.moves.length - 1) item.classList.add("last");
    list.appendChild(item);
  });
  list.scrollTop = list.scrollHeight;
}

function drawActions(snapshot) {
  const player = you !== null;
  const active = snapshot.status === "active";
  const human = snapshot.kind !== "computer";
  const offer = snapshot.draw_offer;
  const show = {
    resign: player && active,
    exit: player && active,
    abort: player && active && snapshot.ply < 2,
    offer_draw: player && active && human && offer === null,
    accept_draw: player && active && human && offer !== null && offer !== you,
    decline_draw: player && active && human && offer !== null && offer !== you,
    undo: player && active && !human && snapshot.ply > 0,
    redo: player && active && !human && snapshot.can_redo,
    new_game: player && !human,
  };
  for (const button of $$("[data-action]")) button.hidden = !show[button.dataset.action];
  // After a declined offer a player waits some plies before offering again: say how many.
  const wait = player && snapshot.draw_wait ? snapshot.draw_wait[you] : 0;
  const offerButton = $('[data-action="offer_draw"]');
  offerButton.disabled = wait > 0;
  const waitNote = $("#draw-wait");
  waitNote.hidden = !(show.offer_draw && wait > 0);
  waitNote.textContent = wait > 0
    ? format(ngettext("Your draw offer was declined: you can offer again after %(count)s more move.",
      "Your draw offer was declined: you can offer again after %(count)s more moves.", wait), { count: wait })
    : "";
  $("#draw-pending").hidden = !(active && offer !== null && offer === you);
  $("#invite").hidden = snapshot.status !== "waiting";
  $("#after-game").hidden = active || snapshot.status === "waiting";
}

function drawResult(snapshot) {
  const result = $("#result");
  result.hidden = !snapshot.result;
  result.textContent = snapshot.result ? resultText(snapshot, you) : "";
  if (!snapshot.result) return;
  const { winner, reason } = snapshot.result;
  result.dataset.reason = reason;
  result.dataset.winner = winner ?? "none";
  // Coloured from this viewer's side: a win is yellow, a loss red, a draw blue (as in the history).
  let outcome = "win";
  if (snapshot.status === "aborted") outcome = "none";
  else if (winner === null) outcome = "draw";
  else if (you === 1 - winner) outcome = "loss";
  result.dataset.outcome = outcome;
}

// --- clocks -------------------------------------------------------------------------------

function tickClocks() {
  const { snapshot, receivedAt } = clockBase;
  const clock = snapshot.clock;
  // Count from the server's "at" when the two clocks roughly agree (that corrects
  // for the time the message travelled); otherwise from when it arrived here.
  const skew = Date.now() - clock.at;
  const travelled = skew >= 0 && skew < 5000 ? skew : 0;
  const elapsed = performance.now() - receivedAt + travelled;
  for (const side of [0, 1]) {
    const node = $(`.player[data-side="${side}"] .clock`);
    if (!clock.timed) {
      node.textContent = "";
      continue;
    }
    const left = clock.ms[side] - (clock.running === side && snapshot.status === "active" ? elapsed : 0);
    node.textContent = formatClock(left);
    node.classList.toggle("low", left < 20000);
    node.classList.toggle("running", clock.running === side && snapshot.status === "active");
  }
}

// --- buttons ---------------------------------------------------------------------------

function bindActions() {
  for (const button of $$("[data-action]")) {
    button.addEventListener("click", () => {
      const action = button.dataset.action;
      const dialog = document.getElementById(`confirm-${action}`);
      if (dialog && needsConfirmation(action, client.game)) return dialog.showModal();
      client.command(action);
    });
  }
  for (const dialog of document.querySelectorAll("dialog[data-confirms]")) {
    dialog.addEventListener("close", () => {
      if (dialog.returnValue !== "confirm") return;
      const action = dialog.dataset.confirms;
      if (action === "exit") leaving = true;
      client.command(action);
    });
  }
  $("#copy-invite")?.addEventListener("click", copyInvite);
  $("#hints-toggle").checked = options.hints;
  $("#sound-toggle").checked = options.sound;
  $("#hints-toggle").addEventListener("change", (event) => {
    options.hints = event.target.checked;
    draw(client.game);
  });
  $("#sound-toggle").addEventListener("change", (event) => {
    options.sound = event.target.checked;
  });
}

// "New game" only asks while this game still runs: it will be resigned (a loss),
// or aborted before both sides have moved; the dialog says which.
function needsConfirmation(action, snapshot) {
  if (action !== "new_game") return true;
  if (snapshot.status !== "active") return false;
  const resigns = snapshot.ply >= 2;
  document.getElementById("confirm-new_game-resign").hidden = !resigns;
  document.getElementById("confirm-new_game-abort").hidden = resigns;
  return true;
}

async function copyInvite() {
  const input = $("#invite-url");
  try {
    await navigator.clipboard.writeText(input.value);
  } catch {
    input.select(); // no clipboard permission: leave it selected for Ctrl+C
    document.execCommand?.("copy");
  }
  say(gettext("Invite link copied."));
}

// --- sound ---------------------------------------------------------------------------------

function sound(snapshot, previous, event) {
  if (!options.sound) return;
  let name = null;
  if (snapshot.status !== "active" && previous.status === "active") name = "end";
  else if (snapshot.ply > previous.ply) {
    const mover = previous.position.to_move;
    const [before, after] = [previous.position.score, snapshot.position.score];
    // Disc games count pieces, so a capture is the opponent losing some; line games score points.
    const captured = renderers.scoreIsCount ? after[1 - mover] < before[1 - mover] : after[mover] > before[mover];
    if (captured) name = "capture";
    else name = you !== null && canMove(snapshot) ? "turn" : "move";
  } else if (event === "start" && canMove(snapshot)) name = "turn";
  const url = name && root.dataset[`sound${name[0].toUpperCase()}${name.slice(1)}`];
  if (url) new Audio(url).play().catch(() => {}); // autoplay may be refused until the first click
}

bindActions();
draw(initial);
say(initial.result ? gettext("Game over.") : turnText(initial, you));
setInterval(tickClocks, 200);
