// The free analysis board: moves for both sides go to the server (which knows the
// rules) and come back as a position; "Evaluate" asks the analysis worker and
// polls for its answer. Everything from the server becomes text, never HTML.

import { loadRenderer, readJson, rendererOptions } from "./renderers.js";
import { format, gettext } from "../i18n.js";

const root = document.querySelector("[data-analysis-board]");
const slug = root.dataset.game;
const renderers = await loadRenderer(slug);
const names = renderers.sideNames();
const renderer = renderers.createRenderer(root.querySelector("#board"), {
  play: (token) => playMove(token),
  ...rendererOptions(slug),
});
const fenInput = root.querySelector("#fen-input");
const errorBox = root.querySelector("#board-error");
const evaluation = root.querySelector("#evaluation");
const passButton = root.querySelector("#board-pass");
const start = readJson("board-start");
let current = { fen: start.fen, position: start.position, last: null };
const history = []; // earlier positions, for "Take back"
let busy = false;
let asked = null; // the FEN whose evaluation is awaited
let screenReader = null; // the screen-reader mode's log, when it is on

function draw() {
  const position = current.position;
  const snapshot = { game: slug, status: "active", v: history.length, ply: history.length, last_move: current.best || current.last, position, players: [null, null] };
  renderer.render({ snapshot, position, you: position.to_move, canMove: !position.outcome, showHints: true });
  fenInput.value = current.fen;
  root.querySelector("#board-to-move").textContent = position.outcome
    ? gettext("The game is over in this position.")
    : format(gettext("%(side)s to move."), { side: names[position.to_move] });
  passButton.hidden = !position.legal_moves.some((move) => move === "pass" || move === "0000");
  root.querySelector("#board-back").disabled = history.length === 0;
  root.querySelector("#evaluate").disabled = Boolean(position.outcome);
  window.__board = { fen: current.fen, position };
}

function fail(message) {
  errorBox.hidden = false;
  errorBox.textContent = message;
}

async function post(url, fields) {
  const body = new URLSearchParams(fields);
  const response = await fetch(url, {
    method: "POST", body, credentials: "same-origin",
    headers: { Accept: "application/json", "X-CSRFToken": root.dataset.csrf },
  });
  const data = await response.json().catch(() => ({}));
  return { ok: response.ok, data };
}

async function load(fen, moves, last) {
  if (busy) return;
  busy = true;
  try {
    const { ok, data } = await post(root.dataset.positionUrl, { fen, moves: moves.join(" ") });
    if (!ok) return fail(data.error || gettext("That position could not be set up."));
    errorBox.hidden = true;
    if (last !== undefined) history.push(current);
    current = { fen: data.fen, position: data.position, last: last ?? null };
    evaluation.textContent = "";
    asked = null;
    draw();
    if (last) screenReader?.answer(format(gettext("Played %(move)s. %(next)s"), { move: last, next: root.querySelector("#board-to-move").textContent }), { reply: true });
  } finally {
    busy = false;
  }
}

function playMove(token) {
  if (current.position.outcome) return;
  load(current.fen, [token], token);
}

function describe(result) {
  // The engine's scale is -1..+1 for the first side; people read a chance as 0-100 %.
  const percent = Math.round(((Math.max(-1, Math.min(1, result.chances)) + 1) / 2) * 100);
  const parts = [format(gettext("Winning chances for %(side)s: %(chances)s"), { side: names[0], chances: `${percent} %` })];
  if (result.exact !== null && result.exact !== undefined) {
    // Name the side that finishes ahead: a disc count is never negative.
    if (result.exact === 0) parts.push(gettext("Exact: a draw with perfect play."));
    else parts.push(format(gettext("Exact: %(side)s finishes %(diff)s discs ahead."), {
      side: names[result.exact > 0 ? 0 : 1], diff: Math.abs(result.exact),
    }));
  }
  if (result.best) parts.push(format(gettext("Best move: %(move)s; the line that follows: %(line)s"), { move: result.best, line: result.line.join(" ") }));
  return parts.join(" ");
}

async function evaluate() {
  const fen = current.fen;
  asked = fen;
  evaluation.textContent = gettext("Evaluating…");
  let { ok, data } = await post(root.dataset.evaluateUrl, { fen });
  while (ok && data.status === "pending" && asked === fen) {
    await new Promise((resolve) => setTimeout(resolve, 500));
    const response = await fetch(`${root.dataset.evaluateUrl}?fen=${encodeURIComponent(fen)}`, { credentials: "same-origin", headers: { Accept: "application/json" } });
    ok = response.ok;
    data = await response.json().catch(() => ({}));
  }
  if (asked !== fen) return; // the board moved on meanwhile
  if (!ok) {
    evaluation.textContent = data.error || gettext("The evaluation could not be made.");
    return;
  }
  evaluation.textContent = describe(data);
  current.best = data.best; // the best move is highlighted on the board as a move is
  draw();
  window.__board.evaluation = data;
}

root.querySelector("#fen-form").addEventListener("submit", (event) => {
  event.preventDefault();
  history.length = 0;
  load(fenInput.value, [], null);
});
root.querySelector("#board-back").addEventListener("click", () => {
  if (!history.length) return;
  current = history.pop();
  evaluation.textContent = "";
  asked = null;
  draw();
});
root.querySelector("#board-reset").addEventListener("click", () => { history.length = 0; load("", [], null); });
passButton.addEventListener("click", () => playMove(current.position.legal_moves.find((m) => m === "pass" || m === "0000")));
root.querySelector("#evaluate").addEventListener("click", evaluate);
if (root.dataset.screenReader === "true") {
  const { setupScreenReader } = await import("./screen-reader.js");
  const click = (selector) => {
    const button = root.querySelector(selector);
    if (button.hidden || button.disabled) return gettext("That is not possible now.");
    button.click();
    return selector === "#board-back" ? [gettext("Taken back."), root.querySelector("#board-to-move").textContent] : undefined;
  };
  screenReader = setupScreenReader({
    root,
    renderer,
    ...rendererOptions(slug),
    state: () => ({ position: current.position, moves: [...history.map((h) => h.last), current.last].filter(Boolean), last_move: current.last }),
    move: playMove,
    commands: {
      back: () => click("#board-back"),
      evaluate: () => click("#evaluate"),
      pass: () => click("#board-pass"),
    },
    mirror: [evaluation, errorBox],
  });
}
draw();
