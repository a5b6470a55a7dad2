"""The registry of games by engine id."""

from __future__ import annotations

from typing import Any

from engine.contract import Game

GAMES: dict[str, Game[Any]] = {}


def register(game: Game[Any]) -> Game[Any]:
    """Add ``game`` to the registry under its id."""
    GAMES[game.id] = game
    return game


def get_game(game_id: str) -> Game[Any]:
    """The game registered as ``game_id``; ``KeyError`` with the known ids if none is."""
    _load()
    try:
        return GAMES[game_id]
    except KeyError:
        raise KeyError(f"unknown game {game_id!r}; known: {', '.join(sorted(GAMES))}") from None


def all_games() -> list[Game[Any]]:
    """Every registered game, by id."""
    _load()
    return [GAMES[k] for k in sorted(GAMES)]


def _load() -> None:
    # The game modules register themselves on import; importing them here
    # (not at module top) keeps engine.contract free of import cycles.
    if not GAMES:
        import engine.games  # noqa: F401
