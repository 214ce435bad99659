"""A correspondence move's deadline in words, the one way every page and mail writes it.

"6 Dec 2026, 19:27 UTC (2 days left)". Django's own formats wrote it differently in
each language (Greek "06/12/2026 7:26 μμ.", Hindi "दिसम्बर 6, 2026, 7:26 बजे" with
no am/pm at all) and its "2 days, 4 hours" is untranslated in Hindi, Bengali and
Greek. So the date is built here from our own translated pieces, with a 24-hour
time, which needs no am/pm in any language.

The browser writes it with ``config/static/js/deadline.js``, from the same msgids (in the
JavaScript catalogue too) and the same rules, in the reader's local time; a page
rendered here says "UTC", and the home page's script rewrites it in local time.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from django.utils.translation import gettext, ngettext, pgettext

# The msgids are also in djangojs.po (config/static/js/deadline.js): change both together.
_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")


def short_month(month: int) -> str:
    """The month's short name (1 = January) in the active language."""
    return pgettext("short month", _MONTHS[month - 1])


def format_when(moment: datetime) -> str:
    """The moment as every deadline is written: "6 Dec 2026, 19:27 UTC", in the active language."""
    moment = moment.astimezone(UTC)
    return gettext("%(day)s %(month)s %(year)s, %(time)s") % {
        "day": moment.day,
        "month": short_month(moment.month),
        "year": moment.year,
        "time": f"{moment.hour:02d}:{moment.minute:02d} UTC",
    }


def time_left(left: timedelta) -> str:
    """ "2 days left" while a day or more is left, else "5 hours left" (rounded down, never negative)."""
    seconds = max(0, int(left.total_seconds()))
    days = seconds // 86400
    if days:
        return ngettext("%(count)s day left", "%(count)s days left", days) % {"count": days}
    hours = seconds // 3600
    return ngettext("%(count)s hour left", "%(count)s hours left", hours) % {"count": hours}


def deadline_text(deadline: datetime, *, now: datetime) -> str:
    """ "move by 6 Dec 2026, 19:27 UTC (2 days left)": the "Your move" list's line."""
    return gettext("move by %(when)s (%(left)s)") % {
        "when": format_when(deadline),
        "left": time_left(deadline - now),
    }
