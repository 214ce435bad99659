// Ataxx: 7x7, files a-g, ranks 1-7 from the bottom. Select a piece to see its
// clone and jump targets (position.targets); a clone is sent as its destination,
// a jump as source + destination. A legal clone destination can also be clicked
// directly, without selecting a piece first.

import { CELL, FILES, GridBoard, svgEl } from "./board.js";
import { format, gettext } from "../i18n.js";

export const scoreIsCount = true;

export function sideNames() {
  return [gettext("Black"), gettext("White")];
}

const tokenAt = (row, col) => `${FILES[col]}${7 - row}`;
const PIECE_SIDE = { x: 0, o: 1 };
const DISC = ["●", "○"];

export function createRenderer(host, ctx) {
  const names = sideNames();
  let view = null;
  let selected = null;
  let shown = new Map();
  const board = new GridBoard(host, {
    rows: 7,
    cols: 7,
    tokenAt,
    label: gettext("Ataxx board"),
    onActivate: activate,
    onEscape: () => select(null),
  });
  host.classList.add("board-ataxx");
  const pieces = new Map();
  const marks = new Map();
  for (const [token, cell] of board.cells) {
    marks.set(token, svgEl("circle", { class: "target", cx: cell.cx, cy: cell.cy, r: CELL * 0.14 }, board.layers.marks));
    pieces.set(token, svgEl("circle", { class: "disc", cx: cell.cx, cy: cell.cy, r: CELL * 0.38 }, board.layers.pieces));
  }
  const lastFrom = svgEl("rect", { class: "last-from", width: CELL, height: CELL }, board.layers.back);
  const lastTo = svgEl("circle", { class: "last-move", r: CELL * 0.1 }, board.layers.over);

  function pieceAt(token) {
    const [file, rank] = [FILES.indexOf(token[0]), Number(token.slice(1))];
    const piece = view.position.cells[7 - rank][file].piece;
    return piece === null ? null : PIECE_SIDE[piece];
  }

  function targetsOf(token) {
    return view.position.targets[token] || { clone: [], jump: [] };
  }

  function activate(token) {
    if (!view || !view.canMove) return ctx.play(token); // the server explains why not
    const owner = pieceAt(token);
    if (owner !== null && owner === view.position.to_move) {
      select(selected === token ? null : token);
      return;
    }
    if (selected) {
      const { clone, jump } = targetsOf(selected);
      const source = selected;
      select(null);
      if (clone.includes(token)) return ctx.play(token);
      if (jump.includes(token)) return ctx.play(`${source}${token}`);
      return ctx.play(`${source}${token}`); // not a target: the server refuses it with its reason
    }
    ctx.play(token);
  }

  function select(token) {
    selected = token;
    if (view) draw();
  }

  function render(next) {
    if (view && next.snapshot.v !== view.snapshot.v) selected = null;
    view = next;
    draw();
  }

  function draw() {
    const { position, snapshot } = view;
    const clone = new Set(selected ? targetsOf(selected).clone : []);
    const jump = new Set(selected ? targetsOf(selected).jump : []);
    // With nothing selected, hints show where a clone can go (any piece may clone there).
    const hinted = new Set(!selected && view.showHints ? position.legal_moves.filter((m) => m.length === 2) : []);
    const next = new Map();
    for (const row of position.cells) {
      for (const { square, piece } of row) {
        const owner = piece === null ? null : PIECE_SIDE[piece];
        const node = pieces.get(square);
        node.setAttribute("class", owner === null ? "disc empty" : `disc p${owner}${square === selected ? " selected" : ""}`);
        const before = shown.get(square);
        if (before !== undefined && before !== null && owner !== null && before !== owner) board.pulse(node, "flip");
        if (before === null && owner !== null) board.pulse(node, "placed");
        next.set(square, owner);
        const kind = clone.has(square) ? "clone" : jump.has(square) ? "jump" : hinted.has(square) ? "hint" : "";
        marks.get(square).setAttribute("class", `target ${kind}`);
        board.setLabel(square, cellLabel(square, owner, kind), owner === null ? (kind ? "·" : "") : DISC[owner]);
      }
    }
    shown = next;
    markLast(snapshot.last_move);
  }

  function cellLabel(square, owner, kind) {
    if (owner !== null) {
      const text = format(gettext("%(cell)s, %(side)s piece"), { cell: square, side: names[owner] });
      return square === selected ? `${text}, ${gettext("selected")}` : text;
    }
    if (kind === "clone") return format(gettext("%(cell)s, empty, clone here"), { cell: square });
    if (kind === "jump") return format(gettext("%(cell)s, empty, jump here"), { cell: square });
    if (kind === "hint") return format(gettext("%(cell)s, empty, legal move"), { cell: square });
    return format(gettext("%(cell)s, empty"), { cell: square });
  }

  function markLast(token) {
    const valid = token && token !== "0000";
    const to = valid ? board.cell(token.slice(-2)) : null;
    const from = valid && token.length === 4 ? board.cell(token.slice(0, 2)) : null;
    lastTo.classList.toggle("on", Boolean(to));
    lastFrom.classList.toggle("on", Boolean(from));
    if (to) {
      lastTo.setAttribute("cx", to.cx);
      lastTo.setAttribute("cy", to.cy);
    }
    if (from) {
      lastFrom.setAttribute("x", from.x);
      lastFrom.setAttribute("y", from.y);
    }
  }

  return { render, board, selected: () => selected };
}
