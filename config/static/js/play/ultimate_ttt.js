// Ultimate Tic-Tac-Toe: nine 3x3 boards, files a-i, ranks 1-9 from the bottom.
// position.open_boards says where the next move may go; board_status which
// small boards are won (0/1) or tied ("tie").

import { BOARD_GAP, CELL, FILES, GridBoard, boardName, clearLayer, drawMark, svgEl } from "./board.js";
import { format, gettext } from "../i18n.js";

export const scoreIsCount = false;

export function sideNames() {
  return ["X", "O"];
}

const tokenAt = (row, col) => `${FILES[col]}${9 - row}`;
const boardOf = (row, col) => Math.floor(row / 3) * 3 + Math.floor(col / 3);
const BOARD_SIZE = 3 * CELL;

function boardOrigin(board) {
  const row = Math.floor(board / 3);
  const col = board % 3;
  return [col * (BOARD_SIZE + BOARD_GAP), row * (BOARD_SIZE + BOARD_GAP)];
}

export function createRenderer(host, ctx) {
  const names = sideNames();
  const board = new GridBoard(host, {
    rows: 9,
    cols: 9,
    groups: 3,
    tokenAt,
    label: gettext("Ultimate Tic-Tac-Toe board"),
    onActivate: (token) => ctx.play(token),
  });
  host.classList.add("board-ultimate");
  const frames = [];
  for (let b = 0; b < 9; b++) {
    const [x, y] = boardOrigin(b);
    // Inserted first so the highlight sits under the cells' own backgrounds' outlines.
    frames.push(svgEl("rect", { class: "small-board", x: x - 3, y: y - 3, width: BOARD_SIZE + 6, height: BOARD_SIZE + 6, rx: 6, "data-board": b }, board.layers.marks));
  }
  const decided = svgEl("g", { class: "decided" }, board.layers.over);
  const lastMark = svgEl("rect", { class: "last-cell", width: CELL, height: CELL, rx: 4 }, board.layers.over);

  let shown = null;

  function render(view) {
    shown = view;
    const { position, snapshot } = view;
    // Only a running game has boards to play in: a finished one highlights none.
    const open = new Set(snapshot.status === "active" ? position.open_boards : []);
    const legal = new Set(position.legal_moves);
    frames.forEach((frame, b) => {
      const status = position.board_status[b];
      frame.setAttribute("class", [
        "small-board",
        open.has(b) ? "open" : "",
        status === "tie" ? "tied" : "",
        status === 0 || status === 1 ? `won won-${status}` : "",
      ].join(" ").trim());
    });
    clearLayer(board.layers.pieces);
    position.cells.forEach((owner, index) => {
      const row = Math.floor(index / 9);
      const col = index % 9;
      const token = tokenAt(row, col);
      const cell = board.cell(token);
      if (owner !== null) drawMark(board.layers.pieces, owner, cell.cx, cell.cy, CELL * 0.28);
      board.setLabel(token, cellLabel(token, owner, boardOf(row, col), legal.has(token)), owner === null ? "" : names[owner]);
    });
    drawDecided(position.board_status);
    const last = snapshot.last_move && board.cell(snapshot.last_move);
    lastMark.classList.toggle("on", Boolean(last));
    if (last) {
      lastMark.setAttribute("x", last.x);
      lastMark.setAttribute("y", last.y);
    }
  }

  function drawDecided(status) {
    clearLayer(decided);
    status.forEach((value, b) => {
      const [x, y] = boardOrigin(b);
      if (value === "tie") {
        svgEl("rect", { class: "tie-cover", x, y, width: BOARD_SIZE, height: BOARD_SIZE }, decided);
      } else if (value === 0 || value === 1) {
        svgEl("rect", { class: "won-cover", x, y, width: BOARD_SIZE, height: BOARD_SIZE }, decided);
        drawMark(decided, value, x + BOARD_SIZE / 2, y + BOARD_SIZE / 2, BOARD_SIZE * 0.36, { "data-won": b }).classList.add("big");
      }
    });
  }

  function cellLabel(token, owner, b, isLegal) {
    const where = boardName(b);
    if (owner !== null) return format(gettext("%(cell)s, %(board)s, %(side)s"), { cell: token, board: where, side: names[owner] });
    if (isLegal) return format(gettext("%(cell)s, %(board)s, empty, legal move"), { cell: token, board: where });
    return format(gettext("%(cell)s, %(board)s, empty"), { cell: token, board: where });
  }

  // The screen-reader mode's "board" command: which small boards are decided, where to play.
  function summary() {
    if (!shown) return [];
    const { position, snapshot } = shown;
    const text = [];
    position.board_status.forEach((status, b) => {
      if (status === "tie") text.push(format(gettext("The %(board)s is tied."), { board: boardName(b) }));
      else if (status === 0 || status === 1) text.push(format(gettext("%(side)s won the %(board)s."), { side: names[status], board: boardName(b) }));
    });
    if (snapshot.status === "active" && position.open_boards.length) {
      const open = position.open_boards.length === 9 ? gettext("any board") : position.open_boards.map(boardName).join(", ");
      text.push(format(gettext("The next move goes in: %(boards)s."), { boards: open }));
    }
    return text;
  }

  return { render, board, summary };
}
