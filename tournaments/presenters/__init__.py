"""The words and buttons of each game: one presenter per game, found by the game's id.

A presenter (:class:`Presenter`) knows how one game reads to a person, in the request's
language (English source strings, translated with Django's gettext; docs/i18n.md):
its result in one sentence and per seat, the game's own parts of the table (the
middle and each seat), each of its moves in words and each of its actions as a
button.  ``templates/games/table_<game>.html`` draws the table it fills.  The
game-agnostic part (the seats round the table, the cause of a move, the grouping
of buttons) is :mod:`tournaments.templatetags.tables`, which asks
:func:`presenter_for` for the game's presenter.

A presenter registers itself (``register(MyPresenter())`` at the end of its
module).  The presenter of a registered game is looked up, the first time it is
asked for, as the module ``tournaments.presenters.<game id>``; a presenter
defined elsewhere (a test's toy game) is added with :func:`register`.  A game
without one is shown by :class:`Presenter` itself: its moves as their JSON.
"""

from __future__ import annotations

import importlib
import json
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from django.utils.html import format_html
from django.utils.safestring import SafeString
from django.utils.translation import gettext

from engine.registry import game_ids
from tournaments.presenters.common import Table, choice, player_name


class Presenter:
    """How one game reads: the default shows a result and an action as their JSON.

    Subclasses set :attr:`game_id` and override what their game has.  ``players``
    is always the names of the seats, in seat order.
    """

    #: The engine id of the game presented (:attr:`engine.contract.Game.id`).
    game_id: ClassVar[str] = ""

    def result_text(self, result: Mapping[str, Any], players: Sequence[str]) -> str:
        """The finished game's result (the outcome, RECORD.md's shape) in one sentence."""
        return json.dumps(result)

    def seat_results(self, result: Mapping[str, Any], seats: int) -> dict[int, str]:
        """A short result label per seat (``won``, ``lost``, ``1st``…)."""
        return {}

    def fill_table(self, table: Table, view: Mapping[str, Any], me: int | None) -> None:
        """Add the game's own parts to ``table`` (its ``seats`` and the middle) from ``view``.

        ``table`` already holds what every game has (see
        :func:`tournaments.templatetags.tables.present`); ``me`` is the viewer's seat.
        """

    def describe_action(
        self,
        action: Mapping[str, Any],
        who: str,
        players: Sequence[str],
        *,
        chance: bool,
    ) -> SafeString | None:
        """A move of ``who`` in words, or ``None`` for the common wording (``passes``, JSON)."""
        return None

    def action_choice(
        self, action: Mapping[str, Any], view: Mapping[str, Any], players: Sequence[str]
    ) -> dict[str, Any] | None:
        """A legal action as a button (:func:`tournaments.presenters.common.choice`), or
        ``None`` for the common one.  A choice with a ``card`` is drawn as that card."""
        return None

    # -- the story: a move with the table it was made at ---------------------------------

    def describe_move(
        self,
        action: Mapping[str, Any],
        who: str,
        players: Sequence[str],
        *,
        chance: bool,
        before: Mapping[str, Any] | None,
        seat: int | None = None,
    ) -> SafeString | None:
        """A move in words when the viewer's view of the table it was made at (``before``)
        is known: a game names there what the move alone does not say (whose hand, whose
        fan).  ``seat`` is the mover's.  The default is :meth:`describe_action`."""
        return self.describe_action(action, who, players, chance=chance)

    def consequences(
        self,
        payload: Mapping[str, Any],
        before: Mapping[str, Any] | None,
        after: Mapping[str, Any],
        players: Sequence[str],
    ) -> list[SafeString]:
        """What an event did besides the move itself, one whole sentence each: the game's own
        (:meth:`table_consequences`), then each seat that went out, then the end.

        ``before`` and ``after`` are the viewer's views (:func:`tournaments.play.game_story`)
        of the table before and after the event (``before`` is ``None`` for the deal); only
        what they show is told.
        """
        if before is None:
            return []
        said = list(self.table_consequences(payload, before, after, players))
        gone = {s for group in before.get("out") or [] for s in group}
        for group in after.get("out") or []:
            for seat in group:
                if seat not in gone:
                    said.append(self.out_sentence(seat, payload, before, players))
        if before.get("outcome") is None and after.get("outcome") is not None:
            said.extend(self.end_sentences(after["outcome"], before, after, players))
        return said

    def table_consequences(
        self,
        payload: Mapping[str, Any],
        before: Mapping[str, Any],
        after: Mapping[str, Any],
        players: Sequence[str],
    ) -> list[SafeString]:
        """The game's own consequences of an event (a trick picked up…): none by default."""
        return []

    def out_sentence(
        self,
        seat: int,
        payload: Mapping[str, Any],
        before: Mapping[str, Any],
        players: Sequence[str],
    ) -> SafeString:
        """The sentence of ``seat`` going out."""
        return format_html(
            gettext("{who} has no cards left and is out of the game."),
            who=player_name(players, seat),
        )

    def end_sentences(
        self,
        outcome: Mapping[str, Any],
        before: Mapping[str, Any],
        after: Mapping[str, Any],
        players: Sequence[str],
    ) -> list[SafeString]:
        """Why the game ended and its result."""
        return [
            format_html(
                gettext("The game is over: {result}."), result=self.result_text(outcome, players)
            )
        ]


#: The presenters by game id.
PRESENTERS: dict[str, Presenter] = {}

_DEFAULT = Presenter()
_LOOKED_UP: set[str] = set()


def register(presenter: Presenter) -> Presenter:
    """Make ``presenter`` the presenter of its game."""
    if not presenter.game_id:
        raise ValueError(f"{type(presenter).__name__} names no game_id")
    PRESENTERS[presenter.game_id] = presenter
    return presenter


def unregister(game_id: str) -> None:
    """Take the presenter of ``game_id`` out (a test's toy game, once played)."""
    PRESENTERS.pop(game_id, None)


def presenter_for(kind: str) -> Presenter:
    """The presenter of the game ``kind``; the default one for a game that has none."""
    found = PRESENTERS.get(kind)
    if found is None and kind not in _LOOKED_UP and kind in game_ids():
        # Only a registered game's id names a module here, never any stored text;
        # each is looked for once (a game without a module here keeps the default).
        _LOOKED_UP.add(kind)
        try:
            importlib.import_module(f"{__name__}.{kind}")
        except ModuleNotFoundError as error:
            if error.name != f"{__name__}.{kind}":
                raise
        found = PRESENTERS.get(kind)
    return found or _DEFAULT


def pass_text(who: str) -> SafeString:
    """The common wording of a ``pass``, in any game."""
    return format_html(gettext("{who} passes"), who=who)


__all__ = [
    "PRESENTERS",
    "Presenter",
    "Table",
    "choice",
    "pass_text",
    "presenter_for",
    "register",
    "unregister",
]
