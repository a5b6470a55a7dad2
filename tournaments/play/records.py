"""A finished game as a portable record (RECORD.md)."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext

from engine.record import export_record as _export_record
from engine.registry import get_game
from events import store
from tournaments.models import Game
from tournaments.play.state import GameNotOver, GameNotRevealed, _game
from tournaments.play.views import is_revealed


def export_record(game: Game | int) -> dict[str, Any]:
    """The portable record (RECORD.md) of a finished game, with the revealed seed.

    Raises :class:`GameNotOver` while the game runs, :class:`GameNotRevealed` while
    the twins of a duplicate deal are played: the record holds the deck.
    """
    game = _game(game)
    events = [e.payload for e in store.read_stream(game.stream)]
    engine = get_game(game.kind)
    if not engine.is_over(engine.fold(events)):
        raise GameNotOver(
            gettext("game %(game)s is still running: its record is shown after the end")
            % {"game": game.pk}
        )
    if not is_revealed(game):
        raise GameNotRevealed(
            gettext(
                "game %(game)s was dealt from a duplicate deck that other tables of its round"
                " are still playing: its record is shown when they finish"
            )
            % {"game": game.pk}
        )
    shuffle = events[0].get("shuffle")
    reveal = None
    if shuffle:
        reveal = {"commitment": shuffle["commitment"]}
        if shuffle.get("seed"):
            reveal["seed"] = shuffle["seed"]
        if "client_seeds" in shuffle:
            # What the deck derives from besides the seed (docs/fairness.md).
            reveal |= {
                "algorithm": shuffle["algorithm"],
                "client_seeds": shuffle["client_seeds"],
                "nonce": shuffle["nonce"],
            }
    return _export_record(events, players=list(game.players), shuffle=reveal)
