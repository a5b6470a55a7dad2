"""Bots: players that decide from their seat's view alone.

The common part is here (the :class:`Bot` protocol, :class:`RandomBot`, which
every game has, and the levels by game); a game's own heuristic is a module of
this package, ``engine/bots/<game>.py``, that calls :func:`register_bot`.  The
modules are imported the first time a bot is asked for.

A bot never sees the state, only ``game.view(state, seat)`` (hidden cards
removed), so it cannot cheat.  ``choose`` returns the action to send, or
``None`` when the seat may act but need not (an optional action such as
Bhabhi's taking of the left hand) and the bot lets the chance go.
"""

from __future__ import annotations

import importlib
import pkgutil
import random
from collections.abc import Callable
from typing import Protocol

from engine.contract import Action, View


class Bot(Protocol):
    """Anything that picks an action from a view."""

    #: The level name stored on a bot player (``"random"``, ``"heuristic"``).
    level: str

    def choose(self, view: View, rng: random.Random) -> Action | None:
        """The action to send for ``view["viewer"]``, or ``None`` to let an optional turn go."""
        ...


class RandomBot:
    """Any legal action, uniformly; an optional action now and then."""

    level = "random"

    def __init__(self, optional_rate: float = 0.05) -> None:
        self.optional_rate = optional_rate

    def choose(self, view: View, rng: random.Random) -> Action | None:
        legal = view["legal_actions"]
        if not legal:
            return None
        if view["viewer"] not in view["waiting_for"] and rng.random() >= self.optional_rate:
            return None
        return dict(rng.choice(legal))


BotFactory = Callable[[], Bot]

#: Bot levels by game id, as registered; every game also has ``random`` (see :func:`_levels`).
BOTS: dict[str, dict[str, BotFactory]] = {}


def register_bot(game_id: str, level: str, factory: BotFactory) -> None:
    """Make ``factory`` the bot of ``level`` for ``game_id``."""
    levels = BOTS.setdefault(game_id, {})
    levels.setdefault("random", RandomBot)
    levels[level] = factory


def make_bot(game_id: str, level: str) -> Bot:
    """A new bot of ``level`` for ``game_id``; ``KeyError`` naming the known levels."""
    from engine.registry import get_game

    get_game(game_id)  # KeyError for an unknown game
    _load()
    levels = _levels(game_id)
    try:
        return levels[level]()
    except KeyError:
        raise KeyError(f"no bot level {level!r} for {game_id}; known: {sorted(levels)}") from None


def bot_levels(game_id: str) -> list[str]:
    """The bot levels of ``game_id``."""
    from engine.registry import get_game

    get_game(game_id)
    _load()
    return sorted(_levels(game_id))


def _levels(game_id: str) -> dict[str, BotFactory]:
    # Every game has the random bot, a game without a heuristic module too.
    return {"random": RandomBot, **BOTS.get(game_id, {})}


_loaded = False


def _load() -> None:
    # The heuristic modules import their game and this module: imported here,
    # when a bot is first asked for, not at the top (that would be a cycle).
    global _loaded
    if _loaded:
        return
    _loaded = True
    for module in pkgutil.iter_modules(__path__):
        importlib.import_module(f"{__name__}.{module.name}")
