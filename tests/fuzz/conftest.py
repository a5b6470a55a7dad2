"""Fixtures of the fuzz and hidden-information tests: people with tokens at tournament tables.

Every seat is a person with a login and an API token (no bots, so nothing is queued
for a worker), plus a club player without a seat, the club's organiser and an
anonymous caller.  :func:`snapshot` is what "nothing changed" means: the event
store's rows and every game projection.  The tables themselves come from
:func:`tests.factories.fuzz_table` (and :func:`~tests.factories.fuzz_club`).
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from django.conf import settings as django_settings
from django.db import connection, connections
from django.test import Client

from tests.workers.conftest import default_database
from tournaments.models import Game
from tournaments.play import PROJECTED_FIELDS, randomness

#: Rates no fuzz run can reach, so a 429 never hides another answer.
HIGH_RATES = {"address": "10000000/min", "anon": "10000000/min", "token": "10000000/min"}
PROBLEM = "application/problem+json"

#: The store backends a fuzzer runs on: both under ``PARLOUR_TEST_BOTH_BACKENDS=1``
#: (``make test``), else the default database alone.
BACKENDS = [
    pytest.param(alias, marks=[pytest.mark.postgres] if alias == "postgres" else [])
    for alias in ("sqlite", "postgres")
    if alias in django_settings.DATABASES
] or ["default"]


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest) -> Iterator[str]:
    """Each backend's connection as the ``default`` one while the test runs (the test
    needs ``django_db(databases="__all__")``): the same fuzzer, with the same fixed
    seed, on SQLite and on PostgreSQL.

    The connection answers to the alias ``default`` meanwhile: code that builds a
    row with ``connection.alias`` (the token authentication) must get the alias its
    other rows come from, or Django refuses to relate them."""
    alias = str(request.param)
    with default_database(alias):
        swapped = connections["default"]
        swapped.alias = "default"
        try:
            yield alias
        finally:
            swapped.alias = alias


@pytest.fixture(autouse=True)
def _fuzz_settings(settings: Any) -> Iterator[None]:
    """High throttle rates, a fast password hasher, short streams and long-polls."""
    rest = dict(settings.REST_FRAMEWORK)
    rest["DEFAULT_THROTTLE_RATES"] = HIGH_RATES
    settings.REST_FRAMEWORK = rest
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    settings.PARLOUR_STREAM_POLL_SECONDS = 0.001
    settings.PARLOUR_STREAM_SECONDS = 0.5
    # A generated ?after= beyond the sequence would otherwise wait 25 s for a move.
    settings.PARLOUR_LONG_POLL_SECONDS = 0.05
    yield


@contextmanager
def deterministic(seed: int) -> Iterator[random.Random]:
    """Deals, chance moves and seating drawn from ``seed`` while the block runs.

    The service draws seeds, shuffles and blind draws from the operating system;
    hypothesis needs a run it can repeat, so here they come from ``seed``.
    """
    # The service's one random source (tournaments/play/randomness.py): the deals'
    # seeds, a table's server seeds committed before each deal (docs/fairness.md),
    # chance moves.
    with randomness.using(randomness.Seeded(seed)) as source:
        yield source.generator()


# -- calling the API -----------------------------------------------------------------------------


def call(
    client: Client,
    method: str,
    path: str,
    *,
    token: str | None = None,
    body: Any = None,
    raw: bytes | str | None = None,
    content_type: str = "application/json",
    headers: dict[str, str] | None = None,
) -> Any:
    """One request; ``raw`` is sent as the body as it is, ``body`` as JSON."""
    sent = dict(headers or {})
    if token is not None:
        sent.setdefault("Authorization", f"Bearer {token}")
    kwargs: dict[str, Any] = {"headers": sent}
    data = raw if raw is not None else (None if body is None else json.dumps(body))
    if data is not None:
        kwargs.update(data=data, content_type=content_type)
    return getattr(client, method.lower())(path, **kwargs)


def assert_problem(response: Any, what: str = "") -> dict[str, Any]:
    """``response`` is a 4xx problem document with type, title, status and detail."""
    status = response.status_code
    if getattr(response, "streaming", False):
        text = b"".join(response.streaming_content).decode(errors="replace")
        raise AssertionError(f"{what}: {status} a stream, not a problem: {text[:300]}")
    body = response.content.decode(errors="replace")
    assert 400 <= status < 500, f"{what}: {status} {body[:400]}"
    assert response["Content-Type"].startswith(PROBLEM), f"{what}: {response['Content-Type']}"
    problem = json.loads(body)
    assert isinstance(problem, dict), what
    assert isinstance(problem.get("type"), str) and problem["type"], (what, problem)
    assert isinstance(problem.get("title"), str) and problem["title"], (what, problem)
    assert problem.get("status") == status, (what, problem)
    assert isinstance(problem.get("detail"), str) and problem["detail"], (what, problem)
    return problem


def snapshot() -> tuple[Any, ...]:
    """The event store's rows (count, last id) and every game projection, to compare."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT COUNT(*), COALESCE(MAX(id), 0) FROM events_event")
        events = tuple(cursor.fetchone() or ())
    games = tuple(Game.objects.order_by("id").values_list("id", *PROJECTED_FIELDS))
    return events, games
