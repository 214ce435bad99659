// Sentences for people: the result of a game (docs/protocol.md's reason slugs)
// and whose turn it is. Shared by the live board and the replay page.

import { format, gettext } from "../i18n.js";
import { formatWhen, timeLeft } from "../deadline.js";

// The computer's name is made here, in the page's language: a snapshot may have
// been written by a process that spoke another one.
const LEVELS = { easy: gettext("Easy"), medium: gettext("Medium"), hard: gettext("Hard") };

export function playerName(snapshot, side) {
  const player = snapshot.players[side];
  if (!player) return gettext("(waiting for a player)");
  if (player.kind === "computer" && LEVELS[player.level]) {
    return format(gettext("Computer (%(level)s)"), { level: LEVELS[player.level] });
  }
  // Guests are stored as "Guest 4821" (English); show them in the page's language.
  const guest = player.kind === "guest" && /^Guest (\d{4})$/.exec(player.name);
  if (guest) return format(gettext("Guest %(number)s"), { number: guest[1] });
  return player.name;
}

// The BOT mark that follows a BOT account's name (issue #41), as the server's
// {% bot_mark %} writes it: every script that shows a name takes it from here.
export function botMark() {
  const mark = document.createElement("abbr");
  mark.className = "bot-mark";
  mark.title = gettext("A program plays this account");
  mark.textContent = "BOT";
  return mark;
}

// A player's name in an element, with the BOT mark after it for a BOT account.
export function showName(element, snapshot, side) {
  element.textContent = playerName(snapshot, side);
  const player = snapshot.players[side];
  if (player && player.bot) element.append(" ", botMark());
}

// A translated sentence with a player's name in it, as nodes: the name keeps its BOT
// mark wherever the language puts it ("%(who)s invites you…" in one, later in another).
export function sentenceWithName(template, values, key, bot) {
  const nodes = [];
  let at = 0;
  for (const match of template.matchAll(/%\((\w+)\)s/g)) {
    nodes.push(template.slice(at, match.index));
    nodes.push(String(values[match[1]]));
    if (match[1] === key && bot) nodes.push(botMark());
    at = match.index + match[0].length;
  }
  nodes.push(template.slice(at));
  return nodes.filter((node) => node !== "");
}

function reasonSentence(snapshot) {
  const result = snapshot.result;
  const winner = result.winner;
  const [a, b] = result.score || [0, 0];
  const values = {
    winner: winner === null ? "" : playerName(snapshot, winner),
    loser: winner === null ? "" : playerName(snapshot, 1 - winner),
    score: `${a}–${b}`,
  };
  const drawn = winner === null;
  const sentences = {
    count: drawn ? gettext("Equal count: %(score)s.") : gettext("%(winner)s has more on the board: %(score)s."),
    board_full: drawn
      ? gettext("The board is full and the scores are level: %(score)s.")
      : gettext("The board is full; %(winner)s is ahead: %(score)s."),
    no_moves: drawn
      ? gettext("Neither side can move and the count is level: %(score)s.")
      : gettext("Neither side can move; %(winner)s has more discs: %(score)s."),
    wipeout: gettext("%(loser)s has no pieces left."),
    line: gettext("%(winner)s has three in a row."),
    all_boards_decided: drawn
      ? gettext("Every small board is decided and nobody has three in a row.")
      : gettext("Every small board is decided; %(winner)s is ahead."),
    no_clones: gettext("100 moves in a row without a clone: the game is drawn."),
    repetition: gettext("The same position came back for the third time: the game is drawn."),
    resign: gettext("%(loser)s resigned."),
    exit: gettext("%(loser)s left the game."),
    timeout: gettext("%(loser)s ran out of time."),
    draw_agreed: gettext("The players agreed to a draw."),
    aborted: gettext("The game was called off before it really began."),
    abandoned: gettext("The game was abandoned."),
    declined: gettext("The invitation was declined."),
    cancelled: gettext("The invitation was withdrawn."),
    expired: gettext("The game expired: nobody played it for too long."),
  };
  const sentence = sentences[result.reason];
  return sentence ? format(sentence, values) : result.reason;
}

// "You won! Bob resigned." / "Draw. The players agreed to a draw."
export function resultText(snapshot, you) {
  if (!snapshot.result) return "";
  const { winner } = snapshot.result;
  let headline;
  if (snapshot.status === "aborted") headline = gettext("No result.");
  else if (winner === null) headline = gettext("Draw.");
  else if (you === winner) headline = gettext("You won!");
  else if (you === 1 - winner) headline = gettext("You lost.");
  else headline = format(gettext("%(name)s won."), { name: playerName(snapshot, winner) });
  return `${headline} ${reasonSentence(snapshot)}`;
}

export function turnText(snapshot, you) {
  if (snapshot.status === "waiting") return gettext("Waiting for an opponent to join.");
  if (snapshot.status !== "active") return resultText(snapshot, you);
  const mover = snapshot.position.to_move;
  if (you === mover) return gettext("Your move.");
  if (you === null) return format(gettext("%(name)s to move."), { name: playerName(snapshot, mover) });
  return format(gettext("Waiting for %(name)s to move."), { name: playerName(snapshot, mover) });
}

// A ticking display (clocks, countdowns) written only when its text changes: setting the same
// text again still has the page laid out and painted again, several times a second for as long
// as the page is open (measured: three idle game pages cost headless Chromium 85 % less CPU).
export function setText(node, text) {
  if (node.textContent !== text) node.textContent = text;
}

export function formatClock(ms) {
  const clamped = Math.max(0, ms);
  // Correspondence clocks count days: "2 d 23 h" until the last day, then hours as usual.
  if (clamped >= 86400000) {
    return format(gettext("%(days)s d %(hours)s h"), {
      days: Math.floor(clamped / 86400000),
      hours: Math.floor((clamped % 86400000) / 3600000),
    });
  }
  if (clamped >= 3600000) {
    const hours = Math.floor(clamped / 3600000);
    const rest = Math.floor((clamped % 3600000) / 60000);
    return `${hours}:${String(rest).padStart(2, "0")}:${String(Math.floor((clamped % 60000) / 1000)).padStart(2, "0")}`;
  }
  const minutes = Math.floor(clamped / 60000);
  const seconds = Math.floor((clamped % 60000) / 1000);
  if (clamped < 10000) return `${seconds}.${Math.floor((clamped % 1000) / 100)}`;
  return `${minutes}:${String(seconds).padStart(2, "0")}`;
}

// A correspondence move's deadline, in the page's language: "Alice must move by 3 Dec 2026, 14:05 (2 days left)."
// The date and the time left are written as on every page (../deadline.js).
export function deadlineText(snapshot, you, deadline, left) {
  const when = formatWhen(deadline);
  const remaining = timeLeft(left);
  const mover = snapshot.position.to_move;
  if (you === mover) return format(gettext("Your move, by %(when)s (%(left)s)."), { when, left: remaining });
  return format(gettext("%(name)s must move by %(when)s (%(left)s)."), {
    name: playerName(snapshot, mover),
    when,
    left: remaining,
  });
}
