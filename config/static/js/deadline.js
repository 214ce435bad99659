// A correspondence move's deadline in words, as every page writes it: "6 Dec 2026, 19:27 (2 days left)".
// The browser's twin of games/deadline_text.py: the same msgids (in both catalogues) and the same
// rules, in the reader's local time. Intl's own formats differed from page to page and language to
// language (Hindi's dropped am/pm on the server); a 24-hour time needs no am/pm anywhere.

import { format, gettext, ngettext, pgettext } from "./i18n.js";

// Written out so that the catalogue's msgids are found here (pgettext with a literal each).
const MONTHS = () => [
  pgettext("short month", "Jan"), pgettext("short month", "Feb"), pgettext("short month", "Mar"),
  pgettext("short month", "Apr"), pgettext("short month", "May"), pgettext("short month", "Jun"),
  pgettext("short month", "Jul"), pgettext("short month", "Aug"), pgettext("short month", "Sep"),
  pgettext("short month", "Oct"), pgettext("short month", "Nov"), pgettext("short month", "Dec"),
];

const two = (n) => String(n).padStart(2, "0");

// "6 Dec 2026, 19:27", local time, in the page's language.
export function formatWhen(ms) {
  const moment = new Date(ms);
  return format(gettext("%(day)s %(month)s %(year)s, %(time)s"), {
    day: moment.getDate(),
    month: MONTHS()[moment.getMonth()],
    year: moment.getFullYear(),
    time: `${two(moment.getHours())}:${two(moment.getMinutes())}`,
  });
}

// "2 days left" while a day or more is left, else "5 hours left" (rounded down, never negative).
export function timeLeft(leftMs) {
  const seconds = Math.max(0, Math.floor(leftMs / 1000));
  const days = Math.floor(seconds / 86400);
  if (days) return format(ngettext("%(count)s day left", "%(count)s days left", days), { count: days });
  const hours = Math.floor(seconds / 3600);
  return format(ngettext("%(count)s hour left", "%(count)s hours left", hours), { count: hours });
}

// The "Your move" list's line: "move by 6 Dec 2026, 19:27 (2 days left)".
export function deadlineText(deadlineMs, nowMs = Date.now()) {
  return format(gettext("move by %(when)s (%(left)s)"), {
    when: formatWhen(deadlineMs),
    left: timeLeft(deadlineMs - nowMs),
  });
}

// Every [data-deadline] element of the page (an ISO time from the server) in the reader's local time.
export function localiseDeadlines(root = document) {
  for (const node of root.querySelectorAll("[data-deadline]")) {
    const at = Date.parse(node.dataset.deadline);
    if (!Number.isNaN(at)) node.textContent = deadlineText(at);
  }
}
