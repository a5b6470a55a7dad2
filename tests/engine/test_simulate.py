"""``manage.py simulate`` plays bot games, writes verifiable records, reports seat results."""

from __future__ import annotations

import json
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from engine.record import import_record


@pytest.mark.parametrize(
    ("game", "seats", "bots"),
    [
        ("give_away", 4, "random"),
        ("old_maid", 3, "heuristic"),
        ("bhabhi", 5, "heuristic,random,random,random,random"),
        ("give_and_take", 2, "heuristic"),
    ],
)
def test_simulate_writes_records_that_import_and_prints_a_seat_summary(
    tmp_path: Path, game: str, seats: int, bots: str
) -> None:
    out = tmp_path / "games.jsonl"
    printed = StringIO()
    call_command(
        "simulate", game, games=12, seats=seats, seed=7, out=str(out), bots=bots, stdout=printed
    )
    lines = out.read_text().splitlines()
    assert len(lines) == 12
    for line in lines:
        record = json.loads(line)
        assert record["game"] == game and record["seats"] == seats
        import_record(record)
    text = printed.getvalue()
    assert "games/s" in text and "moves on average" in text
    assert len([ln for ln in text.splitlines() if ln.strip().endswith("%")]) == seats


def test_the_same_seed_gives_the_same_games(tmp_path: Path) -> None:
    for name in ("a", "b"):
        call_command(
            "simulate",
            "old_maid",
            games=5,
            seats=4,
            seed=11,
            out=str(tmp_path / name),
            stdout=StringIO(),
        )
    assert (tmp_path / "a").read_text() == (tmp_path / "b").read_text()


def test_a_seat_count_outside_the_game_is_refused_with_the_range() -> None:
    with pytest.raises(CommandError, match="3 to 8 players"):
        call_command("simulate", "bhabhi", games=1, seats=2, stdout=StringIO())


def test_an_unknown_game_names_the_known_ones() -> None:
    with pytest.raises(CommandError, match="give_away"):
        call_command("simulate", "chess", stdout=StringIO())
