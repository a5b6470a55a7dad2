"""Request rates (``tournaments/api/throttling.py``): fixed-window counts, one Redis round trip.

The throttle's clock is pinned (:func:`clock`), so that no test meets a window
boundary by chance.  Each test counts in a cache of its own: a fresh local-memory
cache, or, for the ``redis`` ones, the real Redis under a key prefix of its own
(database 12, never flushed: the counters expire with their window).
"""

from __future__ import annotations

import logging
import math
import os
import uuid
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlparse, urlunparse

import pytest
import redis
from django.core.cache import caches
from django.test import Client
from redis.connection import AbstractConnection
from rest_framework.throttling import SimpleRateThrottle

from tests.api.conftest import Api
from tests.factories import ClubWorld, tournament_game
from tournaments.api import throttling
from tournaments.api.authentication import create_token
from tournaments.api.throttling import RateLimits, parse_rate

pytestmark = pytest.mark.django_db

#: 15 s into a minute (and into an hour, a day): the tests' "now".
START = 60.0 * 1_000_000 + 15
CLUBS = "/api/v1/clubs"  # answers anyone: anonymous and authenticated requests alike
#: A Redis database no other test or benchmark uses (they use 0, 6-11, 13, 14).
REDIS_DB = 12


@dataclass
class Clock:
    """The throttle's time, moved by the test."""

    now: float = START


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    pinned = Clock()
    monkeypatch.setattr(RateLimits, "timer", lambda self: pinned.now)
    return pinned


def redis_location() -> str:
    """The Redis of ``REDIS_URL`` (or the local one), database :data:`REDIS_DB`."""
    parts = urlparse(os.environ.get("REDIS_URL") or "redis://127.0.0.1:6379/0")
    return urlunparse(parts._replace(path=f"/{REDIS_DB}"))


def use_cache(settings: Any, backend: str) -> None:
    """Count in a cache of this test's own."""
    if backend == "redis":
        config = {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": redis_location(),
            "KEY_PREFIX": f"throttle-test-{uuid.uuid4().hex}",
        }
    else:
        config = {
            "BACKEND": "django.core.cache.backends.locmem.LocMemCache",
            "LOCATION": f"throttle-test-{uuid.uuid4().hex}",
        }
    settings.CACHES = {"default": config}


@pytest.fixture(params=["locmem", pytest.param("redis", marks=pytest.mark.redis)])
def backend(request: pytest.FixtureRequest, settings: Any) -> str:
    """Each cache backend: Redis (one pipeline) and any other (add + incr)."""
    use_cache(settings, request.param)
    return str(request.param)


@pytest.fixture
def locmem(settings: Any) -> None:
    use_cache(settings, "locmem")


def set_rates(settings: Any, **rates: str | None) -> None:
    """These rates, and 100000/min for the scopes not named."""
    rest = dict(settings.REST_FRAMEWORK)
    rest["DEFAULT_THROTTLE_RATES"] = {
        "address": "100000/min",
        "anon": "100000/min",
        "token": "100000/min",
        **rates,
    }
    settings.REST_FRAMEWORK = rest


def statuses(api: Api, times: int, **kwargs: Any) -> list[int]:
    return [api.get(CLUBS, **kwargs)[0] for _ in range(times)]


def test_the_request_over_a_rate_is_a_429_problem_with_retry_after(
    backend: str, clock: Clock, settings: Any, api: Api
) -> None:
    set_rates(settings, anon="3/min")
    assert statuses(api, 3) == [200, 200, 200]
    response = api.client.get(CLUBS)
    assert response.status_code == 429
    assert response["Content-Type"] == "application/problem+json"
    body = response.json()
    assert body["type"] == "/api/v1/problems/throttled"
    assert body["title"] == "Too many requests"
    assert body["status"] == 429
    # Which limit, and when it resets (issue 22: it used to say only "try again in 45 s").
    assert 'the anonymous per-address limit "anon" of 3 requests per minute' in body["detail"]
    assert "resets in 45 s" in body["detail"] and body["limit"] == "anon"
    # The rest of the minute: 15 s of it are gone.
    assert response["Retry-After"] == "45" and body["retry_after"] == 45
    assert response["RateLimit"] == '"address";r=99996;t=45, "anon";r=0;t=45'


def test_retry_after_is_the_rest_of_the_window_of_the_limit_exceeded(
    locmem: None, clock: Clock, settings: Any, world: ClubWorld, api: Api
) -> None:
    set_rates(settings, address="3/min", token="2/hour")
    token = world.tokens["alice"]
    assert statuses(api, 2, token=token) == [200, 200]
    response = api.client.get(CLUBS, headers={"Authorization": f"Bearer {token}"})
    rest_of_hour = math.ceil(3600 - START % 3600)
    assert response.status_code == 429 and response["Retry-After"] == str(rest_of_hour)
    # Over both rates: a retry passes once both windows are over, the longer one.
    response = api.client.get(CLUBS, headers={"Authorization": f"Bearer {token}"})
    assert response.status_code == 429 and response["Retry-After"] == str(rest_of_hour)
    clock.now += 45  # a new minute: the address counts from zero, the token's hour goes on
    response = api.client.get(CLUBS, headers={"Authorization": f"Bearer {token}"})
    assert response["Retry-After"] == str(rest_of_hour - 45)


def test_every_answer_says_each_limits_quota_and_what_is_left_of_it(
    backend: str, clock: Clock, settings: Any, world: ClubWorld, api: Api
) -> None:
    """IETF RateLimit-Policy / RateLimit headers (structured fields): q quota, w window,
    r remaining, t seconds until the window resets."""
    set_rates(settings, address="10/min", anon="5/min", token="2/hour")
    response = api.client.get(CLUBS)
    assert response["RateLimit-Policy"] == '"address";q=10;w=60, "anon";q=5;w=60'
    assert response["RateLimit"] == '"address";r=9;t=45, "anon";r=4;t=45'
    token = world.tokens["alice"]
    response = api.client.get(CLUBS, headers={"Authorization": f"Bearer {token}"})
    rest_of_hour = math.ceil(3600 - START % 3600)
    assert response["RateLimit-Policy"] == '"address";q=10;w=60, "token";q=2;w=3600'
    assert response["RateLimit"] == f'"address";r=8;t=45, "token";r=1;t={rest_of_hour}'
    # A refusal, a problem and an answer no view gave carry them too.
    api.client.get(CLUBS, headers={"Authorization": f"Bearer {token}"})
    refused = api.client.get(CLUBS, headers={"Authorization": f"Bearer {token}"})
    assert refused.status_code == 429 and refused.json()["limit"] == "token"
    assert refused["RateLimit"] == f'"address";r=6;t=45, "token";r=0;t={rest_of_hour}'
    assert "resets in " + str(rest_of_hour) + " s" in refused.json()["detail"]
    unknown = api.client.get("/api/v1/nowhere")  # read, not counted: still 6 left
    assert unknown.status_code == 404
    assert unknown["RateLimit"] == '"address";r=6;t=45, "anon";r=4;t=45'
    # A record view's own limit is listed with the others.
    set_rates(settings, records="30/min")
    verified = api.client.post("/api/v1/records/verify", {}, content_type="application/json")
    assert '"records";q=30;w=60' in verified["RateLimit-Policy"]


def test_a_token_is_counted_per_token_not_per_user(
    backend: str, clock: Clock, settings: Any, world: ClubWorld, api: Api
) -> None:
    set_rates(settings, token="3/min")
    first = world.tokens["alice"]
    second = create_token(world.users["alice"], "another script")[1]
    assert statuses(api, 4, token=first) == [200, 200, 200, 429]
    assert statuses(api, 4, token=second) == [200, 200, 200, 429]
    assert statuses(api, 1, token=world.tokens["bob"]) == [200]


def test_a_browser_session_is_counted_per_user(
    locmem: None, clock: Clock, settings: Any, world: ClubWorld
) -> None:
    set_rates(settings, token="3/min")
    tab, other_tab, bob = Client(), Client(), Client()
    tab.force_login(world.users["alice"])
    other_tab.force_login(world.users["alice"])
    bob.force_login(world.users["bob"])
    assert [tab.get(CLUBS).status_code for _ in range(2)] == [200, 200]
    assert [other_tab.get(CLUBS).status_code for _ in range(2)] == [200, 429]
    assert bob.get(CLUBS).status_code == 200


def test_anonymous_requests_are_counted_per_address(
    backend: str, clock: Clock, settings: Any
) -> None:
    set_rates(settings, anon="2/min")
    here, there = Client(REMOTE_ADDR="10.0.0.1"), Client(REMOTE_ADDR="10.0.0.2")
    assert [here.get(CLUBS).status_code for _ in range(3)] == [200, 200, 429]
    assert [there.get(CLUBS).status_code for _ in range(3)] == [200, 200, 429]


def test_a_forged_forwarded_for_header_does_not_escape_the_address_limit(
    locmem: None, clock: Clock, settings: Any
) -> None:
    # With no proxy configured (PARLOUR_NUM_PROXIES=0) the address is the peer's own.
    set_rates(settings, anon="2/min")
    client = Client(REMOTE_ADDR="10.0.0.3")
    answers = [client.get(CLUBS, HTTP_X_FORWARDED_FOR=f"192.0.2.{n}").status_code for n in range(3)]
    assert answers == [200, 200, 429]


def test_an_authenticated_request_is_not_counted_as_anonymous(
    locmem: None, clock: Clock, settings: Any, world: ClubWorld, api: Api
) -> None:
    set_rates(settings, anon="1/min")
    assert statuses(api, 3, token=world.tokens["alice"]) == [200, 200, 200]
    assert statuses(api, 2) == [200, 429]


def test_every_request_counts_against_its_address(
    locmem: None, clock: Clock, settings: Any, world: ClubWorld, api: Api
) -> None:
    set_rates(settings, address="3/min")
    assert statuses(api, 1) == [200]
    assert statuses(api, 1, token=world.tokens["alice"]) == [200]
    assert statuses(api, 2, token=world.tokens["bob"]) == [200, 429]
    elsewhere = Client(REMOTE_ADDR="10.0.0.9")
    assert elsewhere.get(CLUBS).status_code == 200


def test_counts_of_different_windows_do_not_add_up(
    backend: str, clock: Clock, settings: Any, api: Api
) -> None:
    set_rates(settings, anon="3/min")
    assert statuses(api, 4) == [200, 200, 200, 429]
    clock.now += 60  # the next minute
    assert statuses(api, 4) == [200, 200, 200, 429]
    clock.now += 44  # the last second of that minute: still refused
    assert statuses(api, 1) == [429]


def test_a_window_boundary_lets_through_up_to_twice_a_rate(
    locmem: None, clock: Clock, settings: Any, api: Api
) -> None:
    # The documented price of fixed windows: a rate at the end of one window,
    # and another at the start of the next, two seconds apart.
    set_rates(settings, anon="3/min")
    clock.now = START - 15 + 59
    assert statuses(api, 3) == [200, 200, 200]
    clock.now += 2
    assert statuses(api, 4) == [200, 200, 200, 429]


def test_a_rate_of_none_is_no_limit(locmem: None, clock: Clock, settings: Any, api: Api) -> None:
    set_rates(settings, address=None, anon=None)
    assert statuses(api, 5) == [200] * 5
    set_rates(settings, address=None, anon="1/min")
    assert statuses(api, 2) == [200, 429]


@pytest.mark.redis
def test_on_redis_a_request_costs_one_round_trip(
    clock: Clock, settings: Any, world: ClubWorld, api: Api, monkeypatch: pytest.MonkeyPatch
) -> None:
    use_cache(settings, "redis")
    set_rates(settings, address="100/min", anon="50/min", token="10/min")
    token, key = create_token(world.users["alice"], "round trips")
    sent = []
    send = AbstractConnection.send_packed_command

    def counted(self: AbstractConnection, command: Any, check_health: bool = True) -> None:
        sent.append(command)
        send(self, command, check_health)

    assert statuses(api, 1) == [200]  # connects (the handshake is not a request's cost)
    monkeypatch.setattr(AbstractConnection, "send_packed_command", counted)
    assert statuses(api, 1) == [200]  # anonymous: the address and anon counts
    assert len(sent) == 1
    assert statuses(api, 1, token=key) == [200]  # the address and token counts
    assert len(sent) == 2
    monkeypatch.setattr(AbstractConnection, "send_packed_command", send)  # the clock stays

    # The counters are plain integers of the cache, and expire with their window.
    cache = caches["default"]
    window = int(START // 60)
    server = redis.Redis.from_url(redis_location())
    for counter, expected in [
        (f"throttle:address:127.0.0.1:{window}", 3),
        (f"throttle:anon:127.0.0.1:{window}", 2),
        (f"throttle:token:t{token.pk}:{window}", 1),
    ]:
        assert cache.get(counter) == expected
        assert 0 < server.ttl(cache.make_key(counter)) <= 60

    # A server that lost the counting script (restarted, SCRIPT FLUSH) is sent it again,
    # and the request is counted once.
    monkeypatch.setattr(throttling._COUNT, "sha", "0" * 40)
    assert statuses(api, 1) == [200]
    assert cache.get(f"throttle:address:127.0.0.1:{window}") == 4
    assert throttling._COUNT.sha != "0" * 40


#: A Redis cache where nothing listens (port 9 is "discard", closed here).
DOWN = {
    "default": {
        "BACKEND": "django.core.cache.backends.redis.RedisCache",
        "LOCATION": "redis://127.0.0.1:9/0",
        "OPTIONS": {"socket_connect_timeout": 0.2, "socket_timeout": 0.2},
    }
}


def test_while_the_cache_is_down_requests_are_allowed(
    clock: Clock, settings: Any, world: ClubWorld, api: Api, caplog: pytest.LogCaptureFixture
) -> None:
    settings.CACHES = DOWN
    set_rates(settings, address="1/min", anon="1/min", token="1/min")
    with caplog.at_level(logging.WARNING, logger=throttling.__name__):
        assert statuses(api, 3) == [200, 200, 200]
        assert statuses(api, 3, token=world.tokens["alice"]) == [200, 200, 200]
    assert "the cache does not answer; request allowed" in caplog.text


@pytest.mark.parametrize("rate", ["5/s", "5/sec", "60/min", "60/m", "2/hour", "1/day", "0/min"])
def test_rates_are_read_as_drf_reads_them(rate: str) -> None:
    drf = SimpleRateThrottle.__new__(SimpleRateThrottle)  # parse_rate reads nothing else
    assert parse_rate(rate) == drf.parse_rate(rate)


def test_a_429_is_told_in_russian_when_asked_with_the_same_type_and_limit(
    backend: str, clock: Clock, settings: Any, api: Api
) -> None:
    set_rates(settings, anon="3/min")
    assert statuses(api, 3) == [200, 200, 200]
    body = api.client.get(CLUBS, headers={"Accept-Language": "ru"}).json()
    assert body["type"] == "/api/v1/problems/throttled" and body["limit"] == "anon"
    assert body["title"] == "Слишком много запросов"
    assert 'лимит "anon" (анонимный, на адрес), 3 запроса в минуту, исчерпан' in body["detail"]
    assert "сбросится через 45 с" in body["detail"] and "requests" not in body["detail"]


def test_streams_opened_without_signing_in_are_counted_per_address_and_a_player_s_are_not(
    locmem: None, clock: Clock, settings: Any, world: ClubWorld
) -> None:
    """A spectator's page keeps its streams for minutes; a loop reopening a whole stream
    from its start is stopped (bench/abuse.py attack b), not a signed-in player: every
    stream counts in the address's streams a minute, a tournament's (one read from its
    start sends the whole tournament) also in its one a second."""
    tournament, game = tournament_game(world)
    set_rates(settings, anon_streams="3/min", anon_tournament_streams="1/s")
    whole = f"/api/v1/tournaments/{tournament.pk}/stream?timeout=0.05"
    one_game = f"/api/v1/games/{game.pk}/stream?timeout=0.05"

    def opened(client: Client, path: str, token: str | None = None) -> int:
        if token is None:
            answer = client.get(path)
        else:
            answer = client.get(path, HTTP_AUTHORIZATION=f"Bearer {token}")
        if answer.status_code == 200:
            b"".join(answer.streaming_content)  # type: ignore[attr-defined]
        return int(answer.status_code)

    here, there = Client(REMOTE_ADDR="10.0.0.7"), Client(REMOTE_ADDR="10.0.0.8")
    assert [opened(here, whole) for _ in range(2)] == [200, 429]  # one a second
    assert opened(there, whole) == 200  # per address
    assert opened(here, one_game) == 200  # a game's stream is not held to one a second,
    assert opened(here, one_game) == 429  # but the address's 3 a minute are spent (a
    clock.now += 1  # refusal counts too), however many seconds pass within the minute
    assert opened(here, whole) == 429
    refused = here.get(whole)
    assert refused.json()["limit"] == "anon_streams", refused.json()
    assert here.get(CLUBS).status_code == 200  # other requests of the address go on
    clock.now += 60
    assert opened(here, whole) == 200
    assert [opened(here, whole, world.tokens["alice"]) for _ in range(3)] == [200, 200, 200]
    assert [opened(here, one_game, world.tokens["alice"]) for _ in range(3)] == [200, 200, 200]
