"""The tournament use cases: clubs, players, registration, check-in, rounds, the series.

Each public function is one use case in one transaction (pretix style): it checks
its input, raises :class:`ServiceError` (a ``ValueError`` saying what is wrong and
how to fix it) and changes nothing, or does the whole thing.  Rows are locked in
one order everywhere — tournament, round, table — so concurrent organisers and
game workers serialise instead of deadlocking.  Where each lives:

* :mod:`~tournaments.services.clubs`: clubs, players, login links and their audit;
* :mod:`~tournaments.services.tournaments`: create, change, delete and find tournaments;
* :mod:`~tournaments.services.entries`: register, check in, mark absent, drop, withdraw;
* :mod:`~tournaments.services.forfeits`: forfeit and un-forfeit a series;
* :mod:`~tournaments.services.rounds`: seat, adjust and begin a round;
* :mod:`~tournaments.services.series`: a table's series (:func:`game_over`);
* :mod:`~tournaments.services.seeds`: round, table and client seeds;
* :mod:`~tournaments.services.access`: the organiser check and the visibility rule;
* :mod:`~tournaments.services.base`: :class:`ServiceError` and the shared lookups.

This package may import the game service (:mod:`tournaments.play`); the game
service never imports it (it sends :data:`tournaments.play.game_ended`).
"""

from tournaments.services.access import is_organiser, may_see_game, organised_clubs, seat_of
from tournaments.services.base import PlayerRef, ServiceError, next_round_number
from tournaments.services.clubs import (
    add_player,
    create_club,
    known_bot_levels,
    link_login,
    plays_forced_moves,
    set_play_forced_moves,
)
from tournaments.services.entries import check_in, drop, mark_absent, register, withdraw
from tournaments.services.forfeits import forfeit, unforfeit
from tournaments.services.rounds import (
    begin_round,
    reseat,
    seating_of,
    start_round,
    swap_players,
)
from tournaments.services.seeds import (
    ROUND_STREAM_PREFIX,
    TABLE_STREAM_PREFIX,
    client_seeds_of,
    round_contributions,
    round_seed,
    set_client_seed,
)
from tournaments.services.series import game_over
from tournaments.services.tournaments import (
    SETTINGS,
    create_tournament,
    delete_tournament,
    find_player,
    find_tournament,
    update_tournament,
)

__all__ = [
    "ROUND_STREAM_PREFIX",
    "SETTINGS",
    "TABLE_STREAM_PREFIX",
    "PlayerRef",
    "ServiceError",
    "add_player",
    "begin_round",
    "check_in",
    "client_seeds_of",
    "create_club",
    "create_tournament",
    "delete_tournament",
    "drop",
    "forfeit",
    "find_player",
    "find_tournament",
    "game_over",
    "is_organiser",
    "known_bot_levels",
    "link_login",
    "mark_absent",
    "may_see_game",
    "next_round_number",
    "organised_clubs",
    "plays_forced_moves",
    "register",
    "reseat",
    "round_contributions",
    "round_seed",
    "seat_of",
    "seating_of",
    "set_client_seed",
    "set_play_forced_moves",
    "start_round",
    "swap_players",
    "unforfeit",
    "update_tournament",
    "withdraw",
]
