"""Test-wide fixtures: which real services answer, and what to do when one does not.

Tests that need PostgreSQL, Redis, GNU gettext or nginx are marked ``postgres`` /
``redis`` / ``gettext`` / ``nginx``.  Where a service does not answer (or a program is
missing), a newcomer's
``make test`` skips those tests and says why; under ``CI=true`` that is a failure, never
a skip.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import sys
import zlib
from collections.abc import Iterator
from urllib.parse import urlparse

import hypothesis
import pytest

IN_CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")

# Hypothesis (the fuzzers, schemathesis, the property tests) draws its examples
# from a seed fixed by each test's name, and keeps no database of past failures:
# make test runs the same examples every time.  PARLOUR_FUZZ_RANDOM=1 draws new
# ones (and keeps failures in .hypothesis/), to look further (README, "Tests").
if os.environ.get("PARLOUR_FUZZ_RANDOM", "") not in ("1", "true"):
    hypothesis.settings.register_profile("parlour-fixed", derandomize=True, database=None)
    hypothesis.settings.load_profile("parlour-fixed")


def _answers(url: str, default_port: int) -> bool:
    parts = urlparse(url)
    try:
        with socket.create_connection(
            (parts.hostname or "127.0.0.1", parts.port or default_port), 1
        ):
            return True
    except OSError:
        return False


def postgres_url() -> str:
    from django.conf import settings

    return str(settings.POSTGRES_URL)


def redis_url() -> str:
    return os.environ.get("REDIS_URL") or "redis://127.0.0.1:6379/0"


#: The GNU gettext programs the translation checks run (tests/project/test_translations.py).
GETTEXT_TOOLS = ("msgattrib", "msgfmt", "xgettext")


def nginx_program() -> str:
    from bench.faults.stack import nginx_program

    return nginx_program()


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    needs = {
        "postgres": (
            lambda: _answers(postgres_url(), 5432),
            lambda: f"PostgreSQL does not answer at {postgres_url()}",
        ),
        "redis": (
            lambda: _answers(redis_url(), 6379),
            lambda: f"Redis does not answer at {redis_url()}",
        ),
        "gettext": (
            lambda: all(shutil.which(tool) for tool in GETTEXT_TOOLS),
            lambda: f"GNU gettext ({', '.join(GETTEXT_TOOLS)}) is not installed",
        ),
        "nginx": (
            lambda: bool(nginx_program()),
            lambda: "nginx (compose's proxy, deploy/nginx.conf) is not installed",
        ),
    }
    for marker, (probe, why) in needs.items():
        marked = [item for item in items if item.get_closest_marker(marker)]
        if not marked or probe():
            continue
        reason = why()
        if IN_CI:
            raise pytest.UsageError(
                f"CI=true and {reason}: start or install it (see .ci/run; make test"
                " installs gettext and nginx), tests need it"
            )
        for item in marked:
            item.add_marker(pytest.mark.skip(reason=f"{reason} (start or install it to run it)"))


@pytest.fixture(autouse=True, scope="session")
def _flushable_event_store() -> None:
    """Let Django empty the append-only event table between transactional tests."""
    from events.store import allow_flush_in_tests

    allow_flush_in_tests()


@pytest.fixture(autouse=True)
def _no_login_limits() -> Iterator[None]:
    """No login limits unless a test sets its own: the suite's many logins share one
    address, and the counters of a Redis cache outlive a run (tests/api/test_login_limits.py
    tests the limits in caches of their own).  Not the ``settings`` fixture: some tests
    have a parameter of that name."""
    from django.test import override_settings

    with override_settings(PARLOUR_LOGIN_RATES={"account": None, "address": None}):
        yield


@pytest.fixture(autouse=True)
def _source_language() -> Iterator[None]:
    """Each test starts in the default language.  Django leaves a request's language
    active in its thread after the response (LocaleMiddleware does not undo it), so a test
    that asked for a Russian page would otherwise make the next test's templates and
    words Russian."""
    from django.conf import settings
    from django.utils import translation

    translation.activate(settings.LANGUAGE_CODE)
    yield
    translation.activate(settings.LANGUAGE_CODE)


@pytest.fixture(autouse=True)
def _database_threads_let_go() -> Iterator[None]:
    """The ASGI side's database threads keep their connections from one call to the next
    (tournaments/api/waiting.py): after each test that used them they give them back and
    end, before the test database is emptied or dropped under them."""
    yield
    waiting = sys.modules.get("tournaments.api.waiting")
    if waiting is not None and waiting._threads is not None:
        waiting._threads.stop()


@pytest.fixture(autouse=True)
def _repeatable_draws(request: pytest.FixtureRequest) -> Iterator[None]:
    """Each test draws its deals' seeds, chance moves, dealers and seatings from a seed
    of its own id (issue 16: ``make test`` runs the same every time).

    With the operating system's generator, a test that dealt at random met a rare deal
    on one run in hundreds: a plain make test of 2026-12-07 drew a two-seat Old Maid deal
    that ended within the test's two moves.  The service itself still draws from the
    secure source (tournaments/play/randomness.py); processes a test starts (workers,
    servers) draw from theirs, and the fuzzers put their own seed on top of this one.
    """
    from tournaments.play import randomness

    seed = zlib.crc32(request.node.nodeid.encode())
    with randomness.using(randomness.Seeded(seed)):
        yield


@pytest.fixture(autouse=True)
def _empty_cache() -> None:
    """Each test starts with an empty default cache and no refusal to give again.

    Every in-process request of the suite comes from one address, and the API's
    per-address throttle counts them in calendar minutes: in a full run, an unlucky
    test met the earlier tests' count and a 429 (``/api/v1/docs`` in
    test_content_security_policy, twice).  Live servers keep their keys under a prefix
    of their own (tests/api/live.py) and lose nothing they need."""
    from django.core.cache import caches

    from tournaments.api.handler import refusals

    # The cache backend's own errors: a test of Redis being down says so itself.
    with contextlib.suppress(Exception):
        caches["default"].clear()
    refusals.clear()  # the 429s the ASGI handler gives again for a moment


@pytest.fixture
def on_postgres() -> None:
    """Two threads commit and read at once: that is PostgreSQL's job, not in-memory SQLite's."""
    from django.db import connection

    if connection.vendor != "postgresql":
        reason = "run with DATABASE_URL=postgres://… (CI does): two threads share the database"
        if IN_CI:
            pytest.fail(reason)
        pytest.skip(reason)


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def store_alias(request: pytest.FixtureRequest) -> str:
    """The database alias of each store backend: one store test suite runs on both."""
    from django.conf import settings

    if request.param not in settings.DATABASES:
        pytest.fail("set PARLOUR_TEST_BOTH_BACKENDS=1 (make test does) to test both store backends")
    return str(request.param)
