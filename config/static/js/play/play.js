// The live board page: wires the socket (client.js), the game's renderer, the
// players' clocks, the move list, the buttons and the status line together.
// The move list and the step buttons show earlier positions (the live game goes
// on meanwhile); a move sent and not yet acknowledged stays marked on the board.

import { startChat } from "./chat.js";
import { GameClient } from "./client.js";
import { loadRenderer, readJson, rendererOptions } from "./renderers.js";
import { deadlineText, formatClock, playerName, resultText, setText, showName, turnText } from "./text.js";
import { format, gettext, ngettext } from "../i18n.js";
import { createAttention } from "./attention.js";
import { clockLeft, readClock } from "./clock.js";

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
let clockBase = { snapshot: initial, reading: readClock(initial.clock) };
// Looking back: the ply shown, or null for the live position. Positions are kept
// by the moves that led to them, so a takeback never shows a stale one.
let viewPly = null;
const positions = new Map();
const pagesLoading = new Map(); // page of earlier positions -> its request
// Per side, the rating change of the finished game ({before, after, delta}), once ratings applied it:
// in the snapshot of a page opened later, or pushed (a "ratings" message) to a page already open.
let ratingChanges = [null, null];

const attention = createAttention({
  icon: document.querySelector('link[rel="icon"]'),
  turnIconUrl: root.dataset.turnIcon,
  toggle: document.getElementById("notify-toggle"),
});

const renderers = await loadRenderer(initial.game);
const renderer = renderers.createRenderer($("#board"), {
  play: playMove,
  ...rendererOptions(initial.game),
});

const client = new GameClient(initial.id, { game: initial, you }, {
  onSnapshot: (snapshot, info) => {
    try {
      onSnapshot(snapshot, info);
    } finally {
      socketSpoke = true;
    }
  },
  onError,
  onPresence,
  onWatchers,
  onConnection,
  onPending,
  onResend,
  onRefused,
  onRedirect: (url) => goTo(url),
  onRatings,
});
const chat = startChat(client);

// For people using the browser console and for the browser tests: read-only views.
window.__game = {
  get snapshot() { return client.game; },
  get you() { return you; },
  get online() { return online; },
  get watchers() { return client.watchers; },
  get busy() { return client.busy; },
  get viewPly() { return viewPly; },
  client,
  chat,
  play: playMove,
};

// --- moves -----------------------------------------------------------------------------

// One navigation per page: the accepting player hears both the redirect and the
// rematch_started event, and a second assign() would abort the first.
let leavingFor = null;
function goTo(url) {
  if (leavingFor === url) return;
  leavingFor = url;
  window.location.assign(url);
}

function canMove(snapshot) {
  return snapshot.status === "active" && you !== null && you === snapshot.position.to_move;
}

function playMove(token) {
  const snapshot = client.game;
  if (you === null) return say(gettext("You are watching this game, not playing it."));
  if (viewPly !== null) {
    // A click on an earlier position is not a move: back to the live one first.
    goLive();
    return say(gettext("You were looking at an earlier position: this is the live one."));
  }
  if (snapshot.status === "waiting") return say(gettext("The game has not started yet."));
  if (snapshot.status !== "active") return say(gettext("The game is over."));
  if (client.busy) {
    // The previous move is still on its way: this one is not sent, and the player is told so.
    const sending = client.pending.message.move;
    if (!client.connected) {
      return moveNote(format(gettext("Connection lost: %(move)s was not played. Your move %(sending)s will be sent when the connection is back."), { move: token, sending }), { problem: true });
    }
    return moveNote(format(gettext("Still sending %(move)s: wait for it before the next move."), { move: sending }), { problem: true });
  }
  // Legality is the server's business: whatever it refuses comes back as an error message.
  client.move(token);
}

// --- snapshots and events ----------------------------------------------------------

function onSnapshot(snapshot, info) {
  const previous = info.previous;
  remember(snapshot);
  // A takeback below the position looked at ends the look back.
  if (viewPly !== null && viewPly >= snapshot.moves.length) viewPly = null;
  you = info.you;
  online = info.online;
  online.forEach((on, side) => { if (on) seen[side] = true; });
  clockBase = { snapshot, reading: readClock(snapshot.clock) };
  draw(snapshot);
  announce(snapshot, previous, info.event);
  if (previous && snapshot.v > previous.v) sound(snapshot, previous, info.event);
  if (leaving && snapshot.status !== "active") window.location.assign("/");
  // A rematch began (accepted here or on the other page): both players go to it.
  if (snapshot.rematch_url && info.event === "rematch_started" && you !== null) goTo(snapshot.rematch_url);
}

function draw(snapshot) {
  drawBoard(snapshot);
  root.dataset.status = snapshot.status;
  root.dataset.toMove = snapshot.position.to_move;
  drawPlayers(snapshot);
  drawMoves(snapshot);
  drawActions(snapshot);
  drawResult(snapshot);
  drawRatingChanges(snapshot);
  tickClocks();
  attention(snapshot, you);
}

function drawBoard(snapshot) {
  const host = $("#board");
  const looking = viewPly !== null;
  host.classList.toggle("history", looking);
  if (!looking) {
    renderer.render({
      snapshot,
      position: snapshot.position,
      you,
      canMove: canMove(snapshot),
      showHints: options.hints && canMove(snapshot),
    });
    renderer.board.markPending(client.pending ? cellsOf(client.pending.message.move) : []);
  } else {
    const moves = snapshot.moves.slice(0, viewPly);
    const position = positions.get(moves.join(" "));
    const shown = { ...snapshot, ply: viewPly, moves, last_move: moves.at(-1) ?? null, position, status: "active" };
    renderer.render({ snapshot: shown, position, you, canMove: false, showHints: false });
    renderer.board.markPending([]);
  }
  const total = snapshot.moves.length;
  const ply = looking ? viewPly : total;
  const note = $("#history-note");
  note.hidden = !looking;
  note.textContent = looking
    ? format(gettext("You are looking at move %(ply)s of %(total)s. The game goes on: the last button takes you back to the live position."), { ply, total })
    : "";
  $("#history-position").textContent = format(gettext("Move %(ply)s of %(total)s"), { ply, total });
  $('[data-step="first"]').disabled = ply === 0;
  $('[data-step="prev"]').disabled = ply === 0;
  $('[data-step="next"]').disabled = !looking;
  $('[data-step="last"]').disabled = !looking;
}

// The squares a move names: "d3", "b2c4" (Ataxx jump), "1-5" and "@3" (Quantum).
function cellsOf(token) {
  return (token.match(/[a-i]\d|\d/g) || []).filter((cell) => renderer.board.cell(cell));
}

// --- looking back ---------------------------------------------------------------------

function remember(snapshot) {
  positions.set(snapshot.moves.join(" "), snapshot.position);
}

// Earlier positions come from the replay's pages (the server's engine made them,
// replay.page_size plies each), keyed by the moves the server says made them; every
// snapshot seen afterwards adds its own.
function loadPage(index) {
  if (!pagesLoading.has(index)) {
    const url = new URL(root.dataset.positionsUrl, window.location.href);
    url.searchParams.set("page", index);
    url.searchParams.set("moves", "1");
    pagesLoading.set(index, (async () => {
      const response = await fetch(url, { credentials: "same-origin" });
      if (!response.ok) throw new Error(`positions: HTTP ${response.status}`);
      const page = await response.json();
      page.positions.forEach((position, n) => positions.set(page.moves.slice(0, page.from + n).join(" "), position));
    })().finally(() => pagesLoading.delete(index)));
  }
  return pagesLoading.get(index);
}

async function viewAt(n) {
  const snapshot = client.game;
  const total = snapshot.moves.length;
  const ply = Math.max(0, Math.min(total, n));
  if (ply === total) return goLive();
  const key = snapshot.moves.slice(0, ply).join(" ");
  if (!positions.has(key)) {
    try {
      await loadPage(Math.floor(ply / Number(root.dataset.pageSize)));
    } catch (error) {
      console.warn("earlier positions could not be loaded", error);
    }
  }
  if (!positions.has(key)) return say(gettext("That position could not be loaded."), { error: true });
  viewPly = ply;
  draw(client.game);
}

function goLive() {
  if (viewPly === null) return;
  viewPly = null;
  draw(client.game);
}

function step(name) {
  const at = viewPly ?? client.game.moves.length;
  if (name === "first") return viewAt(0);
  if (name === "prev") return viewAt(at - 1);
  if (name === "next") return viewAt(at + 1);
  return goLive();
}

// --- moves on their way ----------------------------------------------------------------

// The note under the status line about the player's own move: on its way, slow,
// not sent, refused. A refusal stays until the next move; the others go with the ack.
function moveNote(text, { problem = false, sticky = false } = {}) {
  const note = $("#move-note");
  note.hidden = !text;
  note.textContent = text || "";
  note.classList.toggle("problem", problem);
  note.dataset.sticky = sticky ? "1" : "";
}

// The squares are marked at once; the words only when the ack is slow (a note
// shown and hidden at every move would make the buttons below jump).
const SENDING_NOTE_AFTER_MS = 400;
let sendingNote = null;

function onPending(message, sent = true) {
  renderer.board.markPending(message && viewPly === null ? cellsOf(message.move) : []);
  clearTimeout(sendingNote);
  if (message && !sent) {
    moveNote(waitingNote(message), { problem: true });
  } else if (message) {
    moveNote(null);
    sendingNote = setTimeout(() => moveNote(format(gettext("Sending your move %(move)s…"), { move: message.move })), SENDING_NOTE_AFTER_MS);
  } else if (!$("#move-note").dataset.sticky) moveNote(null);
}

// A move clicked while there is no socket waits for it, and the player is told so (issue #37).
function waitingNote(message) {
  return format(gettext("Connection lost: your move %(move)s will be sent when the connection is back."), { move: message.move });
}

function onResend(message, waited, sent = true) {
  if (!sent) return moveNote(waitingNote(message), { problem: true });
  console.warn(`move ${message.move} (id ${message.id}): no ack after ${waited} ms, sent again`);
  moveNote(format(gettext("Your move %(move)s is slow to arrive: it was sent again."), { move: message.move }), { problem: true });
}

function onRefused(message, error) {
  console.warn(`move ${message.move} (id ${message.id}) refused: ${error.message || error.code}`);
  moveNote(format(gettext("Your move %(move)s was not played."), { move: message.move }), { problem: true, sticky: true });
}

// Who played each of the moves an event adds: the side to move before them, then
// the other side after each move (the renderer knows exceptions, e.g. Quantum's collapse).
function moversOf(snapshot, previous) {
  let mover = previous.position.to_move;
  return snapshot.moves.slice(previous.ply).map((token) => {
    const who = mover;
    mover = renderers.moverAfter ? renderers.moverAfter(token, mover) : 1 - mover;
    return [who, token];
  });
}

function turn(snapshot) {
  return renderers.turnHint?.(snapshot, you) || turnText(snapshot, you);
}

function announce(snapshot, previous, event) {
  const parts = [];
  if (event === "redo" && previous && snapshot.ply > previous.ply) {
    // Moves played again belong to both sides: list them, credit nobody.
    parts.push(format(gettext("Moves played again: %(moves)s."), { moves: snapshot.moves.slice(previous.ply).join(", ") }));
  } else if (event !== "undo" && previous && snapshot.ply > previous.ply && snapshot.last_move) {
    for (const [mover, token] of moversOf(snapshot, previous)) {
      const name = playerName(snapshot, mover);
      // A game may word its own moves (Quantum's "@5" is a collapse choice, not a square played).
      parts.push(renderers.playedText?.(name, token) || format(gettext("%(name)s played %(move)s."), { name, move: token }));
    }
  }
  const messages = {
    start: gettext("The game has started."),
    draw_declined: gettext("The draw offer was declined."),
    draw_lapsed: gettext("The draw offer lapsed."),
    undo: gettext("Moves taken back."),
    rematch_declined: gettext("The rematch was declined."),
    rematch_cancelled: gettext("The rematch offer was withdrawn."),
    rematch_lapsed: gettext("The rematch offer lapsed."),
    rematch_started: gettext("The rematch has started."),
    takeback: gettext("Moves taken back."),
    takeback_declined: gettext("The takeback request was declined."),
  };
  if (messages[event]) parts.push(messages[event]);
  if (event === "draw_offer" && snapshot.draw_offer !== null) {
    parts.push(snapshot.draw_offer === you
      ? gettext("You offered a draw.")
      : format(gettext("%(name)s offers a draw."), { name: playerName(snapshot, snapshot.draw_offer) }));
  }
  if (event === "rematch_offer" && snapshot.rematch_offer !== null) {
    parts.push(snapshot.rematch_offer === you
      ? gettext("You offered a rematch.")
      : format(gettext("%(name)s offers a rematch."), { name: playerName(snapshot, snapshot.rematch_offer) }));
  }
  if (event === "takeback_request" && snapshot.takeback !== null) {
    parts.push(snapshot.takeback === you
      ? gettext("You asked to take back your last move.")
      : format(gettext("%(name)s asks to take back their last move."), { name: playerName(snapshot, snapshot.takeback) }));
  }
  // The result itself is announced by its own live region (#result).
  parts.push(snapshot.result ? gettext("Game over.") : turn(snapshot));
  say(parts.join(" "));
}

// Whether a snapshot from the socket has been shown since the page loaded.
let socketSpoke = false;

function say(text, { error = false } = {}) {
  const status = $("#status");
  // The socket's first state repeats what the page said when it loaded ("Your move."),
  // however late it arrives, and a live region (the screen-reader log too) would say it
  // twice: until the socket has spoken, a repeat is left out. After it, a repeat is news
  // (a new turn), and so is a refusal, every time.
  if (!socketSpoke && !error && !status.classList.contains("error") && status.textContent === text) return;
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
      say(`${gettext("The game has started.")} ${turn(snapshot)}`);
    }
    return;
  }
  say(message.online
    ? format(gettext("%(name)s is back."), { name })
    : format(gettext("%(name)s disconnected."), { name }));
}

function onWatchers(count) {
  const line = $("#watchers");
  line.hidden = !count;
  line.textContent = format(ngettext("%(count)s watching", "%(count)s watching", count), { count });
}

// A connection lost for a moment (a server restart, a reconnect) is not worth a
// banner; one gone for LOST_BANNER_AFTER_MS is (issue #37).
const LOST_BANNER_AFTER_MS = 3000;
let lostBanner = null;

function onConnection(state) {
  const banner = $("#connection-banner");
  if (state === "gone") {
    clearTimeout(lostBanner);
    banner.textContent = gettext("This game no longer exists.");
    banner.hidden = false;
  } else if (state === "open") {
    clearTimeout(lostBanner);
    lostBanner = null;
    banner.hidden = true;
    // A move that waited for the socket has just been sent again (client.js, onOpen).
    if (client.pending) onPending(client.pending.message, true);
  } else if (lostBanner === null && banner.hidden) {
    lostBanner = setTimeout(() => { banner.hidden = false; }, LOST_BANNER_AFTER_MS);
  }
  root.dataset.connection = state;
}

// --- the side panel ---------------------------------------------------------------------

function drawPlayers(snapshot) {
  const names = renderers.sideNames();
  for (const side of [0, 1]) {
    const box = $(`.player[data-side="${side}"]`);
    const player = snapshot.players[side];
    showName(box.querySelector(".name"), snapshot, side);
    box.querySelector(".side-name").textContent = names[side];
    box.querySelector(".score").textContent = snapshot.position.score[side];
    box.classList.toggle("to-move", snapshot.status === "active" && snapshot.position.to_move === side);
    box.classList.toggle("is-you", you === side);
    box.querySelector(".you-tag").hidden = you !== side;
    const away = player && player.kind !== "computer" && snapshot.status === "active" && !online[side];
    box.querySelector(".presence").textContent = away ? gettext("disconnected") : "";
  }
}

// Each move is a button: it shows the position after that move.
function drawMoves(snapshot) {
  const list = $("#move-list");
  list.replaceChildren();
  snapshot.moves.forEach((token, ply) => {
    const item = document.createElement("li");
    const button = document.createElement("button");
    button.type = "button";
    button.className = "link";
    button.textContent = token;
    button.addEventListener("click", () => viewAt(ply + 1));
    item.appendChild(button);
    item.dataset.ply = ply;
    if (ply === snapshot.moves.length - 1) item.classList.add("last");
    if (viewPly !== null && ply === viewPly - 1) {
      item.classList.add("viewed");
      button.setAttribute("aria-current", "step");
    }
    list.appendChild(item);
  });
  const viewed = list.querySelector(".viewed");
  if (viewed) viewed.scrollIntoView({ block: "nearest" });
  else list.scrollTop = list.scrollHeight;
  for (const help of $$("[data-help]")) help.hidden = (help.dataset.help === "spectator") !== (you === null);
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
    // Takeback requests between people (docs/protocol.md): the server refuses what the rules forbid.
    propose_takeback: player && active && human && snapshot.takeback === null && snapshot.ply > 0,
    accept_takeback: player && active && human && snapshot.takeback !== null && snapshot.takeback !== you,
    decline_takeback: player && active && human && snapshot.takeback !== null && snapshot.takeback !== you,
    undo: player && active && !human && snapshot.ply > 0,
    redo: player && active && !human && snapshot.can_redo,
    new_game: player && !human,
    ...rematchButtons(snapshot, player && human),
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
  $("#rematch-pending").hidden = !show.cancel_rematch;
  const takeback = snapshot.takeback ?? null;
  $("#takeback-pending").hidden = !(player && active && takeback !== null && takeback === you);
  $("#takeback-asked").hidden = !(player && active && takeback !== null && takeback !== you);
  const takebackWait = player && snapshot.takeback_wait ? snapshot.takeback_wait[you] : 0;
  $('[data-action="propose_takeback"]').disabled = takebackWait > 0;
  $("#invite").hidden = snapshot.status !== "waiting";
  $("#after-game").hidden = active || snapshot.status === "waiting";
}

// A rematch is offered once a game between people has finished, until it has begun.
function rematchButtons(snapshot, humanPlayer) {
  const open = humanPlayer && snapshot.status === "finished" && !snapshot.rematch_url;
  const offer = snapshot.rematch_offer;
  return {
    rematch: open && offer === null,
    accept_rematch: open && offer !== null && offer !== you,
    decline_rematch: open && offer !== null && offer !== you,
    cancel_rematch: open && offer === you,
  };
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

function onRatings(message) {
  if (!Array.isArray(message.changes)) return;
  ratingChanges = message.changes;
  if (client.game) drawRatingChanges(client.game);
}

function signedChange(delta) {
  if (delta > 0) return `+${delta}`;
  return delta < 0 ? `\u2212${-delta}` : "\u00b10";
}

// The game-over panel says each player's rating before and after and the change, as lichess
// does; the player line gets the change beside the rating it showed during the game.
function drawRatingChanges(snapshot) {
  if (Array.isArray(snapshot.rating_changes) && snapshot.rating_changes.some(Boolean)) {
    ratingChanges = snapshot.rating_changes;
  }
  const panel = $("#rating-changes");
  const over = snapshot.status === "finished";
  const any = over && ratingChanges.some(Boolean);
  if (panel) {
    panel.hidden = !any;
    panel.replaceChildren();
  }
  if (!any) return;
  for (const side of [0, 1]) {
    const shift = ratingChanges[side];
    if (!shift) continue;
    const kind = shift.delta > 0 ? "up" : shift.delta < 0 ? "down" : "same";
    if (panel) {
      const line = document.createElement("span");
      line.className = "rating-change-line";
      line.dataset.side = side;
      line.textContent = format(gettext("%(name)s: %(before)s → %(after)s (%(change)s)"), {
        name: playerName(snapshot, side), before: shift.before, after: shift.after, change: signedChange(shift.delta),
      });
      panel.appendChild(line);
    }
    const who = $(`.player[data-side="${side}"] .who`);
    if (!who) continue;
    if (!who.querySelector(".player-rating")) {
      // A first rated game: the line showed no rating during the game.
      const rating = document.createElement("span");
      rating.className = "player-rating";
      rating.textContent = String(shift.before);
      who.querySelector(".name").after(rating);
    }
    let badge = who.querySelector(".rating-change");
    if (!badge) {
      badge = document.createElement("span");
      who.querySelector(".player-rating").after(" ", badge);
    }
    badge.className = `rating-change ${kind}`;
    badge.title = gettext("Rating change in this game");
    badge.textContent = signedChange(shift.delta);
  }
}

// --- clocks -------------------------------------------------------------------------------

function tickClocks() {
  const { snapshot, reading } = clockBase;
  const clock = snapshot.clock;
  const active = snapshot.status === "active";
  for (const side of [0, 1]) {
    const node = $(`.player[data-side="${side}"] .clock`);
    if (!clock.timed) {
      setText(node, "");
      continue;
    }
    const left = clockLeft(reading, side, active);
    setText(node, formatClock(left));  // five ticks a second; the text changes far less often
    node.classList.toggle("low", left < 20000);
    node.classList.toggle("running", clock.running === side && active);
  }
  const deadline = $("#deadline");
  if (deadline) {
    const running = snapshot.status === "active" && clock.days_per_move && clock.running !== null;
    deadline.hidden = !running;
    if (running) {
      const left = clockLeft(reading, clock.running, true);
      const text = deadlineText(snapshot, you, Date.now() + left, left);
      // Rewritten only when it changes: the tick runs often, and the line should not flicker for a reader.
      setText(deadline, text);
    }
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
  // The skip link lands on the board itself, ready for the arrow keys.
  document.querySelector("[data-skip-board]")?.addEventListener("click", (event) => {
    event.preventDefault();
    renderer.board.focus();
  });
  for (const button of $$("[data-step]")) button.addEventListener("click", () => step(button.dataset.step));
  document.addEventListener("keydown", (event) => {
    // The board grid uses the arrow keys for its cursor; stepping is for everywhere else.
    if (event.target.closest("input, textarea, select, dialog, .board-svg")) return;
    const keys = { ArrowLeft: "prev", ArrowRight: "next" };
    if (!keys[event.key] || event.altKey || event.ctrlKey || event.metaKey) return;
    step(keys[event.key]);
    event.preventDefault();
  });
  const flip = $("#flip-board");
  const flipKey = `flipped:${initial.id}`;
  const setFlipped = (flipped) => {
    renderer.board.setFlipped(flipped);
    flip.setAttribute("aria-pressed", String(flipped));
    try {
      if (flipped) sessionStorage.setItem(flipKey, "1");
      else sessionStorage.removeItem(flipKey);
    } catch { /* storage refused: the board still turns */ }
  };
  flip.addEventListener("click", () => setFlipped(flip.getAttribute("aria-pressed") !== "true"));
  try {
    if (sessionStorage.getItem(flipKey)) setFlipped(true);
  } catch { /* storage refused */ }
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

// --- the screen-reader mode's commands (screen-reader.js) -------------------------------

function clockText(snapshot) {
  if (!snapshot.clock.timed) return gettext("This game has no clock.");
  return [0, 1].map((side) => {
    const left = $(`.player[data-side="${side}"] .clock`).textContent;
    return format(gettext("%(name)s: %(time)s left."), { name: playerName(snapshot, side), time: left });
  });
}

// The page's own buttons, so resigning asks first as it does for a click.
function press(...actions) {
  const button = actions.map((a) => $(`[data-action="${a}"]`)).find((b) => b && !b.hidden && !b.disabled);
  if (!button) return gettext("That is not possible now.");
  button.click();
  return undefined;
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
if (root.dataset.screenReader === "true") {
  const { setupScreenReader } = await import("./screen-reader.js");
  setupScreenReader({
    root,
    renderer,
    ...rendererOptions(initial.game),
    state: () => client.game,
    move: playMove,
    commands: {
      clock: () => clockText(client.game),
      resign: () => press("resign"),
      draw: () => press("accept_draw", "offer_draw"),
    },
    mirror: [$("#status"), $("#result"), $("#move-note")],
  });
}
remember(initial);
draw(initial);
say(initial.result ? gettext("Game over.") : turn(initial));
setInterval(tickClocks, 200);
