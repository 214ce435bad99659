// The computer analysis on the replay page: the Analyse button, live progress
// (the notification socket for registered players, polling of analysis.json
// otherwise), the evaluation graph, the per-player summary and the marked moves
// with the better move. Everything from the server becomes text, never HTML.

import { format, gettext, ngettext } from "../i18n.js";

const SVG = "http://www.w3.org/2000/svg";
const WIDTH = 300;
const HEIGHT = 100;
const MARKS = { inaccuracy: "?!", mistake: "?", blunder: "??" };
const KIND_NAMES = () => ({
  inaccuracy: gettext("Inaccuracy"),
  mistake: gettext("Mistake"),
  blunder: gettext("Blunder"),
});
// Every move's label (games/ai/analysis.py LABELS); the errors also keep their marks.
const LABEL_NAMES = () => ({
  best: gettext("Best"),
  excellent: gettext("Excellent"),
  good: gettext("Good"),
  forced: gettext("Forced"),
  ...KIND_NAMES(),
});
const PHASES = ["opening", "middle", "end"];

// Winning chances -1..+1 (for the first player) as a percentage for one side: 0-100, never negative.
function percentFor(chances, side) {
  const first = ((Math.max(-1, Math.min(1, chances)) + 1) / 2) * 100;
  return Math.round(side === 0 ? first : 100 - first);
}

function svg(tag, attrs, parent) {
  const el = document.createElementNS(SVG, tag);
  Object.entries(attrs).forEach(([name, value]) => el.setAttribute(name, String(value)));
  if (parent) parent.appendChild(el);
  return el;
}

export function setupAnalysis({ root, replay, show, showPosition, onShow, names }) {
  const box = root.querySelector("#analysis");
  if (!box) return;
  const button = box.querySelector("#analyse");
  const progress = box.querySelector("#analysis-progress");
  const status = box.querySelector("#analysis-status");
  const graphHost = box.querySelector("#analysis-graph");
  const summary = box.querySelector("#analysis-summary");
  const better = box.querySelector("#analysis-better");
  const chancesLine = box.querySelector("#analysis-chances");
  const gameId = Number(box.dataset.gameId);
  let data = JSON.parse(document.getElementById("analysis-data").textContent || "{}");
  let pollTimer = null;
  let marker = null;
  let currentPly = replay.moves.length;

  function x(ply) {
    return replay.moves.length ? (ply / replay.moves.length) * WIDTH : 0;
  }
  function y(chances) {
    return ((1 - chances) / 2) * HEIGHT;
  }

  function showProgress(done, total) {
    progress.hidden = false;
    progress.max = total || 1;
    progress.value = done || 0;
    status.textContent = format(gettext("Analysing: %(done)s of %(total)s positions"), { done, total });
  }

  function drawGraph() {
    graphHost.textContent = "";
    graphHost.hidden = false;
    const chances = data.chances;
    const chart = svg("svg", {
      viewBox: `0 0 ${WIDTH} ${HEIGHT}`, class: "eval-graph", role: "img",
      "aria-label": gettext("Winning chances after every move: up is better for the first player"),
    }, graphHost);
    svg("rect", { x: 0, y: 0, width: WIDTH, height: HEIGHT, class: "eval-bg" }, chart);
    const points = chances.map((c, ply) => `${x(ply).toFixed(1)},${y(c).toFixed(1)}`);
    svg("polygon", { points: `0,${HEIGHT / 2} ${points.join(" ")} ${x(chances.length - 1).toFixed(1)},${HEIGHT / 2}`, class: "eval-area" }, chart);
    svg("line", { x1: 0, x2: WIDTH, y1: HEIGHT / 2, y2: HEIGHT / 2, class: "eval-zero" }, chart);
    svg("polyline", { points: points.join(" "), class: "eval-line" }, chart);
    (data.judgements || []).forEach((judged) => {
      if (!judged.kind) return;
      const dot = svg("circle", { cx: x(judged.ply + 1), cy: y(chances[judged.ply + 1]), r: 3, class: `eval-error kind-${judged.kind}` }, chart);
      dot.dataset.ply = judged.ply + 1;
      svg("title", {}, dot).textContent = `${judged.ply + 1}. ${judged.move}: ${KIND_NAMES()[judged.kind]}`;
    });
    chances.forEach((c, ply) => {
      // Invisible, wide targets: hovering or tapping anywhere near a point jumps there.
      const hit = svg("rect", {
        x: Math.max(0, x(ply) - WIDTH / Math.max(1, chances.length) / 2), y: 0,
        width: WIDTH / Math.max(1, chances.length), height: HEIGHT, class: "eval-hit",
      }, chart);
      hit.dataset.ply = ply;
      // The first player's winning chances as people read them, 0-100 % (the scale is -1..+1).
      svg("title", {}, hit).textContent = format(gettext("Move %(ply)s: %(chances)s"), {
        ply, chances: `${names[0]} ${percentFor(c, 0)} %`,
      });
    });
    marker = svg("line", { x1: 0, x2: 0, y1: 0, y2: HEIGHT, class: "eval-current" }, chart);
    const jump = (event) => {
      const target = event.target.closest("[data-ply]");
      if (target) show(Number(target.dataset.ply));
    };
    chart.addEventListener("pointerover", jump);
    chart.addEventListener("click", jump);
    placeMarker(currentPly);
  }

  function showChances(ply) {
    if (!chancesLine || !data.chances || data.chances[ply] === undefined) return;
    const c = data.chances[ply];
    chancesLine.hidden = false;
    chancesLine.textContent = format(gettext("Winning chances: %(first)s %(p0)s, %(second)s %(p1)s"), {
      first: names[0], p0: `${percentFor(c, 0)} %`, second: names[1], p1: `${percentFor(c, 1)} %`,
    });
  }

  function placeMarker(ply) {
    currentPly = ply;
    showChances(ply);
    if (marker) {
      marker.setAttribute("x1", x(ply).toFixed(1));
      marker.setAttribute("x2", x(ply).toFixed(1));
      marker.dataset.current = ply;
    }
  }

  function drawSummary() {
    const body = summary.querySelector("tbody");
    body.textContent = "";
    (data.summary || []).forEach((side, index) => {
      const row = document.createElement("tr");
      row.dataset.side = index;
      const accuracy = (value) => (value === null || value === undefined ? "–" : `${value.toFixed(1)} %`);
      const phases = side.phases || {};
      const cells = [
        names[index],
        accuracy(side.accuracy),
        ...PHASES.map((phase) => accuracy(phases[phase])),
        side.counts.inaccuracy, side.counts.mistake, side.counts.blunder,
      ];
      cells.forEach((value, column) => {
        const cell = document.createElement(column ? "td" : "th");
        if (column) {
          cell.textContent = String(value);
        } else {
          // The player's colour, and the name, which a phone leaves to screen readers (board.css).
          cell.scope = "row";
          const swatch = document.createElement("span");
          swatch.className = `swatch side-${index}`;
          swatch.setAttribute("aria-hidden", "true");
          const name = document.createElement("span");
          name.className = "summary-name";
          name.textContent = String(value);
          cell.append(swatch, name);
        }
        row.appendChild(cell);
      });
      body.appendChild(row);
    });
    summary.hidden = false;
  }

  // The board after the better move is not in the page's data (a whole board per move):
  // asked for when shown, and kept.
  const betterBoards = new Map();
  function betterBoard(judged) {
    if (!judged.has_better && !judged.better_position) return Promise.resolve(null);
    if (judged.better_position) return Promise.resolve(judged.better_position);
    if (!betterBoards.has(judged.ply)) {
      const url = new URL(box.dataset.url, window.location.href);
      url.searchParams.set("ply", judged.ply);
      betterBoards.set(judged.ply, fetch(url, { headers: { Accept: "application/json" } })
        .then((response) => (response.ok ? response.json() : { better_position: null }))
        .then((answer) => answer.better_position)
        .catch(() => {
          betterBoards.delete(judged.ply);
          return null;
        }));
    }
    return betterBoards.get(judged.ply);
  }

  function showBetter(judged) {
    // The position before the move, then the better move on it (unless the viewer moved on).
    Promise.all([show(judged.ply), betterBoard(judged)]).then(([, position]) => {
      if (currentPly !== judged.ply) return;
      if (position) showPosition(position, judged.best);
      better.hidden = false;
      better.textContent = format(gettext("Better was %(move)s; the line that follows: %(line)s"), {
        move: judged.best, line: judged.line.join(" "),
      });
    });
  }

  function markMoves() {
    const kinds = KIND_NAMES();
    const labels = LABEL_NAMES();
    (data.judgements || []).forEach((judged) => {
      const item = root.querySelector(`#move-list li[data-ply="${judged.ply}"]`);
      if (!item || item.querySelector(".judgement")) return;
      const notes = [];
      // Analyses made before labels existed carry none: only their errors show.
      if (judged.label && !judged.kind) {
        const tag = document.createElement("span");
        tag.className = `judgement label-${judged.label}`;
        tag.dataset.label = judged.label;
        tag.textContent = labels[judged.label] || judged.label;
        item.appendChild(tag);
      }
      if (judged.only) {
        const only = document.createElement("span");
        only.className = "judgement only-move";
        only.textContent = gettext("Only move");
        item.appendChild(only);
      }
      if (judged.kind) {
        item.classList.add(`kind-${judged.kind}`);
        const mark = document.createElement("span");
        mark.className = `judgement kind-${judged.kind}`;
        mark.dataset.label = judged.kind;
        mark.textContent = MARKS[judged.kind];
        mark.title = kinds[judged.kind];
        item.appendChild(mark);
        notes.push(kinds[judged.kind]);
      }
      if (judged.exact_loss !== null && judged.exact_loss !== undefined) {
        const exact = document.createElement("span");
        exact.className = "judgement exact";
        exact.textContent = judged.exact_loss === 0
          ? gettext("perfect")
          : format(ngettext("loses %(n)s disc", "loses %(n)s discs", judged.exact_loss), { n: judged.exact_loss });
        item.appendChild(exact);
      }
      if (judged.best) {
        const link = document.createElement("button");
        link.type = "button";
        link.className = "link better-move";
        link.textContent = format(gettext("better: %(move)s"), { move: judged.best });
        link.addEventListener("click", () => showBetter(judged));
        item.appendChild(link);
      }
    });
  }

  function render() {
    const finished = box.dataset.finished === "1";
    if (button) button.hidden = !finished || ["queued", "running", "done"].includes(data.status);
    if (data.status === "queued" || data.status === "running") {
      showProgress(data.done, data.total);
      watch();
    } else if (data.status === "done") {
      progress.hidden = true;
      stopPolling();
      status.textContent = gettext("Analysis complete.");
      drawGraph();
      drawSummary();
      markMoves();
    } else if (data.status === "failed" || data.status === "stalled") {
      progress.hidden = true;
      stopPolling();
      status.textContent = gettext("The analysis stopped before the end. Ask again to continue it.");
      if (button) button.hidden = false;
    }
  }

  async function fetchState(method) {
    const response = await fetch(box.dataset.url, {
      method,
      credentials: "same-origin",
      headers: { Accept: "application/json", "X-CSRFToken": box.dataset.csrf },
    });
    const body = await response.json().catch(() => ({}));
    if (!response.ok) {
      status.textContent = body.error || gettext("The analysis could not be started.");
      return;
    }
    data = body;
    render();
  }

  function stopPolling() {
    if (pollTimer !== null) clearInterval(pollTimer);
    pollTimer = null;
  }

  // Registered players' pages watch the game's analysis from the start, so an
  // analysis someone else starts shows its progress here too.
  function subscribe() {
    const sent = typeof window.siteNotifySend === "function" && window.siteNotifySend({ type: "watch_analysis", game: gameId });
    if (sent) box.dataset.watching = "1";
    return sent;
  }

  function watch() {
    const live = subscribe();
    // Guests have no notification socket: they ask every 1.5 s. With the socket,
    // a slow poll only covers a missed message.
    if (pollTimer === null) pollTimer = setInterval(() => fetchState("GET"), live ? 5000 : 1500);
  }

  document.addEventListener("site:notify-open", subscribe);
  document.addEventListener("site:notify", (event) => {
    const message = event.detail;
    if (!message || message.type !== "analysis" || message.game !== gameId) return;
    if (message.status === "running" || message.status === "queued") {
      data.status = message.status;
      if (button) button.hidden = true;
      showProgress(message.done, message.total);
    } else {
      fetchState("GET"); // done or failed: read the whole result once
    }
  });
  if (button) button.addEventListener("click", () => fetchState("POST"));
  onShow.push((ply) => {
    placeMarker(ply);
    better.hidden = true;
  });
  subscribe();
  render();
  // The history's "Analyse" links here with #analyse: start at once.
  if (location.hash === "#analyse" && button && !button.hidden) fetchState("POST");
}
