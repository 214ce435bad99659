// The replay page: the game's renderer, read-only, stepping through
// replay.positions (one engine view per ply) with buttons and arrow keys.

import { loadRenderer, readJson } from "./renderers.js";
import { playerName, resultText } from "./text.js";
import { format, gettext } from "../i18n.js";
import { setupAnalysis } from "./analysis.js";

const root = document.querySelector("[data-replay]");
const replay = readJson("replay-data");
const final = replay.snapshot;
const renderers = await loadRenderer(replay.game);
const renderer = renderers.createRenderer(root.querySelector("#board"), {
  play: () => {}, // a replay never sends anything
  lines: readJson("four-tac-toe-lines", []),
});
let ply = replay.moves.length;
const onShow = []; // the analysis graph follows the ply shown
let screenReader = null; // the screen-reader mode's log, when it is on

function snapshotAt(n) {
  return {
    ...final,
    ply: n,
    v: n,
    moves: replay.moves.slice(0, n),
    last_move: n > 0 ? replay.moves[n - 1] : null,
    position: replay.positions[n],
    status: n === replay.moves.length ? final.status : "active",
  };
}

function show(n) {
  ply = Math.max(0, Math.min(replay.moves.length, n));
  const snapshot = snapshotAt(ply);
  renderer.render({ snapshot, position: snapshot.position, you: null, canMove: false, showHints: false });
  const names = renderers.sideNames();
  root.querySelectorAll(".player").forEach((box) => {
    const side = Number(box.dataset.side);
    box.querySelector(".name").textContent = playerName(final, side);
    box.querySelector(".side-name").textContent = names[side];
    box.querySelector(".score").textContent = snapshot.position.score[side];
    box.classList.toggle("to-move", ply < replay.moves.length && snapshot.position.to_move === side);
  });
  root.querySelectorAll("#move-list li").forEach((item) => {
    const current = Number(item.dataset.ply) === ply - 1;
    item.classList.toggle("last", current);
    if (current) item.scrollIntoView({ block: "nearest" });
  });
  root.querySelector("#replay-position").textContent = format(gettext("Move %(ply)s of %(total)s"), { ply, total: replay.moves.length });
  const result = root.querySelector("#result");
  result.hidden = !(ply === replay.moves.length && final.result);
  result.textContent = final.result ? resultText(final, null) : "";
  root.querySelector("[data-step='first']").disabled = ply === 0;
  root.querySelector("[data-step='prev']").disabled = ply === 0;
  root.querySelector("[data-step='next']").disabled = ply === replay.moves.length;
  root.querySelector("[data-step='last']").disabled = ply === replay.moves.length;
  window.__replay = { ply, snapshot };
  const from = root.querySelector("#play-from");
  if (from) {
    // "Play from here" starts from the position shown, as the side to move unless chosen otherwise.
    from.querySelector("[name=ply]").value = ply;
    const over = Boolean(snapshot.position.outcome);
    if (!over) from.querySelector("[name=side]").value = String(snapshot.position.to_move);
    from.querySelector("button").disabled = over;
  }
  const boardLink = root.querySelector("#board-link");
  if (boardLink && replay.fens) boardLink.href = `${boardLink.dataset.base}?fen=${encodeURIComponent(replay.fens[ply])}`;
  onShow.forEach((listener) => listener(ply));
}

// Each step, said in the screen-reader mode's log: where we are and what was played.
function stepTo(n) {
  show(n);
  if (!screenReader) return;
  const total = replay.moves.length;
  const where = ply === 0
    ? format(gettext("Move %(ply)s of %(total)s"), { ply, total })
    : format(gettext("Move %(ply)s of %(total)s: %(move)s."), { ply, total, move: replay.moves[ply - 1] });
  screenReader.answer(ply === total && final.result ? [where, resultText(final, null)] : where, { reply: true });
}

// A position that is not in the game (the better move, from the analysis) with its move highlighted.
function showPosition(position, move) {
  const snapshot = { ...snapshotAt(ply), last_move: move, position, status: "active" };
  renderer.render({ snapshot, position, you: null, canMove: false, showHints: false });
}

function buildMoveList() {
  const list = root.querySelector("#move-list");
  replay.moves.forEach((token, index) => {
    const item = document.createElement("li");
    const button = document.createElement("button");
    button.type = "button";
    button.className = "link";
    button.textContent = token;
    button.addEventListener("click", () => stepTo(index + 1));
    item.dataset.ply = index;
    item.appendChild(button);
    list.appendChild(item);
  });
}

const steps = { first: () => 0, prev: () => ply - 1, next: () => ply + 1, last: () => replay.moves.length };
root.querySelectorAll("[data-step]").forEach((button) => {
  button.addEventListener("click", () => stepTo(steps[button.dataset.step]()));
});
document.addEventListener("keydown", (event) => {
  if (event.target.closest("input, textarea, select")) return;
  const keys = { ArrowLeft: "prev", ArrowRight: "next", Home: "first", End: "last" };
  // The board grid uses the arrow keys for its cursor; stepping is for everywhere else.
  if (keys[event.key] && !event.target.closest(".board-svg")) {
    stepTo(steps[keys[event.key]]());
    event.preventDefault();
  }
});

buildMoveList();
if (root.dataset.screenReader === "true") {
  const { setupScreenReader } = await import("./screen-reader.js");
  const go = (n) => {
    stepTo(n);
    return undefined; // stepTo says where it went
  };
  screenReader = setupScreenReader({
    root,
    renderer,
    lines: readJson("four-tac-toe-lines", []),
    state: () => snapshotAt(ply),
    commands: {
      next: () => go(ply + 1),
      back: () => go(ply - 1),
      start: () => go(0),
      end: () => go(replay.moves.length),
    },
    mirror: [],
  });
}
setupAnalysis({ root, replay, show, showPosition, onShow, names: [playerName(final, 0), playerName(final, 1)] });
show(ply);
