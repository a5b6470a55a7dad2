"""The ASGI entry point runs the middleware in one thread per request, not hopping."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from asgiref.testing import ApplicationCommunicator
from django.conf import settings
from django.utils.module_loading import import_string


def test_under_asgi_every_middleware_is_sync_only_so_a_request_stays_in_one_thread() -> None:
    import parlour.asgi  # noqa: F401 - importing it marks the middleware

    for path in settings.MIDDLEWARE:
        assert import_string(path).async_capable is False, path


@pytest.mark.django_db(transaction=True)
def test_the_asgi_application_still_answers_requests(settings: Any) -> None:
    from parlour.asgi import application

    # Other tests' requests from this address share the (Redis) rate counts.
    rest = dict(settings.REST_FRAMEWORK)
    rest["DEFAULT_THROTTLE_RATES"] = {"address": None, "anon": None, "token": None}
    settings.REST_FRAMEWORK = rest

    async def get(path: str) -> list[dict[str, Any]]:
        scope = {
            "type": "http",
            "asgi": {"version": "3.0"},
            "http_version": "1.1",
            "method": "GET",
            "scheme": "http",
            "path": path,
            "raw_path": path.encode(),
            "query_string": b"",
            "headers": [(b"host", b"testserver")],
            "client": ("127.0.0.1", 5000),
            "server": ("testserver", 80),
        }
        talk = ApplicationCommunicator(application, scope)
        await talk.send_input({"type": "http.request", "body": b"", "more_body": False})
        messages = [await talk.receive_output(10)]
        while messages[-1].get("more_body", False) or messages[-1]["type"] == "http.response.start":
            messages.append(await talk.receive_output(10))
        return messages

    answer = asyncio.run(get("/api/v1/clubs"))
    assert answer[0]["status"] == 200
    assert b'"count"' in b"".join(m.get("body", b"") for m in answer[1:])
