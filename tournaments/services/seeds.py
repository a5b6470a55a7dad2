"""The seeds of the decks: a round's duplicate-deal seed, a table's committed server
seeds, the players' client seeds (docs/fairness.md).

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

from collections.abc import Sequence
from datetime import datetime

from django.contrib.auth.models import User
from django.db import transaction
from django.db.models import Q

from engine.fairness import FairnessError, check_client_seed, commitment
from events import store
from events.store import NewEvent
from tournaments.models import ClientSeed, Player, Round, Table
from tournaments.play import randomness
from tournaments.services.base import ServiceError

#: The event stream holding a round's secret duplicate-deal seed.
ROUND_STREAM_PREFIX = "round-"
#: The event stream holding a table's server seeds, each committed before its deal.
TABLE_STREAM_PREFIX = "table-"


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


def _commit_table_seed(table: Table, number: int) -> None:
    """Draw the server seed of ``table``'s deal ``number`` and show its commitment now.

    The seed goes to the table's event stream (secret until that game is over); the
    commitment is the table's ``next_commitment`` until the deal, so that players can
    see it, and change their client seeds, before the deck is fixed (docs/fairness.md).
    """
    seed = randomness.source.new_seed()
    table.next_commitment = commitment(seed)
    table.save(update_fields=["next_commitment"])
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
        raise ServiceError(str(error), "seed") from None
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


def check_seating_may_change(round_: Round) -> None:
    """Refuse (:class:`ServiceError`) a change of ``round_``'s seating once a player of the
    round has contributed a client seed after seeing its commitments.

    The server holds the committed seeds and reads every client seed, so it can work
    out the deck of any seating: a swap, a reseat or a late seating after a player's
    contribution would let the organiser pick among those decks, which the
    contribution is there to stop (docs/fairness.md).  Before any contribution the
    seating may change (its decks then depend on nothing the players chose).
    """
    late = contributed_since_seating(round_)
    if not late:
        return
    names = ", ".join(p.name for p in late[:3]) + (
        f" and {len(late) - 3} more" if len(late) > 3 else ""
    )
    raise ServiceError(
        f"round {round_.number}'s seating is fixed: {names} set a client seed after it was"
        " seated, and a new seating now would let the server choose among decks it can"
        " already work out (docs/fairness.md). Begin the round as it is seated; a late"
        " player waits for the next round.",
        "round",
    )
