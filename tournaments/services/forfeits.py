"""Forfeits: a series counted as last place for a player, by the clock or the organiser.

Each decision is a :class:`~tournaments.models.Forfeit` row (who, when, why);
the latest row of a (round, player) is in force, and the standings read them
(:func:`tournaments.standings.forfeits_in_force`).
"""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.utils.translation import gettext

from tournaments.models import Forfeit, Player, Round, Table, TableSeat, Tournament
from tournaments.services import ratings
from tournaments.services.base import PlayerRef, ServiceError, _lock, _player
from tournaments.standings import forfeits_in_force


def _decide(
    tournament: Tournament, player: PlayerRef, round_number: int, forfeit: bool, by: Any
) -> Forfeit:
    with transaction.atomic():
        tournament = _lock(tournament)
        who = check_decision(tournament, player, round_number, forfeit)
        user = by if getattr(by, "is_authenticated", False) else None
        decided = Forfeit.objects.create(
            tournament=tournament,
            player=who,
            round_number=round_number,
            forfeited=forfeit,
            cause=Forfeit.Cause.ORGANISER,
            by=user,
        )
        _rated_again(tournament, who.pk, round_number)
        return decided


def _rated_again(tournament: Tournament, player: int, round_number: int) -> None:
    """After a forfeit decided or lifted: if the player's table in that round has finished
    (and so was rated by its result before), the club's ratings in the game are made again
    (:func:`tournaments.services.ratings.rerate`); a table still playing is rated by the
    forfeits in force when it finishes."""
    if TableSeat.objects.filter(
        player_id=player,
        table__round__tournament=tournament,
        table__round__number=round_number,
        table__status=Table.Status.FINISHED,
    ).exists():
        ratings.rerate(tournament.club_id, tournament.game)


def check_decision(
    tournament: Tournament, player: PlayerRef, round_number: int, forfeit: bool
) -> Player:
    """The player whose series in round ``round_number`` may be forfeited (``forfeit``) or
    have its forfeit lifted; a :class:`ServiceError` saying why not otherwise.  What
    :func:`forfeit` and :func:`unforfeit` ask, and the page's confirmation before them
    (which asked about a round beyond any)."""
    who = _player(tournament, player)
    round_ = Round.objects.filter(tournament=tournament, number=round_number).first()
    if round_ is None or round_.status not in (Round.Status.PLAYING, Round.Status.FINISHED):
        raise ServiceError(
            gettext(
                "round %(round_number)s of %(tournament)s has not begun: only "
                "a series that was played can be forfeited"
            )
            % {"round_number": round_number, "tournament": tournament.name},
            "round_number",
        )
    if not TableSeat.objects.filter(table__round=round_, player=who).exists():
        raise ServiceError(
            gettext("%(who)s had no seat at a table in round %(round_number)s")
            % {"who": who.name, "round_number": round_number},
            "player",
        )
    now = str(who.pk) in forfeits_in_force(tournament).get(round_number, set())
    if now == forfeit:
        state = gettext("already forfeited") if forfeit else gettext("not forfeited")
        raise ServiceError(
            gettext("%(who)s's series in round %(round_number)s is %(state)s")
            % {"who": who.name, "round_number": round_number, "state": state},
            "player",
        )
    return who


def forfeit(
    tournament: Tournament, player: PlayerRef, round_number: int, *, by: Any = None
) -> Forfeit:
    """The organiser forfeits ``player``'s series in a begun round: last place, marked."""
    return _decide(tournament, player, round_number, True, by)


def unforfeit(
    tournament: Tournament, player: PlayerRef, round_number: int, *, by: Any = None
) -> Forfeit:
    """The organiser lifts a forfeit (their own or the clock's): the series counts as played."""
    return _decide(tournament, player, round_number, False, by)


def record_timeout_forfeit(seat: TableSeat) -> Forfeit | None:
    """The clock handed ``seat`` to a bot: forfeit its series if the tournament says so.

    Called inside the clock's transaction, which holds the seat's row lock; it adds a
    row, and locks nothing more (an organiser locks the tournament before its tables)
    but the club's ratings in the game, when the timeout ended the series (they are made
    again: :func:`_rated_again`).  Once per series: a second hand-over adds nothing.
    """
    tournament = seat.table.round.tournament
    if not tournament.timeout_forfeits:
        return None
    number = seat.table.round.number
    if Forfeit.objects.filter(
        tournament=tournament,
        player_id=seat.player_id,
        round_number=number,
        cause=Forfeit.Cause.TIMEOUT,
    ).exists():
        return None
    decided = Forfeit.objects.create(
        tournament=tournament,
        player_id=seat.player_id,
        round_number=number,
        forfeited=True,
        cause=Forfeit.Cause.TIMEOUT,
    )
    # The timeout that handed the seat over may have ended the series, and the table was
    # rated, in this transaction, before this forfeit was recorded.
    _rated_again(tournament, seat.player_id, number)
    return decided
