"""The provably fair shuffle (engine.fairness) and the standalone checker in docs/."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from engine.cards import full_deck, old_maid_deck
from engine.fairness import (
    FairnessError,
    canonical_order,
    check_shuffle,
    commitment,
    derive_deck,
    new_seed,
)

ROOT = Path(__file__).resolve().parents[2]
SEED = bytes(range(32))


def test_the_commitment_is_the_sha256_of_the_seed() -> None:
    assert commitment(SEED) == hashlib.sha256(SEED).hexdigest()
    assert len(commitment(new_seed())) == 64


def test_seeds_are_32_fresh_bytes() -> None:
    seeds = {new_seed() for _ in range(100)}
    assert len(seeds) == 100 and all(len(s) == 32 for s in seeds)


def test_the_deck_is_a_permutation_fixed_by_the_seed() -> None:
    deck = derive_deck(SEED, full_deck())
    assert sorted(deck) == sorted(full_deck())
    assert derive_deck(SEED, full_deck()) == deck
    assert derive_deck(b"another seed", full_deck()) != deck


def test_the_algorithm_gives_the_documented_known_answer() -> None:
    # Pinned: changing the algorithm breaks every published record's check.
    assert derive_deck(SEED, full_deck())[:8] == KNOWN_ANSWER


KNOWN_ANSWER = ["3C", "QH", "2D", "2S", "6S", "JD", "TD", "QS"]


def test_every_order_of_three_cards_is_about_equally_likely() -> None:
    counts = Counter(tuple(derive_deck(i.to_bytes(4, "big"), ["A", "B", "C"])) for i in range(6000))
    assert len(counts) == 6
    assert all(880 < c < 1120 for c in counts.values()), counts


def test_the_canonical_order_is_suits_s_h_d_c_then_ranks_2_to_a() -> None:
    assert canonical_order(list(reversed(full_deck()))) == list(full_deck())
    assert canonical_order(list(old_maid_deck())[::-1]) == list(old_maid_deck())
    with pytest.raises(FairnessError):
        canonical_order(["1X"])


def test_a_genuine_shuffle_checks_out() -> None:
    seed = new_seed()
    deck = derive_deck(seed, old_maid_deck())
    check_shuffle(deck, commitment_hex=commitment(seed), seed=seed.hex())
    check_shuffle(deck, commitment_hex=commitment(seed), seed=seed, cards=old_maid_deck())


def test_a_tampered_deck_fails_the_check() -> None:
    seed = new_seed()
    deck = derive_deck(seed, full_deck())
    deck[3], deck[40] = deck[40], deck[3]
    with pytest.raises(FairnessError, match="position 3"):
        check_shuffle(deck, commitment_hex=commitment(seed), seed=seed.hex())


def test_a_tampered_seed_fails_the_check() -> None:
    seed = new_seed()
    deck = derive_deck(seed, full_deck())
    forged = bytes([seed[0] ^ 1]) + seed[1:]
    with pytest.raises(FairnessError, match="commitment"):
        check_shuffle(deck, commitment_hex=commitment(seed), seed=forged.hex())
    # A forged seed with its own commitment still does not derive the deck.
    with pytest.raises(FairnessError, match="deck"):
        check_shuffle(deck, commitment_hex=commitment(forged), seed=forged.hex())
    with pytest.raises(FairnessError, match="hexadecimal"):
        check_shuffle(deck, commitment_hex=commitment(seed), seed="not hex")


def test_the_standalone_checker_agrees(tmp_path: Path) -> None:
    """docs/fairness_check.py imports nothing from Parlour and reaches the same verdicts."""
    script = ROOT / "docs" / "fairness_check.py"
    source = script.read_text()
    for module in ("engine", "events", "tournaments", "parlour", "django"):
        assert f"from {module}" not in source and f"import {module}" not in source
    seed = new_seed()
    good = {
        "format": "parlour-record/1",
        "game": "old_maid",
        "deck": derive_deck(seed, old_maid_deck()),
        "shuffle": {"commitment": commitment(seed), "seed": seed.hex()},
    }
    bad = json.loads(json.dumps(good))
    bad["deck"][0], bad["deck"][1] = bad["deck"][1], bad["deck"][0]
    path = tmp_path / "records.json"
    path.write_text(json.dumps([good, bad]))
    run = subprocess.run(
        [sys.executable, "-I", str(script), str(path)], capture_output=True, text=True, cwd=tmp_path
    )
    lines = run.stdout.strip().splitlines()
    assert run.returncode == 1, run.stderr
    assert lines[0].startswith("record 1: OK")
    assert lines[1].startswith("record 2: FAILED")
    ok = subprocess.run(
        [sys.executable, "-I", str(script), "--seed", seed.hex(), "--game", "old_maid"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert ok.returncode == 0, ok.stderr
    assert commitment(seed) in ok.stdout
    assert " ".join(good["deck"]) in ok.stdout
