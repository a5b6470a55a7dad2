"""The club ratings, kept: each finished table rates its players once, in the
transaction that finished it (:func:`rate_table`, called by the series hook).

The ratings were a fold of the club's whole history, kept in the cache for each set of
finished tables: after every table that finished, the next leaderboard or player page
read every game of the club's tournaments of that game again, and every request
unpickled the club's whole history (found by trying; a request's cost must not grow
with the size of the store).  Now a leaderboard reads its club's rows and a player's
page the player's own steps.

A table is rated by its result as the standings count it: a player whose series there
is forfeited shares the last place (:func:`tournaments.scoring.forfeited`), so that a
no-show does not gain rating on a bot's play (found by trying: the ratings read the raw
placings).  A forfeit decided or lifted after the table finished changes that result,
and every later rating of its players: the club's ratings in that game are made again
from its finished tables (:func:`rerate`, from the organiser's decision).

The order is the fold's: a table is rated when its series ends, after the tables that
ended before it.  Every writer of a club's ratings in a game holds their advisory lock
(:func:`tournaments.sql.lock_ratings`), taken last, so that those tables are rated one
after another; not the club's row, which every write naming the club checks at its
commit (a player added at the desk would wait there for a finishing table's hook).
``standings.club_ratings(from_events=True)`` folds the games' events again, as a check;
the two differ only if one player finished two tables (in two tournaments) within the
same moment, whose commits the lock puts in one order and the fold in the order of
their last events, or for a table ``rate_tables`` rated after later ones (an upgrade's).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from datetime import datetime

from django.db import transaction
from django.db.models import Max, QuerySet

from tournaments import sql
from tournaments.models import PlayerRating, RatingStep, Table, Tournament
from tournaments.play.context import GameContext
from tournaments.ratings import Rating, update
from tournaments.scoring import TableResult, forfeited
from tournaments.standings import forfeits_in_force


def rate_table(
    table: int,
    club: int,
    game: str,
    players: Sequence[int],
    placings: Sequence[Sequence[int]],
    finished_at: datetime,
    forfeits: Collection[str] = (),
) -> None:
    """Rate the finished ``table`` of ``club``'s tournament of ``game``: ``players`` by
    seat, ``placings`` groups of seats, best first; ``forfeits``, the players (ids as
    strings) whose series there is forfeited.  Once: a table rated already is left."""
    with transaction.atomic(savepoint=False):
        sql.lock_ratings(club, game)
        if RatingStep.objects.filter(table_id=table).exists():
            return
        result = TableResult.from_seats([str(p) for p in players], placings)
        groups = [list(group) for group in forfeited(result, forfeits).placings]
        ids = sorted(set(players))
        start = Rating()
        PlayerRating.objects.bulk_create(
            [
                PlayerRating(
                    player_id=player,
                    club_id=club,
                    game=game,
                    mu=start.mu,
                    sigma=start.sigma,
                    ordinal=start.ordinal,
                )
                for player in ids
            ],
            ignore_conflicts=True,
        )
        rows = list(PlayerRating.objects.filter(player_id__in=ids, game=game).order_by("player_id"))
        after = update({str(row.player_id): Rating(row.mu, row.sigma) for row in rows}, groups)
        for row in rows:
            rating = after[str(row.player_id)]
            row.mu, row.sigma, row.ordinal = rating.mu, rating.sigma, rating.ordinal
            row.tables += 1
        PlayerRating.objects.bulk_update(rows, ["mu", "sigma", "ordinal", "tables"])
        RatingStep.objects.bulk_create(
            [
                RatingStep(
                    player_id=row.player_id,
                    game=game,
                    table_id=table,
                    finished_at=finished_at,
                    display=after[str(row.player_id)].display,
                )
                for row in rows
            ]
        )


def rate_unrated_tables() -> int:
    """Rate every finished table not rated yet, in the order they finished; how many.

    For an upgrade: a table that the older version finished while the new one's migration
    ran is rated by ``manage.py rate_tables`` (docs/operations.md).  Each table in its own
    transaction, as the series hook rates it, so that it may run while tables play.
    """
    rated = 0
    for table in _finished(Table.objects.exclude(pk__in=RatingStep.objects.values("table_id"))):
        rated += _rate(table)
    return rated


def rerate(club: int, game: str) -> None:
    """Make ``club``'s ratings in ``game`` again from its finished tables, in the order they
    finished: after a forfeit decided or lifted at a finished table, which changes its
    result and every later rating of its players.  An organiser's decision, not a
    reader's request: it costs the club's history in that game, once."""
    with transaction.atomic(savepoint=False):
        sql.lock_ratings(club, game)
        RatingStep.objects.filter(player__club_id=club, game=game).delete()
        PlayerRating.objects.filter(club_id=club, game=game).delete()
        tables = Table.objects.filter(round__tournament__club_id=club, round__tournament__game=game)
        forfeits: dict[int, dict[int, set[str]]] = {}
        for table in _finished(tables):
            _rate(table, forfeits)


def _finished(tables: QuerySet[Table]) -> QuerySet[Table]:
    """``tables`` that finished, with ``ended`` (their last game's end), in that order."""
    return (
        tables.filter(status=Table.Status.FINISHED, placings__isnull=False)
        .annotate(ended=Max("games__finished_at"))
        .select_related("round__tournament")
        .order_by("ended", "pk")
    )


def _rate(table: Table, forfeits: dict[int, dict[int, set[str]]] | None = None) -> int:
    """Rate one finished ``table`` (annotated by :func:`_finished`): 1, or 0 for a table of
    games the services did not deal (no players in their context)."""
    first = table.games.order_by("number_in_series").first()
    ended = getattr(table, "ended", None)
    if first is None or ended is None:
        return 0
    players = [seat.player for seat in GameContext.of(first).seats]
    if not players or None in players:
        return 0
    tournament: Tournament = table.round.tournament
    known = {} if forfeits is None else forfeits  # read once a tournament
    if tournament.pk not in known:
        known[tournament.pk] = forfeits_in_force(tournament)
    rate_table(
        table.pk,
        tournament.club_id,
        tournament.game,
        [int(p) for p in players if p is not None],
        table.placings or [],
        ended,
        known[tournament.pk].get(table.round.number, set()),
    )
    return 1


__all__ = ["rate_table", "rate_unrated_tables", "rerate"]
