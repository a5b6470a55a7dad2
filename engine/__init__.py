"""Parlour's game engine: pure Python, no Django.

Each game is a *decider* (see :mod:`engine.contract`): the deal as events,
``decide(state, seat, action) -> events``, ``evolve(state, event) -> state``,
legal actions, the view of one seat, the outcome.  Folding the same events
always gives the same state; every shuffle and blind draw is decided outside
the fold and recorded in an event.
"""

from engine.contract import Action, Event, Game, IllegalAction, Outcome, View
from engine.registry import GAMES, all_games, get_game

__all__ = [
    "GAMES",
    "Action",
    "all_games",
    "Event",
    "Game",
    "IllegalAction",
    "Outcome",
    "View",
    "get_game",
]
