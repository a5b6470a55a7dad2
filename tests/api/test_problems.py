"""Every error under /api/ is an RFC 9457 problem document, never HTML, never a 5xx by mistake."""

from __future__ import annotations

import io
import random
import re
from typing import Any

import pytest
from django.core.cache import cache
from django.test import Client

from tests.api.conftest import Api
from tests.api.test_games import standalone
from tests.factories import ClubWorld, tournament_game
from tests.service.play import play
from tournaments import play as service
from tournaments.api import views
from tournaments.api.parsers import LimitedJSONParser
from tournaments.api.problems import PayloadTooLarge
from tournaments.api.throttling import RateLimits

pytestmark = pytest.mark.django_db

PROBLEM_KEYS = {"type", "title", "status", "detail", "field"}


def assert_problem(response: Any, status: int, slug: str) -> dict[str, Any]:
    assert response.status_code == status, response.content[:500]
    assert response["Content-Type"] == "application/problem+json"
    body: dict[str, Any] = response.json()
    assert set(body) >= PROBLEM_KEYS, body
    assert body["status"] == status and body["type"] == f"/api/v1/problems/{slug}"
    assert body["instance"] == response.wsgi_request.path
    return body


@pytest.mark.parametrize(
    "path",
    ["/api/v1/nothing", "/api/v2/games", "/api/", "/api", "/api/v1/games/", "/api/v1/games/x"],
)
def test_unknown_urls_under_api_are_404_problems(path: str, settings: Any) -> None:
    for debug in (False, True):
        settings.DEBUG = debug
        for method in ("get", "post", "delete"):
            response = getattr(Client(), method)(path)
            assert_problem(response, 404, "not-found")


def test_pages_outside_the_api_keep_djangos_own_404(settings: Any) -> None:
    settings.DEBUG = False
    response = Client().get("/no-such-page")
    assert response.status_code == 404 and "problem" not in response["Content-Type"]


def test_a_method_a_resource_does_not_take_is_405_with_allow(world: ClubWorld) -> None:
    response = Client().delete("/api/v1/clubs")
    assert_problem(response, 405, "method-not-allowed")
    assert "GET" in response["Allow"]
    assert_problem(Client().put(f"/api/v1/clubs/{world.club.pk}"), 405, "method-not-allowed")


def test_malformed_json_is_a_400_problem(world: ClubWorld, api: Api) -> None:
    _, game = tournament_game(world)
    for raw in ('{"action": ', "[1, 2", '{"x": NaN}', "\xff\xfe"):
        response = api.client.post(
            f"/api/v1/games/{game.pk}/actions",
            raw,
            content_type="application/json",
            headers={"Authorization": f"Bearer {world.tokens['alice']}", "Idempotency-Key": "k"},
        )
        body = assert_problem(response, 400, "bad-request")
        assert "JSON" in body["detail"]


def test_a_body_that_is_not_json_is_a_415_problem(world: ClubWorld) -> None:
    response = Client().post(
        "/api/v1/records/verify", "format=x", content_type="application/x-www-form-urlencoded"
    )
    assert_problem(response, 415, "unsupported-media-type")


def test_asking_for_anything_but_json_is_a_406_problem(world: ClubWorld) -> None:
    response = Client().get("/api/v1/clubs", headers={"Accept": "application/xml"})
    assert_problem(response, 406, "not-acceptable")


def test_an_oversized_body_is_a_413_problem(world: ClubWorld, settings: Any) -> None:
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 2048
    big = '{"moves": "' + "x" * 4096 + '"}'
    for path in ("/api/v1/records/verify", "/api/v1/tokens", "/api/v1/nothing"):
        response = Client().post(path, big, content_type="application/json")
        body = assert_problem(response, 413, "payload-too-large")
        assert "2048" in body["detail"]
    # The parser enforces the limit too, for a body that announced no size.
    with pytest.raises(PayloadTooLarge):
        LimitedJSONParser().parse(io.BytesIO(big.encode()), "application/json", {})


def test_a_crash_is_a_logged_500_problem_not_an_html_page(
    world: ClubWorld, monkeypatch: pytest.MonkeyPatch, settings: Any, caplog: Any
) -> None:
    def boom(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("the test broke this on purpose")

    monkeypatch.setattr(views.ClubListView, "list", boom)
    for debug in (False, True):
        settings.DEBUG = debug
        response = Client(raise_request_exception=False).get("/api/v1/clubs")
        body = assert_problem(response, 500, "server-error")
        assert "on purpose" not in body["detail"]  # no internals leak
    assert "the test broke this on purpose" in caplog.text


def test_a_validation_error_names_every_field(world: ClubWorld, api: Api) -> None:
    status, body, _ = api.post(
        "/api/v1/tournaments",
        {"club": "x", "game": "chess", "rounds": 0},
        token=world.tokens["org"],
    )
    assert status == 400 and body["type"] == "/api/v1/problems/invalid"
    fields = {e["field"] for e in body["errors"]}
    assert {"club", "name", "game", "rounds"} <= fields
    assert body["field"] in fields


def test_too_many_requests_is_a_429_problem_with_retry_after(
    world: ClubWorld, api: Api, settings: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The counts are per fixed window: keep the test inside one.
    monkeypatch.setattr(RateLimits, "timer", lambda self: 15.0)
    cache.clear()
    rest = dict(settings.REST_FRAMEWORK)
    rest["DEFAULT_THROTTLE_RATES"] = {"address": "1000/min", "anon": "3/min", "token": "5/min"}
    settings.REST_FRAMEWORK = rest
    answers = [api.get("/api/v1/clubs")[0] for _ in range(4)]
    assert answers == [200, 200, 200, 429]
    response = api.client.get("/api/v1/clubs")
    body = assert_problem(response, 429, "throttled")
    assert int(response["Retry-After"]) >= 1 and body["retry_after"] >= 1
    # A token has its own count, per token.
    alice = [api.get("/api/v1/me", token=world.tokens["alice"])[0] for _ in range(6)]
    assert alice == [200] * 5 + [429]
    assert api.get("/api/v1/me", token=world.tokens["bob"])[0] == 200
    # Every request counts against its address too.
    rest["DEFAULT_THROTTLE_RATES"] = {"address": "2/min", "anon": "100/min", "token": "100/min"}
    settings.REST_FRAMEWORK = rest
    cache.clear()
    answers = [api.get("/api/v1/me", token=world.tokens["carol"])[0] for _ in range(3)]
    assert answers == [200, 200, 429]
    cache.clear()


def test_problem_types_describe_themselves(api: Api, db: Any) -> None:
    status, listed, _ = api.get("/api/v1/problems")
    assert status == 200 and listed["count"] >= 15
    for kind in listed["results"]:
        status, one, _ = api.get(kind["type"])
        assert status == 200 and one == kind


def test_cors_answers_the_clubs_own_site_only(settings: Any, world: ClubWorld) -> None:
    settings.CORS_ALLOWED_ORIGINS = ["https://club.example"]
    preflight = Client().options(
        "/api/v1/games",
        headers={
            "Origin": "https://club.example",
            "Access-Control-Request-Method": "POST",
            "Access-Control-Request-Headers": "authorization, idempotency-key, content-type",
        },
    )
    assert preflight["Access-Control-Allow-Origin"] == "https://club.example"
    allowed = preflight["Access-Control-Allow-Headers"].lower()
    assert "idempotency-key" in allowed and "authorization" in allowed
    other = Client().get("/api/v1/clubs", headers={"Origin": "https://elsewhere.example"})
    assert other.status_code == 200 and "Access-Control-Allow-Origin" not in other
    same = Client().get("/api/v1/clubs", headers={"Origin": "https://club.example"})
    assert same["Access-Control-Allow-Origin"] == "https://club.example"


def test_the_schema_and_its_docs_page_are_served(api: Api, db: Any) -> None:
    response = api.client.get("/api/v1/schema?format=json")
    assert response.status_code == 200
    schema = response.json()
    assert (
        schema["openapi"].startswith("3.") and "/api/v1/games/{game_id}/actions" in schema["paths"]
    )
    docs = api.client.get("/api/v1/docs")
    assert docs.status_code == 200 and b"swagger" in docs.content.lower()
    root = api.get("/api/v1/")[1]
    assert root["schema"] == "/api/v1/schema" and api.get("/api/v1")[1] == root


#: What Python's repr of a value looks like where JSON was meant.
PYTHON_REPR = re.compile(r"\{'|\['|: '|\bNone\b|\bTrue\b|\bFalse\b")


def test_an_invalid_records_detail_quotes_what_was_sent_as_json_not_python(
    world: ClubWorld, api: Api
) -> None:
    record = service.export_record(play(standalone(world), random.Random(6)))
    cases = [
        (record | {"result": {"winner": 1, "deadlock": True}}, "result"),
        (record | {"format": {"v": None}}, "format"),
        (record | {"seats": "3"}, "seats"),
        (record | {"moves": [{"seat": 0, "action": {"type": "play", "x": [1]}}]}, None),
        (record | {"moves": [{"seat": 0, "action": {"type": {"no": None}}}]}, None),
    ]
    for sent, field in cases:
        status, problem, _ = api.post("/api/v1/records/verify", sent)
        assert status == 422 and problem["type"].endswith("/invalid-record"), problem
        assert field is None or problem["field"] == field
        assert not PYTHON_REPR.search(problem["detail"]), problem["detail"]
    status, problem, _ = api.post("/api/v1/records/verify", cases[0][0])
    assert '{"deadlock": true, "winner": 1}' in problem["detail"]
