"""The registry of games by engine id.

A game module registers its one instance on import (``GAME = register(MyGame())``
at its end).  The modules of :mod:`engine.games` are found and imported the first
time the registry is read, so a new module there is all a built-in game needs; a
game defined elsewhere (a test's toy game, a plug-in) is added with
:func:`register` and taken away again with :func:`unregister`.
"""

from __future__ import annotations

import importlib
import pkgutil
from typing import Any

from engine.contract import Game, said

GAMES: dict[str, Game[Any]] = {}

_loaded = False


def register(game: Game[Any]) -> Game[Any]:
    """Add ``game`` to the registry under its id; ``ValueError`` if another game has the id."""
    known = GAMES.get(game.id)
    if known is not None and type(known) is not type(game):
        raise ValueError(f"the game id {game.id!r} is taken by {type(known).__name__}")
    GAMES[game.id] = game
    return game


def unregister(game_id: str) -> None:
    """Take the game ``game_id`` out of the registry (a test's toy game, once played)."""
    GAMES.pop(game_id, None)


def get_game(game_id: str) -> Game[Any]:
    """The game registered as ``game_id``; ``KeyError`` with the known ids if none is."""
    _load()
    try:
        return GAMES[game_id]
    except KeyError:
        known = ", ".join(map(said, sorted(GAMES)))
        raise KeyError(f"unknown game {said(game_id)}; known: {known}") from None


def all_games() -> list[Game[Any]]:
    """Every registered game, by id."""
    _load()
    return [GAMES[k] for k in sorted(GAMES)]


def game_ids() -> list[str]:
    """The ids of every registered game, sorted: the one list of games (forms, API choices)."""
    return [g.id for g in all_games()]


def _load() -> None:
    # The game modules register themselves on import; importing them here
    # (not at module top) keeps engine.contract free of import cycles.  A flag,
    # not "is GAMES empty": a game registered from outside first must not stop
    # the built-in ones from loading.
    global _loaded
    if _loaded:
        return
    _loaded = True
    import engine.games

    for module in pkgutil.iter_modules(engine.games.__path__):
        importlib.import_module(f"engine.games.{module.name}")
