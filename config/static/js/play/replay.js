// The replay page: the game's renderer, read-only, stepping through the game's
// positions with buttons and arrow keys. The page carries the moves and one page of
// positions (replay.page_size plies each: a long Ataxx game has thousands); the
// others come from replay.positions_url as the viewer steps near them.

import { loadRenderer, readJson, rendererOptions } from "./renderers.js";
import { playerName, resultText, showName } from "./text.js";
import { format, gettext } from "../i18n.js";
import { setupAnalysis } from "./analysis.js";

const root = document.querySelector("[data-replay]");
const replay = readJson("replay-data");
const final = replay.snapshot;
const total = replay.moves.length;
const renderers = await loadRenderer(replay.game);
const renderer = renderers.createRenderer(root.querySelector("#board"), {
  play: () => {}, // a replay never sends anything
  ...rendererOptions(replay.game),
});
let ply = replay.start;
const onShow = []; // the analysis graph follows the ply shown
let screenReader = null; // the screen-reader mode's log, when it is on
let drawn = null; // the snapshot on the board (the one asked for may still be loading)

const pages = new Map(replay.pages.map((page) => [page.page, page])); // page number -> positions
const loading = new Map(); // page number -> the request under way
const pageOf = (n) => Math.floor(n / replay.page_size);
const lastPage = pageOf(total);

function pageAt(n) {
  return pages.get(pageOf(n));
}

function positionAt(n) {
  const page = pageAt(n);
  return page ? page.positions[n - page.from] : undefined;
}

// Fetch a page once. A game in play asks for the moves the page was made from: when
// they are not this page's (a takeback since), the page reloads, at the ply shown.
function load(index) {
  if (index < 0 || index > lastPage || pages.has(index)) return Promise.resolve();
  if (!loading.has(index)) {
    const url = new URL(replay.positions_url, window.location.href);
    url.searchParams.set("page", index);
    if (!replay.over) url.searchParams.set("moves", "1");
    const request = fetch(url, { headers: { Accept: "application/json" } })
      .then((response) => {
        if (!response.ok) throw new Error(`positions ${response.status}`);
        return response.json();
      })
      .then((page) => {
        if (page.moves && !fits(page)) {
          const here = new URL(window.location.href);
          here.searchParams.set("ply", ply);
          window.location.replace(here);
          return new Promise(() => {}); // the page is going
        }
        pages.set(page.page, page);
        return undefined;
      })
      .finally(() => loading.delete(index));
    loading.set(index, request);
  }
  return loading.get(index);
}

// A page of a game in play fits when it was made from this page's moves and covers its plies.
function fits(page) {
  const last = page.from + page.positions.length - 1;
  return last >= Math.min(total, page.from + replay.page_size - 1)
    && page.moves.slice(0, Math.min(last, total)).every((move, n) => move === replay.moves[n]);
}

// The pages on either side of the one shown, so that stepping rarely waits.
function prefetch(n) {
  const index = pageOf(n);
  for (const near of [index - 1, index + 1]) load(near).catch(() => {});
}

function snapshotAt(n) {
  return {
    ...final,
    ply: n,
    v: n,
    moves: replay.moves.slice(0, n),
    last_move: n > 0 ? replay.moves[n - 1] : null,
    position: positionAt(n),
    status: n === total ? final.status : "active",
  };
}

function showSteps() {
  root.querySelector("#replay-position").textContent = format(gettext("Move %(ply)s of %(total)s"), { ply, total });
  root.querySelector("[data-step='first']").disabled = ply === 0;
  root.querySelector("[data-step='prev']").disabled = ply === 0;
  root.querySelector("[data-step='next']").disabled = ply === total;
  root.querySelector("[data-step='last']").disabled = ply === total;
}

// Show ply n: at once when its page is here, else once it has come (unless the viewer
// has moved on meanwhile). The promise settles when the position is drawn.
function show(n) {
  ply = Math.max(0, Math.min(total, n));
  const wanted = ply;
  prefetch(wanted);
  if (positionAt(wanted)) {
    draw();
    return Promise.resolve();
  }
  showSteps();
  root.dataset.loading = "1";
  const error = root.querySelector("#replay-error");
  return load(pageOf(wanted)).then(
    () => {
      error.hidden = true;
      if (ply === wanted) draw();
    },
    () => {
      if (ply !== wanted) return;
      delete root.dataset.loading;
      error.hidden = false;
      error.textContent = gettext("This position could not be loaded. Step again to retry.");
    },
  );
}

function draw() {
  delete root.dataset.loading;
  const snapshot = snapshotAt(ply);
  renderer.render({ snapshot, position: snapshot.position, you: null, canMove: false, showHints: false });
  const names = renderers.sideNames();
  root.querySelectorAll(".player").forEach((box) => {
    const side = Number(box.dataset.side);
    showName(box.querySelector(".name"), final, side);
    box.querySelector(".side-name").textContent = names[side];
    box.querySelector(".score").textContent = snapshot.position.score[side];
    box.classList.toggle("to-move", ply < total && snapshot.position.to_move === side);
  });
  // The move just played is marked (two lookups: the list has thousands of moves in a long game).
  root.querySelectorAll("#move-list li.last").forEach((item) => item.classList.remove("last"));
  const current = root.querySelector(`#move-list li[data-ply="${ply - 1}"]`);
  if (current) {
    current.classList.add("last");
    current.scrollIntoView({ block: "nearest" });
  }
  const result = root.querySelector("#result");
  result.hidden = !(ply === total && final.result);
  result.textContent = final.result ? resultText(final, null) : "";
  showSteps();
  drawn = snapshot;
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
  const fens = pageAt(ply).fens;
  if (boardLink && fens) boardLink.href = `${boardLink.dataset.base}?fen=${encodeURIComponent(fens[ply - pageAt(ply).from])}`;
  onShow.forEach((listener) => listener(ply));
}

// Each step, said in the screen-reader mode's log (once drawn): where we are and what was played.
async function stepTo(n) {
  const drawn = show(n);
  const target = ply;
  await drawn;
  if (!screenReader || ply !== target || !positionAt(ply)) return;
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

const steps = { first: () => 0, prev: () => ply - 1, next: () => ply + 1, last: () => total };
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
    ...rendererOptions(replay.game),
    state: () => drawn,
    commands: {
      next: () => go(ply + 1),
      back: () => go(ply - 1),
      start: () => go(0),
      end: () => go(total),
    },
    mirror: [],
  });
}
setupAnalysis({ root, replay, show, showPosition, onShow, names: [playerName(final, 0), playerName(final, 1)] });
show(ply);
