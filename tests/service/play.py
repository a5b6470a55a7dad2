"""Playing games through the service in tests: random legal actions of the seats waited for."""

from __future__ import annotations

import random

from engine.registry import get_game
from tournaments import play as service
from tournaments.models import Game


def step(game: Game, rng: random.Random) -> service.ActionResult:
    """One random legal action of a seat the game waits for, through the service."""
    game.refresh_from_db()
    engine = get_game(game.kind)
    state = service.load_state(game)
    seat = rng.choice(game.waiting_for or game.to_act)
    action = rng.choice(engine.legal_actions(state, seat))
    return service.submit_action(game.pk, seat, action, expected_sequence=game.sequence)


def play(game: Game, rng: random.Random | None = None, moves: int | None = None) -> Game:
    """Play ``game`` to its end (or ``moves`` moves) and return it refreshed."""
    rng = rng or random.Random(0)
    made = 0
    while moves is None or made < moves:
        game.refresh_from_db()
        if game.is_over:
            break
        step(game, rng)
        made += 1
    game.refresh_from_db()
    return game
