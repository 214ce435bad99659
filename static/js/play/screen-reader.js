// The screen-reader mode of the live board (lichess's "blind mode"): the board
// stays an ARIA grid whose cells are labelled, and a text field takes moves in
// the game's own notation and a few typed commands, answered in a log that
// screen readers read out. The opponent's moves, offers and the result are
// announced by the page's own live regions (#status, #result).

import { format, gettext, ngettext } from "../i18n.js";
import { playerName } from "./text.js";

// page: { root, client, renderer, renderers, play(token), lines }
export function setupScreenReader(page) {
  const panel = page.root.querySelector("#sr-panel");
  const form = panel.querySelector("#sr-form");
  const input = panel.querySelector("#sr-input");
  const log = panel.querySelector("#sr-output");
  panel.hidden = false;

  function answer(lines) {
    log.replaceChildren();
    for (const line of [].concat(lines)) {
      const item = document.createElement("p");
      item.textContent = line;
      log.appendChild(item);
    }
  }

  function labelOf(token) {
    return page.renderer.board.cell(token).hit.getAttribute("aria-label");
  }

  // The board's rows as drawn, top first; each row read as its cells' labels.
  function rows() {
    const { board } = page.renderer;
    const result = [];
    for (let row = 0; row < board.rows; row++) {
      const tokens = [];
      for (let col = 0; col < board.cols; col++) tokens.push(board.options.tokenAt(row, col));
      result.push(tokens);
    }
    return result;
  }

  // "row 3": the rank called 3 on a board with named squares; the third row of Quantum's squares.
  function row(number) {
    const all = rows();
    const tokens = /^[a-i]\d$/.test(all[0][0]) ? all.find((t) => t[0].slice(1) === number) : all[Number(number) - 1];
    if (!tokens) return format(gettext("There is no row %(row)s."), { row: number });
    return format(gettext("Row %(row)s: %(cells)s."), { row: number, cells: tokens.map(labelOf).join("; ") });
  }

  function clock() {
    const snapshot = page.client.game;
    if (!snapshot.clock.timed) return gettext("This game has no clock.");
    return [0, 1].map((side) => {
      const left = page.root.querySelector(`.player[data-side="${side}"] .clock`).textContent;
      return format(gettext("%(name)s: %(time)s left."), { name: playerName(snapshot, side), time: left });
    });
  }

  function last() {
    const snapshot = page.client.game;
    if (!snapshot.last_move) return gettext("No move has been played yet.");
    return format(gettext("Last move: %(move)s."), { move: snapshot.last_move });
  }

  function moves() {
    const list = page.client.game.moves;
    if (!list.length) return gettext("No move has been played yet.");
    return format(gettext("Moves: %(moves)s."), { moves: list.map((move, i) => `${i + 1}. ${move}`).join(", ") });
  }

  // Four Tac Toe: the lines through a cell that are still alive, as text.
  function lines(token) {
    const help = page.renderer.helpLines?.(token);
    if (!page.renderer.helpLines || !page.renderer.board.cell(token)) return gettext("Type lines and a cell, for example: lines e4.");
    if (!help) return labelOf(token);
    const names = page.renderers.sideNames();
    const text = ngettext("%(count)s line through %(cell)s that %(side)s can still complete",
      "%(count)s lines through %(cell)s that %(side)s can still complete", help.ids.length);
    const summary = format(text, { count: help.ids.length, cell: token, side: names[help.whose] });
    return [summary, ...help.ids.map((k) => page.lines[k].join("–"))];
  }

  // The page's own buttons, so resigning asks first as it does for a click.
  function press(...actions) {
    const button = actions.map((a) => page.root.querySelector(`[data-action="${a}"]`)).find((b) => b && !b.hidden && !b.disabled);
    if (!button) return answer(gettext("That is not possible now."));
    button.click();
  }

  // The arrow keys' cursor, read out in the log as well as through aria-activedescendant
  // (which not every screen reader follows inside an SVG grid).
  page.renderer.board.onCursor = (token, label) => answer(label);

  const commands = {
    clock: () => answer(clock()),
    last: () => answer(last()),
    board: () => answer(rows().map((tokens) => tokens.map(labelOf).join("; "))),
    moves: () => answer(moves()),
    resign: () => press("resign"),
    draw: () => press("accept_draw", "offer_draw"),
  };

  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const text = input.value.trim();
    if (!text) return;
    input.value = "";
    const [word, argument] = text.toLowerCase().split(/\s+/);
    if (commands[word] && argument === undefined) return commands[word]();
    if (word === "row" && argument) return answer(row(argument));
    if (word === "lines" && argument) return answer(lines(argument));
    // Anything else is a move in the game's notation; the server judges it.
    answer(format(gettext("Sending %(move)s."), { move: word }));
    page.play(word);
  });
}
