"""Verify and import have limits: size (413), moves (422) and a rate (429), anonymous too.

A valid 0.87 MB record of 9,900 moves cost about a second of CPU per anonymous
verify (issue 17); a record is now refused before any move is replayed.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from tests.api.conftest import Api
from tests.api.test_games import standalone
from tests.api.test_throttles import START, Clock, use_cache
from tests.factories import ClubWorld
from tests.service.play import play
from tournaments import play as service
from tournaments.api.throttling import RateLimits
from tournaments.models import Game

pytestmark = pytest.mark.django_db

VERIFY = "/api/v1/records/verify"
IMPORT = "/api/v1/records"


@pytest.fixture
def record(world: ClubWorld) -> dict[str, Any]:
    return service.export_record(play(standalone(world), random.Random(6)))


def test_a_record_with_more_moves_than_the_limit_is_a_422_before_any_replay(
    settings: Any, world: ClubWorld, api: Api, record: dict[str, Any]
) -> None:
    settings.PARLOUR_RECORD_MAX_MOVES = len(record["moves"])
    assert api.post(VERIFY, record)[0] == 200
    longer = record | {"moves": record["moves"] + record["moves"][-1:]}
    for path, token in ((VERIFY, None), (IMPORT, world.tokens["org"])):
        status, problem, _ = api.post(path, longer, token=token)
        assert status == 422 and problem["field"] == "moves", problem
        assert "PARLOUR_RECORD_MAX_MOVES" in problem["detail"]
    assert Game.objects.count() == 1, "nothing imported"


def test_a_record_larger_than_the_limit_is_a_413_problem(
    settings: Any, world: ClubWorld, api: Api, record: dict[str, Any]
) -> None:
    settings.PARLOUR_RECORD_MAX_BYTES = 4096
    padded = record | {"players": ["x" * 5000, "y"]}
    for path, token in ((VERIFY, None), (IMPORT, world.tokens["org"])):
        status, problem, _ = api.post(path, padded, token=token)
        assert status == 413 and problem["type"] == "/api/v1/problems/payload-too-large"
        assert "PARLOUR_RECORD_MAX_BYTES" in problem["detail"]
    assert Game.objects.count() == 1


def test_the_default_limits_refuse_the_issues_ten_thousand_move_record(
    api: Api, record: dict[str, Any]
) -> None:
    moves = (record["moves"] * (10_000 // len(record["moves"]) + 1))[:9_901]
    status, problem, _ = api.post(VERIFY, record | {"moves": moves})
    assert status in (413, 422), problem


def test_verify_is_throttled_per_address_for_anonymous_and_signed_in_callers(
    settings: Any,
    monkeypatch: pytest.MonkeyPatch,
    world: ClubWorld,
    api: Api,
    record: dict[str, Any],
) -> None:
    use_cache(settings, "locmem")
    pinned = Clock(START)
    monkeypatch.setattr(RateLimits, "timer", lambda self: pinned.now)
    rest = dict(settings.REST_FRAMEWORK)
    rest["DEFAULT_THROTTLE_RATES"] = dict(rest["DEFAULT_THROTTLE_RATES"]) | {"records": "3/min"}
    settings.REST_FRAMEWORK = rest
    assert [api.post(VERIFY, record)[0] for _ in range(3)] == [200, 200, 200]
    status, problem, response = api.post(VERIFY, record)
    assert status == 429 and int(response["Retry-After"]) == problem["retry_after"]
    # A token does not escape the address's limit; other endpoints are not affected.
    assert api.post(VERIFY, record, token=world.tokens["alice"])[0] == 429
    assert api.get("/api/v1/clubs")[0] == 200
    pinned.now += 60
    assert api.post(VERIFY, record)[0] == 200
