"""The portable game record, ``parlour-record/1`` (shared/rules/RECORD.md).

:func:`export_record` turns a game's events into a record; :func:`import_record`
turns a record back into events, replaying every move through ``decide`` and
checking the stated result, so a record that does not hold is rejected with the
index of its first bad move.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from engine.contract import Event, IllegalAction, is_whole, said
from engine.fairness import (
    ALGORITHM,
    ALGORITHM_WITH_CLIENTS,
    FairnessError,
    shuffle_contributions,
)
from engine.registry import game_ids, get_game
from engine.shapes import ActionShape
from engine.words import Phrase, gettext_noop

FORMAT = "parlour-record/1"
RECORD_KEYS = {"format", "game", "seats", "players", "dealer", "options", "deck", "moves"}
OPTIONAL_KEYS = {"result", "shuffle"}
#: A ``shuffle``'s keys: RECORD.md's two, and what a deal with the players' seeds adds
#: (docs/fairness.md, "With the players' help").
SHUFFLE_KEYS = {"commitment", "seed", "algorithm", "client_seeds", "nonce"}
#: A SHA-256 in hexadecimal; either case, as the commitment is compared in lower case.
_SHA256_HEX = re.compile(r"[0-9a-fA-F]{64}")
#: Whole bytes in hexadecimal, at least one (``bytes.fromhex`` would also take spaces).
_HEX_BYTES = re.compile(r"(?:[0-9a-fA-F]{2})+")


class RecordError(ValueError):
    """A record that is malformed or does not hold.

    ``index`` is the 0-based index of the first bad move (``None`` when the fault
    is outside the moves); ``field`` names the key at fault.  ``reason`` is the English
    words, ``phrase`` the same for translation (:class:`engine.words.Phrase`, as
    :class:`~engine.contract.IllegalAction` has it).
    """

    def __init__(
        self,
        message: str | Phrase,
        index: int | None = None,
        field: str | None = None,
        **params: object,
    ) -> None:
        self.phrase = message if isinstance(message, Phrase) else Phrase(message, **params)
        self.reason = str(self.phrase)
        super().__init__(self.reason if index is None else f"move {index}: {self.reason}")
        self.index = index
        self.field = field


def export_record(
    events: Sequence[Mapping[str, Any]],
    players: Sequence[str] | None = None,
    shuffle: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """The record of the game whose events are ``events`` (``dealt`` first).

    ``players`` names the seats (default ``"Seat 0"`` …); ``shuffle`` is the
    fairness commitment and, once the game is over, the seed.
    """
    if not events or events[0].get("type") != "dealt":
        raise ValueError("a game's events start with its deal")
    deal = events[0]
    game = get_game(deal["game"])
    seats = deal["seats"]
    moves: list[dict[str, Any]] = []
    for event in events[1:]:
        move: dict[str, Any] = {"seat": event["seat"], "action": dict(event["action"])}
        if event.get("chance"):
            move["chance"] = True
        moves.append(move)
    state = game.fold(events)
    record: dict[str, Any] = {
        "format": FORMAT,
        "game": game.id,
        "seats": seats,
        "players": list(players) if players is not None else [f"Seat {s}" for s in range(seats)],
        "dealer": deal["dealer"],
        "options": dict(deal["options"]),
        "deck": list(deal["deck"]),
        "moves": moves,
        "result": game.outcome(state),
    }
    if shuffle is not None:
        record["shuffle"] = dict(shuffle)
    return record


def import_record(record: object) -> list[Event]:
    """The events of ``record``, every move replayed and the result checked.

    Raises :class:`RecordError` for anything that does not hold: a missing or
    unknown key, a field not of the JSON type RECORD.md gives it (``true`` is no seat,
    ``1.0`` no count), an unknown game, a bad deck or shuffle, an illegal move (with its
    index) or one without a field its action records, a result other than the one the
    moves lead to.  A record without ``result`` (or with ``null``) is a game still
    running; one without ``shuffle`` (or with ``null``) was dealt from a given deck.
    """
    if not isinstance(record, Mapping):
        raise RecordError(gettext_noop("a record is a JSON object"))
    missing = sorted(RECORD_KEYS - set(record))
    if missing:
        raise RecordError(
            gettext_noop("the record lacks %(keys)s"), field=missing[0], keys=", ".join(missing)
        )
    unknown = sorted(set(record) - RECORD_KEYS - OPTIONAL_KEYS)
    if unknown:
        raise RecordError(
            gettext_noop("unknown key(s) %(keys)s"),
            field=unknown[0],
            keys=", ".join(map(said, unknown)),
        )
    if record["format"] != FORMAT:
        raise RecordError(
            gettext_noop("format must be %(format)s, not %(sent)s"),
            field="format",
            format=said(FORMAT),
            sent=said(record["format"]),
        )
    # Asked before get_game: a list is unhashable (a TypeError's Python words), and the
    # registry's KeyError is not marked for translation.
    known = game_ids()
    if not isinstance(record["game"], str) or record["game"] not in known:
        raise RecordError(
            gettext_noop("unknown game %(game)s; known: %(known)s"),
            field="game",
            game=said(record["game"]),
            known=", ".join(map(said, known)),
        )
    game = get_game(record["game"])
    seats = record["seats"]
    if not is_whole(seats):  # 3.0 is not 3 seats, and not a count out of range either
        raise RecordError(
            gettext_noop("seats is a whole number (a JSON number such as 3), not %(seats)s"),
            field="seats",
            seats=said(seats),
        )
    if not game.min_seats <= seats <= game.max_seats:
        raise RecordError(
            gettext_noop("%(game)s is played by %(fewest)s to %(most)s players, not %(seats)s"),
            field="seats",
            game=Phrase(game.name),
            fewest=game.min_seats,
            most=game.max_seats,
            seats=said(seats),
        )
    players = record["players"]
    if not isinstance(players, list) or len(players) != record["seats"]:
        raise RecordError(gettext_noop("players must list one name per seat"), field="players")
    for name in players:
        if not isinstance(name, str):
            # Stored as the table's names when imported: [1, 2] was taken (found by trying).
            raise RecordError(
                gettext_noop("each name in players is text, not %(name)s"),
                field="players",
                name=said(name),
            )
    if not isinstance(record["options"], Mapping):
        raise RecordError(gettext_noop("options must be an object"), field="options")
    if not isinstance(record["deck"], list):
        raise RecordError(gettext_noop("deck must be a list of card codes"), field="deck")
    # Before the moves are replayed: a bad shuffle is as cheap to tell as a bad deck.
    _check_shuffle(record.get("shuffle"))
    try:
        events = game.deal(record["seats"], record["dealer"], record["deck"], record["options"])
    except IllegalAction as error:
        raise RecordError(error.phrase, field=error.field) from None
    state = game.fold(events)
    moves = record["moves"]
    if not isinstance(moves, list):
        raise RecordError(gettext_noop("moves must be a list"), field="moves")
    for index, move in enumerate(moves):
        if not isinstance(move, Mapping) or set(move) - {"seat", "action", "chance"}:
            raise RecordError(
                gettext_noop('a move is {"seat", "action"[, "chance"]}'), index, "moves"
            )
        if "seat" not in move or "action" not in move:
            raise RecordError(gettext_noop("a move needs a seat and an action"), index, "moves")
        chance = move.get("chance", False)
        if not isinstance(chance, bool):
            raise RecordError(gettext_noop("chance must be true or false"), index, "chance")
        try:
            new = game.decide(state, move["seat"], move["action"], chance=chance)
        except IllegalAction as error:
            raise RecordError(error.phrase, index, error.field or "action") from None
        _check_recorded_fields(game.actions, move["action"], index)
        for event in new:
            state = game.evolve(state, event)
        events.extend(new)
    outcome = game.outcome(state)
    stated = record.get("result")
    # Compared as JSON, not as Python values: true == 1 and 1.0 == 1 to Python, so
    # {"loser": true} stood for seat 1 (found by trying).
    if stated is not None and said(stated) != said(outcome):
        if outcome is None:
            raise RecordError(
                gettext_noop(
                    "the moves lead to an unfinished game, not the stated result %(stated)s"
                ),
                len(moves),
                "result",
                stated=said(stated),
            )
        raise RecordError(
            gettext_noop("the moves lead to %(outcome)s, not the stated result %(stated)s"),
            len(moves),
            "result",
            outcome=said(outcome),
            stated=said(stated),
        )
    if stated is None and outcome is not None:
        raise RecordError(
            gettext_noop(
                "the moves end the game with %(outcome)s, but the record states no result"
            ),
            len(moves),
            "result",
            outcome=said(outcome),
        )
    return events


def _check_recorded_fields(
    declared: Mapping[str, ActionShape], action: Mapping[str, Any], index: int
) -> None:
    """Refuse a move the rules accepted without a field its action records.

    The rules take an Old Maid draw without its card (a seat's request names only the
    position; the server fills the card in), so a record's ``{"type": "draw", "index":
    0}`` or ``"card": null`` was replayed (found by trying): RECORD.md's move states it.
    """
    shape = declared.get(action["type"])
    if shape is None:
        return
    fields = [*shape.fields, *shape.filled]
    for name in fields:
        if action.get(name) is None:
            raise RecordError(
                gettext_noop("a %(type)s move records %(fields)s: this one has no %(name)s"),
                index,
                name,
                type=said(action["type"]),
                fields=", ".join(map(said, fields)),
                name=said(name),
            )


def _check_shuffle(shuffle: object) -> None:
    """Refuse a ``shuffle`` (RECORD.md) that is not one: its keys and their JSON types.

    ``null`` or no ``shuffle`` is a game dealt from a given deck.  Whether a revealed seed
    holds (the commitment, the deck) is checked by :func:`engine.fairness.check_shuffle`;
    this is the shape it needs: ``"shuffle": "x"`` was taken as no shuffle at all and a
    seed of 1234 as the text "1234" (found by trying).
    """
    if shuffle is None:
        return
    if not isinstance(shuffle, Mapping):
        raise RecordError(
            gettext_noop("shuffle must be an object, not %(sent)s"),
            field="shuffle",
            sent=said(shuffle),
        )
    unknown = sorted(set(shuffle) - SHUFFLE_KEYS)
    if unknown:
        raise RecordError(
            gettext_noop("unknown key(s) %(keys)s in shuffle"),
            field="shuffle",
            keys=", ".join(map(said, unknown)),
        )
    commitment = shuffle.get("commitment")
    if not isinstance(commitment, str) or not _SHA256_HEX.fullmatch(commitment):
        raise RecordError(
            gettext_noop(
                "shuffle.commitment is a SHA-256 in hexadecimal (64 digits), not %(sent)s"
            ),
            field="shuffle",
            sent=said(commitment),
        )
    seed = shuffle.get("seed")
    if seed is not None and (not isinstance(seed, str) or not _HEX_BYTES.fullmatch(seed)):
        raise RecordError(
            gettext_noop(
                "shuffle.seed is the revealed seed in hexadecimal (whole bytes, two digits"
                " each), not %(sent)s"
            ),
            field="shuffle",
            sent=said(seed),
        )
    try:
        client_seeds, _ = shuffle_contributions(shuffle)
    except FairnessError as error:
        # Its words, as the answer to a shuffle that does not hold has always given them.
        raise RecordError(error.phrase, field="shuffle") from None
    if client_seeds is None and shuffle.get("nonce") is not None:
        raise RecordError(
            gettext_noop("shuffle.nonce comes with shuffle.client_seeds, not alone"),
            field="shuffle",
        )
    algorithm = ALGORITHM if client_seeds is None else ALGORITHM_WITH_CLIENTS
    if "algorithm" in shuffle and shuffle["algorithm"] != algorithm:
        raise RecordError(
            gettext_noop("shuffle.algorithm of this shuffle is %(algorithm)s, not %(sent)s"),
            field="shuffle",
            algorithm=said(algorithm),
            sent=said(shuffle["algorithm"]),
        )
