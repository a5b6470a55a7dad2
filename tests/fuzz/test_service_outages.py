"""While Redis (the cache) is down, the API still answers: no 500 for a missing throttle count.

Found by ``bench/faults/redis_restart.py``: for the two seconds Redis was down,
every API request answered ``500 server-error`` (139 of them in the run), reads
and actions alike, though none of them needs Redis but for the request-rate
throttles: DRF's ``SimpleRateThrottle.allow_request`` reads its history with
``cache.get``, and the Redis cache backend raised ``redis.ConnectionError``,
which nothing caught.  The throttles (``tournaments/api/throttling.py``) now let
requests through while the cache does not answer.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client, override_settings

from tests.factories import fuzz_table
from tests.fuzz.conftest import call

pytestmark = pytest.mark.django_db

#: A Redis cache where nothing listens (port 9 is "discard", closed here).
DOWN = {
    "default": {
        "BACKEND": "django.core.cache.backends.redis.RedisCache",
        "LOCATION": "redis://127.0.0.1:9/0",
        "OPTIONS": {"socket_connect_timeout": 0.2, "socket_timeout": 0.2},
    }
}


def test_the_game_is_served_while_the_cache_is_down() -> None:
    table = fuzz_table("old_maid")
    with override_settings(CACHES=DOWN):
        response = call(
            Client(), "GET", f"/api/v1/games/{table.game.pk}", token=table.seat_tokens[0]
        )
    assert response.status_code == 200, response.content[:300]


def test_an_action_is_taken_while_the_cache_is_down() -> None:
    table = fuzz_table("old_maid")
    game = table.game
    seat = game.waiting_for[0]
    body: dict[str, Any] = {
        "action": {"type": "draw", "index": 0},
        "expected_sequence": game.sequence,
    }
    with override_settings(CACHES=DOWN):
        response = call(
            Client(),
            "POST",
            f"/api/v1/games/{game.pk}/actions",
            token=table.seat_tokens[seat],
            body=body,
            headers={"Idempotency-Key": "during-the-outage"},
        )
    assert response.status_code == 200, response.content[:300]
    assert table.refresh().sequence > body["expected_sequence"]
