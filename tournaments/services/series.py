"""A table's series: deal its games one after another, and finish the table, the round
and the tournament when the series ends.

When a game of a table ends the game service (:mod:`tournaments.play`) sends
:data:`tournaments.play.game_ended` inside the transaction that ended it;
:func:`game_over` (connected in :meth:`TournamentsConfig.ready
<tournaments.apps.TournamentsConfig.ready>`) deals the table's next game (the deal
passing to the left) or, once the series is over, records the table's placings,
finishes the round when its last table finishes and the tournament after its last
round.  The game service never imports this package: the signal is the one way
back.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext

from engine import series as series_rules
from engine.contract import IllegalAction
from engine.fairness import canonical_order, derive_deck, mix_seed
from engine.registry import get_game
from engine.series import SeriesFormat
from tournaments import play, sql
from tournaments.models import Game, Round, Table, Tournament
from tournaments.recent import Recent
from tournaments.seating import duplicate_seed
from tournaments.services import ratings
from tournaments.services.base import ServiceError
from tournaments.services.seeds import (
    _commit_table_seed,
    _table_seed,
    round_contributions,
    round_seed,
)
from tournaments.standings import forfeits_in_force


def _deal_table_game(
    tournament: Tournament,
    round_: Round,
    table: Table,
    number: int,
    dealer: int,
    cause_kind: str,
    written: Sequence[str] = (),
) -> Game:
    """Deal game ``number`` (1 first) of ``table``'s series, ``dealer`` dealing, after
    writing ``table``'s fields ``written`` (already set on it) and its next commitment in
    one ``UPDATE`` (issue 24: there were two at every deal's end).

    Without duplicate deals the deck derives from the table's server seed committed
    before this deal, mixed with the seated players' client seeds and ``number``; the
    next deal's seed is committed at once.  With duplicate deals it derives from the
    round's seed mixed with the contributions of every player of the round, frozen
    when the round began (so every table of a size gets the same decks).

    The row is written before the deal: a deal over as soon as it is dealt (every hand
    but one emptied by its pairs) ends in this transaction, and the hook it runs reads
    the table's row, and writes it, as the next deal's.
    """
    seats = sql.seated_players(table.pk)
    deck: list[str] | None = None
    server_seed: bytes | None = None
    if tournament.duplicate_deals:
        seed = round_seed(round_)
        if seed is None:
            raise ServiceError(
                gettext("round %(number)s has no duplicate-deal seed") % {"number": round_.number},
                "round",
            )
        engine = get_game(tournament.game)
        deal_seed = duplicate_seed(seed, len(seats), number - 1)
        frozen = round_contributions(round_)
        if frozen is not None:
            deal_seed = mix_seed(deal_seed, frozen, number)
        deck = derive_deck(deal_seed, canonical_order(engine.deck))
    else:
        server_seed = _table_seed(table, number)
        # A table seated before client seeds existed has none: a fresh seed, as before.
        if server_seed is not None:
            _commit_table_seed(table, number + 1, write=False)
    sql.update_row(table, [*written, "next_commitment"])
    context = {
        "tournament": tournament.pk,
        "round": round_.number,
        "table": table.pk,
        "game_number": number,
        "seats": [{"player": s.player, "name": s.name, "bot": s.bot_level or None} for s in seats],
    }
    try:
        return play.create_game(
            tournament.game,
            len(seats),
            dealer=dealer,
            players=[s.name for s in seats],
            deck=deck,
            turn_seconds=tournament.turn_seconds,
            first_turn_grace=tournament.first_turn_grace,
            context=context,
            cause_kind=cause_kind,
            server_seed=server_seed,
            client_seeds=[s.client_seed for s in seats] if server_seed else (),
            nonce=number,
            # By place in the context's seats, as the feed reads them back from it.
            logins={n: s.user for n, s in enumerate(seats) if s.user is not None},
        )
    except IllegalAction as error:
        raise ServiceError(
            gettext("table %(table_number)s cannot be dealt: %(reason)s")
            % {"table_number": table.number, "reason": error.reason}
        ) from error


def _recounted(
    table: Table, fmt: SeriesFormat, number: int, seats: int
) -> tuple[int, list[float]] | None:
    """The series' totals over the table's games before game ``number``, from the games.

    For a table whose kept totals are behind its games: games ended by a Parlour from
    before the totals (migration 0014) running beside this one during an upgrade, which
    deal the next game and count nothing.  A series must not stall there; this reads the
    table's games once, and the totals are kept again from then on.  ``None`` when the
    games say the call is stale (an earlier game not over, or a later game dealt)."""
    found = list(
        Game.objects.filter(table_id=table.pk)
        .order_by("number_in_series", "id")
        .values_list("number_in_series", "status", "result")
    )
    if [n for n, _, _ in found] != list(range(1, number + 1)):
        return None
    results = [
        result
        for _, status, result in found[:-1]
        if status == Game.Status.OVER and result is not None
    ]
    if len(results) != number - 1:
        return None  # an earlier game not over: a stale call
    return number - 1, series_rules.scores(fmt, results, seats)


def game_over(game: Game) -> None:
    """The series hook: a game of a tournament table has just ended (same transaction).

    Deals the table's next game (the deal passes to the left) unless the
    series is over; then stores the table's placings, finishes the round
    when every table has finished (revealing the duplicate-deal seed) and
    the tournament after its last round.  Called again for the same game it
    does nothing.
    """
    table_id = play.table_id_of(game)
    if table_id is None:
        return
    # No savepoint inside the move's transaction (two statements at every game's end):
    # nothing here is caught and survived, a failure fails the move that ended the game.
    with transaction.atomic(savepoint=False):
        # The tournament's row shared with the other tables' hooks, exclusive of every
        # organiser's change (sql.table_tournament_shared); the table's own row exclusive.
        rows = sql.table_tournament_shared(table_id)
        if rows is None:
            return
        tournament, round_ = rows
        table = sql.table_for_update(table_id)
        if table is None:  # deleted since: the move fails, as a series is never left undealt
            raise Table.DoesNotExist(table_id)
        if table.status == Table.Status.FINISHED:
            return
        # The table keeps the series' running totals, so that this costs the same at the
        # thousandth deal as at the first (reading every game of the series did not).
        number = game.number_in_series
        if number is None or number <= table.series_deals or game.result is None:
            return  # counted already
        if sql.next_game_of_table(table.pk, number) is not None:
            return  # a later game is dealt already (the totals lag behind it): a stale call
        seats = game.seats
        fmt = SeriesFormat.from_json(tournament.series)
        if number > table.series_deals + 1:
            recounted = _recounted(table, fmt, number, seats)
            if recounted is None:
                return
            table.series_deals, table.series_scores = recounted
        table.series_deals = number
        table.series_scores = series_rules.scored(fmt, table.series_scores, game.result, seats)
        counted = ["series_deals", "series_scores"]
        if not series_rules.finished(fmt, table.series_deals, table.series_scores):
            dealt = _deal_table_game(
                tournament,
                round_,
                table,
                number + 1,
                series_rules.next_dealer(game.dealer, seats),
                "system",
                written=counted,
            )
            ended, following = (game.pk, game.last_event_at), dealt.pk
            transaction.on_commit(lambda: _next_deals.put(ended, following))
            return
        table.placings = series_rules.ranked(table.series_scores)
        table.status = Table.Status.FINISHED
        # No deal comes: the commitment shown for one would promise it (its seed stays
        # in the table's stream, never used).
        table.next_commitment = ""
        sql.update_row(table, ["placings", "status", "next_commitment", *counted])
        # The players' club ratings, in the same transaction: kept, not folded per request.
        players = [seat.player for seat in play.GameContext.of(game).seats]
        if game.finished_at is not None and None not in players:
            ratings.rate_table(
                table.pk,
                tournament.club_id,
                tournament.game,
                [int(p) for p in players if p is not None],
                table.placings,
                game.finished_at,
                # As the standings count it: a forfeited series shares the last place.
                forfeits_in_force(tournament).get(round_.number, set()),
            )
        # The round's last tables finish one after another: each sees those before it
        # finished (its next statement reads what they committed), so one finishes the
        # round.  Taken after the table's lock, and only by a table whose series is over.
        round_ = Round.objects.select_for_update().get(pk=round_.pk)
        if Table.objects.filter(round=round_).exclude(status=Table.Status.FINISHED).exists():
            return
        round_.status = Round.Status.FINISHED
        round_.finished_at = timezone.now()
        seed = round_seed(round_)
        round_.seed = seed.hex() if seed is not None else ""
        round_.save(update_fields=["status", "finished_at", "seed"])
        if round_.number >= tournament.rounds:
            tournament.status = Tournament.Status.FINISHED
            tournament.save(update_fields=["status"])


#: Each table game's next deal once committed, by the ended game's id and the time of its
#: last event (every view of the ended game names it: a read fewer at each deal's end,
#: issue 24).  That time tells this ending from another of the same game in a database
#: restored or failed over since, which may deal another game under the same id.
_next_deals: Recent[tuple[int, datetime | None], int] = Recent(4096)


def next_game(game: Game) -> int | None:
    """Once ``game`` is over: the id of its table's next game, if the series dealt one
    (dealt in the transaction that ended it, so an over game's views name it).  Known
    without a read in the process that dealt it."""
    if not game.is_over or game.table_id is None or game.number_in_series is None:
        return None
    found = _next_deals.get((game.pk, game.last_event_at))
    if found is not None:
        return found
    return sql.next_game_of_table(game.table_id, game.number_in_series)


def on_game_ended(sender: object, game: Game, **kwargs: object) -> None:
    """The receiver of :data:`tournaments.play.game_ended` (connected in ``apps.ready``)."""
    game_over(game)
