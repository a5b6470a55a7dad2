"""A replay from one seat's point of view shows nothing that seat could not see, in every game.

A random game of each kind is played to its end through the game service; after every
event what each seat may not see is derived from the engine's full state and the stored
events alone (tests/fuzz/leaks.py's :class:`Secrets`, which never trusts the service's
redaction).  Then, for every seat, every byte of the seat's replay is searched: the board
of each move (``?seat=N&move=M&fragment=1``) for what the seat did not know at that move,
and the whole page (its list of every move as the seat saw it) for what it never saw.
The all-cards replay of the same game does show such cards (so the search looks in the
right place).
"""

from __future__ import annotations

import random
import zlib
from typing import Any

import pytest
from django.test import Client

from tests.factories import FUZZ_SEATS, fuzz_club, fuzz_table
from tests.fuzz.conftest import deterministic
from tests.fuzz.leaks import Checker, Secret, Secrets, Tally, choose
from tournaments.play import game_view, submit_action

pytestmark = pytest.mark.django_db


def _played(kind: str, seats: int) -> tuple[Any, list[dict[int | None, Secret]]]:
    """A finished game of ``kind`` and each seat's secrets after each of its events
    (index 0: after the deal)."""
    rng = random.Random(f"seat-replay-{kind}-{seats}")
    table = fuzz_table(kind, seats, club=fuzz_club(max(4, seats)), rng=rng)
    secrets = Secrets(table)
    after = [secrets.update()]
    game = table.game
    while not game.is_over:
        assert len(after) < 3000, "the game should have ended"
        seat = rng.choice(game.waiting_for or game.to_act)
        view = game_view(game, seat)
        made = game.sequence
        submit_action(game.pk, seat, choose(view, rng), expected_sequence=made)
        game = table.refresh()
        # A move can bring automatic events (a chance move, a consequence): one each.
        after += [secrets.update(until=s) for s in range(made + 1, game.sequence + 1)]
    return secrets, after


@pytest.mark.parametrize("kind", sorted(FUZZ_SEATS))
def test_a_seat_s_replay_shows_nothing_the_seat_could_not_see(kind: str) -> None:
    seats = FUZZ_SEATS[kind]
    with deterministic(zlib.crc32(f"seat-replay-{kind}".encode())):
        secrets, after = _played(kind, seats)
    game = secrets.table.game
    names = list(game.players)
    tally = Tally(games=1)
    checker = Checker(secrets, tally, names)
    client = Client()
    total = game.sequence - 1
    assert len(after) == total + 1
    for seat in range(seats):
        for move in range(total + 1):
            path = f"/games/{game.pk}/replay?seat={seat + 1}&move={move}&fragment=1"
            answer = client.get(path)
            assert answer.status_code == 200, (path, answer.status_code)
            checker.check(path, answer.content.decode(), None, after[move][seat], html=True)
            tally.guarded += bool(after[move][seat])
        # The whole page: the board and every move as the seat saw it, nothing it never saw.
        for move in sorted({0, total // 2, total}):
            path = f"/games/{game.pk}/replay?seat={seat + 1}&move={move}"
            answer = client.get(path)
            assert answer.status_code == 200, (path, answer.status_code)
            checker.check(path, answer.content.decode(), None, after[-1][seat], html=True)
    assert not tally.hits, f"{len(tally.hits)} leaks, the first: {tally.hits[:5]}"
    # Not an empty check: each seat had something hidden from it at some move.
    assert tally.guarded >= seats, tally.guarded
    assert tally.responses == seats * (total + 1 + len({0, total // 2, total}))
    # The all-cards replay shows what a seat's replay hides: the search finds it there.
    shown = Tally()
    everything = Checker(secrets, shown, names)
    for move in range(total + 1):
        if after[move][0].cards:
            answer = client.get(f"/games/{game.pk}/replay?move={move}&fragment=1")
            everything.check("all cards", answer.content.decode(), None, after[move][0], html=True)
    assert shown.hits, "the all-cards replay should show cards hidden from seat 1"


def test_a_replay_for_a_seat_the_game_does_not_have_is_a_readable_400() -> None:
    with deterministic(zlib.crc32(b"seat-replay-bad")):
        secrets, _ = _played("give_away", 2)
    game = secrets.table.game
    for bad in ["0", "3", "-1", "x", "1.5", "9" * 40]:
        answer = Client().get(f"/games/{game.pk}/replay?seat={bad}")
        assert answer.status_code == 400, bad
        assert "choose a seat from 1 to 2" in answer.content.decode(), bad
    assert Client().get(f"/games/{game.pk}/replay?seat=all").status_code == 200
    assert Client().get(f"/games/{game.pk}/replay?seat=2").status_code == 200
