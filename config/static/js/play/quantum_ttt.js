// Quantum Tic-Tac-Toe: squares 1-9 in reading order. A normal move is two
// clicks (two squares, sent as "a-b" with a < b); a pending collapse is settled
// by tapping one of the two squares, or with one of two buttons shown below the
// board (never over it) only to the player who must choose. A thin line links
// the two halves of every spooky pair.

import { CELL, GridBoard, clearLayer, drawMark, svgEl } from "./board.js";
import { format, gettext } from "../i18n.js";
import { playerName } from "./text.js";

export const scoreIsCount = false;

export function sideNames() {
  return ["X", "O"];
}

const tokenAt = (row, col) => String(row * 3 + col + 1);

// A collapse choice ("@N") does not pass the turn: the chooser then makes their own move.
export function moverAfter(token, mover) {
  return token.startsWith("@") ? mover : 1 - mover;
}

// While a collapse is pending, "Your move." is not enough: the status line says
// which move settles and where (the buttons below the board may be out of sight).
export function turnHint(snapshot, you) {
  const pending = snapshot.status === "active" && snapshot.position.pending_cycle;
  if (!pending) return null;
  const [a, b] = pending.choices;
  const mover = snapshot.position.to_move;
  if (you === mover) {
    return format(gettext("Your move: a cycle closed. Choose where move %(move)s settles: tap square %(a)s or %(b)s."), { move: pending.move, a, b });
  }
  return format(gettext("%(name)s chooses where move %(move)s settles: square %(a)s or %(b)s."), { name: playerName(snapshot, mover), move: pending.move, a, b });
}
// The status line in words: "@5" is jargon for choosing where a collapse settles.
export function playedText(name, token) {
  if (!token.startsWith("@")) return null;
  return format(gettext("%(name)s chose square %(square)s for the collapse."), { name, square: token.slice(1) });
}

const LETTER = ["x", "o"];

// Where the k-th of a square's ``count`` spooky marks goes: three to a row, the rows
// centred in the square and spaced so that no two marks touch (a crowded square, 7 or
// more, gets smaller marks: the .crowded rule in board.css).
function slot(cell, k, count) {
  const rows = Math.ceil(count / 3);
  const dx = CELL / 3.3;
  const dy = rows > 2 ? CELL / 3.2 : CELL / 2.6; // a mark's box is 14.7 units tall (12.4 crowded)
  return [cell.cx + ((k % 3) - 1) * dx, cell.cy + (Math.floor(k / 3) - (rows - 1) / 2) * dy + 2];
}

export function createRenderer(host, ctx) {
  const names = sideNames();
  let view = null;
  let first = null;
  const board = new GridBoard(host, {
    rows: 3,
    cols: 3,
    tokenAt,
    label: gettext("Quantum Tic-Tac-Toe board"),
    onActivate: activate,
    onEscape: () => choose(null),
  });
  host.classList.add("board-quantum");
  const choiceBox = document.createElement("div");
  choiceBox.className = "collapse-choice";
  choiceBox.setAttribute("role", "group");
  choiceBox.setAttribute("aria-label", gettext("Choose where the mark settles"));
  choiceBox.hidden = true;
  // Never over the board: the buttons must not hide the squares they choose between. On a
  // wide game page they go under the status line beside the board, in sight without
  // scrolling (the board fills the height of a laptop's screen); on a phone, or on the
  // replay, under the board.
  const wide = window.matchMedia("(min-width: 821px)");
  function placeChoices() {
    const status = host.closest(".play-layout.live")?.querySelector(".play-top #status");
    if (wide.matches && status) status.insertAdjacentElement("afterend", choiceBox);
    else host.insertAdjacentElement("afterend", choiceBox);
  }
  placeChoices();
  wide.addEventListener("change", placeChoices);

  function legal() {
    return new Set(view ? view.position.legal_moves : []);
  }

  function activate(token) {
    const square = Number(token);
    const moves = legal();
    if (!view || !view.canMove) return ctx.play(token);
    if (view.position.pending_cycle) return ctx.play(`@${square}`); // only the two choices are legal
    if (moves.has(token)) return ctx.play(token); // X's ninth move: a single classical mark
    if (view.position.cells[square - 1].classical) return ctx.play(token); // refused, with the server's reason
    if (first === null) return choose(square);
    if (first === square) return choose(null);
    const [a, b] = [first, square].sort((p, q) => p - q);
    choose(null);
    ctx.play(`${a}-${b}`);
  }

  function choose(square) {
    first = square;
    if (view) draw();
  }

  function render(next) {
    if (view && next.snapshot.v !== view.snapshot.v) first = null;
    view = next;
    draw();
  }

  function draw() {
    const { position, snapshot } = view;
    const moves = legal();
    const pending = position.pending_cycle;
    const cycle = new Set(pending ? pending.squares : []);
    const choices = new Set(pending ? pending.choices : []);
    const pairable = new Set();
    if (first !== null) {
      for (let s = 1; s <= 9; s++) {
        const [a, b] = [first, s].sort((p, q) => p - q);
        if (moves.has(`${a}-${b}`)) pairable.add(s);
      }
    }
    const lastSquares = squaresOf(snapshot.last_move);
    clearLayer(board.layers.marks);
    clearLayer(board.layers.pieces);
    const slots = new Map(); // "square:move" -> where that spooky mark is drawn
    for (const info of position.cells) {
      const token = String(info.square);
      const cell = board.cell(token);
      const classes = ["square-mark"];
      if (cycle.has(info.square)) classes.push("cycle");
      if (choices.has(info.square)) classes.push("choice");
      if (first === info.square) classes.push("selected");
      if (pairable.has(info.square) && view.showHints) classes.push("pair-ok");
      if (lastSquares.has(info.square)) classes.push("last");
      svgEl("rect", { class: classes.join(" "), x: cell.x + 1, y: cell.y + 1, width: CELL - 2, height: CELL - 2, rx: 2 }, board.layers.marks);
      drawSquare(cell, info, slots);
      board.setLabel(token, cellLabel(info, choices.has(info.square), pairable.has(info.square)), glyphOf(info));
    }
    const cycleMarks = new Set(pending ? pending.marks : []);
    for (const [move, a, b] of position.links || []) drawLink(move, slots.get(`${a}:${move}`), slots.get(`${b}:${move}`), cycleMarks.has(move));
    for (const line of position.lines || []) drawLine(line);
    drawChoices(pending, moves);
  }

  function drawSquare(cell, info, slots) {
    if (info.classical) {
      drawMark(board.layers.pieces, info.classical.side, cell.cx, cell.cy - 2, CELL * 0.3).classList.add("classical");
      svgEl("text", { class: "move-no", x: cell.cx + CELL * 0.36, y: cell.cy + CELL * 0.42, "text-anchor": "end" }, board.layers.pieces)
        .textContent = String(info.classical.move);
      return;
    }
    info.spooky.forEach((mark, k) => {
      const [x, y] = slot(cell, k, info.spooky.length);
      slots.set(`${info.square}:${mark.move}`, [x, y]);
      const crowded = info.spooky.length > 6 ? " crowded" : "";
      const text = svgEl("text", { class: `spooky mark-${LETTER[mark.side]}${crowded}`, x, y, "text-anchor": "middle", "data-move": mark.move }, board.layers.pieces);
      text.textContent = LETTER[mark.side];
      const sub = svgEl("tspan", { class: "sub", dy: 2.5 }, text);
      sub.textContent = String(mark.move);
    });
  }

  // The link of one spooky pair, from mark to mark, under the marks (the rules
  // page: "the lines show the links"); the links of a pending cycle stand out.
  function drawLink(move, from, to, inCycle) {
    if (!from || !to) return;
    const side = move % 2 === 1 ? 0 : 1;
    const [x1, y1, x2, y2] = [from[0], from[1] - 2.5, to[0], to[1] - 2.5];
    // A gentle bow, X's links one way and O's the other, so two links between
    // the same squares stay apart.
    const length = Math.hypot(x2 - x1, y2 - y1) || 1;
    const bow = (side === 0 ? 1 : -1) * (4 + (Math.floor((move - 1) / 2) % 3) * 2);
    const [mx, my] = [(x1 + x2) / 2 - ((y2 - y1) / length) * bow, (y1 + y2) / 2 + ((x2 - x1) / length) * bow];
    svgEl("path", {
      class: `spooky-link side-${side}${inCycle ? " in-cycle" : ""}`,
      d: `M${x1} ${y1}Q${mx} ${my} ${x2} ${y2}`, "data-move": move,
    }, board.layers.marks);
  }

  function drawLine(line) {
    const [start, end] = [board.cell(String(line.squares[0])), board.cell(String(line.squares[2]))];
    svgEl("line", { class: `win-line side-${line.side}`, x1: start.cx, y1: start.cy, x2: end.cx, y2: end.cy }, board.layers.pieces);
  }

  // The collapse choice: visible only to the chooser (the server also refuses anyone else).
  function drawChoices(pending, moves) {
    choiceBox.replaceChildren();
    const mine = pending && view.canMove && pending.choices.every((s) => moves.has(`@${s}`));
    choiceBox.hidden = !mine;
    if (!mine) return;
    const help = document.createElement("p");
    help.className = "choice-help";
    help.textContent = format(gettext("Tap square %(a)s or %(b)s to settle move %(move)s there, or choose here:"),
      { a: pending.choices[0], b: pending.choices[1], move: pending.move });
    choiceBox.appendChild(help);
    for (const square of pending.choices) {
      const button = document.createElement("button");
      button.type = "button";
      button.className = "choice-button";
      button.dataset.choice = `@${square}`;
      button.textContent = format(gettext("Settle move %(move)s in square %(square)s"), { move: pending.move, square });
      button.addEventListener("click", () => ctx.play(`@${square}`));
      choiceBox.appendChild(button);
    }
  }

  function cellLabel(info, isChoice, isPairable) {
    const parts = [format(gettext("square %(square)s"), { square: info.square })];
    if (info.classical) {
      parts.push(format(gettext("%(side)s of move %(move)s"), { side: names[info.classical.side], move: info.classical.move }));
    } else if (info.spooky.length) {
      const marks = info.spooky.map((m) => `${names[m.side]}${m.move}`).join(" ");
      parts.push(format(gettext("spooky marks %(marks)s"), { marks }));
    } else {
      parts.push(gettext("empty"));
    }
    if (first === info.square) parts.push(gettext("selected"));
    if (isChoice) parts.push(gettext("collapse choice"));
    if (isPairable) parts.push(gettext("legal move"));
    return parts.join(", ");
  }

  // The screen-reader mode's "board" command: what the links and marks say, as sentences.
  function summary() {
    if (!view) return [];
    const { position } = view;
    const text = [];
    for (const [move, a, b] of position.links || []) {
      text.push(format(gettext("Move %(move)s (%(side)s) is spooky: square %(a)s or square %(b)s."),
        { move, side: names[move % 2 === 1 ? 0 : 1], a, b }));
    }
    const pending = position.pending_cycle;
    if (pending) {
      text.push(format(gettext("A cycle closed through squares %(squares)s: move %(move)s settles in square %(a)s or square %(b)s."),
        { squares: pending.squares.join(", "), move: pending.move, a: pending.choices[0], b: pending.choices[1] }));
    }
    for (const line of position.lines || []) {
      text.push(format(gettext("%(side)s has three in a row: squares %(squares)s."), { side: names[line.side], squares: line.squares.join(", ") }));
    }
    return text;
  }

  return { render, board, selected: () => first, summary };
}

// The square's marks in short: "X3" once settled, "x1 o2" while spooky.
function glyphOf(info) {
  if (info.classical) return `${["X", "O"][info.classical.side]}${info.classical.move}`;
  return info.spooky.map((mark) => `${LETTER[mark.side]}${mark.move}`).join(" ");
}

function squaresOf(token) {
  if (!token) return new Set();
  return new Set(token.replace("@", "").split("-").map(Number));
}
