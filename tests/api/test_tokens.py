"""Personal tokens: created with a password or a session, shown once, stored hashed, revoked."""

from __future__ import annotations

import base64
import hashlib
from typing import Any

import pytest
from django.middleware.csrf import get_token
from django.test import Client, RequestFactory

from tests.api.conftest import Api
from tests.factories import PASSWORD, ClubWorld
from tournaments.models import ApiToken

pytestmark = pytest.mark.django_db


def basic(username: str, password: str = PASSWORD) -> dict[str, str]:
    raw = base64.b64encode(f"{username}:{password}".encode()).decode()
    return {"Authorization": f"Basic {raw}"}


def test_a_token_is_created_with_a_password_and_its_key_shown_once(
    world: ClubWorld, api: Api
) -> None:
    user = world.users["alice"]
    status, body, response = api.post(
        "/api/v1/tokens", {"name": "laptop"}, headers=basic(user.username)
    )
    assert status == 201
    key = body["key"]
    assert key.startswith("prl_") and len(key) > 40 and body["prefix"] == key[:12]
    assert response["Location"] == f"/api/v1/tokens/{body['id']}"
    stored = ApiToken.objects.get(pk=body["id"])
    assert stored.key_hash == hashlib.sha256(key.encode()).hexdigest()
    assert key not in {stored.prefix, stored.key_hash, stored.name}
    # The key is never shown again.
    listed = api.get("/api/v1/tokens", token=key)[1]
    assert body["id"] in [t["id"] for t in listed["results"]]
    assert all("key" not in t for t in listed["results"])
    assert "key" not in api.get(f"/api/v1/tokens/{body['id']}", token=key)[1]
    # And it authenticates.
    me = api.get("/api/v1/me", token=key)[1]
    assert me["username"] == user.username and me["players"][0]["name"] == "Alice"


def test_a_wrong_password_creates_nothing(world: ClubWorld, api: Api) -> None:
    before = ApiToken.objects.count()
    status, body, response = api.post(
        "/api/v1/tokens", {}, headers=basic(world.users["alice"].username, "wrong")
    )
    assert status == 401 and body["type"] == "/api/v1/problems/unauthenticated"
    assert response["WWW-Authenticate"].startswith("Basic")
    assert ApiToken.objects.count() == before


def test_a_token_cannot_create_tokens(world: ClubWorld, api: Api) -> None:
    before = ApiToken.objects.count()
    status, body, _ = api.post("/api/v1/tokens", {}, token=world.tokens["alice"])
    assert status == 401 and body["status"] == 401
    # It says so, and what to send instead (not "send a Bearer token", which was sent).
    assert body["detail"].startswith("a token cannot create tokens: ")
    assert "HTTP Basic" in body["detail"] and "Bearer" not in body["detail"]
    assert ApiToken.objects.count() == before


def test_creating_a_token_without_credentials_says_what_to_send(api: Api, db: Any) -> None:
    status, body, _ = api.post("/api/v1/tokens", {})
    assert status == 401 and "username and password with HTTP Basic" in body["detail"]
    assert "token cannot" not in body["detail"]


def test_a_browser_session_creates_a_token_with_its_csrf_token(world: ClubWorld) -> None:
    client = Client(enforce_csrf_checks=True)
    client.force_login(world.users["bob"])
    refused = client.post("/api/v1/tokens", {}, content_type="application/json")
    assert refused.status_code == 403 and "CSRF" in refused.json()["detail"]
    # What a page with a form gives a browser: the CSRF cookie and its token.
    page = RequestFactory().get("/")
    csrf = get_token(page)
    client.cookies["csrftoken"] = page.META["CSRF_COOKIE"]
    created = client.post(
        "/api/v1/tokens",
        {"name": "browser"},
        content_type="application/json",
        headers={"X-CSRFToken": csrf},
    )
    assert created.status_code == 201 and created.json()["key"].startswith("prl_")
    assert client.get("/api/v1/me").json()["username"] == world.users["bob"].username


def test_a_revoked_token_no_longer_authenticates(world: ClubWorld, api: Api) -> None:
    key = world.tokens["carol"]
    token = ApiToken.objects.get(key_hash=hashlib.sha256(key.encode()).hexdigest())
    status, _, _ = api.delete(f"/api/v1/tokens/{token.pk}", token=key)
    assert status == 204
    status, body, response = api.get("/api/v1/me", token=key)
    assert status == 401 and "revoked" in body["detail"]
    assert response["WWW-Authenticate"].startswith("Bearer")
    token.refresh_from_db()
    assert token.revoked_at is not None


def test_nobody_sees_or_revokes_another_users_token(world: ClubWorld, api: Api) -> None:
    theirs = ApiToken.objects.filter(user=world.users["alice"]).first()
    assert theirs is not None
    for method in ("get", "delete"):
        status, body, _ = getattr(api, method)(
            f"/api/v1/tokens/{theirs.pk}", token=world.tokens["bob"]
        )
        assert status == 404 and body["type"] == "/api/v1/problems/not-found"
    listed = api.get("/api/v1/tokens", token=world.tokens["bob"])[1]["results"]
    assert {t["id"] for t in listed} == set(
        ApiToken.objects.filter(user=world.users["bob"]).values_list("pk", flat=True)
    )
    theirs.refresh_from_db()
    assert theirs.revoked_at is None


def test_a_bad_authorization_header_is_401_not_a_crash(world: ClubWorld, api: Api) -> None:
    for header in ("Bearer", "Bearer a b", "Bearer nope", "Bearer \u00e9t\u00e9"):
        status, body, _ = api.get("/api/v1/me", headers={"Authorization": header})
        assert status == 401 and body["status"] == 401


def test_me_needs_authentication(world: ClubWorld, api: Api) -> None:
    status, body, _ = api.get("/api/v1/me")
    assert status == 401 and body["type"] == "/api/v1/problems/unauthenticated"
    me = api.get("/api/v1/me", token=world.tokens["org"])[1]
    assert me["organiser_of"] == [world.club.pk] and me["players"] == []


def test_a_tokens_last_use_is_recorded(world: ClubWorld, api: Api) -> None:
    key = world.tokens["dave"]
    token = ApiToken.objects.get(key_hash=hashlib.sha256(key.encode()).hexdigest())
    assert token.last_used_at is None
    api.get("/api/v1/me", token=key)
    token.refresh_from_db()
    assert token.last_used_at is not None
