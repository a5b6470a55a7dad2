"""Schemathesis stateful mode over the whole API: no 5xx, every 4xx a problem, nothing changed.

The OpenAPI document is the one the API serves (``/api/v1/schema``); schemathesis
builds a state machine from the links between operations it infers (a list of
games feeds a game's id to its view, events, actions, record and stream; a
created tournament's id to its registrations, rounds …) and walks it in-process
through Django's WSGI application, with hypothesis generating every parameter and
body.  The caller is a club organiser who also holds a seat in a running game, so
both the organiser's and a player's operations are reachable.

Each call is checked as it happens: never a server error; every 4xx is an
``application/problem+json`` document with ``type``, ``title``, ``status`` and
``detail``; and after a 4xx the event store and every projection are unchanged.
"""

from __future__ import annotations

import json
import os
import random
from collections.abc import Iterator
from typing import Any

import pytest
import schemathesis
from django.core.signals import request_finished, request_started
from django.core.wsgi import get_wsgi_application
from django.db import close_old_connections
from hypothesis import HealthCheck, settings

from engine.registry import get_game
from tests.factories import fuzz_club, fuzz_table
from tests.fuzz.conftest import PROBLEM, deterministic, snapshot
from tournaments import play as games
from tournaments import services
from tournaments.api.authentication import create_token
from tournaments.models import Player

# Both backends (the ``backend`` fixture), one fixed seed: the same run every time.
pytestmark = [pytest.mark.django_db(databases="__all__"), pytest.mark.usefixtures("backend")]


@pytest.fixture
def wsgi_app(settings: Any) -> Iterator[Any]:
    """Django's WSGI application on the test's database connection.

    Django closes a connection that is not in autocommit mode at the end of each
    request (the test's transaction would go with it): the test client turns that
    off, and so does this fixture.
    """
    settings.PARLOUR_STREAM_SECONDS = 0.05
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    try:
        yield get_wsgi_application()
    finally:
        request_started.connect(close_old_connections)
        request_finished.connect(close_old_connections)


def test_schemathesis_stateful_finds_no_server_error_and_every_refusal_changes_nothing(
    wsgi_app: Any,
) -> None:
    # Deals drawn from a fixed seed too (hypothesis's examples are fixed by conftest.py):
    # the same run every time.
    with deterministic(0):
        _stateful_run(wsgi_app)


def _stateful_run(wsgi_app: Any) -> None:
    club = fuzz_club()
    # The organiser plays too: its own player sits at an Old Maid table.
    organiser = club.club.organisers.get()
    mine = services.add_player(club.club, "Organiser", user=organiser)
    others = club.people[:2]
    club.people = [(mine, club.organiser), *others]
    fuzz_table("old_maid", 3, club)
    fuzz_table("bhabhi", 3, club)
    finished = fuzz_table("give_away", 2, club)
    rng = random.Random(1)
    while not (game := finished.current()).is_over:
        seat = rng.choice(game.waiting_for or game.to_act)
        actions = get_game(game.kind).legal_actions(games.load_state(game), seat)
        games.submit_action(game.pk, seat, rng.choice(actions), expected_sequence=game.sequence)
    token = create_token(organiser, "schemathesis")[1]
    assert Player.objects.filter(user=organiser).exists()

    schema = schemathesis.openapi.from_wsgi("/api/v1/schema?format=json", wsgi_app)
    # Revoking its own token would leave the fuzzer with 401s for the rest of the run.
    schema = schema.exclude(method="DELETE", path_regex=r"^/api/v1/tokens/")
    counts = {"calls": 0, "4xx": 0, "2xx": 0}

    class Workflow(schema.as_state_machine()):  # type: ignore[misc]
        def get_call_kwargs(self, case: Any) -> dict[str, Any]:
            return {"headers": {"Authorization": f"Bearer {token}"}}

        def call(self, case: Any, **kwargs: Any) -> Any:
            before = snapshot()
            response = case.call(**kwargs)
            status = response.status_code
            what = f"{case.method} {case.formatted_path} -> {status}"
            counts["calls"] += 1
            assert status < 500, f"{what}: {response.content[:500]!r}"
            if 400 <= status < 500:
                counts["4xx"] += 1
                content_type = response.headers.get("content-type", [""])
                content_type = content_type[0] if isinstance(content_type, list) else content_type
                assert content_type.startswith(PROBLEM), f"{what}: {content_type}"
                problem = json.loads(response.content)
                for member in ("type", "title", "detail"):
                    assert isinstance(problem.get(member), str) and problem[member], what
                assert problem.get("status") == status, what
                assert snapshot() == before, f"{what} changed the store or a projection"
            else:
                counts["2xx"] += 1
            return response

        def validate_response(self, response: Any, case: Any, **kwargs: Any) -> None:
            """The checks are made in :meth:`call`, as each call happens."""

    Workflow.run(
        settings=settings(
            max_examples=int(os.environ.get("FUZZ_STATEFUL_EXAMPLES", "40")),
            stateful_step_count=8,
            deadline=None,
            suppress_health_check=list(HealthCheck),
            database=None,
        )
    )
    print(counts)
    assert counts["calls"] > 50 and counts["2xx"] > 0 and counts["4xx"] > 0
