"""What the games app announces to the rest of the site.

``game_finished`` is sent after the transaction that ended a game commits (any
ending: result on the board, resignation, exit, time, agreed draw, abort). The
ratings app listens and enqueues its task, so games never imports ratings.
"""

from django.dispatch import Signal

game_finished = Signal()  # kwargs: game_id: int (sent by games.services.ending.announce_finished)
