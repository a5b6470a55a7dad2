"""No response or stream shows a caller a card hidden from them while the game runs.

The hidden cards at any moment are the engine's ``hidden(state)``: ``"seat:<n>"``
holds seat n's own cards, every other key cards nobody at the table sees.  A
spectator (anonymous, a club player without a seat, the organiser) may see
none of them; a seat may see its own only.
"""

from __future__ import annotations

import random
import re
from typing import Any

import pytest

from engine.registry import get_game
from events import store
from tests.api.conftest import Api, strings
from tests.api.test_streams import read_sse
from tests.factories import ClubWorld, tournament_game
from tournaments import play as service
from tournaments.models import Game

pytestmark = pytest.mark.django_db

CARD = re.compile(r"(?:[2-9TJQKA][SHDC])")

#: The fields of a move that only its maker may see while the game runs, stated here
#: from the rules (CONVENTIONS.md), not taken from the code under test.
SECRET_FIELDS: dict[str, dict[str, tuple[str, ...]]] = {
    "old_maid": {"draw": ("card",), "arrange": ("order",)},
    "bhabhi": {"draw_discard": ("card",)},
}


def pending_declarations(game: Game) -> set[int]:
    """Sequences of Give & Take ace declarations whose round is not revealed yet."""
    engine = get_game(game.kind)
    state: Any = None
    rounds = []
    for event in store.read_stream(game.stream):
        before = state
        state = engine.evolve(state, event.payload)
        if event.payload.get("action", {}).get("type") == "declare_ace":
            rounds.append((event.sequence, before.round))
    if state.phase != "declare":
        return set()
    return {sequence for sequence, round_ in rounds if round_ == state.round}


def cards_in(value: Any) -> set[str]:
    return {s for s in strings(value) if CARD.fullmatch(s)}


def hidden_from(game: Game, seat: int | None) -> set[str]:
    """The cards ``seat`` (None: a spectator) may not see now."""
    hidden = get_game(game.kind).hidden(service.load_state(game))
    return {c for key, value in hidden.items() if key != f"seat:{seat}" for c in cards_in(value)}


def name_at(world: ClubWorld, game: Game, seat: int) -> str:
    player = game.context["seats"][seat]["player"]
    return next(n for n, p in world.players.items() if p.pk == player)


def spectator_responses(api: Api, world: ClubWorld, game: Game) -> list[Any]:
    """Everything a spectator can fetch about the game and its tournament, as JSON."""
    t = game.context["tournament"]
    paths = [
        f"/api/v1/games/{game.pk}",
        f"/api/v1/games/{game.pk}/events?limit=500",
        "/api/v1/games?limit=500",
        f"/api/v1/games?tournament={t}",
        f"/api/v1/tables/{game.table_id}",
        f"/api/v1/tournaments/{t}",
        f"/api/v1/tournaments/{t}/rounds",
        f"/api/v1/tournaments/{t}/standings",
        f"/api/v1/games/{game.pk}/record",
    ]
    found = []
    for token in (None, world.tokens["dave"], world.tokens["org"]):
        for path in paths:
            found.append(api.get(path, token=token)[1])
    return found


def choose(view: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """A random legal action, rearranging now and then (Old Maid) to exercise redaction."""
    actions = view["legal_actions"]
    moving = [a for a in actions if a["type"] != "arrange"]
    if view["game"] == "old_maid" and rng.random() < 0.15:
        return {"type": "shuffle"}
    return rng.choice(moving or actions)


def test_a_spectator_never_sees_a_hidden_card_of_any_seat_in_old_maid(
    world: ClubWorld, api: Api
) -> None:
    tournament, game = tournament_game(world, "old_maid", ("alice", "bob", "carol"))
    rng = random.Random(11)
    checked = 0
    for step in range(400):
        game.refresh_from_db()
        if game.is_over:
            break
        secret = hidden_from(game, None)
        assert secret, "Old Maid hands are hidden"
        for response in spectator_responses(api, world, game):
            assert not cards_in(response) & secret
        if step % 8 == 0:
            for path in (
                f"/api/v1/games/{game.pk}/stream?timeout=0.05",
                f"/api/v1/tournaments/{tournament.pk}/stream?timeout=0.05",
            ):
                for token in (None, world.tokens["dave"], world.tokens["org"]):
                    assert (
                        not cards_in([f.get("data") for f in read_sse(api, path, token)]) & secret
                    )
        # Each seat sees its own hand and no other's.
        for seat in range(game.seats):
            view = api.get(
                f"/api/v1/games/{game.pk}", token=world.tokens[name_at(world, game, seat)]
            )[1]
            assert not cards_in(view) & hidden_from(game, seat)
        seat = game.waiting_for[0]
        name = name_at(world, game, seat)
        view = api.get(f"/api/v1/games/{game.pk}", token=world.tokens[name])[1]
        status, body, _ = api.post(
            f"/api/v1/games/{game.pk}/actions",
            {"action": choose(view, rng), "expected_sequence": view["sequence"]},
            token=world.tokens[name],
            headers={"Idempotency-Key": f"s{step}"},
        )
        assert status == 200, body
        # The action's answer shows the actor their own view only (all is public at the end).
        if body["view"]["status"] == "running":
            assert not cards_in(body) & hidden_from(game, seat)
        checked += 1
    game.refresh_from_db()
    # Every move of the whole game was made, and checked, here (a deal may be short).
    moves = [e for e in store.read_stream(game.stream) if e.cause_kind == "player"]
    assert game.is_over and checked == len(moves) >= 1
    # After the end everything is public: the deck and every move whole.
    record = api.get(f"/api/v1/games/{game.pk}/record")[1]
    assert len(record["deck"]) == 51


@pytest.mark.parametrize(
    "kind,names",
    [
        ("give_away", ("alice", "bob", "carol")),
        ("bhabhi", ("alice", "bob", "carol", "dave")),
        ("give_and_take", ("alice", "bob")),
    ],
)
def test_views_show_each_caller_only_what_they_may_see_in_every_game(
    world: ClubWorld, api: Api, kind: str, names: tuple[str, ...]
) -> None:
    _, game = tournament_game(world, kind, names)
    rng = random.Random(12)
    hidden_fields = SECRET_FIELDS.get(kind, {})
    for step in range(3000):
        game.refresh_from_db()
        if game.is_over:
            break
        spectator = api.get(f"/api/v1/games/{game.pk}")[1]
        assert not cards_in(spectator) & hidden_from(game, None)
        for seat in range(game.seats):
            token = world.tokens[name_at(world, game, seat)]
            view = api.get(f"/api/v1/games/{game.pk}", token=token)[1]
            assert not cards_in(view) & hidden_from(game, seat)
        if step % 10 == 0:
            shown = api.get(f"/api/v1/games/{game.pk}/events?limit=500")[1]["results"]
            assert "deck" not in shown[0]["payload"]
            pending = pending_declarations(game) if kind == "give_and_take" else set()
            for event in shown[1:]:
                action = event["payload"].get("action", {})
                assert not set(hidden_fields.get(action.get("type"), ())) & set(action)
                if event["sequence"] in pending:
                    assert not {"pile", "value"} & set(action), event
        seat = rng.choice(game.waiting_for or game.to_act)
        token = world.tokens[name_at(world, game, seat)]
        view = api.get(f"/api/v1/games/{game.pk}", token=token)[1]
        status, body, _ = api.post(
            f"/api/v1/games/{game.pk}/actions",
            {"action": choose(view, rng), "expected_sequence": view["sequence"]},
            token=token,
            headers={"Idempotency-Key": f"{kind}-{step}"},
        )
        assert status == 200, body
    game.refresh_from_db()
    assert game.is_over
