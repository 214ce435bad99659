// The screen-reader mode (lichess's "blind mode" carried to five grid games), shared
// by the live board, the replay and the analysis board:
// - the board becomes an HTML table with role="grid" (the SVG stays for sighted
//   helpers but is hidden from assistive technology): one focusable, labelled cell per
//   square, arrow keys, Home/End, PageUp/PageDown, and a letter or digit to jump to a
//   file or rank (a square on Quantum's board); Enter or Space plays;
// - a text field takes moves in the game's notation and typed commands, whose words
//   are translated (the English word always works too);
// - one live log (#sr-output) answers the commands and repeats what the page's own
//   status lines announce (the opponent's move, offers, the result), which are then
//   silenced so that nothing is read twice.
// Moving over the table is read out by the screen reader itself, from the focused
// cell (a log entry for every step would be heard twice); what changes under a cell
// that keeps the focus (a piece selected, a move sent) goes to the log.

import { format, gettext, ngettext, pgettext } from "../i18n.js";

const LOG_ENTRIES = 40; // older answers are dropped, the log stays short to browse

// The command words, translated; the English word is always accepted as well.
function commandWords() {
  // Literal calls, so that makemessages finds every word.
  return {
    help: pgettext("screen-reader command", "help"),
    board: pgettext("screen-reader command", "board"),
    row: pgettext("screen-reader command", "row"),
    column: pgettext("screen-reader command", "column"),
    last: pgettext("screen-reader command", "last"),
    moves: pgettext("screen-reader command", "moves"),
    legal: pgettext("screen-reader command", "legal"),
    lines: pgettext("screen-reader command", "lines"),
    clock: pgettext("screen-reader command", "clock"),
    resign: pgettext("screen-reader command", "resign"),
    draw: pgettext("screen-reader command", "draw"),
    next: pgettext("screen-reader command", "next"),
    back: pgettext("screen-reader command", "back"),
    start: pgettext("screen-reader command", "start"),
    end: pgettext("screen-reader command", "end"),
    evaluate: pgettext("screen-reader command", "evaluate"),
    pass: pgettext("screen-reader command", "pass"),
  };
}

// What a person types, in the form the server takes: "D3" -> "d3", "b2 c4" / "b2-c4"
// -> "b2c4" (an Ataxx jump), "5-1" / "5 1" -> "1-5" and "@ 3" -> "@3" (Quantum).
export function normaliseMove(text) {
  const plain = text.trim().toLowerCase();
  const pair = /^(\d)\s*[-–\s]\s*(\d)$/.exec(plain);
  if (pair) return [Number(pair[1]), Number(pair[2])].sort((a, b) => a - b).join("-");
  const jump = /^([a-i]\d)\s*[-–\s]?\s*([a-i]\d)$/.exec(plain);
  if (jump) return `${jump[1]}${jump[2]}`;
  return plain.replace(/^@\s+/, "@");
}

// page: {
//   root, renderer, lines (Four Tac Toe's line table: its kind's renderer options, spread in),
//   state() -> { moves, last_move, position } of the position shown,
//   move(token) (absent: moves cannot be typed here),
//   commands: { key: (argument) => lines | undefined } (the page's own words, keys of commandWords),
//   mirror: [elements whose announcements the log repeats],
// }
export function setupScreenReader(page) {
  const { renderer } = page;
  const board = renderer.board;
  const panel = page.root.querySelector("#sr-panel");
  const form = panel.querySelector("#sr-form");
  const input = panel.querySelector("#sr-input");
  const log = panel.querySelector("#sr-output");
  const words = commandWords();
  const own = new Set(Object.keys(page.commands || {}));
  const available = ["help", "board", "row", "column", "last", "moves", "legal", ...(page.lines?.length ? ["lines"] : []), ...own];
  const aliases = new Map();
  for (const key of available) {
    aliases.set(key, key);
    aliases.set(words[key].normalize("NFC").toLocaleLowerCase(), key);
  }
  panel.hidden = false;
  page.root.classList.add("screen-reader");

  // --- the log -------------------------------------------------------------------------

  let said = 0;
  // reply: an answer to what was typed (marked, so that it can be told from the news).
  function answer(lines, { reply = false } = {}) {
    const entry = document.createElement("div");
    entry.className = reply ? "sr-entry sr-reply" : "sr-entry";
    entry.dataset.n = ++said; // numbered, so an entry can be found after older ones are dropped
    for (const line of [].concat(lines)) {
      const item = document.createElement("p");
      item.textContent = line;
      entry.appendChild(item);
    }
    log.appendChild(entry);
    while (log.children.length > LOG_ENTRIES) log.firstElementChild.remove();
    log.scrollTop = log.scrollHeight;
  }

  // The page's own live regions keep showing their text but stop speaking: the log says it.
  for (const element of page.mirror || []) {
    element.setAttribute("aria-live", "off");
    element.removeAttribute("role");
    let said = null;
    let saidAt = 0;
    const repeat = () => {
      const text = element.textContent.trim();
      if (!text || element.hidden) return;
      // The result is redrawn with every picture; it is news only when it changes. The same
      // line twice within a second is one event seen twice, not news. (The live page does
      // not rewrite an unchanged status line at all, so the socket's first state, which
      // repeats the page's first snapshot, is silent however late it comes.)
      const again = text === said && (element.dataset.srOnce !== undefined || performance.now() - saidAt < 1000);
      said = text;
      saidAt = performance.now();
      if (!again) answer(text);
    };
    new MutationObserver(repeat).observe(element, { childList: true, characterData: true, subtree: true, attributes: true, attributeFilter: ["hidden"] });
  }

  // --- the grid ----------------------------------------------------------------------------

  const table = document.createElement("table");
  table.className = "sr-grid";
  table.setAttribute("role", "grid");
  table.setAttribute("aria-label", board.options.label);
  table.id = "sr-grid";
  // Square cells of a size the board's glyphs fit in (Quantum's hold several marks); through
  // the CSSOM, as a style attribute would be refused by the site's CSP.
  table.style.setProperty("--sr-cols", board.cols);
  table.style.setProperty("--sr-cell", board.cols <= 3 ? "5.5rem" : "2.6rem");
  const tds = new Map();
  const groups = board.groups;
  for (let row = 0; row < board.rows; row++) {
    const tr = document.createElement("tr");
    tr.setAttribute("role", "row");
    if (groups && row % groups === groups - 1 && row < board.rows - 1) tr.className = "group-end";
    for (let col = 0; col < board.cols; col++) {
      const token = board.options.tokenAt(row, col);
      const td = document.createElement("td");
      td.setAttribute("role", "gridcell");
      td.tabIndex = -1;
      td.dataset.srCell = token;
      if (groups && col % groups === groups - 1 && col < board.cols - 1) td.classList.add("group-end");
      const glyph = document.createElement("span");
      glyph.className = "sr-glyph";
      glyph.setAttribute("aria-hidden", "true");
      const label = document.createElement("span");
      label.className = "visually-hidden";
      label.textContent = board.cell(token).hit.getAttribute("aria-label") || token;
      td.append(glyph, label);
      tr.appendChild(td);
      tds.set(token, { td, glyph, label, row, col });
    }
    table.appendChild(tr);
  }
  board.svg.closest(".board-host").after(table);
  // The picture stays for sighted helpers; assistive technology reads the table only.
  board.svg.setAttribute("aria-hidden", "true");
  board.svg.setAttribute("tabindex", "-1");
  board.onLabel = (token, text, glyph) => {
    const cell = tds.get(token);
    cell.label.textContent = text;
    cell.glyph.textContent = glyph;
  };
  const rangeCell = tds.get(board.cursorToken());
  let cursor = { row: rangeCell.row, col: rangeCell.col };
  rangeCell.td.tabIndex = 0;
  board.focusTarget = () => tds.get(tokenAt(cursor.row, cursor.col)).td;
  // The skip link lands on the table's cell under the cursor (the live page does this itself).
  document.querySelector("[data-skip-board]")?.addEventListener("click", (event) => {
    event.preventDefault();
    board.focus();
  });

  function tokenAt(row, col) {
    return board.options.tokenAt(row, col);
  }

  function labelOf(token) {
    return tds.get(token).label.textContent;
  }

  function moveTo(row, col) {
    tds.get(tokenAt(cursor.row, cursor.col)).td.tabIndex = -1;
    cursor = { row, col };
    const { td } = tds.get(tokenAt(row, col));
    td.tabIndex = 0;
    td.focus();
    board.options.onHover?.(tokenAt(row, col)); // Four Tac Toe draws the cell's lines for a sighted helper
  }

  const named = board.named;
  // A letter jumps to its file, a digit to its rank (to its square on Quantum's board).
  function jump(key) {
    if (named && /^[a-z]$/.test(key)) {
      const col = [...Array(board.cols).keys()].find((c) => tokenAt(0, c)[0] === key);
      if (col === undefined) return answer(format(gettext("There is no column %(column)s."), { column: key }));
      return moveTo(cursor.row, col);
    }
    if (/^\d$/.test(key)) {
      if (named) {
        const row = [...Array(board.rows).keys()].find((r) => tokenAt(r, 0).slice(1) === key);
        if (row === undefined) return answer(format(gettext("There is no row %(row)s."), { row: key }));
        return moveTo(row, cursor.col);
      }
      const found = tds.get(key);
      if (!found) return answer(format(gettext("There is no square %(square)s."), { square: key }));
      return moveTo(found.row, found.col);
    }
    return undefined;
  }

  function activate(token) {
    const selectedBefore = renderer.selected?.();
    board.options.onActivate?.(token);
    const selectedAfter = renderer.selected?.();
    // A piece picked up or put down stays under the focus: say what changed.
    if (selectedAfter !== selectedBefore) {
      const lines = [labelOf(token)];
      const targets = selectedAfter && page.state().position.targets?.[selectedAfter];
      if (targets) lines.push(...targetSentences(targets));
      answer(lines);
    }
  }

  function targetSentences({ clone, jump: jumps }) {
    return [
      clone.length ? format(gettext("Clone to: %(cells)s."), { cells: clone.join(", ") }) : gettext("No clone move."),
      jumps.length ? format(gettext("Jump to: %(cells)s."), { cells: jumps.join(", ") }) : gettext("No jump."),
    ];
  }

  table.addEventListener("keydown", (event) => {
    const td = event.target.closest("td[data-sr-cell]");
    if (!td || event.altKey || event.metaKey) return;
    const { row, col } = tds.get(td.dataset.srCell);
    const last = { row: board.rows - 1, col: board.cols - 1 };
    const moves = {
      ArrowUp: [row - 1, col], ArrowDown: [row + 1, col], ArrowLeft: [row, col - 1], ArrowRight: [row, col + 1],
      Home: event.ctrlKey ? [0, 0] : [row, 0],
      End: event.ctrlKey ? [last.row, last.col] : [row, last.col],
      PageUp: [0, col], PageDown: [last.row, col],
    };
    if (moves[event.key]) {
      const [r, c] = moves[event.key];
      if (r >= 0 && r <= last.row && c >= 0 && c <= last.col) moveTo(r, c);
      else answer(gettext("Edge of the board."));
    } else if (event.key === "Enter" || event.key === " ") {
      activate(td.dataset.srCell);
    } else if (event.key === "Escape") {
      board.options.onEscape?.();
      return;
    } else if (!event.ctrlKey && event.key.length === 1 && jump(event.key.toLowerCase()) !== undefined) {
      // jumped (or said why not)
    } else {
      return;
    }
    event.preventDefault();
    event.stopPropagation(); // the page's own arrow keys step through the moves
  });
  table.addEventListener("click", (event) => {
    const td = event.target.closest("td[data-sr-cell]");
    if (!td) return;
    const { row, col } = tds.get(td.dataset.srCell);
    moveTo(row, col);
    activate(td.dataset.srCell);
  });

  // --- commands ----------------------------------------------------------------------------

  function rowTokens(row) {
    return [...Array(board.cols).keys()].map((col) => tokenAt(row, col));
  }

  // "row 3": the rank called 3 on a board with named squares; the third row of Quantum's squares.
  function row(number) {
    const index = named ? [...Array(board.rows).keys()].find((r) => tokenAt(r, 0).slice(1) === number) : Number(number) - 1;
    if (index === undefined || !(index >= 0 && index < board.rows)) return format(gettext("There is no row %(row)s."), { row: number });
    return format(gettext("Row %(row)s: %(cells)s."), { row: number, cells: rowTokens(index).map(labelOf).join("; ") });
  }

  function column(name) {
    const index = named ? [...Array(board.cols).keys()].find((c) => tokenAt(0, c)[0] === name) : Number(name) - 1;
    if (index === undefined || !(index >= 0 && index < board.cols)) return format(gettext("There is no column %(column)s."), { column: name });
    const cells = [...Array(board.rows).keys()].map((r) => labelOf(tokenAt(r, index)));
    return format(gettext("Column %(column)s: %(cells)s."), { column: name, cells: cells.join("; ") });
  }

  function last() {
    const move = page.state().last_move;
    if (!move) return gettext("No move has been played yet.");
    return format(gettext("Last move: %(move)s."), { move });
  }

  function moves() {
    const list = page.state().moves;
    if (!list.length) return gettext("No move has been played yet.");
    return format(gettext("Moves: %(moves)s."), { moves: list.map((move, i) => `${i + 1}. ${move}`).join(", ") });
  }

  function legal() {
    const list = page.state().position.legal_moves || [];
    if (!list.length) return gettext("There is no legal move in this position.");
    return format(gettext("Legal moves: %(moves)s."), { moves: list.join(", ") });
  }

  // Four Tac Toe: the lines through a cell that are still alive, as text.
  function lines(token) {
    if (!renderer.helpLines || !token || !tds.has(token)) return gettext("Type lines and a cell, for example: lines e4.");
    const help = renderer.helpLines(token);
    if (!help) return labelOf(token);
    const names = ["X", "O"];
    const text = ngettext("%(count)s line through %(cell)s that %(side)s can still complete",
      "%(count)s lines through %(cell)s that %(side)s can still complete", help.ids.length);
    const summary = format(text, { count: help.ids.length, cell: token, side: names[help.whose] });
    return [summary, ...help.ids.map((k) => page.lines[k].join("–"))];
  }

  function help() {
    const list = available.map((key) => (words[key] === key ? key : `${words[key]} (${key})`));
    return [
      format(gettext("Commands: %(commands)s."), { commands: list.join(", ") }),
      page.move ? gettext("Anything else is taken as a move, written as in the move list.") : gettext("Moves cannot be played on this page."),
      gettext("On the board: arrow keys, Home and End, Page Up and Page Down; a letter or a digit jumps to that column or row; Enter plays."),
    ];
  }

  const common = {
    help: () => help(),
    board: () => [...[...Array(board.rows).keys()].map((r) => rowTokens(r).map(labelOf).join("; ")), ...(renderer.summary?.() || [])],
    row: (argument) => (argument ? row(argument) : gettext("Type row and a number, for example: row 3.")),
    column: (argument) => (argument ? column(argument) : gettext("Type column and its name, for example: column c.")),
    last: () => last(),
    moves: () => moves(),
    legal: () => legal(),
    lines: (argument) => lines(argument),
  };
  const takesArgument = new Set(["row", "column", "lines"]);

  form.addEventListener("submit", (event) => {
    event.preventDefault();
    // NFC: Bengali and Hindi letters with a nukta can be typed composed or not.
    const text = input.value.trim().normalize("NFC");
    if (!text) return;
    input.value = "";
    const [first, ...rest] = text.toLocaleLowerCase().split(/\s+/);
    const key = aliases.get(first);
    const argument = rest.join(" ") || undefined;
    if (key && (argument === undefined || takesArgument.has(key))) {
      const reply = own.has(key) ? page.commands[key](argument) : common[key](argument);
      if (reply !== undefined) answer(reply, { reply: true });
      return;
    }
    if (!page.move) return answer(format(gettext("%(text)s is not a command here. Type help for the list."), { text }), { reply: true });
    const token = normaliseMove(text);
    answer(format(gettext("Sending %(move)s."), { move: token }), { reply: true });
    page.move(token);
  });

  const described = panel.querySelector("#sr-commands");
  if (described) described.textContent = help()[0];

  return { answer };
}
