"""The seeds of the decks: a round's duplicate-deal seed, a table's committed server
seeds, the players' client seeds (docs/fairness.md).

A game outside tournaments mixes its players' seeds the same way when it is made in
two steps: :func:`commit_standalone_deal` commits its server seed (its players see
the commitment), :func:`deal_standalone` deals it with their seeds as they are then.

Duplicate deals: a round's secret seed is the one event of the stream
``round-<id>`` (like a game's shuffle seed, it is in the event store and shown
only after the end); the round shows its SHA-256 commitment while it runs and
``Round.seed`` is filled when it finishes.

A seated round's seating is fixed once a player of the round has set their client
seed after the round's decks were committed (:func:`check_seating_may_change`):
the server knows the committed seeds and every client seed, so a swap or a reseat
then would let the organiser choose among decks it can work out.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from django.contrib.auth.models import User
from django.db import transaction
from django.db.models import Q
from django.utils.translation import gettext, ngettext

from engine.contract import IllegalAction, said
from engine.fairness import FairnessError, check_client_seed, commitment
from engine.registry import get_game
from events import store
from events.store import NewEvent
from tournaments import play, sql
from tournaments.models import ClientSeed, Game, Player, Round, StandaloneDeal, Table
from tournaments.play import randomness
from tournaments.services.base import ServiceError
from tournaments.words import say

#: The event stream holding a round's secret duplicate-deal seed.
ROUND_STREAM_PREFIX = "round-"
#: The event stream holding a table's server seeds, each committed before its deal.
TABLE_STREAM_PREFIX = "table-"
#: The event stream holding a standalone game's server seed, committed before its deal.
STANDALONE_STREAM_PREFIX = "standalone-"


def round_seed(round_: Round) -> bytes | None:
    """The round's secret duplicate-deal seed from the event store, ``None`` without one."""
    events = store.read_stream(f"{ROUND_STREAM_PREFIX}{round_.pk}", limit=1)
    return bytes.fromhex(events[0].payload["seed"]) if events else None


def round_contributions(round_: Round) -> list[str] | None:
    """The client seeds of every player of a duplicate round, frozen when it began."""
    events = store.read_stream(f"{ROUND_STREAM_PREFIX}{round_.pk}", from_sequence=2, limit=1)
    return list(events[0].payload["client_seeds"]) if events else None


def _freeze_round_contributions(round_: Round) -> None:
    """Duplicate deals: every seated player's client seed (by player id) as the round begins."""
    players = list(
        Player.objects.filter(table_seats__table__round=round_).distinct().order_by("pk")
    )
    store.append(
        f"{ROUND_STREAM_PREFIX}{round_.pk}",
        [
            NewEvent(
                "round_contributions",
                {
                    "type": "round_contributions",
                    "v": 1,
                    "players": [p.pk for p in players],
                    "client_seeds": client_seeds_of(players),
                },
                "system",
            )
        ],
        expected_sequence=1,
    )


def _commit_table_seed(table: Table, number: int, *, write: bool = True) -> None:
    """Draw the server seed of ``table``'s deal ``number`` and show its commitment now.

    The seed goes to the table's event stream (secret until that game is over); the
    commitment is the table's ``next_commitment`` until the deal, so that players can
    see it, and change their client seeds, before the deck is fixed (docs/fairness.md).
    Not ``write``: set on ``table`` only, for the caller to write with its own change of
    the table's row, in the same transaction and before the deal
    (``services.series._deal_table_game``: one ``UPDATE`` where there were two, issue 24).
    """
    seed = randomness.source.new_seed()
    table.next_commitment = commitment(seed)
    if write:
        sql.set_next_commitment(table.pk, table.next_commitment)
    store.append(
        f"{TABLE_STREAM_PREFIX}{table.pk}",
        [
            NewEvent(
                "table_seed",
                {
                    "type": "table_seed",
                    "v": 1,
                    "game_number": number,
                    "seed": seed.hex(),
                    "commitment": table.next_commitment,
                },
                "system",
            )
        ],
        expected_sequence=number - 1,
        # No savepoint (two statements at every deal's end, issue 24): the table's stream
        # is written only with its row locked or just made, so a collision is a bug, and
        # nothing goes on past one (the caller's transaction ends, rolled back).
        savepoint=False,
    )


def _table_seed(table: Table, number: int) -> bytes | None:
    """The committed server seed of ``table``'s deal ``number`` (``None``: none was)."""
    events = store.read_stream(f"{TABLE_STREAM_PREFIX}{table.pk}", from_sequence=number, limit=1)
    if not events or events[0].payload.get("game_number") != number:
        return None
    return bytes.fromhex(events[0].payload["seed"])


def client_seeds_of(players: Sequence[Player]) -> list[str]:
    """Each player's client seed, in order (``""``: a bot, no login, or none set)."""
    users = [p.user_id for p in players if p.user_id is not None]
    seeds = dict(ClientSeed.objects.filter(user_id__in=users).values_list("user_id", "seed"))
    return [seeds.get(p.user_id, "") if p.user_id is not None else "" for p in players]


def set_client_seed(user: User, seed: str) -> ClientSeed:
    """``user``'s client seed from now on: the decks dealt to them after this mix it in."""
    try:
        check_client_seed(seed)
    except FairnessError as error:
        raise ServiceError(say(error.phrase), "seed") from None
    with transaction.atomic():
        found, _ = ClientSeed.objects.update_or_create(user=user, defaults={"seed": seed})
    return found


def _committed_at(round_: Round) -> datetime | None:
    """When ``round_``'s decks were first committed: its duplicate-deal seed, else the
    earliest first-deal seed of its tables (``None``: none was, a round seated before
    client seeds existed)."""
    if round_.tournament.duplicate_deals:
        first = store.read_stream(f"{ROUND_STREAM_PREFIX}{round_.pk}", limit=1)
        return first[0].recorded_at if first else None
    times = [
        events[0].recorded_at
        for table in Table.objects.filter(round=round_).values_list("pk", flat=True)
        if (events := store.read_stream(f"{TABLE_STREAM_PREFIX}{table}", limit=1))
    ]
    return min(times) if times else None


def contributed_since_seating(round_: Round) -> list[Player]:
    """The players of ``round_`` (seated, or with a bye) who have set their client seed
    since its decks were committed, by name."""
    since = _committed_at(round_)
    if since is None:
        return []
    return list(
        Player.objects.filter(
            Q(table_seats__table__round=round_) | Q(pk__in=[int(p) for p in round_.byes]),
            user__client_seed__updated_at__gt=since,
        )
        .distinct()
        .order_by("name", "pk")
    )


def seating_fixed_by(round_: Round) -> str | None:
    """Who fixed ``round_``'s seating (the players who set a client seed since it was
    seated, by name, the first three), or ``None``: it may change."""
    late = contributed_since_seating(round_)
    if not late:
        return None
    names = ", ".join(p.name for p in late[:3])
    if len(late) > 3:
        more = len(late) - 3
        names = ngettext("%(names)s and %(count)s more", "%(names)s and %(count)s more", more) % {
            "names": names,
            "count": more,
        }
    return names


def check_seating_may_change(round_: Round) -> None:
    """Refuse (:class:`ServiceError`) a change of ``round_``'s seating once a player of the
    round has contributed a client seed after seeing its commitments.

    The server holds the committed seeds and reads every client seed, so it can work
    out the deck of any seating: a swap, a reseat or a late seating after a player's
    contribution would let the organiser pick among those decks, which the
    contribution is there to stop (docs/fairness.md).  Before any contribution the
    seating may change (its decks then depend on nothing the players chose).
    """
    names = seating_fixed_by(round_)
    if names is None:
        return
    raise ServiceError(
        gettext(
            "round %(number)s's seating is fixed: %(names)s set a client "
            "seed after it was seated, and a new seating now would let the "
            "server choose among decks it can already work out "
            "(docs/fairness.md). Begin the round as it is seated; a late "
            "player waits for the next round."
        )
        % {"number": round_.number, "names": names},
        "round",
    )


# -- games outside tournaments ------------------------------------------------------------------


def commit_standalone_deal(
    kind: str,
    players: Sequence[Player],
    *,
    options: Mapping[str, Any] | None = None,
    turn_seconds: int | None = None,
) -> StandaloneDeal:
    """A game of ``kind`` for ``players`` (in seat order) outside tournaments, its server
    seed drawn and its commitment shown now; :func:`deal_standalone` deals it.

    Between the two its players see the commitment (``/me/``, ``GET
    /api/v1/me/client-seed``) and may set a new client seed: the deck then mixes the
    seeds they have at the deal, as a tournament table's does (docs/fairness.md).
    """
    try:
        engine = get_game(kind)
    except KeyError:
        raise ServiceError(
            gettext("there is no game %(kind)s") % {"kind": said(kind)}, "kind"
        ) from None
    if not engine.min_seats <= len(players) <= engine.max_seats:
        raise ServiceError(
            gettext("%(engine)s is played by %(min_seats)s to %(max_seats)s players, not %(value)s")
            % {
                "engine": gettext(engine.name),
                "min_seats": engine.min_seats,
                "max_seats": engine.max_seats,
                "value": len(players),
            },
            "players",
        )
    if len({p.pk for p in players}) != len(players):
        raise ServiceError(gettext("a player may take only one seat"), "players")
    seed = randomness.source.new_seed()
    with transaction.atomic():
        pending = StandaloneDeal.objects.create(
            kind=kind,
            seats=[{"player": p.pk, "name": p.name, "bot": p.bot_level or None} for p in players],
            options=dict(options or {}),
            turn_seconds=turn_seconds,
            commitment=commitment(seed),
        )
        store.append(
            f"{STANDALONE_STREAM_PREFIX}{pending.pk}",
            [
                NewEvent(
                    "standalone_seed",
                    {
                        "type": "standalone_seed",
                        "v": 1,
                        "seed": seed.hex(),
                        "commitment": pending.commitment,
                    },
                    "system",
                )
            ],
            expected_sequence=0,
        )
    return pending


def deal_standalone(pending: StandaloneDeal, *, cause_kind: str = "organiser") -> Game:
    """Deal the game ``pending`` committed: the deck derives from its server seed, the
    players' client seeds now (in seat order) and the nonce 1."""
    with transaction.atomic():
        pending = StandaloneDeal.objects.select_for_update().get(pk=pending.pk)
        if pending.game_id is not None:
            raise ServiceError(
                gettext("standalone game %(pending)s is dealt already") % {"pending": pending.pk},
                "deal",
            )
        events = store.read_stream(f"{STANDALONE_STREAM_PREFIX}{pending.pk}", limit=1)
        if not events:  # pragma: no cover - made with its seed in one transaction
            raise ServiceError(
                gettext("standalone game %(pending)s has no committed seed")
                % {"pending": pending.pk},
                "deal",
            )
        ids = [int(s["player"]) for s in pending.seats]
        found = {p.pk: p for p in Player.objects.filter(pk__in=ids)}
        try:
            game = play.create_game(
                pending.kind,
                len(ids),
                players=[str(s["name"]) for s in pending.seats],
                options=pending.options,
                turn_seconds=pending.turn_seconds,
                context={"seats": pending.seats},
                cause_kind=cause_kind,
                server_seed=bytes.fromhex(events[0].payload["seed"]),
                client_seeds=client_seeds_of([found[pid] for pid in ids]),
                nonce=1,
            )
        except IllegalAction as error:
            raise ServiceError(
                gettext("the game cannot be dealt: %(reason)s") % {"reason": error.reason}
            ) from error
        pending.game = game
        pending.save(update_fields=["game"])
    return game


def standalone_deals_waiting(user: User) -> list[StandaloneDeal]:
    """The standalone games committed and not dealt yet in which ``user`` has a seat."""
    mine = set(Player.objects.filter(user=user).values_list("pk", flat=True))
    if not mine:
        return []
    return [
        d
        for d in StandaloneDeal.objects.filter(game__isnull=True).order_by("id")
        if any(s.get("player") in mine for s in d.seats)
    ]
