"""What the accounts app tells the rest of the site (which may listen; accounts imports none of it)."""

from __future__ import annotations

from django.dispatch import Signal

# A registered player's notification socket (/ws/notify/) closed: their page is gone.
# Sent with ``user_id``. Quick pairing removes the player's live seek (games/receivers.py).
notify_socket_closed = Signal()
