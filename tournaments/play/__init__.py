"""The game service: games as event streams, one use case per function.

Every game is the stream ``game-<id>`` in the event store (:mod:`events.store`);
its first event is the deal, the rest are moves.  Where each concern lives:

* :mod:`~tournaments.play.deals`: :func:`create_game` deals a new game, from a
  provably fair shuffle (:mod:`engine.fairness`) or from a given deck, and
  :func:`import_game` stores a portable record as a game;
* :mod:`~tournaments.play.commands`: :func:`submit_action`,
  :func:`apply_timeout` and :func:`apply_chance` load the stream, fold it, let
  the engine ``decide`` and append the events at the sequence the caller saw (a
  stale one is a :class:`Conflict`, never an overwrite).  Chance moves (Old
  Maid's shuffles, Bhabhi's blind draw, a timeout's random draw) are drawn from
  :data:`tournaments.play.randomness.source`, and a chance node left by a move is
  resolved at once in the same transaction, so nobody ever waits at one;
* :mod:`~tournaments.play.views`: :func:`game_view` and :func:`game_events` show a
  game as a seat, a spectator or the organiser may see it.  What a viewer may see
  of each event is the game's to say (:meth:`engine.contract.Game.event_view`);
  the service adds only its own secrets: the deck and the shuffle's seed.  Once
  the game is *revealed* everything is public: at its end, or, for a duplicate
  deal, when its round has finished (:func:`is_revealed`);
* :mod:`~tournaments.play.records`: :func:`export_record`;
* :mod:`~tournaments.play.projection`: the :class:`~tournaments.models.Game` row,
  and :func:`rebuild_projections` that recomputes every row from the events alone;
* :mod:`~tournaments.play.state`: the fold and its cache, :func:`game_row`;
* :mod:`~tournaments.play.context`: :class:`GameContext`, the typed ``Game.context``;
* :mod:`~tournaments.play.randomness`: the one injectable random source.

Each use case runs in one transaction; listeners of :data:`game_changed` hear of a
change only after it has committed; :data:`game_ended` is sent inside the
transaction of the move that ended a table's game.  This package never imports
:mod:`tournaments.services` (which imports it).
"""

from engine.contract import IllegalAction
from events.store import Conflict, IdempotencyKeyReused
from tournaments.play.commands import (
    ActionResult,
    apply_chance,
    apply_timeout,
    game_changed,
    game_ended,
    submit_action,
)
from tournaments.play.context import ContextSeat, GameContext, table_id_of
from tournaments.play.deals import create_game, import_game
from tournaments.play.projection import PROJECTED_FIELDS, rebuild_projections
from tournaments.play.records import export_record
from tournaments.play.state import (
    STREAM_PREFIX,
    GameNotOver,
    GameNotRevealed,
    GameOver,
    Viewer,
    game_row,
    keep_tail,
    kept_sequence,
    load_state,
    stream_name,
)
from tournaments.play.views import (
    game_clock,
    game_events,
    game_story,
    game_view,
    game_view_at,
    is_revealed,
    seat_story,
    shown_event,
    stored_payload_as_spectator,
)

__all__ = [
    "PROJECTED_FIELDS",
    "STREAM_PREFIX",
    "ActionResult",
    "Conflict",
    "ContextSeat",
    "GameContext",
    "GameNotOver",
    "GameNotRevealed",
    "GameOver",
    "IdempotencyKeyReused",
    "IllegalAction",
    "Viewer",
    "apply_chance",
    "apply_timeout",
    "create_game",
    "export_record",
    "game_changed",
    "game_clock",
    "game_ended",
    "game_events",
    "game_story",
    "game_row",
    "game_view",
    "game_view_at",
    "import_game",
    "is_revealed",
    "keep_tail",
    "kept_sequence",
    "load_state",
    "rebuild_projections",
    "seat_story",
    "shown_event",
    "stored_payload_as_spectator",
    "stream_name",
    "submit_action",
    "table_id_of",
]
