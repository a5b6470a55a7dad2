"""The portable record: export, import with full validation, errors that point at the move."""

from __future__ import annotations

import copy
import random

import pytest

from engine.fairness import ALGORITHM, ALGORITHM_WITH_CLIENTS
from engine.play import new_deal, play_random
from engine.record import FORMAT, RecordError, export_record, import_record
from engine.registry import get_game


def _record(game_id: str = "bhabhi", seats: int = 4, seed: int = 3) -> dict:
    game = get_game(game_id)
    rng = random.Random(seed)
    return export_record(play_random(game, new_deal(game, seats, rng), rng).events)


def test_an_exported_record_has_the_shape_of_record_md() -> None:
    record = _record()
    assert record["format"] == FORMAT
    assert set(record) == {
        "format",
        "game",
        "seats",
        "players",
        "dealer",
        "options",
        "deck",
        "moves",
        "result",
    }
    assert len(record["deck"]) == 52 and record["players"] == [
        "Seat 0",
        "Seat 1",
        "Seat 2",
        "Seat 3",
    ]
    assert all(set(m) <= {"seat", "action", "chance"} for m in record["moves"])
    assert set(record["result"]) == {"loser", "out"}


def test_a_bad_move_is_rejected_with_its_index() -> None:
    record = _record("old_maid", 3)
    bad = copy.deepcopy(record)
    index = next(i for i, m in enumerate(bad["moves"]) if m["action"]["type"] == "draw")
    bad["moves"][index]["seat"] = (bad["moves"][index]["seat"] + 1) % 3
    with pytest.raises(RecordError) as caught:
        import_record(bad)
    assert caught.value.index == index


def test_a_wrong_result_is_rejected() -> None:
    record = _record("bhabhi", 4)
    record["result"]["loser"] = (record["result"]["loser"] + 1) % 4
    with pytest.raises(RecordError, match="not the stated result") as caught:
        import_record(record)
    assert caught.value.field == "result"


def test_a_finished_game_without_a_result_is_rejected() -> None:
    record = _record("give_and_take", 3)
    del record["result"]
    with pytest.raises(RecordError, match="states no result"):
        import_record(record)


def test_a_running_game_imports_without_a_result() -> None:
    record = _record("old_maid", 4)
    record["moves"] = record["moves"][:3]
    record["result"] = None
    assert len(import_record(record)) == 4


@pytest.mark.parametrize(
    ("change", "field"),
    [
        (lambda r: r.update(format="pgn"), "format"),
        (lambda r: r.update(game="chess"), "game"),
        (lambda r: r.update(seats=9), "seats"),
        (lambda r: r["deck"].__setitem__(0, r["deck"][1]), "deck"),
        (lambda r: r.update(extra=1), "extra"),
        (lambda r: r.pop("moves"), "moves"),
        (lambda r: r["players"].pop(), "players"),
    ],
)
def test_a_malformed_record_names_the_field_at_fault(change: object, field: str) -> None:
    record = _record("give_away", 4)
    change(record)  # type: ignore[operator]
    with pytest.raises(RecordError) as caught:
        import_record(record)
    assert caught.value.field == field


def test_ten_is_accepted_for_t_on_input_and_written_canonically() -> None:
    record = _record("give_away", 2)
    record["deck"] = [c.replace("T", "10").lower() for c in record["deck"]]
    events = import_record(record)
    assert "TS" in events[0]["deck"] and "10s" not in events[0]["deck"]


def _first_move(record: dict, kind: str, seats: tuple[int, ...] = ()) -> dict:
    """The first move of ``record`` whose action is ``kind`` (by one of ``seats`` if given)."""
    return next(
        m
        for m in record["moves"]
        if m["action"]["type"] == kind and (not seats or m["seat"] in seats)
    )


COMMITMENT = "ab" * 32


def _as_bool(move: dict) -> None:
    """Its seat (0 or 1) said as false or true: the same seat to Python, none to JSON."""
    move["seat"] = bool(move["seat"])


@pytest.mark.parametrize(
    ("change", "field", "words"),
    [
        (lambda r: r.update(format=1), "format", 'format must be "parlour-record/1", not 1'),
        (lambda r: r.update(game=["bhabhi"]), "game", 'unknown game ["bhabhi"]'),
        (lambda r: r.update(game=5), "game", "unknown game 5"),
        (
            lambda r: r.update(seats=True),
            "seats",
            "whole number (a JSON number such as 3), not true",
        ),
        (lambda r: r.update(seats=4.0), "seats", "whole number (a JSON number such as 3), not 4.0"),
        (lambda r: r.update(seats="4"), "seats", 'a JSON number such as 3), not "4"'),
        (lambda r: r.update(players=[1, 2, 3, 4]), "players", "players is text, not 1"),
        (lambda r: r["players"].__setitem__(3, None), "players", "players is text, not null"),
        (lambda r: r.update(players="Ann"), "players", "players must list one name per seat"),
        (lambda r: r.update(dealer=True), "dealer", "the dealer must be a seat"),
        (lambda r: r.update(dealer=1.0), "dealer", "the dealer must be a seat"),
        (lambda r: r.update(dealer="1"), "dealer", "the dealer must be a seat"),
        (lambda r: r.update(options=[]), "options", "options must be an object"),
        (lambda r: r.update(deck=" ".join(r["deck"])), "deck", "deck must be a list"),
        (lambda r: r["deck"].__setitem__(0, 5), "deck", "a card is a code"),
        (lambda r: r.update(moves={}), "moves", "moves must be a list"),
        (lambda r: r["moves"].__setitem__(0, [2, {"type": "play"}]), "moves", "a move is"),
        (lambda r: _as_bool(_first_move(r, "play", (1,))), "seat", "no seat true"),
        (lambda r: _as_bool(_first_move(r, "play", (0,))), "seat", "no seat false"),
        (lambda r: _first_move(r, "play").update(seat=0.0), "seat", "no seat 0.0"),
        (
            lambda r: r["moves"][0].update(action="play"),
            "type",
            'an action is an object with a "type"',
        ),
        (lambda r: r["moves"][0].update(chance=1), "chance", "chance must be true or false"),
        (lambda r: r["result"].update(loser=False), "result", '"loser": false'),
        (lambda r: r["result"].update(loser=0.0), "result", '"loser": 0.0'),
        (lambda r: r["result"]["out"].__setitem__(0, [3.0]), "result", "[[3.0], [1], [2]]"),
        (lambda r: r.update(result="over"), "result", 'not the stated result "over"'),
        (lambda r: r.update(shuffle="x"), "shuffle", 'shuffle must be an object, not "x"'),
        (lambda r: r.update(shuffle=[COMMITMENT]), "shuffle", "shuffle must be an object"),
        (lambda r: r.update(shuffle={}), "shuffle", "shuffle.commitment is a SHA-256"),
        (lambda r: r.update(shuffle={"commitment": 5}), "shuffle", "shuffle.commitment"),
        (lambda r: r.update(shuffle={"commitment": "ab"}), "shuffle", "shuffle.commitment"),
        (
            lambda r: r.update(shuffle={"commitment": COMMITMENT, "seed": 1234}),
            "shuffle",
            "shuffle.seed is the revealed seed in hexadecimal",
        ),
        (
            lambda r: r.update(shuffle={"commitment": COMMITMENT, "seed": ""}),
            "shuffle",
            'two digits each), not ""',
        ),
        (
            lambda r: r.update(shuffle={"commitment": COMMITMENT, "seed": "ab cd"}),
            "shuffle",
            "shuffle.seed",
        ),
        (
            lambda r: r.update(shuffle={"commitment": COMMITMENT, "sede": "00"}),
            "shuffle",
            'unknown key(s) "sede" in shuffle',
        ),
        (
            lambda r: r.update(shuffle={"commitment": COMMITMENT, "nonce": 1}),
            "shuffle",
            "shuffle.nonce comes with shuffle.client_seeds",
        ),
        (
            lambda r: r.update(shuffle={"commitment": COMMITMENT, "algorithm": 1}),
            "shuffle",
            "shuffle.algorithm of this shuffle is",
        ),
        (
            lambda r: r.update(
                shuffle={"commitment": COMMITMENT, "client_seeds": [1, 2, 3, 4], "nonce": 0}
            ),
            "shuffle",
            "shuffle.client_seeds is a list",
        ),
        (
            lambda r: r.update(
                shuffle={"commitment": COMMITMENT, "client_seeds": [""] * 4, "nonce": True}
            ),
            "shuffle",
            "shuffle.nonce is the game's number",
        ),
    ],
)
def test_a_field_of_the_wrong_json_type_makes_the_record_invalid_naming_it(
    change: object, field: str, words: str
) -> None:
    # RECORD.md gives every field a JSON type; Python's equalities (true == 1, 1.0 == 1)
    # and a shuffle never looked at let some through (found by trying).  Seed 1: dealer 1
    # and loser 0, so true and false are the very values they stood for.
    record = _record("bhabhi", 4, seed=1)
    assert record["dealer"] == 1 and record["result"]["loser"] == 0
    change(record)  # type: ignore[operator]
    with pytest.raises(RecordError) as caught:
        import_record(record)
    assert caught.value.field == field
    assert words in str(caught.value), str(caught.value)


def test_an_ace_declared_as_a_float_makes_the_record_invalid() -> None:
    record = _record("give_and_take", 2)
    move = _first_move(record, "declare_ace")
    move["action"]["value"] = float(move["action"]["value"])
    with pytest.raises(RecordError) as caught:
        import_record(record)
    assert caught.value.field == "value"
    assert caught.value.reason.endswith(f"an ace counts 1 or 14, not {move['action']['value']}")


@pytest.mark.parametrize("card", ["missing", None])
def test_an_old_maid_draw_without_its_card_makes_the_record_invalid(card: object) -> None:
    # A seat asks for a draw by position alone; the record states the card drawn
    # (RECORD.md), and one without it was replayed as if it did (found by trying).
    record = _record("old_maid", 3)
    move = _first_move(record, "draw")
    index = record["moves"].index(move)
    if card == "missing":
        del move["action"]["card"]
    else:
        move["action"]["card"] = card
    with pytest.raises(RecordError) as caught:
        import_record(record)
    assert caught.value.index == index and caught.value.field == "card"
    assert str(caught.value) == (
        f'move {index}: a "draw" move records "index", "card": this one has no "card"'
    )


@pytest.mark.parametrize(
    "shuffle",
    [
        None,
        {"commitment": COMMITMENT},
        {"commitment": COMMITMENT.upper(), "seed": "00ff" * 16, "algorithm": ALGORITHM},
        {"commitment": COMMITMENT, "seed": None},
        {
            "commitment": COMMITMENT,
            "seed": "01",
            "algorithm": ALGORITHM_WITH_CLIENTS,
            "client_seeds": ["", "x", "", ""],
            "nonce": 2,
        },
    ],
)
def test_a_shuffle_of_the_right_types_is_taken(shuffle: object) -> None:
    # Whether the seed holds is the fairness check's (the API's verify); its shape is here.
    record = _record("bhabhi", 4, seed=5)
    record["shuffle"] = shuffle
    assert import_record(record)[0]["type"] == "dealt"


def test_a_refusal_quotes_what_was_sent_as_json_not_as_python() -> None:
    record = _record("give_away", 4)
    cases = [
        (lambda r: r.update(game="poker"), 'unknown game "poker"; known: "bhabhi", '),
        (lambda r: r.update(extra=None), 'unknown key(s) "extra"'),
        (lambda r: r.update(options={"jokers": 2}), 'takes no options, got ["jokers"]'),
        (lambda r: r["deck"].__setitem__(0, 5), 'a card is a code such as "TS" or "10S", not 5'),
        (lambda r: r["deck"].__setitem__(0, "1H"), '"1H" is not a card'),
        (lambda r: r["deck"].__setitem__(0, r["deck"][1]), f'(missing ["{record["deck"][0]}"],'),
        (lambda r: r.update(players=["Ann", "Bo", "Cy", None]), "players is text, not null"),
        (lambda r: r.update(shuffle="x"), 'shuffle must be an object, not "x"'),
    ]
    for change, words in cases:
        bad = copy.deepcopy(record)
        change(bad)
        with pytest.raises(RecordError) as caught:
            import_record(bad)
        assert words in caught.value.reason, caught.value.reason
        assert "'" not in caught.value.reason and "None" not in caught.value.reason


def test_the_registry_quotes_an_unknown_game_as_json() -> None:
    with pytest.raises(KeyError) as caught:
        get_game("poker")
    assert caught.value.args[0].startswith('unknown game "poker"; known: "bhabhi", ')
