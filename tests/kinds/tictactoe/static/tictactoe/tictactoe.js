// Tic-tac-toe's board (docs/renderers.md): cells a1..c3, row 3 on top, X (side 0) moves first.
// It lives with its game (tests/kinds/tictactoe) and borrows the site's GridBoard.

import { CELL, FILES, GridBoard, svgEl } from "../js/play/board.js";
import { format, gettext } from "../js/i18n.js";

export const scoreIsCount = false;

export function sideNames() {
  return ["X", "O"];
}

const tokenAt = (row, col) => `${FILES[col]}${3 - row}`;

export function createRenderer(host, ctx) {
  const board = new GridBoard(host, { rows: 3, cols: 3, tokenAt, label: "Tic-tac-toe board", onActivate: (token) => ctx.play(token) });
  host.classList.add("board-tictactoe");
  const marks = new Map();
  for (const [token, cell] of board.cells) {
    marks.set(token, svgEl("text", { class: "mark", x: cell.cx, y: cell.cy + CELL * 0.15, "text-anchor": "middle" }, board.layers.pieces));
  }

  function render(view) {
    const { position } = view;
    const legal = new Set(view.showHints ? position.legal_moves : []);
    [...position.cells].forEach((mark, index) => {
      const token = tokenAt(Math.floor(index / 3), index % 3);
      const shown = mark === "-" ? "" : mark.toUpperCase();
      marks.get(token).textContent = shown;
      const label = shown ? format(gettext("%(cell)s, %(side)s"), { cell: token, side: shown }) : format(gettext("%(cell)s, empty"), { cell: token });
      board.setLabel(token, legal.has(token) ? `${label}, ${gettext("legal move")}` : label, shown);
    });
  }

  return { render, board };
}
