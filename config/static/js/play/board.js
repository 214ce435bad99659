// A board of square cells drawn as SVG, shared by every renderer: geometry,
// clicks, hover, and a keyboard cursor (arrow keys move, Enter plays) exposed
// to screen readers as an ARIA grid with one labelled gridcell per square.

import { gettext } from "../i18n.js";

export const SVG_NS = "http://www.w3.org/2000/svg";
export const CELL = 40; // viewBox units per cell; CSS scales the whole SVG
export const BOARD_GAP = 8; // space between the small boards of a 9x9 board
const MARGIN = 16; // room left of and below the board for its coordinates

let boardCount = 0;

export function svgEl(tag, attrs = {}, parent = null) {
  const node = document.createElementNS(SVG_NS, tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value !== null && value !== undefined) node.setAttribute(name, value);
  }
  if (parent) parent.appendChild(node);
  return node;
}

// Letters for files; both 8x8 (Reversi) and 9x9 boards index them from "a".
export const FILES = "abcdefghi";

// The small boards of a 9x9 board, in reading order from the top-left.
export function boardName(index) {
  return [
    gettext("top-left board"), gettext("top board"), gettext("top-right board"),
    gettext("left board"), gettext("centre board"), gettext("right board"),
    gettext("bottom-left board"), gettext("bottom board"), gettext("bottom-right board"),
  ][index];
}

export class GridBoard {
  // options: rows, cols, tokenAt(row, col), label, groups (3 = a gap after every
  // third row and column), onActivate(token), onHover(token | null), onEscape()
  constructor(host, options) {
    this.options = options;
    this.rows = options.rows;
    this.cols = options.cols;
    this.groups = options.groups || 0;
    this.id = `board${++boardCount}`;
    this.cells = new Map();
    this.cursor = { row: Math.floor(this.rows / 2), col: Math.floor(this.cols / 2) };
    this.flipped = false;
    const [width, height] = this.size();
    // Names like "e7" are what the move list, the status and the records say:
    // the board shows its files and ranks so a player can find them.
    this.named = /^[a-i]\d$/.test(options.tokenAt(0, 0));
    const left = this.named ? MARGIN : 4;
    const bottom = this.named ? MARGIN : 4;
    this.svg = svgEl("svg", {
      class: "board-svg",
      viewBox: `${-left} -4 ${width + left + 4} ${height + bottom + 4}`,
      role: "grid",
      tabindex: "0",
      "aria-label": options.label,
    });
    this.layers = {};
    for (const name of ["back", "coords", "marks", "pieces", "over", "hits", "cursor"]) {
      this.layers[name] = svgEl("g", { class: `layer-${name}` }, this.svg);
    }
    this.layers.over.setAttribute("pointer-events", "none");
    this.layers.cursor.setAttribute("pointer-events", "none");
    this.buildCells();
    this.drawCoordinates(height);
    this.cursorRect = svgEl("rect", { class: "cursor", width: CELL, height: CELL, rx: 4 }, this.layers.cursor);
    this.bindEvents();
    host.appendChild(this.svg);
    this.moveCursor(this.cursor.row, this.cursor.col, { announce: false });
  }

  size() {
    const extra = this.groups ? (this.cols / this.groups - 1) * BOARD_GAP : 0;
    const extraY = this.groups ? (this.rows / this.groups - 1) * BOARD_GAP : 0;
    return [this.cols * CELL + extra, this.rows * CELL + extraY];
  }

  origin(row, col) {
    const gapX = this.groups ? Math.floor(col / this.groups) * BOARD_GAP : 0;
    const gapY = this.groups ? Math.floor(row / this.groups) * BOARD_GAP : 0;
    return [col * CELL + gapX, row * CELL + gapY];
  }

  buildCells() {
    for (let row = 0; row < this.rows; row++) {
      const rowGroup = svgEl("g", { role: "row" }, this.layers.hits);
      for (let col = 0; col < this.cols; col++) {
        const token = this.options.tokenAt(row, col);
        const [x, y] = this.origin(row, col);
        svgEl("rect", { class: "cell-bg", x, y, width: CELL, height: CELL, "data-bg": token }, this.layers.back);
        const hit = svgEl(
          "rect",
          { class: "hit", x, y, width: CELL, height: CELL, role: "gridcell", id: `${this.id}-${token}`, "data-cell": token },
          rowGroup,
        );
        this.cells.set(token, { row, col, x, y, cx: x + CELL / 2, cy: y + CELL / 2, hit });
      }
    }
  }

  // Files under the board and ranks beside it (a-h and 1-8 ...); a board whose
  // squares are numbered (Quantum: 1-9) shows each number in a corner of its square.
  drawCoordinates(height) {
    const layer = this.layers.coords;
    layer.setAttribute("aria-hidden", "true");
    layer.setAttribute("pointer-events", "none");
    if (!this.named) {
      for (const [token, cell] of this.cells) {
        // Bottom-left: the corner the spooky marks (filled from the top) reach last.
        svgEl("text", { class: "coord coord-square", x: cell.x + 2.5, y: cell.y + CELL - 2.5 }, layer).textContent = token;
      }
      return;
    }
    for (let col = 0; col < this.cols; col++) {
      const cell = this.cells.get(this.options.tokenAt(this.rows - 1, col));
      svgEl("text", { class: "coord coord-file", x: cell.cx, y: height + 12, "text-anchor": "middle" }, layer)
        .textContent = this.options.tokenAt(this.rows - 1, col)[0];
    }
    for (let row = 0; row < this.rows; row++) {
      const cell = this.cells.get(this.options.tokenAt(row, 0));
      svgEl("text", { class: "coord coord-rank", x: -MARGIN / 2, y: cell.cy + 4, "text-anchor": "middle" }, layer)
        .textContent = this.options.tokenAt(row, 0).slice(1);
    }
  }

  // Turned half a turn by CSS (the text counter-rotates, board.css); the
  // cells keep their names, so only the keyboard's directions change.
  setFlipped(flipped) {
    this.flipped = flipped;
    this.svg.classList.toggle("flipped", flipped);
  }

  // The cells of a move sent and not yet acknowledged (play.js).
  markPending(tokens) {
    for (const { hit } of this.cells.values()) hit.classList.remove("pending");
    for (const token of tokens) this.cells.get(token)?.hit.classList.add("pending");
  }

  bindEvents() {
    this.svg.addEventListener("click", (event) => {
      const token = event.target.getAttribute?.("data-cell");
      if (!token) return;
      const cell = this.cells.get(token);
      this.moveCursor(cell.row, cell.col, { announce: false });
      this.options.onActivate?.(token);
    });
    this.svg.addEventListener("pointerover", (event) => {
      const token = event.target.getAttribute?.("data-cell");
      if (token) this.options.onHover?.(token);
    });
    this.svg.addEventListener("pointerleave", (event) => {
      // A finger has left the glass: what it showed goes (a tap is not a hover).
      if (event.pointerType === "touch") return this.options.onHover?.(null);
      // Keep showing the keyboard cursor's help when the pointer leaves a board the keyboard
      // is using; not after a click (as for focus below): that help would stay until the next
      // click elsewhere blurred the board, and the page moving up under that click lost it.
      const keyboard = document.activeElement === this.svg && !this.svg.classList.contains("pointer-used");
      this.options.onHover?.(keyboard ? this.cursorToken() : null);
    });
    // Focus from the keyboard shows the cursor's help; focus from a tap or click
    // must not (the cursor may sit on an older cell, whose help would then stay).
    this.svg.addEventListener("focus", () => {
      if (!this.svg.classList.contains("pointer-used")) this.options.onHover?.(this.cursorToken());
    });
    this.svg.addEventListener("blur", () => this.options.onHover?.(null));
    this.svg.addEventListener("keydown", (event) => this.onKey(event));
    // The cursor is the keyboard's: a click hides it (Chromium keeps :focus-visible on
    // an element focused by the keyboard even after later clicks), a key shows it again.
    this.svg.addEventListener("pointerdown", () => this.svg.classList.add("pointer-used"));
  }

  onKey(event) {
    this.svg.classList.remove("pointer-used");
    const steps = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] };
    if (steps[event.key]) {
      const [dr, dc] = steps[event.key].map((step) => (this.flipped ? -step : step));
      const row = Math.min(this.rows - 1, Math.max(0, this.cursor.row + dr));
      const col = Math.min(this.cols - 1, Math.max(0, this.cursor.col + dc));
      this.moveCursor(row, col, { announce: true });
      event.preventDefault();
    } else if (event.key === "Enter" || event.key === " ") {
      this.options.onActivate?.(this.cursorToken());
      event.preventDefault();
    } else if (event.key === "Escape") {
      this.options.onEscape?.();
    }
  }

  cursorToken() {
    return this.options.tokenAt(this.cursor.row, this.cursor.col);
  }

  moveCursor(row, col, { announce }) {
    this.cursor = { row, col };
    const token = this.cursorToken();
    const cell = this.cells.get(token);
    this.cursorRect.setAttribute("x", cell.x);
    this.cursorRect.setAttribute("y", cell.y);
    // aria-activedescendant makes screen readers read the cell's label as the cursor moves.
    this.svg.setAttribute("aria-activedescendant", cell.hit.id);
    if (announce) this.options.onHover?.(token);
  }

  // glyph: the cell's content in one or two characters, for the screen-reader mode's
  // table (config/static/js/play/screen-reader.js), which follows every label through onLabel.
  setLabel(token, text, glyph = "") {
    this.cells.get(token).hit.setAttribute("aria-label", text);
    this.onLabel?.(token, text, glyph);
  }

  cell(token) {
    return this.cells.get(token);
  }

  // Where the keyboard lands on the board: the SVG grid, or the screen-reader mode's table.
  focus() {
    (this.focusTarget?.() ?? this.svg).focus();
  }

  // Marks a cell for a short CSS animation (flips, conversions); restarting the
  // animation needs the class removed and a reflow before it is added again.
  pulse(node, className = "changed") {
    node.classList.remove(className);
    void node.getBoundingClientRect();
    node.classList.add(className);
  }
}

export function clearLayer(layer) {
  while (layer.firstChild) layer.removeChild(layer.firstChild);
}

// X and O drawn as paths, so they scale crisply and take the palette's colours.
export function drawX(parent, cx, cy, size, extra = {}) {
  const d = `M${cx - size} ${cy - size}L${cx + size} ${cy + size}M${cx + size} ${cy - size}L${cx - size} ${cy + size}`;
  return svgEl("path", { class: "mark mark-x", d, ...extra }, parent);
}

export function drawO(parent, cx, cy, size, extra = {}) {
  return svgEl("circle", { class: "mark mark-o", cx, cy, r: size, ...extra }, parent);
}

export function drawMark(parent, side, cx, cy, size, extra = {}) {
  return side === 0 ? drawX(parent, cx, cy, size, extra) : drawO(parent, cx, cy, size, extra);
}
