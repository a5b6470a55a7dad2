"""The tournament use cases: clubs, players, registration, check-in, rounds, the series.

Each public function is one use case in one transaction (pretix style): it checks
its input, raises :class:`ServiceError` (a ``ValueError`` saying what is wrong and
how to fix it) and changes nothing, or does the whole thing.  Rows are locked in
one order everywhere — tournament, round, table — so concurrent organisers and
game workers serialise instead of deadlocking.  Where each lives:

* :mod:`~tournaments.services.clubs`: clubs, players, login links and their audit;
* :mod:`~tournaments.services.tournaments`: create, change, delete and find tournaments;
* :mod:`~tournaments.services.entries`: register, check in, mark absent, drop (and take
  a drop back), withdraw;
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
from tournaments.services.base import NotThere, PlayerRef, ServiceError, next_round_number
from tournaments.services.clubs import (
    add_organiser,
    add_player,
    add_player_with_login,
    check_removal,
    close_signup_link,
    club_of_signup_link,
    create_club,
    create_club_with_organiser,
    first_run,
    known_bot_levels,
    link_login,
    needs_first_run,
    plays_forced_moves,
    remember_language,
    remove_organiser,
    renew_signup_link,
    set_club_language,
    set_play_forced_moves,
    sign_up,
)
from tournaments.services.entries import (
    TakeBack,
    check_absence,
    check_drop,
    check_in,
    check_take_back_drop,
    check_withdrawal,
    drop,
    mark_absent,
    register,
    take_back_drop,
    unregister,
    withdraw,
)
from tournaments.services.forfeits import check_decision, forfeit, unforfeit
from tournaments.services.rounds import (
    begin_round,
    check_reseat,
    late_players,
    reseat,
    seat_late,
    seating_of,
    start_round,
    swap_players,
    unchecked_players,
)
from tournaments.services.seeds import (
    ROUND_STREAM_PREFIX,
    STANDALONE_STREAM_PREFIX,
    TABLE_STREAM_PREFIX,
    client_seeds_of,
    commit_standalone_deal,
    deal_standalone,
    round_contributions,
    round_seed,
    set_client_seed,
    standalone_deals_waiting,
)
from tournaments.services.series import game_over
from tournaments.services.tournaments import (
    SETTINGS,
    check_deletable,
    create_tournament,
    delete_tournament,
    find_player,
    find_tournament,
    update_tournament,
)

__all__ = [
    "PlayerRef",
    "ROUND_STREAM_PREFIX",
    "SETTINGS",
    "TakeBack",
    "NotThere",
    "ServiceError",
    "STANDALONE_STREAM_PREFIX",
    "TABLE_STREAM_PREFIX",
    "add_organiser",
    "add_player",
    "add_player_with_login",
    "begin_round",
    "check_absence",
    "check_decision",
    "check_deletable",
    "check_drop",
    "check_in",
    "check_removal",
    "check_reseat",
    "check_take_back_drop",
    "check_withdrawal",
    "client_seeds_of",
    "close_signup_link",
    "club_of_signup_link",
    "commit_standalone_deal",
    "create_club",
    "create_club_with_organiser",
    "create_tournament",
    "deal_standalone",
    "delete_tournament",
    "drop",
    "find_player",
    "find_tournament",
    "first_run",
    "forfeit",
    "game_over",
    "is_organiser",
    "known_bot_levels",
    "late_players",
    "link_login",
    "mark_absent",
    "may_see_game",
    "needs_first_run",
    "next_round_number",
    "organised_clubs",
    "plays_forced_moves",
    "register",
    "remember_language",
    "remove_organiser",
    "renew_signup_link",
    "reseat",
    "round_contributions",
    "round_seed",
    "seat_late",
    "seat_of",
    "seating_of",
    "set_client_seed",
    "set_club_language",
    "set_play_forced_moves",
    "sign_up",
    "standalone_deals_waiting",
    "start_round",
    "swap_players",
    "take_back_drop",
    "unchecked_players",
    "unforfeit",
    "update_tournament",
    "unregister",
    "withdraw",
]
