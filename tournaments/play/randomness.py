"""Where the game service and the tournament use cases draw their randomness.

One injectable object, :data:`source`: in service the operating system's secure
generator (seeds of decks, chance moves, a drawn dealer, the seating's and the bots'
generators).  A test that needs a run
it can repeat puts a :class:`Seeded` one there for a block (:func:`using`); callers
always read ``randomness.source`` when they draw, never a copy of it.
"""

from __future__ import annotations

import hashlib
import itertools
import random
import secrets
from collections.abc import Iterator
from contextlib import contextmanager

from engine.fairness import new_seed


class Randomness:
    """The secure source: every draw from the operating system."""

    def generator(self) -> random.Random:
        """A generator for the engine's chance draws and timeout choices."""
        return random.SystemRandom()

    def seeded_generator(self) -> random.Random:
        """A new generator from a secure seed of its own (a round's seating, a bot's
        choices): a plain ``random.Random``, whose draws can be replayed from its state."""
        return random.Random(secrets.randbits(64))

    def new_seed(self) -> bytes:
        """A fresh secret server seed (:func:`engine.fairness.new_seed`)."""
        return new_seed()

    def randbelow(self, n: int) -> int:
        """A number in ``0..n-1`` (a dealer drawn for a standalone game)."""
        return secrets.randbelow(n)


class Seeded(Randomness):
    """Every draw from ``seed``: the same run every time (tests only)."""

    def __init__(self, seed: int) -> None:
        self.seed = seed
        self.rng = random.Random(seed)
        self._counter = itertools.count()

    def generator(self) -> random.Random:
        return self.rng

    def seeded_generator(self) -> random.Random:
        return random.Random(self.rng.getrandbits(64))

    def new_seed(self) -> bytes:
        return hashlib.sha256(f"{self.seed}:{next(self._counter)}".encode()).digest()

    def randbelow(self, n: int) -> int:
        return self.rng.randrange(n)


#: The source every draw comes from.
source: Randomness = Randomness()


@contextmanager
def using(replacement: Randomness) -> Iterator[Randomness]:
    """Draw from ``replacement`` while the block runs."""
    global source
    before, source = source, replacement
    try:
        yield replacement
    finally:
        source = before
