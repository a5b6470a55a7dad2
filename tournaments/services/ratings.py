"""The club ratings, kept: each finished table rates its players once, in the
transaction that finished it (:func:`rate_table`, called by the series hook).

The ratings were a fold of the club's whole history, kept in the cache for each set of
finished tables: after every table that finished, the next leaderboard or player page
read every game of the club's tournaments of that game again, and every request
unpickled the club's whole history (found by trying; a request's cost must not grow
with the size of the store).  Now a leaderboard reads its club's rows and a player's
page the player's own steps.

The order is the fold's: a table is rated when its series ends, after the tables that
ended before it.  Only the rows of the table's players are locked (in the order of
their ids, so that two tables finishing at once never wait for each other in a circle):
tables without a player in common are rated side by side, and their order does not
change either's result.  ``standings.club_ratings(from_events=True)`` folds the games'
events again, as a check; the two differ only if one player finished two tables (in two
tournaments) within the same moment, whose commits the rows' locks put in one order and
the fold in the order of their last events.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime

from django.db import transaction
from django.db.models import Max

from tournaments.models import PlayerRating, RatingStep, Table
from tournaments.play.context import GameContext
from tournaments.ratings import Rating, update


def rate_table(
    table: int,
    club: int,
    game: str,
    players: Sequence[int],
    placings: Iterable[Iterable[int]],
    finished_at: datetime,
) -> None:
    """Rate the finished ``table`` of ``club``'s tournament of ``game``: ``players`` by
    seat, ``placings`` groups of seats, best first.  Once: a table rated already is left.
    """
    groups = [[str(players[seat]) for seat in group] for group in placings]
    ids = sorted(set(players))
    start = Rating()
    with transaction.atomic(savepoint=False):
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
        rows = list(
            PlayerRating.objects.select_for_update()
            .filter(player_id__in=ids, game=game)
            .order_by("player_id")
        )
        if RatingStep.objects.filter(table_id=table).exists():
            return  # rated already (seen under the players' locks)
        before = {str(row.player_id): Rating(row.mu, row.sigma) for row in rows}
        after = update(before, groups)
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
    unrated = (
        Table.objects.filter(status=Table.Status.FINISHED, placings__isnull=False)
        .exclude(pk__in=RatingStep.objects.values("table_id"))
        .annotate(ended=Max("games__finished_at"))
        .select_related("round__tournament")
        .order_by("ended", "pk")
    )
    rated = 0
    for table in unrated:
        first = table.games.order_by("number_in_series").first()
        if first is None or table.ended is None:
            continue
        seats = GameContext.of(first).seats
        players = [seat.player for seat in seats]
        if None in players:
            continue  # not a game the services dealt
        tournament = table.round.tournament
        rate_table(
            table.pk,
            tournament.club_id,
            tournament.game,
            [int(p) for p in players if p is not None],
            table.placings or [],
            table.ended,
        )
        rated += 1
    return rated


__all__ = ["rate_table", "rate_unrated_tables"]
