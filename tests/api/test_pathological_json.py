"""Deeply nested or otherwise pathological JSON is a 400 problem, never a crash.

The API's parser and the play page's ``action`` field read JSON through one
function, ``tournaments.api.parsers.load_json``.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.api.conftest import Api
from tests.factories import ClubWorld, tournament_game
from tournaments.api.parsers import MAX_JSON_DEPTH, load_json

pytestmark = pytest.mark.django_db

DEEP = "[" * 100_000
DEEP_OBJECT = '{"a":' * 100_000


def nested(depth: int) -> str:
    return "[" * depth + "]" * depth


@pytest.mark.parametrize(
    "text",
    [DEEP, DEEP + "]" * 100_000, DEEP_OBJECT, nested(MAX_JSON_DEPTH + 1), "1e999", "NaN"],
    ids=["100k-open", "100k-closed", "100k-objects", "one-too-deep", "huge-float", "nan"],
)
def test_load_json_refuses_pathological_json_with_a_reason(text: str) -> None:
    with pytest.raises(ValueError):
        load_json(text)


def test_load_json_takes_nesting_up_to_the_limit() -> None:
    assert load_json(nested(MAX_JSON_DEPTH)) is not None
    assert load_json('{"moves": [{"cards": ["AS", "KD"]}]}') == {"moves": [{"cards": ["AS", "KD"]}]}


def is_bad_request(status: int, body: Any) -> bool:
    return (
        status == 400
        and isinstance(body, dict)
        and body["type"] == "/api/v1/problems/bad-request"
        and "nested deeper" in body["detail"]
    )


@pytest.mark.parametrize("raw", [DEEP, DEEP + "]" * 100_000, DEEP_OBJECT])
def test_deep_json_to_verify_is_a_400_problem(api: Api, settings: Any, raw: str) -> None:
    # Records are smaller than 100,000 nested objects: the nesting is what is refused here.
    settings.PARLOUR_RECORD_MAX_BYTES = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
    status, body, _ = api.post("/api/v1/records/verify", raw=raw)
    assert is_bad_request(status, body), (status, body)


def test_deep_json_to_an_action_is_a_400_problem_and_changes_nothing(
    world: ClubWorld, api: Api
) -> None:
    _, game = tournament_game(world)
    before = game.sequence
    for raw in (DEEP, '{"expected_sequence": 1, "action": ' + DEEP + "}"):
        status, body, _ = api.post(
            f"/api/v1/games/{game.pk}/actions",
            raw=raw,
            token=world.tokens["alice"],
            headers={"Idempotency-Key": "deep"},
        )
        assert is_bad_request(status, body), (status, body)
    game.refresh_from_db()
    assert game.sequence == before
