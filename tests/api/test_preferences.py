"""A person's preference: whether the server plays their forced moves (GET/PATCH /me)."""

from __future__ import annotations

import pytest

from tests.api.conftest import Api
from tests.factories import ClubWorld
from tournaments.models import Player

pytestmark = pytest.mark.django_db


def test_a_player_turns_forced_moves_off_and_on_for_themselves(world: ClubWorld, api: Api) -> None:
    token = world.tokens["alice"]
    assert api.get("/api/v1/me", token=token)[1]["play_forced_moves"] is True
    status, body, _ = api.patch("/api/v1/me", {"play_forced_moves": False}, token=token)
    assert status == 200 and body == {"play_forced_moves": False}
    assert api.get("/api/v1/me", token=token)[1]["play_forced_moves"] is False
    assert not Player.objects.get(pk=world.players["alice"].pk).play_forced_moves
    assert Player.objects.get(pk=world.players["bob"].pk).play_forced_moves, "only her own"
    assert api.patch("/api/v1/me", {"play_forced_moves": True}, token=token)[1] == {
        "play_forced_moves": True
    }


def test_a_bad_preference_is_refused_and_changes_nothing(world: ClubWorld, api: Api) -> None:
    token = world.tokens["alice"]
    status, problem, _ = api.patch("/api/v1/me", {"play_forced_moves": "sometimes"}, token=token)
    assert status == 400 and "play_forced_moves" in str(problem)
    assert api.patch("/api/v1/me", {"play_forced_moves": False})[0] == 401
    status, problem, _ = api.patch(
        "/api/v1/me", {"play_forced_moves": False}, token=world.tokens["eve"]
    )
    assert status == 422 and problem["field"] == "play_forced_moves"
    assert Player.objects.filter(play_forced_moves=False).count() == 0


@pytest.mark.parametrize(
    ("method", "path", "body"),
    [
        ("patch", "/api/v1/me", {"play_forced_moves": "yes"}),
        ("patch", "/api/v1/me", {"play_forced_moves": 1}),
        ("put", "/api/v1/me/client-seed", {"seed": 123}),
    ],
)
def test_a_preference_or_a_seed_of_the_wrong_json_type_is_refused_and_nothing_changes(
    world: ClubWorld, api: Api, method: str, path: str, body: dict[str, object]
) -> None:
    """docs/api.md: a body's values are taken as the JSON types they are, never turned
    into others ("yes" was taken as true, 123 stored as the seed "123": found by trying)."""
    token = world.tokens["alice"]
    before = (
        api.get(path.replace("/client-seed", ""), token=token)[1],
        api.get("/api/v1/me/client-seed", token=token)[1],
    )
    status, problem, _ = api.call(method.upper(), path, body, token=token)
    assert status == 400 and problem["errors"][0]["field"] in body, problem
    after = (
        api.get(path.replace("/client-seed", ""), token=token)[1],
        api.get("/api/v1/me/client-seed", token=token)[1],
    )
    assert after == before
