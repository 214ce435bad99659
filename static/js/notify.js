// The per-player notification socket (/ws/notify/): keeps the unread-messages badge
// in the navigation current and re-announces every event as a "site:notify"
// DOM event so other pages (invitations, lobby) can listen without a second socket.
// Reconnects with exponential backoff plus jitter, so a restarting server is not
// hammered by every open tab at once.
(function () {
  "use strict";
  var link = document.querySelector('[data-nav="messages"]');
  if (!link || !("WebSocket" in window)) return; // only registered players have a badge
  if (window.siteNotifySocket) return; // included twice (base.html and a page): one socket is enough
  window.siteNotifySocket = true;

  var MIN_DELAY = 1000, MAX_DELAY = 30000;
  var delay = MIN_DELAY;
  var timer = null;

  function setUnread(count) {
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
      // Pages subscribe to more (a game's analysis) on every (re)connection.
      document.dispatchEvent(new CustomEvent("site:notify-open"));
    };
    socket.onmessage = function (event) {
      var data;
      try { data = JSON.parse(event.data); } catch (e) { return; }
      if (!data || typeof data !== "object") return;
      if (typeof data.unread === "number") setUnread(data.unread);
      document.dispatchEvent(new CustomEvent("site:notify", { detail: data }));
    };
    socket.onclose = function () {
      if (timer !== null) return;
      var wait = delay + Math.random() * delay * 0.5;
      delay = Math.min(delay * 2, MAX_DELAY);
      timer = setTimeout(connect, wait);
    };
  }

  connect();
})();
