"""``manage.py rebuild_projections`` and ``manage.py verify FILE``."""

from __future__ import annotations

import io
import json
import random
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command

from engine.cards import full_deck
from tests.service.play import play
from tournaments import play as service
from tournaments.models import Game

pytestmark = pytest.mark.django_db


def run(*args: str) -> tuple[int, list[str]]:
    out = io.StringIO()
    try:
        call_command(*args, stdout=out)
        code = 0
    except SystemExit as exit_:
        code = int(exit_.code or 0)
    return code, out.getvalue().strip().splitlines()


def finished_records(count: int = 3) -> list[dict[str, Any]]:
    rng = random.Random(21)
    kinds = ["give_away", "old_maid", "bhabhi", "give_and_take"]
    return [
        service.export_record(play(service.create_game(kinds[i % 4], 3), rng)) for i in range(count)
    ]


def test_rebuild_projections_restores_every_row_from_events() -> None:
    rng = random.Random(5)
    play(service.create_game("bhabhi", 4, turn_seconds=30), rng)
    play(service.create_game("old_maid", 3, turn_seconds=30), rng, moves=4)
    live = list(Game.objects.order_by("pk").values())
    Game.objects.all().delete()
    code, lines = run("rebuild_projections")
    assert code == 0
    assert lines[0].startswith("rebuilt 2 games (1 over, 1 running)")
    assert list(Game.objects.order_by("pk").values()) == live


def test_verify_passes_good_records_as_json_lines_and_as_an_array(tmp_path: Path) -> None:
    records = finished_records(4)
    given = service.create_game("give_away", 2, deck=list(full_deck()))
    records.append(service.export_record(play(given, random.Random(1))))
    lines_file = tmp_path / "records.jsonl"
    lines_file.write_text("\n".join(json.dumps(r) for r in records) + "\n")
    array_file = tmp_path / "records.json"
    array_file.write_text(json.dumps(records))
    for path in (lines_file, array_file):
        code, lines = run("verify", str(path))
        assert code == 0, lines
        assert len(lines) == 6 and lines[-1] == "5 passed, 0 failed"
        assert all(line.startswith(f"record {n}: OK") for n, line in enumerate(lines[:5], 1))
        assert "shuffle checked" in lines[0] and "given deck" in lines[4]


def test_verify_names_the_bad_move_and_the_bad_shuffle(tmp_path: Path) -> None:
    good, moved, seeded, decked = finished_records(4)
    moved["moves"][2] = {"seat": moved["moves"][2]["seat"], "action": {"type": "cheat"}}
    seeded["shuffle"]["seed"] = "ab" * 32
    # A deck the seed did not derive (the moves were replayed on it, so only the
    # shuffle check can tell).
    decked["shuffle"]["seed"], decked["shuffle"]["commitment"] = (
        good["shuffle"]["seed"],
        good["shuffle"]["commitment"],
    )
    path = tmp_path / "records.json"
    path.write_text(json.dumps([good, moved, seeded, decked, {"format": "nonsense"}]))
    code, lines = run("verify", str(path))
    assert code == 1
    assert lines[0].startswith("record 1: OK")
    assert lines[1].startswith("record 2: FAILED at move 2:")
    assert lines[2].startswith("record 3: FAILED shuffle:") and "commitment" in lines[2]
    assert lines[3].startswith("record 4: FAILED shuffle:") and "deck" in lines[3]
    assert lines[4].startswith("record 5: FAILED at record:")
    assert lines[-1] == "1 passed, 4 failed"


def test_verify_accepts_a_running_games_record_without_a_seed(tmp_path: Path) -> None:
    record = finished_records(1)[0]
    del record["shuffle"]["seed"]
    path = tmp_path / "one.json"
    path.write_text(json.dumps(record))
    code, lines = run("verify", str(path))
    assert code == 0 and "seed not revealed" in lines[0]


def test_verify_says_its_findings_in_the_language_asked(tmp_path: Path) -> None:
    # A review's catch: the command's refusals stayed English under --language ru.
    good, bad = finished_records(2)
    bad = bad | {"moves": bad["moves"][:1] + [{"seat": 99, "type": "x"}] + bad["moves"][1:]}
    (tmp_path / "two.json").write_text(json.dumps([good, bad]))
    code, lines = run("verify", str(tmp_path / "two.json"), "--language", "ru")
    assert code == 1 and "OK (" in lines[0] and "FAILED" in lines[1], lines
    assert any("\u0400" <= ch <= "\u04ff" for ch in lines[0].split("OK", 1)[1]), lines
    assert any("\u0400" <= ch <= "\u04ff" for ch in lines[1].split("FAILED", 1)[1]), lines
