"""A bot written against the client that openapi-python-client generates from the schema.

tests/api/test_live.py generates the client (package ``parlour_client``) from the served
schema, type-checks this file with mypy in strict mode against it, and runs it against a
live server, where it plays its seat of a game to the end: the schema's per-game types are
enough to write a bot that type-checks, with no ``dict`` in sight.

    python generated_bot.py <url> <token> <game id> [seed]

It prints one JSON line: the game, the seat, the moves it made and the result.
"""

from __future__ import annotations

import json
import random
import sys
import uuid

from parlour_client import AuthenticatedClient
from parlour_client.api.games import games_actions_create, games_retrieve
from parlour_client.models import (
    ActionRequest,
    ActionResult,
    BhabhiView,
    GameStatusEnum,
    GiveAndTakeView,
    GiveAwayView,
    OldMaidView,
    Problem,
)

View = BhabhiView | GiveAndTakeView | GiveAwayView | OldMaidView


def view_of(client: AuthenticatedClient, game: int, after: int | None = None) -> View:
    """The game as this seat sees it; with ``after``, once it moved past that sequence."""
    if after is None:
        answer = games_retrieve.sync(game, client=client)
    else:
        answer = games_retrieve.sync(game, client=client, after=after, wait=20)
    if answer is None or isinstance(answer, Problem):
        raise SystemExit(f"GET /games/{game}: {answer}")
    return answer


def cards_held(view: View) -> int:
    """How many cards this seat holds: each game says it in its own typed keys."""
    if isinstance(view, OldMaidView | BhabhiView):
        return len(view.hand) if isinstance(view.hand, list) else 0
    if isinstance(view, GiveAwayView):
        return view.stack_sizes[view.seat] if view.seat is not None else 0
    return view.piles[view.seat].cards if view.seat is not None else 0


def play(url: str, token: str, game: int, seed: int) -> dict[str, object]:
    rng = random.Random(seed)
    moves = conflicts = 0
    with AuthenticatedClient(base_url=url, token=token, raise_on_unexpected_status=True) as client:
        view = view_of(client, game)
        while view.status == GameStatusEnum.RUNNING:
            if view.seat is None or view.seat not in view.waiting_for or not view.legal_actions:
                view = view_of(client, game, after=view.sequence)
                continue
            body = ActionRequest(
                action=rng.choice(view.legal_actions), expected_sequence=view.sequence
            )
            answer = games_actions_create.sync(
                game, client=client, body=body, idempotency_key=str(uuid.uuid4())
            )
            if isinstance(answer, ActionResult):
                moves += 1
                # The result's view is the same union, of the same game.
                view = answer.view
            elif isinstance(answer, Problem) and answer.status == 409:
                conflicts += 1  # someone (a bot, the clock) moved first: look again
                view = view_of(client, game)
            else:
                raise SystemExit(f"POST /games/{game}/actions: {answer}")
        result = view.result
        return {
            "game_id": view.id,
            "game": view.game.value,
            "seat": view.seat,
            "move_count": moves,
            "conflict_count": conflicts,
            "cards_held": cards_held(view),
            "result": None if result is None else result.to_dict(),
        }


if __name__ == "__main__":
    seed = int(sys.argv[4]) if len(sys.argv) > 4 else 0
    print(json.dumps(play(sys.argv[1], sys.argv[2], int(sys.argv[3]), seed)), flush=True)
