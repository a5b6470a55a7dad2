"""Playing whole games without a server: random play and bot tables.

Used by ``manage.py simulate``, the conformance tests and the benchmarks.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from engine.bots import Bot
from engine.contract import Event, Game

#: A game still running after this many moves is a bug, not a long game.
MAX_MOVES = 100_000


class RunawayGame(RuntimeError):
    """A game that did not end within :data:`MAX_MOVES` moves."""


@dataclass
class PlayedGame:
    """A finished game: its events and final state."""

    events: list[Event]
    state: Any


def new_deal(
    game: Game[Any], seats: int, rng: random.Random, dealer: int | None = None
) -> list[Event]:
    """The deal events of a game shuffled by ``rng`` (not secure: for simulations and tests)."""
    deck = list(game.deck)
    rng.shuffle(deck)
    return game.deal(seats, rng.randrange(seats) if dealer is None else dealer, deck)


def play_random(game: Game[Any], deal: Sequence[Event], rng: random.Random) -> PlayedGame:
    """Play the dealt game to its end, every choice uniformly random among legal actions.

    At a chance node the chance outcome is drawn; otherwise a seat that may act
    is drawn and then one of its legal actions.  Optional actions (seats that
    may act but are not waited for) are taken at a low rate so games still end.
    """
    events = list(deal)
    state = game.fold(events)
    for _ in range(MAX_MOVES):
        if game.is_over(state):
            return PlayedGame(events, state)
        new = _random_step(game, state, rng)
        for event in new:
            state = game.evolve(state, event)
        events.extend(new)
    raise RunawayGame(f"{game.id} did not end in {MAX_MOVES} moves")


def _random_step(game: Game[Any], state: Any, rng: random.Random) -> list[Event]:
    chance = game.chance_draw(state, rng)
    if chance is not None:
        seat, outcome = chance
        return game.decide(state, seat, outcome, chance=True)
    waiting = game.waiting_for(state)
    optional = [s for s in game.to_act(state) if s not in waiting]
    seat = rng.choice(optional) if optional and rng.random() < 0.05 else rng.choice(waiting)
    action = rng.choice(game.legal_actions(state, seat))
    request, is_chance = game.resolve(state, seat, action, rng)
    return game.decide(state, seat, request, chance=is_chance)


def play_bots(
    game: Game[Any], deal: Sequence[Event], bots: Sequence[Bot], rng: random.Random
) -> PlayedGame:
    """Play the dealt game to its end with ``bots[seat]`` choosing from each seat's view."""
    events = list(deal)
    state = game.fold(events)
    for _ in range(MAX_MOVES):
        if game.is_over(state):
            return PlayedGame(events, state)
        new = bot_step(game, state, bots, rng)
        for event in new:
            state = game.evolve(state, event)
        events.extend(new)
    raise RunawayGame(f"{game.id} did not end in {MAX_MOVES} moves")


def bot_step(game: Game[Any], state: Any, bots: Sequence[Bot], rng: random.Random) -> list[Event]:
    """The events of the next move at a bot table (a chance outcome, or one bot's action)."""
    chance = game.chance_draw(state, rng)
    if chance is not None:
        seat, outcome = chance
        return game.decide(state, seat, outcome, chance=True)
    waiting = game.waiting_for(state)
    optional = [s for s in game.to_act(state) if s not in waiting]
    rng.shuffle(optional)
    for seat in optional:
        action = bots[seat].choose(game.view(state, seat), rng)
        if action is not None:
            return _bot_events(game, state, seat, action, rng)
    seat = rng.choice(waiting)
    action = bots[seat].choose(game.view(state, seat), rng)
    if action is None:
        raise RuntimeError(f"bot {bots[seat].level} at seat {seat} did not act when it had to")
    return _bot_events(game, state, seat, action, rng)


def _bot_events(
    game: Game[Any], state: Any, seat: int, action: dict[str, Any], rng: random.Random
) -> list[Event]:
    request, is_chance = game.resolve(state, seat, action, rng)
    return game.decide(state, seat, request, chance=is_chance)
