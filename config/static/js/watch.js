// The Watch page: the games in play, kept current by the feed on the notification
// socket (notify.js opens it; docs/protocol.md, "Games to watch"), and the TV: the
// best game of the chosen kind on a board that follows its moves as a spectator,
// which moves on to the next best game a few seconds after its game ends.

import { GameClient } from "./play/client.js";
import { clockLeft, readClock } from "./play/clock.js";
import { loadRenderer, readJson, rendererOptions } from "./play/renderers.js";
import { formatClock, playerName, resultText, setText, showName, turnText } from "./play/text.js";
import { format, ngettext } from "./i18n.js";

const NEXT_GAME_AFTER_MS = 4000; // the result of the game that ended stays on screen this long

const root = document.querySelector("[data-watch]");
const $ = (selector) => root.querySelector(selector);
const names = readJson("game-names", {});
const provisionalMark = document.getElementById("provisional-mark");
let feed = readJson("watch-feed", { games: [], tv: {} });

// --- the list --------------------------------------------------------------------------

function cell(className, text) {
  const td = document.createElement("td");
  td.className = className;
  td.textContent = text;
  return td;
}

function playersCell(entry) {
  const td = document.createElement("td");
  td.className = "seats";
  entry.players.forEach((player, side) => {
    if (side) td.append(" – ");
    const span = document.createElement("span");
    span.className = "seat";
    const name = document.createElement("span");
    name.className = "name";
    showName(name, entry, side);
    span.append(name);
    if (player.rating !== null) {
      const rating = document.createElement("span");
      rating.className = "rating";
      rating.textContent = String(player.rating);
      if (player.provisional) rating.append(provisionalMark.content.cloneNode(true));
      span.append(" ", rating);
    }
    td.append(span);
  });
  return td;
}

function row(entry) {
  const tr = document.createElement("tr");
  tr.dataset.gameId = String(entry.id);
  tr.dataset.kind = entry.game;
  const game = document.createElement("td");
  const link = document.createElement("a");
  link.href = entry.url;
  link.textContent = names[entry.game] ?? entry.game;
  game.append(link);
  tr.append(game, playersCell(entry), cell("time-control", entry.time_control),
    cell("ply", String(entry.ply)), cell("spectators", String(entry.spectators)));
  return tr;
}

function showList() {
  // Rebuilt whole: thirty rows at most, every two seconds at most, and only when they changed.
  $("#watch-rows").replaceChildren(...feed.games.map(row));
  $("#watch-empty").hidden = feed.games.length > 0;
}

// --- the TV ----------------------------------------------------------------------------

const tv = {
  kind: null, // the channel: a kind of game
  entry: null, // the feed's row of the game on screen
  client: null,
  renderer: null,
  rendererKind: null,
  endedAt: null, // when the game on screen ended (performance.now())
  clock: null, // the game's clock as read when its snapshot arrived (play/clock.js)
  timer: null,
  follows: 0, // calls of follow() so far
};

function chooseChannel() {
  const asked = new URLSearchParams(location.search).get("tv");
  if (asked && asked in names) return asked;
  // The channel of the best game in play, else the first kind.
  return feed.games[0]?.game ?? Object.keys(names)[0];
}

function setChannel(kind) {
  tv.kind = kind;
  root.querySelectorAll(".tv-channel").forEach((button) => {
    button.setAttribute("aria-pressed", String(button.dataset.kind === kind));
  });
  follow(feed.tv[kind] ?? null);
}

// The feed changed: the TV keeps its game until that game ends, then takes the next best.
function updateTv() {
  const next = feed.tv[tv.kind] ?? null;
  if (tv.entry === null) {
    follow(next);
    return;
  }
  if (tv.endedAt === null) {
    if (next && next.id === tv.entry.id) tv.entry = next; // its spectator count, its ratings
    showWatchers(tv.client?.watchers ?? tv.entry.spectators);
    return;
  }
  const wait = NEXT_GAME_AFTER_MS - (performance.now() - tv.endedAt);
  clearTimeout(tv.timer);
  if (wait > 0) {
    tv.timer = setTimeout(updateTv, wait);
    return;
  }
  if (!next || next.id !== tv.entry.id) follow(next);
}

async function follow(entry) {
  // Which call of follow() is the latest: updateTv() swaps tv.entry for the same game's newer
  // entry, so the entry itself cannot tell whether another game was chosen during the await below.
  const call = ++tv.follows;
  clearTimeout(tv.timer);
  tv.client?.close();
  tv.client = null;
  tv.entry = entry;
  tv.endedAt = null;
  $("#tv-empty").hidden = entry !== null;
  $("#tv-game").hidden = entry === null;
  root.dataset.tvGame = entry ? String(entry.id) : "";
  if (!entry) return;
  $("#tv-game").dataset.game = entry.game; // board.css draws the players' swatches by game
  $("#tv-open").href = entry.url;
  showWatchers(entry.spectators);
  if (tv.rendererKind !== entry.game) {
    const renderers = await loadRenderer(entry.game);
    if (tv.follows !== call) return; // another game was chosen meanwhile
    // A renderer marks its host with its game's class (board-reversi...): the last game's must go.
    $("#tv-board").replaceChildren();
    $("#tv-board").className = "board-host tv-board";
    tv.renderer = renderers.createRenderer($("#tv-board"), { play: () => {}, ...rendererOptions(entry.game) });
    tv.rendererKind = entry.game;
  }
  tv.client = new GameClient(entry.id, { game: null, you: null }, {
    onSnapshot: (game) => showTvGame(game),
    onWatchers: (count) => showWatchers(count),
  });
}

function showTvGame(game) {
  if (!tv.entry || game.id !== tv.entry.id) return;
  tv.clock = readClock(game.clock);
  tv.renderer.render({ snapshot: game, position: game.position, you: null, canMove: false, showHints: false });
  root.querySelectorAll(".tv-player").forEach((box) => {
    const side = Number(box.dataset.side);
    const player = tv.entry.players[side];
    showName(box.querySelector(".name"), game, side);
    const rating = box.querySelector(".rating");
    rating.replaceChildren();
    if (player && player.rating !== null) {
      rating.append(" ", String(player.rating));
      if (player.provisional) rating.append(provisionalMark.content.cloneNode(true));
    }
    box.querySelector(".score").textContent = game.position.score[side];
    box.classList.toggle("to-move", game.status === "active" && game.position.to_move === side);
  });
  showClocks();
  $("#tv-status").textContent = game.status === "active" ? turnText(game, null) : resultText(game, null);
  root.dataset.tvPly = String(game.ply);
  if (game.status !== "active" && tv.endedAt === null) {
    tv.endedAt = performance.now();
    root.dataset.tvEnded = String(game.id);
    tv.timer = setTimeout(updateTv, NEXT_GAME_AFTER_MS);
  }
}

function showClocks() {
  const game = tv.client?.game;
  if (!game || !game.clock.timed) {
    root.querySelectorAll(".tv-player .clock").forEach((clock) => setText(clock, ""));
    return;
  }
  root.querySelectorAll(".tv-player").forEach((box) => {
    const side = Number(box.dataset.side);
    const left = clockLeft(tv.clock, side, game.status === "active");
    setText(box.querySelector(".clock"), formatClock(left));
  });
}

function showWatchers(count) {
  $("#tv-watchers").textContent = format(ngettext("%(count)s watching", "%(count)s watching", count), { count });
}

// --- the feed --------------------------------------------------------------------------

function onFeed(message) {
  feed = message;
  showList();
  updateTv();
}

document.addEventListener("site:notify", (event) => {
  if (event.detail?.type === "watch") onFeed(event.detail);
});
// Asked on every (re)connection: the server sends the list at once, then its changes.
document.addEventListener("site:notify-open", () => window.siteNotifySend?.({ type: "watch" }));
window.siteNotifySend?.({ type: "watch" });

root.querySelectorAll(".tv-channel").forEach((button) => {
  button.addEventListener("click", () => setChannel(button.dataset.kind));
});
setInterval(showClocks, 250);
setChannel(chooseChannel());

// For the browser tests and the curious: read-only views.
window.__watch = {
  get feed() { return feed; },
  get tv() { return { kind: tv.kind, game: tv.entry?.id ?? null, snapshot: tv.client?.game ?? null }; },
};
