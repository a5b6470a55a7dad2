"""What a game's creator put in ``Game.context``, read once and typed.

A tournament deals each game with ``{"tournament", "round", "table", "game_number",
"seats": [{"player", "name", "bot"}, ...]}``; a standalone game has no context or
any JSON its creator chose.  :meth:`GameContext.parse` is the one reader: every
value is checked for its type and anything else reads as missing, so no caller
indexes the JSON by hand.

The table a game is played at has one source of truth, the ``Game.table`` foreign
key (projected from the deal); the context's ``table`` is read only for a row
that has no foreign key (:func:`table_id_of`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from tournaments.models import Game


def _id(value: Any) -> int | None:
    """``value`` if it is a whole number (a row id, a number), else ``None``."""
    return value if isinstance(value, int) and not isinstance(value, bool) else None


@dataclass(frozen=True)
class ContextSeat:
    """One seat as the tournament dealt it: its player's id, name and bot level."""

    player: int | None = None
    name: str = ""
    bot: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return {"player": self.player, "name": self.name, "bot": self.bot}


@dataclass(frozen=True)
class GameContext:
    """A game's context, typed; every field ``None`` (or empty) when the context lacks it."""

    tournament: int | None = None
    round: int | None = None
    table: int | None = None
    game_number: int | None = None
    #: One entry per seat the context names (``ContextSeat()`` for an entry that is
    #: not an object); empty for a game outside a tournament.
    seats: tuple[ContextSeat, ...] = ()

    @classmethod
    def parse(cls, context: Any) -> GameContext:
        if not isinstance(context, Mapping):
            return cls()
        entries = context.get("seats")
        seats: tuple[ContextSeat, ...] = ()
        if isinstance(entries, list):
            seats = tuple(
                ContextSeat(
                    player=_id(entry.get("player")),
                    name=str(entry.get("name") or ""),
                    bot=entry.get("bot") or None,
                )
                if isinstance(entry, Mapping)
                else ContextSeat()
                for entry in entries
            )
        return cls(
            tournament=_id(context.get("tournament")),
            round=_id(context.get("round")),
            table=_id(context.get("table")),
            game_number=_id(context.get("game_number")),
            seats=seats,
        )

    @classmethod
    def of(cls, game: Game) -> GameContext:
        """``game``'s context, parsed once for the row: a move's command, its answer and
        its handlers each ask for it (issue 24: parsing it five times took 4 % of a move's
        CPU).  Kept on the row with the very object it was parsed from, so a row given
        another context is parsed again; a context is never changed in place."""
        kept: tuple[Any, GameContext] | None = game.__dict__.get(_PARSED)
        if kept is not None and kept[0] is game.context:
            return kept[1]
        parsed = cls.parse(game.context)
        game.__dict__[_PARSED] = (game.context, parsed)
        return parsed

    def seat_player_ids(self) -> list[int | None]:
        """The player id of each seat (``None`` where unknown)."""
        return [seat.player for seat in self.seats]

    def seat(self, number: int) -> ContextSeat:
        """Seat ``number``'s entry (an empty one past the context's seats)."""
        return self.seats[number] if 0 <= number < len(self.seats) else ContextSeat()

    def bots(self) -> dict[int, str]:
        """The seats the tournament dealt to bots, with their levels."""
        return {n: str(seat.bot) for n, seat in enumerate(self.seats) if seat.bot}


#: Where :meth:`GameContext.of` keeps a row's parsed context.
_PARSED = "_parlour_context"


def table_id_of(game: Game) -> int | None:
    """The tournament table ``game`` is played at: its ``table`` or, failing that (a row
    without the foreign key), its context's."""
    if game.table_id is not None:
        return int(game.table_id)
    return GameContext.of(game).table
