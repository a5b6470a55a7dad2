"""The portable game record, ``parlour-record/1`` (shared/rules/RECORD.md).

:func:`export_record` turns a game's events into a record; :func:`import_record`
turns a record back into events, replaying every move through ``decide`` and
checking the stated result, so a record that does not hold is rejected with the
index of its first bad move.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from engine.contract import Event, IllegalAction, said
from engine.registry import get_game
from engine.words import Phrase, gettext_noop

FORMAT = "parlour-record/1"
RECORD_KEYS = {"format", "game", "seats", "players", "dealer", "options", "deck", "moves"}
OPTIONAL_KEYS = {"result", "shuffle"}


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
    unknown key, an unknown game, a bad deck, an illegal move (with its index),
    a result other than the one the moves lead to.  A record without
    ``result`` (or with ``null``) is a game still running.
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
            gettext_noop("unknown key(s) %(keys)s"), field=unknown[0], keys=", ".join(unknown)
        )
    if record["format"] != FORMAT:
        raise RecordError(
            gettext_noop("format must be %(format)s, not %(sent)s"),
            field="format",
            format=said(FORMAT),
            sent=said(record["format"]),
        )
    try:
        game = get_game(record["game"])
    except (KeyError, TypeError) as error:
        raise RecordError(str(error).strip('"'), field="game") from None
    seats = record["seats"]
    if not isinstance(seats, int) or not game.min_seats <= seats <= game.max_seats:
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
    if not isinstance(record["options"], Mapping):
        raise RecordError(gettext_noop("options must be an object"), field="options")
    if not isinstance(record["deck"], list):
        raise RecordError(gettext_noop("deck must be a list of card codes"), field="deck")
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
        for event in new:
            state = game.evolve(state, event)
        events.extend(new)
    outcome = game.outcome(state)
    stated = record.get("result")
    if stated is not None and stated != outcome:
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
