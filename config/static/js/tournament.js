// The tournament page: live standings, the games being played and the countdown over
// /ws/tournament/<id>/ (docs/protocol.md); your next game opens by itself when you are paired.
// Everything from the server goes in as text, never as HTML. A module, for the one
// BOT mark every page's scripts share (play/text.js botMark).
import { botMark, setText } from "./play/text.js";

(function () {
  "use strict";
  var root = document.querySelector("[data-tournament]");
  if (!root || !("WebSocket" in window)) return;
  var id = root.getAttribute("data-tournament");
  var gettext = function (text) { return typeof window.gettext === "function" ? window.gettext(text) : text; };
  var endsAt = root.getAttribute("data-ends-at");
  var startsAt = root.getAttribute("data-starts-at");
  var status = root.getAttribute("data-status");
  var arena = !!endsAt;
  var round = null, rounds = null;
  var shown = null; // the version of the standings shown (docs/protocol.md)
  var delay = 1000, timer = null;

  function el(tag, text, cls) {
    var node = document.createElement(tag);
    if (text !== undefined) node.textContent = text;
    if (cls) node.className = cls;
    return node;
  }

  // Versions compare part by part; a message older than what the page shows
  // (two sends that crossed on the way) is dropped, never shown over a newer one.
  function older(version) {
    if (!Array.isArray(version) || shown === null) return false;
    for (var i = 0; i < version.length; i++) {
      if (version[i] !== shown[i]) return version[i] < shown[i];
    }
    return false;
  }

  // The tournament ended while the page was open: the player's buttons go, and
  // their place is said as the page would say it when loaded now.
  function showFinished(data) {
    var you = root.querySelector("#you-title");
    if (!you) return;
    var section = you.parentNode;
    Array.prototype.slice.call(section.children).forEach(function (child) {
      if (child !== you) child.remove();
    });
    var me = root.getAttribute("data-me");
    var mine = null;
    data.players.forEach(function (row) { if (me && row.name === me) mine = row; });
    if (mine) {
      var text = gettext("You finished in place %(place)s.");
      text = typeof window.interpolate === "function"
        ? window.interpolate(text, { place: mine.rank }, true)
        : text.replace("%(place)s", mine.rank);
      var line = el("p", text);
      line.setAttribute("data-my-place", "");
      section.appendChild(line);
    } else {
      section.appendChild(el("p", gettext("This tournament is over."), "muted"));
    }
  }

  function renderStandings(data) {
    if (older(data.version)) return;
    if (Array.isArray(data.version)) shown = data.version;
    var body = root.querySelector("[data-standings]");
    body.replaceChildren();
    data.players.forEach(function (row) {
      var tr = el("tr");
      tr.setAttribute("data-player", row.name);
      tr.appendChild(el("td", String(row.rank)));
      var name = el("td", row.name);
      if (row.bot) name.appendChild(botMark());
      if (row.fire) {
        var fire = el("span", " 🔥", "fire");
        fire.title = gettext("On a streak: points count double");
        name.appendChild(fire);
      }
      if (row.paused) name.appendChild(el("span", " (" + gettext("paused") + ")", "muted"));
      if (row.withdrawn) name.appendChild(el("span", " (" + gettext("left") + ")", "muted"));
      tr.appendChild(name);
      var points = el("td", row.score);
      points.setAttribute("data-points", "");
      tr.appendChild(points);
      tr.appendChild(el("td", String(row.games)));
      if (!arena) tr.appendChild(el("td", row.buchholz));
      body.appendChild(tr);
    });
    root.querySelector("[data-no-players]").hidden = data.players.length > 0;
    var list = root.querySelector("[data-games]");
    list.replaceChildren();
    data.games.forEach(function (game) {
      var li = el("li");
      var link = el("a", game.white);
      if (game.white_bot) link.appendChild(botMark());
      link.append(" – " + game.black);
      if (game.black_bot) link.appendChild(botMark());
      link.href = game.url;
      li.appendChild(link);
      list.appendChild(li);
    });
    root.querySelector("[data-no-games]").hidden = data.games.length > 0;
    if (data.winner) {
      root.querySelector("[data-winner]").hidden = false;
      var winner = root.querySelector("[data-winner-name]");
      winner.textContent = data.winner;
      if (data.winner_bot) winner.appendChild(botMark());
    }
    if (data.status === "finished" && status !== "finished") showFinished(data);
    status = data.status;
    endsAt = data.ends_at;
    startsAt = data.starts_at;
    round = data.round;
    rounds = data.rounds;
    tick();
  }

  function clock(ms) {
    var s = Math.max(0, Math.floor(ms / 1000));
    var m = Math.floor(s / 60);
    s = s % 60;
    return m + ":" + (s < 10 ? "0" : "") + s;
  }

  function tick() {
    var label = root.querySelector("[data-countdown-label]");
    var value = root.querySelector("[data-countdown]");
    if (status === "scheduled") {
      setText(label, gettext("Starts in"));
      setText(value, clock(Date.parse(startsAt) - Date.now()));
    } else if (status === "running" && endsAt) {
      setText(label, gettext("Ends in"));
      setText(value, clock(Date.parse(endsAt) - Date.now()));
    } else if (status === "running") {
      setText(label, gettext("Round"));
      if (round !== null) setText(value, round + " / " + rounds);
    } else {
      setText(label, gettext("Finished"));
      setText(value, "");
    }
  }

  function connect() {
    timer = null;
    var scheme = location.protocol === "https:" ? "wss://" : "ws://";
    var socket = new WebSocket(scheme + location.host + "/ws/tournament/" + id + "/");
    socket.onopen = function () { delay = 1000; };
    socket.onmessage = function (event) {
      var data;
      try { data = JSON.parse(event.data); } catch (e) { return; }
      if (!data || typeof data !== "object") return;
      if (data.type === "standings") renderStandings(data);
      if (data.type === "tournament_game" && typeof data.url === "string" && data.url.indexOf("/play/") === 0) {
        window.location.assign(data.url);
      }
    };
    socket.onclose = function () {
      if (timer !== null) return;
      var wait = delay + Math.random() * delay * 0.5;
      delay = Math.min(delay * 2, 30000);
      timer = setTimeout(connect, wait);
    };
  }

  setInterval(tick, 1000);
  tick();
  connect();
})();
