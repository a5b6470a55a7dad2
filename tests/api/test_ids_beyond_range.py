"""An id beyond the database's integer range in a URL is a 404, on both backends.

``GET /api/v1/games/9583660007041794048`` used to reach the database (SQLite's
driver: ``OverflowError``, a 500); the ``<id:…>`` converter (tournaments/converters.py)
refuses it for every route. Every route with an id is tried here, found from the
URL configuration, so a new route cannot forget it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from django.conf import settings
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver

from tests.workers.conftest import default_database
from tournaments.converters import MAX_ID

BEYOND = "9583660007041794048"
ALIASES = [
    pytest.param(a, marks=pytest.mark.postgres) if a == "postgres" else a
    for a in ("sqlite", "postgres")
    if a in settings.DATABASES
] or ["default"]


def routes_with_ids() -> list[str]:
    """Every URL pattern with an ``<id:…>``, its ids replaced by ``BEYOND``."""
    found: list[str] = []

    def walk(patterns: list[URLPattern | URLResolver], prefix: str) -> Iterator[str]:
        for pattern in patterns:
            route = prefix + str(pattern.pattern)
            if isinstance(pattern, URLResolver):
                yield from walk(pattern.url_patterns, route)
            elif "<id:" in route:
                yield route

    for route in walk(get_resolver().url_patterns, "/"):
        found.append(re.sub(r"<id:\w+>", BEYOND, re.sub(r"<slug:\w+>", "begin", route)))
    return found


ROUTES = routes_with_ids()


def test_every_route_that_names_a_row_uses_the_id_converter() -> None:
    assert "/api/v1/games/" + BEYOND in ROUTES
    assert "/games/" + BEYOND + "/" in ROUTES
    assert len(ROUTES) >= 30
    leftover = []
    for pattern in get_resolver().url_patterns:
        leftover += [p for p in _all(pattern) if "<int:" in p]
    assert leftover == []


def _all(pattern: URLPattern | URLResolver, prefix: str = "") -> list[str]:
    route = prefix + str(pattern.pattern)
    if isinstance(pattern, URLResolver):
        return [r for p in pattern.url_patterns for r in _all(p, route)]
    return [route]


@pytest.mark.django_db(databases="__all__")
@pytest.mark.parametrize("alias", ALIASES)
@pytest.mark.parametrize("method", ["GET", "POST", "DELETE"])
def test_an_id_beyond_the_integer_range_is_a_404_on_every_route(alias: str, method: str) -> None:
    client = Client(raise_request_exception=False)
    with default_database(alias):
        for path in ROUTES:
            response = getattr(client, method.lower())(path)
            assert response.status_code == 404, (alias, method, path, response.content[:300])
            if path.startswith("/api/"):
                assert response["Content-Type"] == "application/problem+json"


@pytest.mark.django_db(databases="__all__")
@pytest.mark.parametrize("alias", ALIASES)
def test_the_largest_id_is_still_looked_up(alias: str) -> None:
    client = Client(raise_request_exception=False)
    with default_database(alias):
        response = client.get(f"/api/v1/games/{MAX_ID}")
    assert response.status_code == 404
    assert response.json()["detail"] != ""
