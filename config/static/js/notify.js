// The per-player notification socket (/ws/notify/): keeps the unread-messages badge
// in the navigation current, shows invitations as toasts with Accept / Decline on
// every page (the home page lists them itself), and re-announces every event as a
// "site:notify" DOM event so other pages (lobby) can listen without a second socket.
// Reconnects with exponential backoff plus jitter, so a restarting server is not
// hammered by every open tab at once.
// An ES module, so that the names in its toasts carry the BOT mark (issue #41) from
// play/text.js, the one helper every script uses.
import { gettext } from "./i18n.js";
import { sentenceWithName } from "./play/text.js";

function start() {
  var link = document.querySelector('[data-nav="messages"]');
  // Only registered players have a badge; a page that carries its own feed on this socket
  // (the Watch page: data-notify-socket) opens it for guests and visitors too.
  var wanted = !!document.querySelector("[data-notify-socket]");
  if ((!link && !wanted) || !("WebSocket" in window)) return;
  if (window.siteNotifySocket) return; // included twice (base.html and a page): one socket is enough
  window.siteNotifySocket = true;

  var MIN_DELAY = 1000, MAX_DELAY = 30000;
  var delay = MIN_DELAY;
  var timer = null;

  function setUnread(count) {
    if (!link) return;
    var badge = link.querySelector(".badge");
    if (count > 0) {
      if (!badge) {
        badge = document.createElement("span");
        badge.className = "badge";
        badge.setAttribute("aria-label", link.getAttribute("data-unread-label") || "unread");
        link.appendChild(document.createTextNode(" "));
        link.appendChild(badge);
      }
      badge.textContent = String(count); // text only: nothing from the server becomes HTML
    } else if (badge) {
      badge.remove();
    }
  }

  // --- invitations: a toast on every page but the home page, which lists them -----------
  var onHome = !!document.querySelector("[data-home]");
  var dismissed = {};
  try { dismissed = JSON.parse(sessionStorage.getItem("dismissedInvitations") || "{}"); } catch (e) { dismissed = {}; }
  var fetching = null;

  function csrfToken() {
    var input = document.querySelector('input[name="csrfmiddlewaretoken"]');
    return input ? input.value : "";
  }

  function toastBox() {
    var box = document.getElementById("toasts");
    if (!box) {
      box = document.createElement("div");
      box.id = "toasts";
      box.className = "toasts";
      box.setAttribute("role", "region");
      box.setAttribute("aria-live", "polite");
      box.setAttribute("aria-label", gettext("Invitations"));
      document.body.appendChild(box);
    }
    return box;
  }

  function button(label, className) {
    var b = document.createElement("button");
    b.type = "button";
    b.textContent = label;
    if (className) b.className = className;
    return b;
  }

  function invitationToast(item) {
    var toast = document.createElement("div");
    toast.className = "toast";
    toast.setAttribute("data-invitation", String(item.id));
    var text = document.createElement("p");
    text.append(...sentenceWithName(gettext("%(who)s invites you to play %(name)s"),
      { who: item.by, name: item.name }, "who", item.bot));
    // What is offered (Game.invitation_terms): two invitations from one player can be told apart.
    var terms = document.createElement("span");
    terms.className = "invitation-terms";
    terms.textContent = " (" + item.terms + ")";
    text.appendChild(terms);
    var accept = document.createElement("form"); // a real form: accepting opens the game
    accept.method = "post";
    accept.action = "/play/" + item.id + "/take/";
    var csrf = document.createElement("input");
    csrf.type = "hidden";
    csrf.name = "csrfmiddlewaretoken";
    csrf.value = csrfToken();
    var yes = button(gettext("Accept"), "primary");
    yes.type = "submit";
    accept.append(csrf, yes);
    var no = button(gettext("Decline"), "secondary");
    no.addEventListener("click", function () {
      no.disabled = true;
      // Declined in place: the player stays on the page they are reading.
      fetch("/play/" + item.id + "/decline/", {
        method: "POST", credentials: "same-origin", redirect: "manual",
        headers: { "X-CSRFToken": csrfToken() },
      }).then(function () { toast.remove(); }, function () { no.disabled = false; });
    });
    var later = button("×", "toast-close");
    later.setAttribute("aria-label", gettext("Dismiss"));
    later.addEventListener("click", function () {
      dismissed[item.id] = true;
      try { sessionStorage.setItem("dismissedInvitations", JSON.stringify(dismissed)); } catch (e) { /* private mode */ }
      toast.remove();
    });
    var actions = document.createElement("div");
    actions.className = "toast-actions";
    actions.append(accept, no);
    toast.append(later, text, actions);
    return toast;
  }

  // Open challenges from others: a count on the navigation's "Play" link (the home page lists them).
  function setChallenges(count) {
    var play = document.querySelector('[data-nav="play"]');
    if (!play) return;
    var badge = play.querySelector(".badge");
    if (count > 0) {
      if (!badge) {
        badge = document.createElement("span");
        badge.className = "badge challenges-badge";
        badge.setAttribute("aria-label", gettext("open challenges"));
        play.appendChild(document.createTextNode(" "));
        play.appendChild(badge);
      }
      badge.textContent = String(count);
    } else if (badge) {
      badge.remove();
    }
  }

  // Correspondence: a game waits for this player's move. The header's count follows, and a
  // toast links to the game (not on that game's own page, which shows it already).
  function yourTurn(item) {
    var nav = document.querySelector('[data-nav="your-move"]');
    if (nav) {
      nav.hidden = !(item.your_move > 0);
      var badge = nav.querySelector(".badge");
      if (badge) badge.textContent = String(item.your_move);
    }
    if (location.pathname === item.url) return;
    var box = toastBox();
    var old = box.querySelector('[data-your-turn="' + item.game_id + '"], [data-paired="' + item.game_id + '"]');
    if (old) old.remove();
    linkToast(box, "data-your-turn", item,
      sentenceWithName(gettext("Your move against %(who)s"), { who: item.opponent }, "who", item.bot));
  }

  // A dismissable toast whose words (text and the BOT mark's node) link to the game;
  // ``mark`` names it for the next notice.
  function linkToast(box, mark, item, words) {
    var toast = document.createElement("div");
    toast.className = "toast";
    toast.setAttribute(mark, String(item.game_id));
    var text = document.createElement("p");
    var go = document.createElement("a");
    go.href = item.url;
    go.append(...words);
    text.appendChild(go);
    var later = button("×", "toast-close");
    later.setAttribute("aria-label", gettext("Dismiss"));
    later.addEventListener("click", function () { toast.remove(); });
    toast.append(later, text);
    box.appendChild(toast);
  }

  // A correspondence seek was paired while the player was on another page (or on none: the
  // "Your move" list tells them then): a toast links to the new game. The home page goes there itself.
  function correspondencePaired(item) {
    if (onHome || !(item.days_per_move > 0) || location.pathname === item.url) return;
    var box = toastBox();
    // The first mover's "Your move" toast says it already (it may come first or second).
    if (box.querySelector('[data-paired="' + item.game_id + '"], [data-your-turn="' + item.game_id + '"]')) return;
    linkToast(box, "data-paired", item,
      sentenceWithName(gettext("Your correspondence game against %(who)s has started"),
        { who: item.opponent }, "who", item.bot));
  }

  var lobbyTimer = null;
  function lobbyChanged() {
    // A burst of lobby changes needs one fetch, and every open page asks: wait a moment.
    if (onHome || lobbyTimer !== null) return;
    lobbyTimer = setTimeout(function () { lobbyTimer = null; showInvitations(); }, 700);
  }

  function showInvitations() {
    if (onHome || fetching || !link) return; // invitations are for registered players
    fetching = fetch("/lobby.json", { credentials: "same-origin", headers: { Accept: "application/json" } })
      .then(function (response) { return response.ok ? response.json() : null; })
      .then(function (data) {
        if (!data) return;
        setChallenges(data.challenges.filter(function (c) { return !c.mine; }).length);
        var box = toastBox();
        var open = {};
        data.invitations.forEach(function (item) {
          open[item.id] = true;
          if (dismissed[item.id] || box.querySelector('[data-invitation="' + item.id + '"]')) return;
          box.appendChild(invitationToast(item));
        });
        // Invitations withdrawn (or answered in another tab) disappear.
        Array.prototype.forEach.call(box.querySelectorAll("[data-invitation]"), function (toast) {
          if (!open[toast.getAttribute("data-invitation")]) toast.remove();
        });
      })
      .catch(function () { /* the next notification tries again */ })
      .then(function () { fetching = null; });
  }

  function connect() {
    timer = null;
    var scheme = location.protocol === "https:" ? "wss://" : "ws://";
    var socket = new WebSocket(scheme + location.host + "/ws/notify/");
    window.siteNotifySend = function (message) {
      if (socket.readyState !== WebSocket.OPEN) return false;
      socket.send(JSON.stringify(message));
      return true;
    };
    socket.onopen = function () {
      delay = MIN_DELAY;
      document.documentElement.dataset.notifySocket = "open"; // as the game page's data-connection
      showInvitations(); // the ones that arrived while no page was open (or the socket was down)
      // Pages subscribe to more (a game's analysis) on every (re)connection.
      document.dispatchEvent(new CustomEvent("site:notify-open"));
    };
    socket.onmessage = function (event) {
      var data;
      try { data = JSON.parse(event.data); } catch (e) { return; }
      if (!data || typeof data !== "object") return;
      if (typeof data.unread === "number") setUnread(data.unread);
      if (data.type === "invitation") showInvitations();
      if (data.type === "lobby") lobbyChanged();
      if (data.type === "your_turn") yourTurn(data);
      if (data.type === "paired") correspondencePaired(data);
      // A tournament paired us again: from the page of the game that just ended, go to the next one
      // (the tournament's own page follows it itself, tournament.js).
      if (data.type === "tournament_game" && /^\/play\/\d+\/$/.test(location.pathname) &&
          typeof data.url === "string" && /^\/play\/\d+\/$/.test(data.url)) {
        window.location.assign(data.url);
      }
      document.dispatchEvent(new CustomEvent("site:notify", { detail: data }));
    };
    socket.onclose = function () {
      document.documentElement.dataset.notifySocket = "closed";
      if (timer !== null) return;
      var wait = delay + Math.random() * delay * 0.5;
      delay = Math.min(delay * 2, MAX_DELAY);
      timer = setTimeout(connect, wait);
    };
  }

  connect();
}

start();
