// Four Tac Toe: a 3x3x3x3 board drawn as nine 3x3 boards (files a-i, ranks 1-9
// from the bottom); e5 is closed to both players. Hovering or focusing a cell
// shows the lines through it that are still alive (SPEC 1.5), each in its own
// colour and symbol. Which lines are alive comes from position.live; the line
// table (three cells per line) comes from the server once, with the page.

import { CELL, FILES, GridBoard, boardName, clearLayer, drawMark, svgEl } from "./board.js";
import { format, gettext, ngettext } from "../i18n.js";

export const scoreIsCount = false;

export function sideNames() {
  return ["X", "O"];
}

const tokenAt = (row, col) => `${FILES[col]}${9 - row}`;
const indexOf = (token) => (9 - Number(token.slice(1))) * 9 + FILES.indexOf(token[0]);
// At most 15 scoring lines pass through one cell, so every highlighted line gets its own symbol.
const SYMBOLS = ["●", "■", "▲", "◆", "★", "✚", "▼", "✖", "♥", "♣", "♠", "⬢", "☀", "✿", "☾"];

// Line j of the highlighted set: a hue spread by the golden angle (so neighbours
// differ) and a symbol, so lines stay distinguishable without colour vision.
export function lineStyle(j) {
  return { colour: `hsl(${Math.round((j * 137.508) % 360)} 85% 45%)`, symbol: SYMBOLS[j % SYMBOLS.length] };
}

function linesThroughCells(lines) {
  const through = new Map();
  lines.forEach((cells, k) => {
    for (const token of cells) {
      if (!through.has(token)) through.set(token, []);
      through.get(token).push(k);
    }
  });
  return through;
}

export function createRenderer(host, ctx) {
  const names = sideNames();
  const lines = ctx.lines || [];
  const through = linesThroughCells(lines);
  let view = null;
  let hovered = null;
  const board = new GridBoard(host, {
    rows: 9,
    cols: 9,
    groups: 3,
    tokenAt,
    label: gettext("Four Tac Toe board"),
    onActivate: (token) => ctx.play(token),
    onHover: (token) => {
      hovered = token;
      drawHelp();
    },
  });
  host.classList.add("board-four");
  const completedLayer = svgEl("g", { class: "completed-lines" }, board.layers.over);
  const helpLayer = svgEl("g", { class: "live-lines" }, board.layers.over);
  const lastMark = svgEl("rect", { class: "last-cell", width: CELL, height: CELL, rx: 4 }, board.layers.over);
  const legend = document.createElement("div");
  legend.className = "line-legend";
  legend.setAttribute("aria-live", "polite");
  host.appendChild(legend);

  function render(next) {
    view = next;
    const { position, snapshot } = view;
    const legal = new Set(position.legal_moves);
    clearLayer(board.layers.pieces);
    position.cells.forEach((owner, index) => {
      const row = Math.floor(index / 9);
      const col = index % 9;
      const token = tokenAt(row, col);
      const cell = board.cell(token);
      const closed = token === position.forbidden;
      board.cell(token).hit.classList.toggle("closed", closed);
      if (closed) drawClosed(cell);
      else if (owner !== null) drawMark(board.layers.pieces, owner, cell.cx, cell.cy, CELL * 0.28);
      const glyph = closed ? "⊘" : owner === null ? "" : names[owner];
      board.setLabel(token, cellLabel(token, owner, closed, legal.has(token), Math.floor(row / 3) * 3 + Math.floor(col / 3)), glyph);
    });
    drawCompleted(position.completed);
    const last = snapshot.last_move && board.cell(snapshot.last_move);
    lastMark.classList.toggle("on", Boolean(last));
    if (last) {
      lastMark.setAttribute("x", last.x);
      lastMark.setAttribute("y", last.y);
    }
    drawHelp();
  }

  // The closed centre must not look like anybody's mark: a hatched square with a
  // "no entry" sign (a ring and one bar), never the X that player X plays.
  function drawClosed(cell) {
    svgEl("rect", { class: "closed-cell", x: cell.x, y: cell.y, width: CELL, height: CELL }, board.layers.pieces);
    const r = CELL * 0.26;
    svgEl("circle", { class: "closed-sign", cx: cell.cx, cy: cell.cy, r }, board.layers.pieces);
    const d = r * Math.SQRT1_2;
    svgEl("path", { class: "closed-sign", d: `M${cell.cx - d} ${cell.cy + d}L${cell.cx + d} ${cell.cy - d}` }, board.layers.pieces);
  }

  function drawCompleted(completed) {
    clearLayer(completedLayer);
    completed.forEach((ids, side) => {
      for (const k of ids) drawStroke(completedLayer, lines[k], { class: `done-line side-${side}` });
    });
  }

  function drawStroke(parent, cells, attrs) {
    const points = cells.map((token) => board.cell(token)).map((c) => `${c.cx},${c.cy}`).join(" ");
    return svgEl("polyline", { points, ...attrs }, parent);
  }

  // The hover help: whose lines to show follows SPEC 1.5, the live sets come from the server.
  function helpLines(token) {
    if (!view || !token || token === view.position.forbidden) return null;
    // A finished game has no line left to complete: the help would only count zeros.
    if (view.snapshot && view.snapshot.status !== "active") return null;
    const { position } = view;
    const me = view.you ?? position.to_move; // a spectator sees it from the side to move
    const owner = position.cells[indexOf(token)];
    const whose = owner === 1 - me ? 1 - me : me;
    const alive = new Set(position.live[whose]);
    return { whose, ids: (through.get(token) || []).filter((k) => alive.has(k)) };
  }

  function drawHelp() {
    clearLayer(helpLayer);
    legend.replaceChildren();
    const help = helpLines(hovered);
    if (!help) return;
    help.ids.forEach((k, j) => {
      const style = lineStyle(j);
      const group = svgEl("g", { class: "live-line", "data-line": k, "data-cells": lines[k].join(" ") }, helpLayer);
      // Through the CSSOM: a style attribute would be refused by the site's CSP (no inline styles).
      group.style.setProperty("--line-colour", style.colour);
      drawStroke(group, lines[k], { class: "live-stroke" });
      for (const token of lines[k]) {
        if (token === hovered) continue;
        const cell = board.cell(token);
        svgEl("text", { class: "line-symbol", x: cell.x + CELL - 3, y: cell.y + 12, "text-anchor": "end" }, group).textContent = style.symbol;
      }
      const item = document.createElement("span");
      item.className = "legend-item";
      item.style.setProperty("--line-colour", style.colour);
      item.textContent = `${style.symbol} ${lines[k].join("–")}`;
      legend.appendChild(item);
    });
    const summary = document.createElement("p");
    summary.className = "legend-summary";
    const text = ngettext("%(count)s line through %(cell)s that %(side)s can still complete", "%(count)s lines through %(cell)s that %(side)s can still complete", help.ids.length);
    summary.textContent = format(text, { count: help.ids.length, cell: hovered, side: names[help.whose] });
    legend.prepend(summary);
  }

  function cellLabel(token, owner, closed, isLegal, b) {
    const where = boardName(b);
    if (closed) return format(gettext("%(cell)s, %(board)s, closed to both players"), { cell: token, board: where });
    if (owner !== null) return format(gettext("%(cell)s, %(board)s, %(side)s"), { cell: token, board: where, side: names[owner] });
    if (isLegal) return format(gettext("%(cell)s, %(board)s, empty, legal move"), { cell: token, board: where });
    return format(gettext("%(cell)s, %(board)s, empty"), { cell: token, board: where });
  }

  // The screen-reader mode's "board" command: each side's completed lines, by their cells.
  function summary() {
    if (!view) return [];
    return view.position.completed.map((ids, side) => (ids.length
      ? format(ngettext("%(side)s has completed %(count)s line: %(lines)s.", "%(side)s has completed %(count)s lines: %(lines)s.", ids.length),
        { side: names[side], count: ids.length, lines: ids.map((k) => lines[k].join("–")).join("; ") })
      : format(gettext("%(side)s has completed no line yet."), { side: names[side] })));
  }

  return { render, board, helpLines, summary };
}
