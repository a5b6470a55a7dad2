"""A toy fifth game, Last Card, made of exactly the three parts a game is
(docs/engine.md, "How to add a game"): the engine module (:mod:`.last_card`), the
presenter (:mod:`.presenter`) and the table template
(``templates/games/table_last_card.html``, under this package).

Nothing here is registered on import: :func:`registered` adds the game and its
presenter through the public registries and takes them away again, so the rest of
the suite sees the four games only.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from engine import registry
from tests.toy_game.last_card import GAME

#: The directory holding ``games/table_last_card.html`` (a template dir to add).
TEMPLATES = Path(__file__).parent / "templates"


@contextmanager
def registered() -> Iterator[None]:
    """Last Card and its presenter registered for the duration (templates are the caller's)."""
    from tests.toy_game.presenter import PRESENTER
    from tournaments import presenters

    registry.register(GAME)
    presenters.register(PRESENTER)
    try:
        yield
    finally:
        presenters.unregister(GAME.id)
        registry.unregister(GAME.id)
