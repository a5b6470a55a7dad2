"""API test fixtures: the club of people with logins and tokens (tests/factories.py), an HTTP
helper."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
from django.test import Client

from tests.factories import ClubWorld, club_world

#: Generous rates, so that the suite never meets a throttle it does not test.
HIGH_RATES = {"address": "100000/min", "anon": "100000/min", "token": "100000/min"}


@pytest.fixture
def unthrottled(settings: Any) -> Iterator[None]:
    """No request rates at all, for the tests through ``parlour.asgi``: other tests'
    requests from this address share the (Redis) rate counts."""
    rest = dict(settings.REST_FRAMEWORK)
    rest["DEFAULT_THROTTLE_RATES"] = {"address": None, "anon": None, "token": None}
    settings.REST_FRAMEWORK = rest
    yield


def asgi_headers(token: str | None) -> list[tuple[bytes, bytes]]:
    """A request's or a handshake's headers through ``parlour.asgi``: the test server's host
    and, with ``token``, its bearer."""
    headers = [(b"host", b"testserver")]
    if token:
        headers.append((b"authorization", f"Bearer {token}".encode()))
    return headers


@pytest.fixture(autouse=True)
def _api_settings(settings: Any) -> Iterator[None]:
    """Generous rates, and a fast password hasher (the tests make many logins)."""
    rest = dict(settings.REST_FRAMEWORK)
    rest["DEFAULT_THROTTLE_RATES"] = HIGH_RATES
    settings.REST_FRAMEWORK = rest
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    yield


@dataclass
class Api:
    """A thin JSON client: ``api.get(path, token=...)`` returns (status, body, response)."""

    client: Client = field(default_factory=Client)

    def call(
        self,
        method: str,
        path: str,
        body: Any = None,
        *,
        token: str | None = None,
        headers: dict[str, str] | None = None,
        raw: bytes | str | None = None,
        content_type: str = "application/json",
    ) -> tuple[int, Any, Any]:
        sent = dict(headers or {})
        if token is not None:
            sent["Authorization"] = f"Bearer {token}"
        data: Any = raw if raw is not None else (json.dumps(body) if body is not None else None)
        kwargs: dict[str, Any] = {"headers": sent}
        if data is not None:
            kwargs.update(data=data, content_type=content_type)
        elif method.upper() in ("POST", "PUT", "PATCH"):
            # No body at all, as curl, requests or fetch send none: Django's client would
            # otherwise send an empty multipart form, a body that is not JSON.
            kwargs.update(data=b"", content_type=content_type)
        response = getattr(self.client, method.lower())(path, **kwargs)
        if getattr(response, "streaming", False):
            return response.status_code, None, response
        text = response.content.decode()
        try:
            parsed = json.loads(text) if text else None
        except ValueError:
            parsed = text
        return response.status_code, parsed, response

    def get(self, path: str, **kwargs: Any) -> tuple[int, Any, Any]:
        return self.call("GET", path, **kwargs)

    def post(self, path: str, body: Any = None, **kwargs: Any) -> tuple[int, Any, Any]:
        return self.call("POST", path, body, **kwargs)

    def patch(self, path: str, body: Any = None, **kwargs: Any) -> tuple[int, Any, Any]:
        return self.call("PATCH", path, body, **kwargs)

    def put(self, path: str, body: Any = None, **kwargs: Any) -> tuple[int, Any, Any]:
        return self.call("PUT", path, body, **kwargs)

    def delete(self, path: str, **kwargs: Any) -> tuple[int, Any, Any]:
        return self.call("DELETE", path, **kwargs)


@pytest.fixture
def api() -> Api:
    return Api()


@pytest.fixture
def world(db: Any) -> ClubWorld:
    """The club of :func:`tests.factories.club_world`."""
    return club_world()


def timeless(view: Any) -> Any:
    """A game view without what says when it was made (``server_time``, ``remaining_ms``):
    two views of a game that did not move are equal but for these."""
    if not isinstance(view, dict):
        return view
    kept = {k: v for k, v in view.items() if k != "server_time"}
    if isinstance(kept.get("deadlines"), list):
        kept["deadlines"] = [
            {k: v for k, v in entry.items() if k != "remaining_ms"} for entry in kept["deadlines"]
        ]
    return kept


def strings(value: Any) -> set[str]:
    """Every string anywhere in a JSON value (keys and values)."""
    found: set[str] = set()
    if isinstance(value, str):
        found.add(value)
    elif isinstance(value, dict):
        for key, item in value.items():
            found.add(str(key))
            found |= strings(item)
    elif isinstance(value, list | tuple):
        for item in value:
            found |= strings(item)
    return found
