// Reversi: an 8x8 board, columns a-h, rows 1-8 from the top (Othello notation).
// Everything about legality comes from the position (legal_moves, flips).

import { CELL, FILES, GridBoard, svgEl } from "./board.js";
import { format, gettext } from "../i18n.js";

export const scoreIsCount = true;

export function sideNames() {
  return [gettext("Black"), gettext("White")];
}

const tokenAt = (row, col) => `${FILES[col]}${row + 1}`;
const DISC = ["●", "○"];

export function createRenderer(host, ctx) {
  const names = sideNames();
  const board = new GridBoard(host, {
    rows: 8,
    cols: 8,
    tokenAt,
    label: gettext("Reversi board"),
    onActivate: (token) => ctx.play(token),
  });
  host.classList.add("board-reversi");
  const discs = new Map();
  const hints = new Map();
  for (const [token, cell] of board.cells) {
    hints.set(token, svgEl("circle", { class: "hint", cx: cell.cx, cy: cell.cy, r: CELL * 0.12 }, board.layers.marks));
    discs.set(token, svgEl("circle", { class: "disc", cx: cell.cx, cy: cell.cy, r: CELL * 0.4 }, board.layers.pieces));
  }
  const lastMark = svgEl("circle", { class: "last-move", r: CELL * 0.1 }, board.layers.over);
  let shown = null;

  function render(view) {
    const { position, snapshot } = view;
    const legal = new Set(view.showHints ? position.legal_moves : []);
    position.cells.forEach((owner, index) => {
      const token = tokenAt(Math.floor(index / 8), index % 8);
      const disc = discs.get(token);
      disc.setAttribute("class", owner === null ? "disc empty" : `disc p${owner}`);
      // A disc that changed colour since the last picture is animated briefly.
      if (shown && shown[index] !== null && owner !== null && shown[index] !== owner) board.pulse(disc, "flip");
      if (shown && shown[index] === null && owner !== null) board.pulse(disc, "placed");
      hints.get(token).classList.toggle("on", legal.has(token));
      board.setLabel(token, cellLabel(token, owner, legal.has(token)), owner === null ? (legal.has(token) ? "·" : "") : DISC[owner]);
    });
    shown = position.cells.slice();
    markLast(snapshot.last_move);
  }

  function cellLabel(token, owner, isLegal) {
    if (owner !== null) return format(gettext("%(cell)s, %(side)s disc"), { cell: token, side: names[owner] });
    return isLegal ? format(gettext("%(cell)s, empty, legal move"), { cell: token }) : format(gettext("%(cell)s, empty"), { cell: token });
  }

  function markLast(token) {
    const cell = token && board.cell(token);
    lastMark.classList.toggle("on", Boolean(cell));
    if (cell) {
      lastMark.setAttribute("cx", cell.cx);
      lastMark.setAttribute("cy", cell.cy);
    }
  }

  return { render, board };
}
