// "Your turn, even in another tab": the tab's title and icon say when the game
// waits for this player (their move, or an offer from the opponent), and, if
// the player switched it on, a browser notification does while the page is
// hidden. Permission is asked only when the player ticks the box, never on load.

import { gettext } from "../i18n.js";

const NOTIFY_KEY = "notify-turn";

// What the game waits for from this player, or null.
export function waitingFor(snapshot, you) {
  if (you === null) return null;
  const opponentOffers = (offer) => offer !== null && offer !== undefined && offer !== you;
  if (snapshot.status === "active") {
    if (opponentOffers(snapshot.draw_offer)) return gettext("Draw offered");
    if (snapshot.position.to_move === you) return gettext("Your move");
  }
  if (snapshot.status === "finished" && !snapshot.rematch_url && opponentOffers(snapshot.rematch_offer)) {
    return gettext("Rematch offered");
  }
  return null;
}

export function createAttention({ icon, turnIconUrl, toggle }) {
  const baseTitle = document.title;
  const baseIcon = icon?.getAttribute("href");
  let shown = null;
  let notice = null;

  const supported = typeof window.Notification === "function";
  if (toggle) {
    toggle.closest("label").hidden = !supported;
    try {
      toggle.checked = supported && Notification.permission === "granted" && localStorage.getItem(NOTIFY_KEY) === "1";
    } catch { toggle.checked = false; }
    toggle.addEventListener("change", async () => {
      if (!toggle.checked) {
        try { localStorage.removeItem(NOTIFY_KEY); } catch { /* storage refused */ }
        return;
      }
      const permission = Notification.permission === "granted" ? "granted" : await Notification.requestPermission();
      toggle.checked = permission === "granted";
      try {
        if (toggle.checked) localStorage.setItem(NOTIFY_KEY, "1");
      } catch { /* storage refused: on for this page only */ }
    });
  }
  // Back on the page: the notification has done its work.
  document.addEventListener("visibilitychange", () => {
    if (!document.hidden && notice) {
      notice.close?.();
      notice = null;
    }
  });

  return function update(snapshot, you) {
    const reason = waitingFor(snapshot, you);
    document.title = reason ? `(${reason}) ${baseTitle}` : baseTitle;
    if (icon && turnIconUrl) icon.setAttribute("href", reason ? turnIconUrl : baseIcon);
    // Only a new reason notifies: not every snapshot while the same move is awaited.
    if (reason && reason !== shown && document.hidden && toggle?.checked && supported && Notification.permission === "granted") {
      notice = new Notification(reason, { body: baseTitle, tag: `game-${snapshot.id}` });
      notice.onclick = () => window.focus();
    }
    shown = reason;
  };
}
