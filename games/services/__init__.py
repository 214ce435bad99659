"""Everything that changes a game, one module per use case.

Every entry point (the websocket consumer, the HTTP views, the Celery tasks)
calls these functions. Each one:

1. opens a transaction and re-reads the game with its row locked
   (``base.locked``), so commands on one game are applied one at a time, across
   processes; a player's command does it through the command envelope
   (``envelope.command``), which also finds the player's side and checks the
   clock first (a side out of time loses before any command of anyone's);
2. checks the command against the stored game and the shared engine
   (``decide``: the same functions the fast path of moves uses);
3. saves the change under a new ``Game.version`` with ``base.commit_and_announce``,
   which broadcasts the new snapshot and queues the work it calls for (the
   computer's move, a clock flag) only after the transaction commits, so nobody
   ever sees a state the database does not have.

Refusals raise ``GameError`` with a ``Code`` and a message for the player;
nothing is written then, except a flag: a command that arrives after the
mover's clock ran out is refused once the loss on time has committed.

| module | use case |
|---|---|
| ``decide``, ``envelope`` | the decisions every command shares (pure), and the envelope every player command runs in |
| ``setup`` | games against the computer, invitations, challenges, joining, withdrawing |
| ``limits`` | how many games against the computer one player (or address) may have at once |
| ``moves`` | a player's move, the computer's move, forced passes |
| ``ending`` | results on the board, resign, exit, abort, flags |
| ``draws`` | draw offers, answers and lapses |
| ``rematch`` | rematch offers between people, answers, lapses, and the new game |
| ``takeback`` | undo and redo against the computer |
| ``takeback_requests`` | takeback requests between people: ask, accept, decline |
| ``obligations`` | what the server owes a game, swept from the database |
| ``deadlines``, ``queue`` | when a game needs attention; the tasks queued after commit |
"""

from games.services.base import Code, GameError, MoveResult
from games.services.deadlines import IDLE_COMPUTER_EXPIRY
from games.services.draws import answer_draw, lapse_draw_offer, offer_draw
from games.services.ending import abandon_computer_game, abort, flag, resign
from games.services.moves import computer_move_for, play_computer_move, play_move
from games.services.obligations import Attended, attend, attend_overdue
from games.services.rematch import answer_rematch, cancel_rematch, lapse_rematch_on_leave, offer_rematch
from games.services.setup import (
    cancel_waiting_game,
    create_computer_game,
    create_human_game,
    create_paired_game,
    decline_invitation,
    join_game,
    rematch_computer,
)
from games.services.takeback import redo, undo
from games.services.takeback_requests import answer_takeback, request_takeback

__all__ = [
    "IDLE_COMPUTER_EXPIRY",
    "Attended",
    "Code",
    "GameError",
    "MoveResult",
    "abandon_computer_game",
    "abort",
    "answer_draw",
    "answer_rematch",
    "answer_takeback",
    "attend",
    "attend_overdue",
    "cancel_rematch",
    "cancel_waiting_game",
    "computer_move_for",
    "create_computer_game",
    "create_human_game",
    "create_paired_game",
    "decline_invitation",
    "flag",
    "join_game",
    "lapse_draw_offer",
    "lapse_rematch_on_leave",
    "offer_draw",
    "offer_rematch",
    "play_computer_move",
    "play_move",
    "redo",
    "request_takeback",
    "rematch_computer",
    "resign",
    "undo",
]
