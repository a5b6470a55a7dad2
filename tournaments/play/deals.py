"""New games: deal one from a provably fair shuffle (or a given deck), or store a
portable record as a game; the first events of a stream."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from django.db import transaction

from engine.contract import Event, IllegalAction
from engine.contract import Game as Engine
from engine.fairness import (
    ALGORITHM,
    ALGORITHM_WITH_CLIENTS,
    check_shuffle,
    commitment,
    derive_deck,
    mix_seed,
    shuffle_contributions,
)
from engine.fairness import canonical_order as _canonical_order
from engine.record import import_record as _import_record
from engine.registry import get_game
from events.store import NewEvent
from tournaments import sql
from tournaments.models import Game
from tournaments.play import randomness
from tournaments.play.commands import _append_and_project, _chance_events


def create_game(
    kind: str,
    seats: int,
    *,
    dealer: int | None = None,
    players: Sequence[str] | None = None,
    options: Mapping[str, Any] | None = None,
    deck: Sequence[str] | None = None,
    turn_seconds: int | None = None,
    first_turn_grace: int = 0,
    context: Any = None,
    cause_kind: str = "organiser",
    cause_id: str = "",
    server_seed: bytes | None = None,
    client_seeds: Sequence[str] = (),
    nonce: int = 0,
    logins: Mapping[int, int] | None = None,
) -> Game:
    """Deal a new game of ``kind`` at ``seats`` seats and store it.

    Without ``deck`` the deck is derived from a fresh secret seed
    (:mod:`engine.fairness`): only the seed's commitment is shown until the
    game ends.  With ``server_seed`` (one committed before the deal) the deck
    derives from it mixed with the players' ``client_seeds`` and ``nonce``
    (:func:`engine.fairness.mix_seed`, docs/fairness.md).  ``dealer`` defaults
    to a seat drawn by a secure generator.
    Raises ``KeyError`` for an unknown game and :class:`IllegalAction` for bad
    seats, dealer, deck or options.  ``first_turn_grace`` seconds are added to the
    deadlines the deal starts (the game's first turn: time for players to arrive).
    ``logins``: the login playing each seat that one plays, where the caller has just read
    them (a table's next deal): the deal's account notices then read none.
    """
    engine = get_game(kind)
    if not isinstance(seats, int) or isinstance(seats, bool) or seats < 1:
        raise IllegalAction(f"seats is a number of players, not {seats!r}", "seats")
    if dealer is None:
        dealer = randomness.source.randbelow(seats)
    shuffle: dict[str, Any] | None = None
    if deck is None and server_seed is not None:
        contributions = list(client_seeds)
        mixed = mix_seed(server_seed, contributions, nonce)
        deck = derive_deck(mixed, _canonical_order(engine.deck))
        shuffle = {
            "algorithm": ALGORITHM_WITH_CLIENTS,
            "commitment": commitment(server_seed),
            "seed": server_seed.hex(),
            "client_seeds": contributions,
            "nonce": nonce,
        }
    elif deck is None:
        seed = randomness.source.new_seed()
        deck = derive_deck(seed, _canonical_order(engine.deck))
        shuffle = {"algorithm": ALGORITHM, "commitment": commitment(seed), "seed": seed.hex()}
    names = _players(players, seats)
    if turn_seconds is not None and (
        not isinstance(turn_seconds, int) or isinstance(turn_seconds, bool) or turn_seconds < 1
    ):
        raise IllegalAction(
            f"turn_seconds is a positive number, not {turn_seconds!r}", "turn_seconds"
        )
    dealt = engine.deal(seats, dealer, deck, options)
    extra: dict[str, Any] = {
        "table": {"players": names, "turn_seconds": turn_seconds, "context": context}
    }
    if first_turn_grace and turn_seconds is not None:
        # In the deal's event, so that the projection rebuilt from the events keeps it.
        extra["table"]["first_turn_grace"] = int(first_turn_grace)
    if shuffle is not None:
        extra["shuffle"] = shuffle
    first = dealt[0] | extra
    return _store_new_game(engine, [first, *dealt[1:]], cause_kind, cause_id, logins=logins)


def import_game(record: Mapping[str, Any], *, context: Any = None) -> Game:
    """Store the game of a portable record (RECORD.md), every move checked.

    Raises :class:`engine.record.RecordError` for a record that does not hold
    and :class:`engine.fairness.FairnessError` for a revealed shuffle that
    does not match its commitment or the deck.
    """
    events = _import_record(record)
    shuffle = record.get("shuffle")
    extra: dict[str, Any] = {
        "table": {"players": list(record["players"]), "turn_seconds": None, "context": context}
    }
    if isinstance(shuffle, Mapping) and shuffle.get("commitment"):
        client_seeds, nonce = shuffle_contributions(shuffle)
        if shuffle.get("seed"):
            check_shuffle(
                record["deck"],
                commitment_hex=str(shuffle["commitment"]),
                seed=str(shuffle["seed"]),
                cards=get_game(record["game"]).deck,
                client_seeds=client_seeds,
                nonce=nonce,
            )
        extra["shuffle"] = {
            "algorithm": ALGORITHM if client_seeds is None else ALGORITHM_WITH_CLIENTS,
            "commitment": str(shuffle["commitment"]),
            **({"seed": str(shuffle["seed"])} if shuffle.get("seed") else {}),
            **({} if client_seeds is None else {"client_seeds": client_seeds, "nonce": nonce}),
        }
    engine = get_game(record["game"])
    return _store_new_game(
        engine, [events[0] | extra, *events[1:]], "system", "import", resolve_chance=False
    )


def _players(players: Sequence[str] | None, seats: int) -> list[str]:
    if players is None:
        return [f"Seat {s}" for s in range(seats)]
    names = [str(p) for p in players]
    if len(names) != seats:
        raise IllegalAction(f"players names {seats} seats, got {len(names)} names", "players")
    return names


def _store_new_game(
    engine: Engine[Any],
    events: list[Event],
    cause_kind: str,
    cause_id: str,
    *,
    resolve_chance: bool = True,
    logins: Mapping[int, int] | None = None,
) -> Game:
    # No savepoint when the series hook deals inside a move's transaction: a failure here
    # fails that whole transaction, nothing catches it and goes on.
    with transaction.atomic(savepoint=False):
        deal = events[0]
        game = Game(
            kind=engine.id, seats=deal["seats"], dealer=deal["dealer"], options=deal["options"]
        )
        sql.insert_row(game)
        state = engine.fold(events)
        new = [NewEvent(e["type"], e, cause_kind, cause_id, e.get("v", 1)) for e in events]
        if resolve_chance:
            chance, state = _chance_events(engine, state)
            new += chance
        # No savepoint (two statements at every deal, issue 24): the game's stream is
        # new with its row, so no other writer can meet this append.
        _append_and_project(game, engine, new, None, 0, logins=logins)
    return game
