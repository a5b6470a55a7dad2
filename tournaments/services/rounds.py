"""Rounds: seat the checked-in players, adjust the seating, begin the round.

A round goes through three steps (docs/tournaments.md, "A club night"):

1. :func:`start_round` seats the checked-in players (:mod:`tournaments.seating`):
   the round is ``SEATED``, its tables and seats exist, no game is dealt yet;
2. the organiser may adjust the seating: :func:`swap_players`, :func:`reseat`
   with tables fixed or players kept apart;
3. :func:`begin_round` deals each table's first game (round ``PLAYING``);
   the series goes on from there (:mod:`tournaments.services.series`).

Players who check in after seating (:func:`late_players`, :func:`seat_late`) and the
warning before seating leaves someone out (:func:`unchecked_players`) are here too,
which makes the module longer than ~400 lines: they change the same seating under the
same tournament lock, and splitting them off would spread that lock's rules over two
modules.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext, ngettext

from engine.contract import said
from engine.fairness import commitment
from events import store
from events.store import NewEvent
from tournaments.models import (
    Absence,
    CheckIn,
    Player,
    Registration,
    Round,
    Table,
    TableSeat,
    Tournament,
)
from tournaments.play import randomness
from tournaments.seating import Constraints, History, Seating, SeatingError, seat_round
from tournaments.services.base import (
    PlayerRef,
    ServiceError,
    _active,
    _lock,
    _not_dropped,
    _player,
    _registration,
    _rounds,
    next_round_number,
)
from tournaments.services.seeds import (
    ROUND_STREAM_PREFIX,
    _commit_table_seed,
    _freeze_round_contributions,
    check_seating_may_change,
)
from tournaments.services.series import _deal_table_game
from tournaments.standings import live_standings
from tournaments.words import say


def _in_round(round_: Round, player: Player) -> bool:
    return (
        player.pk in round_.byes
        or TableSeat.objects.filter(table__round=round_, player=player).exists()
    )


def seating_of(round_: Round) -> Seating:
    """The round's seating as :mod:`tournaments.seating` sees it (player ids as strings)."""
    tables: list[tuple[str, ...]] = []
    dealers: list[int] = []
    for table in Table.objects.filter(round=round_).order_by("number"):
        seats = TableSeat.objects.filter(table=table).order_by("seat")
        tables.append(tuple(str(s.player_id) for s in seats))
        dealers.append(table.first_dealer)
    return Seating(
        tables=tuple(tables), dealers=tuple(dealers), byes=tuple(str(p) for p in round_.byes)
    )


def _participants(tournament: Tournament, number: int, auto_check_in: bool) -> list[Player]:
    """The players to seat in round ``number``: active, not absent, and checked in (bots
    always are).

    Bots and, with ``auto_check_in``, everyone seated get a check-in row for the record.
    """
    registrations = Registration.objects.filter(tournament=tournament).select_related("player")
    checked = set(
        CheckIn.objects.filter(tournament=tournament, round_number=number).values_list(
            "player_id", flat=True
        )
    )
    # Marked absent by the organiser (issue 20): never seated in this round, not even by
    # an automatic check-in.
    absent = set(
        Absence.objects.filter(tournament=tournament, round_number=number).values_list(
            "player_id", flat=True
        )
    )
    players: list[Player] = []
    for registration in registrations.order_by("id"):
        if not _active(registration, number) or registration.player_id in absent:
            continue
        who = registration.player
        if who.pk in checked or who.is_bot or auto_check_in:
            players.append(who)
            if who.pk not in checked:
                CheckIn.objects.create(tournament=tournament, player=who, round_number=number)
    return players


def _constraints(
    tournament: Tournament,
    fixed: Mapping[PlayerRef, int] | None,
    apart: Iterable[tuple[PlayerRef, PlayerRef]],
) -> Constraints:
    """Seating constraints from players and table numbers (1 is the first table)."""
    pinned: dict[str, int] = {}
    for player, number in (fixed or {}).items():
        who = _player(tournament, player)
        if not isinstance(number, int) or isinstance(number, bool) or number < 1:
            raise ServiceError(
                gettext("%(who)s is fixed to table %(number)s: tables count from 1")
                % {"who": who.name, "number": said(number)}
            )
        pinned[str(who.pk)] = number - 1
    pairs: list[tuple[str, str]] = []
    for a, b in apart:
        first, second = _player(tournament, a), _player(tournament, b)
        if first.pk == second.pk:
            raise ServiceError(
                gettext("%(first)s cannot be kept apart from themselves") % {"first": first.name},
                "apart",
            )
        pairs.append((str(first.pk), str(second.pk)))
    return Constraints(fixed=pinned, apart=tuple(pairs))


def _history(tournament: Tournament, before: int) -> History:
    rounds = Round.objects.filter(tournament=tournament, number__lt=before).order_by("number")
    return History.from_seatings(seating_of(r) for r in rounds)


def _seat(
    tournament: Tournament,
    round_: Round,
    players: Sequence[Player],
    constraints: Constraints,
    rng: random.Random,
) -> None:
    """Seat ``players`` in ``round_`` (which has no tables yet) and store the seating."""
    history = _history(tournament, round_.number)
    mode: Any = "random" if round_.number == 1 else tournament.seating_mode
    ranking = [s.player for s in live_standings(tournament)] if round_.number > 1 else None
    ids = [str(p.pk) for p in players]
    if len(ids) < tournament.table_min:
        raise ServiceError(
            # The English says "player(s)" in both forms, as it always has; each
            # catalog's language has its own plural forms.
            ngettext(
                "round %(number)s cannot start: %(count)s player(s) checked in, a table"
                " needs at least %(table_min)s (check players in, or use auto check-in)",
                "round %(number)s cannot start: %(count)s player(s) checked in, a table"
                " needs at least %(table_min)s (check players in, or use auto check-in)",
                len(ids),
            )
            % {"number": round_.number, "count": len(ids), "table_min": tournament.table_min}
        )
    try:
        seating = seat_round(
            ids,
            tournament.table_min,
            tournament.table_max,
            preferred=tournament.table_preferred,
            history=history,
            standings=ranking,
            mode=mode,
            constraints=constraints,
            rng=rng,
        )
    except SeatingError as error:
        # The organiser's words: the player's name, not their id.
        names = {str(p.pk): p.name for p in players}
        raise ServiceError(
            gettext("round %(number)s cannot be seated: %(value)s")
            % {"number": round_.number, "value": "; ".join(map(say, error.named(names)))}
        ) from error
    _store_seating(round_, seating)


def _store_seating(round_: Round, seating: Seating) -> None:
    """Write ``seating`` as the round's tables and seats (table rows are kept where they exist)."""
    wanted = [int(x) for x in seating.seated()]
    players = {str(p.pk): p for p in Player.objects.filter(pk__in=wanted)}
    tables = {t.number: t for t in Table.objects.filter(round=round_)}
    TableSeat.objects.filter(table__round=round_).delete()
    for index, (members, dealer) in enumerate(zip(seating.tables, seating.dealers, strict=True)):
        table = tables.pop(index + 1, None)
        if table is None:
            table = Table.objects.create(round=round_, number=index + 1, first_dealer=dealer)
            _commit_table_seed(table, 1)
        elif table.first_dealer != dealer:
            table.first_dealer = dealer
            table.save(update_fields=["first_dealer"])
        TableSeat.objects.bulk_create(
            TableSeat(table=table, seat=seat, player=players[pid])
            for seat, pid in enumerate(members)
        )
    Table.objects.filter(pk__in=[t.pk for t in tables.values()]).delete()
    round_.byes = [int(p) for p in seating.byes]
    round_.save(update_fields=["byes"])


def start_round(
    tournament: Tournament,
    *,
    fixed: Mapping[PlayerRef, int] | None = None,
    apart: Iterable[tuple[PlayerRef, PlayerRef]] = (),
    auto_check_in: bool = False,
    rng: random.Random | None = None,
) -> Round:
    """Seat the next round: status ``SEATED``, tables and seats stored, no game dealt yet.

    Seated are the active registered players checked in for the round; bots
    always count as checked in, and ``auto_check_in`` checks in every active
    registered player.  ``fixed`` maps players to table numbers (1 first),
    ``apart`` lists pairs who must not share a table.  Then the organiser may
    :func:`swap_players` or :func:`reseat`, and :func:`begin_round` deals.
    """
    rng = rng if rng is not None else randomness.source.seeded_generator()
    with transaction.atomic():
        tournament = _lock(tournament)
        rounds = _rounds(tournament)
        number = len(rounds) + 1
        last = rounds[-1] if rounds else None
        # A seated round first: a second click of Seat on the last round said the
        # tournament had had all its rounds, though the round had not begun (found by trying).
        if last is not None and last.status == Round.Status.SEATED:
            raise ServiceError(
                gettext(
                    "round %(last_number)s is seated and has not begun: begin it "
                    "(swap players first to change its seating; the tournament's "
                    "desk page can also seat it again)"
                )
                % {"last_number": last.number},
                "tournament",
            )
        if tournament.status == Tournament.Status.FINISHED or number > tournament.rounds:
            raise ServiceError(
                gettext("%(tournament)s has had all its %(rounds)s rounds")
                % {"tournament": tournament.name, "rounds": tournament.rounds},
                "tournament",
            )
        if last is not None and last.status == Round.Status.PLAYING:
            busy = Table.objects.filter(round=last).exclude(status=Table.Status.FINISHED)
            raise ServiceError(
                ngettext(
                    "round %(number)s cannot start: round %(last_number)s still"
                    " has %(count)s table(s) playing",
                    "round %(number)s cannot start: round %(last_number)s still"
                    " has %(count)s table(s) playing",
                    busy.count(),
                )
                % {"number": number, "last_number": last.number, "count": busy.count()},
                "tournament",
            )
        constraints = _constraints(tournament, fixed, apart)
        players = _participants(tournament, number, auto_check_in)
        round_ = Round.objects.create(tournament=tournament, number=number)
        _seat(tournament, round_, players, constraints, rng)
        if tournament.duplicate_deals:
            seed = randomness.source.new_seed()
            round_.commitment = commitment(seed)
            round_.save(update_fields=["commitment"])
            store.append(
                f"{ROUND_STREAM_PREFIX}{round_.pk}",
                [
                    NewEvent(
                        "round_seed",
                        {
                            "type": "round_seed",
                            "v": 1,
                            "tournament": tournament.pk,
                            "round": number,
                            "seed": seed.hex(),
                            "commitment": round_.commitment,
                        },
                        "organiser",
                    )
                ],
                expected_sequence=0,
            )
        return round_


def _seated_round(round_: Round) -> tuple[Tournament, Round]:
    tournament = _lock(round_.tournament)
    fresh = Round.objects.select_for_update().get(pk=round_.pk)
    if fresh.status != Round.Status.SEATED:
        raise ServiceError(
            gettext("round %(fresh_number)s has begun (%(status)s): its seating cannot change")
            % {"fresh_number": fresh.number, "status": fresh.get_status_display()},
            "round",
        )
    return tournament, fresh


def _round_to_reseat(round_: Round) -> tuple[Tournament, Round]:
    """:func:`_seated_round`, for a change of its seating: refused once a player of the
    round has contributed a client seed since it was seated (services/seeds.py)."""
    tournament, round_ = _seated_round(round_)
    check_seating_may_change(round_)
    return tournament, round_


def swap_players(round_: Round, a: PlayerRef, b: PlayerRef) -> Round:
    """Exchange two players of a seated round: seat for seat, or a seat for a bye.

    The first dealer's seat stays where it is (a player swapped into it deals first).
    """
    with transaction.atomic():
        tournament, round_ = _round_to_reseat(round_)
        first, second = _player(tournament, a), _player(tournament, b)
        seating = seating_of(round_)
        if first.pk == second.pk:
            raise ServiceError(gettext("a swap needs two different players"), "player")
        for who in (first, second):
            if not _in_round(round_, who):
                raise ServiceError(
                    gettext(
                        "%(who)s is not in round %(number)s: swap two players of the "
                        "round (seated or with a bye); a late player is seated from "
                        "the tournament's desk page"
                    )
                    % {"who": who.name, "number": round_.number},
                    "player",
                )
        if first.pk in round_.byes and second.pk in round_.byes:
            raise ServiceError(
                gettext("%(first)s and %(second)s both have byes")
                % {"first": first.name, "second": second.name},
                "player",
            )
        try:
            swapped = Constraints().swap(seating, str(first.pk), str(second.pk))
        except SeatingError as error:  # pragma: no cover - every refusal is checked above
            names = {str(first.pk): first.name, str(second.pk): second.name}
            raise ServiceError(
                gettext("cannot swap: %(error)s")
                % {"error": "; ".join(map(say, error.named(names)))},
                "player",
            ) from error
        _store_seating(round_, swapped)
        return round_


def _reseat(
    tournament: Tournament, round_: Round, constraints: Constraints, rng: random.Random
) -> None:
    players = _participants(tournament, round_.number, auto_check_in=False)
    _seat(tournament, round_, players, constraints, rng)


def reseat(
    round_: Round,
    *,
    fixed: Mapping[PlayerRef, int] | None = None,
    apart: Iterable[tuple[PlayerRef, PlayerRef]] = (),
    rng: random.Random | None = None,
) -> Round:
    """Seat a seated round again, with tables ``fixed`` and pairs kept ``apart``.

    The players are those checked in now (a late check-in is seated, a drop is not).
    """
    rng = rng if rng is not None else randomness.source.seeded_generator()
    with transaction.atomic():
        tournament, round_ = _round_to_reseat(round_)
        _reseat(tournament, round_, _constraints(tournament, fixed, apart), rng)
        return round_


class _DryRun(Exception):
    """Rolls back a reseat made only to see whether it would be refused."""


def check_reseat(
    round_: Round,
    *,
    fixed: Mapping[PlayerRef, int] | None = None,
    apart: Iterable[tuple[PlayerRef, PlayerRef]] = (),
) -> None:
    """Refuse (:class:`ServiceError`) a :func:`reseat` that would be refused, changing
    nothing: it is made in a savepoint and rolled back.  The page's question asks it (it
    asked "Seat round 1 again?" of a table 9 among 2, refused once confirmed: a review's
    catch); a seating's constraints are only known to fail by seating."""
    try:
        with transaction.atomic():
            reseat(round_, fixed=fixed, apart=apart)
            raise _DryRun
    except _DryRun:
        pass


def begin_round(round_: Round) -> Round:
    """Deal the first game of every table of a seated round; the round is ``PLAYING``."""
    with transaction.atomic():
        tournament, round_ = _seated_round(round_)
        tables = list(Table.objects.filter(round=round_).order_by("number"))
        if not tables:
            raise ServiceError(
                gettext(
                    "round %(number)s has no tables: seat it again from the tournament's desk page"
                )
                % {"number": round_.number},
                "round",
            )
        if tournament.duplicate_deals:
            _freeze_round_contributions(round_)
        for table in tables:
            table.status = Table.Status.PLAYING
            _deal_table_game(
                tournament, round_, table, 1, table.first_dealer, "organiser", written=["status"]
            )
        round_.status = Round.Status.PLAYING
        round_.started_at = timezone.now()
        round_.save(update_fields=["status", "started_at"])
        if tournament.status == Tournament.Status.REGISTRATION:
            tournament.status = Tournament.Status.RUNNING
            tournament.save(update_fields=["status"])
        return round_


# -- nobody stranded (issue 20): who is not checked in, who came late, seat them -------------


def unchecked_players(tournament: Tournament, number: int | None = None) -> list[Player]:
    """The active registered people not checked in for round ``number`` (default: the next).

    What seating would leave out without auto check-in (bots always count as checked in).
    A player marked absent for the round is not among them: an automatic check-in skips
    them too (the seating's confirmation offered to check them in, and seated without
    them: found by trying).
    """
    number = next_round_number(tournament) if number is None else number
    checked = set(
        CheckIn.objects.filter(tournament=tournament, round_number=number).values_list(
            "player_id", flat=True
        )
    ) | set(
        Absence.objects.filter(tournament=tournament, round_number=number).values_list(
            "player_id", flat=True
        )
    )
    registrations = Registration.objects.filter(tournament=tournament).select_related("player")
    return sorted(
        (
            r.player
            for r in registrations
            if _active(r, number) and not r.player.is_bot and r.player_id not in checked
        ),
        key=lambda p: p.name,
    )


def late_players(round_: Round) -> list[Player]:
    """The players checked in for a seated round who are neither at a table nor on a bye."""
    if round_.status != Round.Status.SEATED:
        return []
    tournament = round_.tournament
    seating = seating_of(round_)
    placed = {int(p) for p in seating.seated()} | set(round_.byes)
    return [
        p
        for p in _participants_now(tournament, round_.number)
        if p.pk not in placed and not p.is_bot
    ]


def _participants_now(tournament: Tournament, number: int) -> list[Player]:
    """The active registered players checked in for round ``number`` (no rows written)."""
    checked = set(
        CheckIn.objects.filter(tournament=tournament, round_number=number).values_list(
            "player_id", flat=True
        )
    )
    registrations = Registration.objects.filter(tournament=tournament).select_related("player")
    return [
        r.player
        for r in registrations.order_by("id")
        if _active(r, number) and (r.player_id in checked or r.player.is_bot)
    ]


def seat_late(
    round_: Round, player: PlayerRef | None = None, *, rng: random.Random | None = None
) -> dict[str, int | None]:
    """Seat the late check-ins of a seated round (or just ``player``) without moving anyone.

    Late players and the round's byes together make new tables when they are enough
    for one; a late player left over takes an empty seat at the smallest table with
    room; one left over still gets a bye.  Returns each late player's name and the
    number of their table now (``None``: a bye).
    """
    rng = rng if rng is not None else randomness.source.seeded_generator()
    with transaction.atomic():
        tournament, round_ = _round_to_reseat(round_)
        late = late_players(round_)
        if player is not None:
            who = _player(tournament, player)
            seated = TableSeat.objects.filter(table__round=round_, player=who).first()
            if seated is not None:  # a second click of Seat: not "check them in first"
                raise ServiceError(
                    gettext("%(who)s is seated already, at table %(table)s of round %(number)s")
                    % {"who": who.name, "table": seated.table.number, "number": round_.number},
                    "player",
                )
            # Not registered, or dropped out: checking in would be refused too (it said to
            # check them in first: found by trying).
            _not_dropped(tournament, who, _registration(tournament, who))
            if who.pk not in {p.pk for p in late}:
                raise ServiceError(
                    gettext(
                        "%(who)s is not waiting for a seat in round %(number)s: check "
                        "them in first (a player already seated is moved with a swap)"
                    )
                    % {"who": who.name, "number": round_.number},
                    "player",
                )
            late = [who]
        if not late:
            raise ServiceError(
                gettext("nobody checked in for round %(number)s is waiting for a seat")
                % {"number": round_.number}
            )
        seating = seating_of(round_)
        tables = [list(t) for t in seating.tables]
        dealers = list(seating.dealers)
        byes = list(seating.byes)
        waiting = [str(p.pk) for p in late]
        pool = waiting + byes
        if len(pool) >= tournament.table_min:
            # A new table (or several) of the late players and those who had a bye.
            extra = seat_round(
                pool,
                tournament.table_min,
                tournament.table_max,
                preferred=tournament.table_preferred,
                history=_history(tournament, round_.number),
                mode="random",
                rng=rng,
            )
            tables.extend(list(t) for t in extra.tables)
            dealers.extend(extra.dealers)
            byes = list(extra.byes)
            waiting = [p for p in waiting if p in byes]
            byes = [p for p in byes if p not in waiting]
        for pid in list(waiting):
            room = [t for t in tables if len(t) < tournament.table_max]
            if room:
                min(room, key=len).append(pid)
                waiting.remove(pid)
        byes.extend(waiting)
        new = Seating(
            tables=tuple(tuple(t) for t in tables), dealers=tuple(dealers), byes=tuple(byes)
        )
        _store_seating(round_, new)
        return {
            who.name: next((i + 1 for i, t in enumerate(new.tables) if str(who.pk) in t), None)
            for who in late
        }
