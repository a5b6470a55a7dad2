"""The portable record: export, import with full validation, errors that point at the move."""

from __future__ import annotations

import copy
import random

import pytest

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
