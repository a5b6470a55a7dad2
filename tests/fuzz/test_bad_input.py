"""Bad input to the action endpoint, fuzzed with hypothesis: always a 4xx problem, never a change.

A hypothesis state machine plays a tournament game of one of the four games through
``POST /api/v1/games/{id}/actions`` and, between legal moves, sends what a broken
or hostile client sends: malformed JSON, JSON of the wrong shape, fields of the
wrong type, unknown actions and legal actions with mangled fields, bodies over the
size limit, actions for another seat (by seat number, by another seat's token, as a
bystander, the organiser or nobody), stale and future sequences, Idempotency-Keys
reused for another command, bad headers, and bad query parameters of the game's
other resources.  Every such answer must be a 4xx ``application/problem+json``
document with ``type``, ``title``, ``status`` (the response's) and ``detail``, and the
event store and every projection must be exactly as before.  A key replayed with
the same command returns the first outcome (200, ``replayed``) and changes nothing.

Whether a mangled action is legal is asked of the engine itself (``resolve`` +
``decide`` on the folded state): an action it refuses must be refused by the API.
"""

from __future__ import annotations

import json
import os
import random
import string
from contextlib import ExitStack
from typing import Any

import pytest
from django.test import Client, override_settings
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    precondition,
    rule,
    run_state_machine_as_test,
)

from engine.contract import IllegalAction
from engine.registry import get_game
from tests.factories import FUZZ_SEATS, FuzzTable, fuzz_table
from tests.fuzz.conftest import assert_problem, call, deterministic, snapshot
from tournaments import play as service

# Both backends (the ``backend`` fixture), one fixed seed: the same run every time.
pytestmark = [pytest.mark.django_db(databases="__all__"), pytest.mark.usefixtures("backend")]

KINDS = sorted(FUZZ_SEATS)

json_scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=12)
)
json_values = st.recursive(
    json_scalars,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4)
    ),
    max_leaves=10,
)
#: Values DRF's IntegerField refuses (it takes "7" and 7.0 as 7, which are not wrong types).
not_integers = (
    st.none()
    | st.booleans()
    | st.text(alphabet=string.ascii_letters + " -_", min_size=1, max_size=8)
    | st.floats(allow_nan=False, allow_infinity=False).filter(lambda f: not float(f).is_integer())
    | st.lists(st.integers(), max_size=2)
    | st.dictionaries(st.text(max_size=3), st.integers(), max_size=2)
    | st.integers(max_value=-1)
)
not_objects = json_scalars | st.lists(json_values, max_size=3)
bad_keys = st.one_of(
    st.just(""),
    st.text(alphabet="abc ", min_size=1, max_size=5).filter(lambda k: " " in k),
    st.text(alphabet=string.ascii_letters, min_size=101, max_size=140),
    st.just("ключ"),
)
bad_authorizations = st.one_of(
    st.just("Bearer"),
    st.just("Bearer a b"),
    st.text(alphabet=string.ascii_letters + "_", min_size=4, max_size=40).map(
        lambda key: f"Bearer prl_{key}"
    ),
    st.just("Bearer clé"),
    st.just("Basic bm90OnJpZ2h0"),
    st.just("Token abc"),
)


def is_json(raw: bytes) -> bool:
    try:
        json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        return False
    return True


def legality(table: FuzzTable, seat: int, action: Any) -> str:
    """What the engine says of ``action`` by ``seat`` now: "legal", "illegal" or its crash."""
    game = table.refresh()
    engine = get_game(game.kind)
    state = service.load_state(game)
    if not isinstance(action, dict) or not isinstance(action.get("type"), str):
        return "illegal"
    try:
        request, chance = engine.resolve(state, seat, action, random.Random(0))
        engine.decide(state, seat, request, chance=chance)
    except IllegalAction:
        return "illegal"
    except Exception as error:  # noqa: BLE001 - reported: the API must not crash on it
        return f"engine raised {type(error).__name__}: {error}"
    return "legal"


def _seconds(value: str) -> bool:
    """Whether ``value`` is a number of seconds (0 or more, finite) as ``?wait=`` takes it."""
    try:
        return 0 <= float(value) < float("inf")
    except ValueError:
        return False


class BadInput(RuleBasedStateMachine):
    """One tournament game, legal moves now and then, bad requests in between."""

    def __init__(self) -> None:
        super().__init__()
        self.client = Client()
        self.table: FuzzTable | None = None
        self.keys = 0
        self.patches = ExitStack()
        #: Whether the game runs, as the invariant last saw it (preconditions read it).
        self.is_running = False
        #: Commands the API acknowledged: (game id, seat, key, body), to replay.
        self.done: list[tuple[int, int, str, dict[str, Any]]] = []

    # -- helpers -----------------------------------------------------------------------------

    @property
    def t(self) -> FuzzTable:
        assert self.table is not None
        return self.table

    def path(self, suffix: str = "/actions", game: int | None = None) -> str:
        return f"/api/v1/games/{game or self.t.game.pk}{suffix}"

    def fresh_key(self) -> str:
        self.keys += 1
        return f"k{self.keys}"

    def running(self) -> bool:
        return self.is_running

    def teardown(self) -> None:
        self.patches.close()

    def actor(self, data: st.DataObject) -> int:
        game = self.t.refresh()
        return data.draw(st.sampled_from(game.waiting_for or game.to_act), label="seat")

    def legal(self, data: st.DataObject, seat: int) -> dict[str, Any]:
        game = self.t.refresh()
        engine = get_game(game.kind)
        actions = engine.legal_actions(service.load_state(game), seat) or [{"type": "pass"}]
        return dict(data.draw(st.sampled_from(actions), label="legal action"))

    def refused(self, what: str, response_of: Any) -> dict[str, Any]:
        """Send (``response_of()``), and check the answer is a 4xx problem that changed nothing."""
        before = snapshot()
        response = response_of()
        problem = assert_problem(response, what)
        assert snapshot() == before, f"{what} changed the store or a projection"
        return problem

    def post(
        self,
        body: Any = None,
        *,
        seat: int = 0,
        token: str | None = None,
        game: int | None = None,
        **kwargs: Any,
    ) -> Any:
        headers = {"Idempotency-Key": self.fresh_key()} | kwargs.pop("headers", {})
        return call(
            self.client,
            "POST",
            self.path(game=game),
            token=token if token is not None else self.t.seat_tokens[seat],
            body=body,
            headers=headers,
            **kwargs,
        )

    # -- the game --------------------------------------------------------------------------------

    @initialize(kind=st.sampled_from(KINDS), seed=st.integers(min_value=0, max_value=2**32))
    def deal(self, kind: str, seed: int) -> None:
        rng = self.patches.enter_context(deterministic(seed))
        self.table = fuzz_table(kind, rng=rng)

    @invariant()
    def the_projection_matches_the_events(self) -> None:
        if self.table is None:
            return
        game = self.t.current()
        self.is_running = not game.is_over
        state = service.load_state(game)
        engine = get_game(game.kind)
        assert game.to_act == engine.to_act(state)
        assert game.waiting_for == engine.waiting_for(state)
        assert game.is_over == engine.is_over(state)

    @precondition(lambda self: self.running())
    @rule(data=st.data())
    def a_legal_move_is_accepted(self, data: st.DataObject) -> None:
        seat = self.actor(data)
        action = self.legal(data, seat)
        if legality(self.t, seat, action) != "legal":
            return  # a seat the game waits for with nothing it may do (never seen)
        if action["type"] == "arrange" and data.draw(st.booleans(), label="shuffle instead"):
            action = {"type": "shuffle"}
        body = {"action": action, "expected_sequence": self.t.game.sequence}
        key = self.fresh_key()
        response = self.post(body, seat=seat, headers={"Idempotency-Key": key})
        assert response.status_code == 200, response.content[:400]
        assert response.json()["replayed"] is False
        self.done.append((self.t.game.pk, seat, key, body))

    # -- malformed and misshapen bodies -----------------------------------------------------------

    @precondition(lambda self: self.table is not None)
    @rule(raw=st.binary(max_size=300).filter(lambda raw: not is_json(raw)))
    def malformed_json_is_refused(self, raw: bytes) -> None:
        self.refused("malformed JSON", lambda: self.post(raw=raw))

    @precondition(lambda self: self.table is not None)
    @rule(data=st.data(), cut=st.integers(min_value=1, max_value=40))
    def truncated_json_is_refused(self, data: st.DataObject, cut: int) -> None:
        seat = self.actor(data) if self.running() else 0
        text = json.dumps({"action": {"type": "x"}, "expected_sequence": self.t.game.sequence})
        raw = text[: max(1, len(text) - cut)]
        self.refused("truncated JSON", lambda: self.post(raw=raw, seat=seat))

    @precondition(lambda self: self.table is not None)
    @rule(body=not_objects)
    def a_body_that_is_not_an_object_is_refused(self, body: Any) -> None:
        self.refused(f"body {body!r}", lambda: self.post(body))

    @precondition(lambda self: self.table is not None)
    @rule(data=st.data(), field=st.sampled_from(["action", "expected_sequence", "seat"]))
    def a_field_of_the_wrong_type_is_refused(self, data: st.DataObject, field: str) -> None:
        seat = self.actor(data) if self.running() else 0
        body: dict[str, Any] = {
            "action": self.legal(data, seat) if self.running() else {"type": "pass"},
            "expected_sequence": self.t.game.sequence,
        }
        if field == "action":
            body["action"] = data.draw(
                not_objects
                | st.dictionaries(st.text(max_size=5).filter(lambda k: k != "type"), json_values)
                | st.builds(
                    lambda v: {"type": v}, json_values.filter(lambda v: not isinstance(v, str))
                ),
                label="action",
            )
        else:
            wrong = (
                not_integers.filter(lambda v: v is not None) if field == "seat" else not_integers
            )
            body[field] = data.draw(wrong, label=field)
        self.refused(f"{field} = {body[field]!r}", lambda: self.post(body, seat=seat))

    @precondition(lambda self: self.table is not None)
    @rule(data=st.data())
    def a_missing_field_is_refused(self, data: st.DataObject) -> None:
        missing = data.draw(st.sampled_from(["action", "expected_sequence"]), label="missing")
        body = {"action": {"type": "pass"}, "expected_sequence": self.t.game.sequence}
        del body[missing]
        self.refused(f"no {missing}", lambda: self.post(body))

    # -- actions the rules refuse ---------------------------------------------------------------

    @precondition(lambda self: self.table is not None)
    @rule(
        data=st.data(),
        kind=st.text(min_size=1, max_size=12),
        extra=st.dictionaries(st.text(max_size=6), json_values, max_size=3),
    )
    def an_unknown_action_is_refused(
        self, data: st.DataObject, kind: str, extra: dict[str, Any]
    ) -> None:
        known = {"play", "pass", "draw", "arrange", "shuffle", "take_left", "place_capture"}
        if kind in known or kind.startswith("declare"):
            kind = f"no-{kind}"
        seat = self.actor(data) if self.running() else 0
        body = {"action": extra | {"type": kind}, "expected_sequence": self.t.game.sequence}
        self.refused(f"action {body['action']!r}", lambda: self.post(body, seat=seat))

    @precondition(lambda self: self.running())
    @rule(data=st.data())
    def a_mangled_legal_action_is_refused_unless_the_engine_takes_it(
        self, data: st.DataObject
    ) -> None:
        seat = self.actor(data)
        action = self.legal(data, seat)
        how = data.draw(st.sampled_from(["replace", "add", "drop"]), label="mangle")
        if how == "replace" or (how == "drop" and len(action) == 1):
            field = data.draw(st.sampled_from(sorted(action)), label="field")
            action[field] = data.draw(json_values, label="value")
        elif how == "add":
            action[data.draw(st.text(min_size=1, max_size=6), label="extra")] = data.draw(
                json_values
            )
        else:
            del action[data.draw(st.sampled_from(sorted(k for k in action if k != "type")))]
        verdict = legality(self.t, seat, action)
        body = {"action": action, "expected_sequence": self.t.game.sequence}
        if verdict == "legal":
            return  # the engine takes it (another legal action): not bad input
        self.refused(f"{action!r} ({verdict})", lambda: self.post(body, seat=seat))

    @precondition(lambda self: self.table is not None)
    @rule(data=st.data())
    def acting_in_a_finished_or_waiting_seat_is_refused(self, data: st.DataObject) -> None:
        game = self.t.refresh()
        idle = [s for s in range(game.seats) if s not in game.to_act]
        if not idle:
            return
        seat = data.draw(st.sampled_from(idle), label="idle seat")
        action = data.draw(
            st.sampled_from(
                [{"type": "pass"}, {"type": "draw", "index": 0}, {"type": "play", "card": "AS"}]
            )
        )
        if legality(self.t, seat, action) == "legal":
            return
        body = {"action": action, "expected_sequence": game.sequence}
        self.refused(f"seat {seat} not to act", lambda: self.post(body, seat=seat))

    # -- someone else's seat --------------------------------------------------------------------

    @precondition(lambda self: self.running())
    @rule(data=st.data())
    def naming_another_seat_is_forbidden(self, data: st.DataObject) -> None:
        seat = self.actor(data)
        me = data.draw(st.sampled_from([s for s in range(self.t.game.seats) if s != seat]))
        body = {
            "action": self.legal(data, seat),
            "expected_sequence": self.t.game.sequence,
            "seat": seat,
        }
        problem = self.refused("another seat by number", lambda: self.post(body, seat=me))
        assert problem["status"] == 403

    @precondition(lambda self: self.running())
    @rule(data=st.data())
    def another_seats_action_sent_with_my_token_is_refused(self, data: st.DataObject) -> None:
        seat = self.actor(data)
        action = self.legal(data, seat)
        me = data.draw(st.sampled_from([s for s in range(self.t.game.seats) if s != seat]))
        if legality(self.t, me, action) == "legal":
            return  # the same action is also mine to make (simultaneous declarations)
        body = {"action": action, "expected_sequence": self.t.game.sequence}
        self.refused("another seat's action", lambda: self.post(body, seat=me))

    @precondition(lambda self: self.running())
    @rule(data=st.data(), who=st.sampled_from(["bystander", "organiser", "anonymous"]))
    def a_caller_without_a_seat_cannot_act(self, data: st.DataObject, who: str) -> None:
        seat = self.actor(data)
        body = {"action": self.legal(data, seat), "expected_sequence": self.t.game.sequence}
        token = {"bystander": self.t.bystander, "organiser": self.t.organiser}.get(who, "")
        headers = {} if token else {"Authorization": ""}
        problem = self.refused(who, lambda: self.post(body, token=token, headers=headers))
        assert problem["status"] == (401 if who == "anonymous" else 403)

    # -- sequences and keys ----------------------------------------------------------------------

    @precondition(lambda self: self.running())
    @rule(data=st.data(), offset=st.integers(min_value=-50, max_value=50).filter(bool))
    def a_stale_or_future_sequence_is_a_conflict(self, data: st.DataObject, offset: int) -> None:
        seat = self.actor(data)
        expected = self.t.game.sequence + offset
        if expected < 0:
            expected = self.t.game.sequence + abs(offset)
        body = {"action": self.legal(data, seat), "expected_sequence": expected}
        problem = self.refused(f"sequence {expected}", lambda: self.post(body, seat=seat))
        assert problem["status"] == 409
        assert problem["current_sequence"] == self.t.game.sequence

    @precondition(lambda self: bool(self.done))
    @rule(data=st.data())
    def a_key_reused_for_another_command_is_refused(self, data: st.DataObject) -> None:
        game, seat, key, body = data.draw(st.sampled_from(self.done), label="done")
        other = dict(body, expected_sequence=body["expected_sequence"] + 1)
        headers = {"Idempotency-Key": key}
        problem = self.refused(
            "reused key", lambda: self.post(other, seat=seat, game=game, headers=headers)
        )
        assert problem["status"] == 422

    @precondition(lambda self: bool(self.done))
    @rule(data=st.data())
    def a_key_replayed_with_its_command_returns_the_first_outcome(
        self, data: st.DataObject
    ) -> None:
        game, seat, key, body = data.draw(st.sampled_from(self.done), label="done")
        before = snapshot()
        response = self.post(body, seat=seat, game=game, headers={"Idempotency-Key": key})
        assert response.status_code == 200, response.content[:300]
        assert response.json()["replayed"] is True
        assert response["Idempotency-Replayed"] == "true"
        assert snapshot() == before

    # -- headers --------------------------------------------------------------------------------

    @precondition(lambda self: self.running())
    @rule(data=st.data(), key=bad_keys)
    def a_bad_idempotency_key_is_refused(self, data: st.DataObject, key: str) -> None:
        seat = self.actor(data)
        body = {"action": self.legal(data, seat), "expected_sequence": self.t.game.sequence}
        headers = {"Idempotency-Key": key}
        self.refused(f"key {key!r}", lambda: self.post(body, seat=seat, headers=headers))

    @precondition(lambda self: self.running())
    @rule(data=st.data())
    def no_idempotency_key_is_refused(self, data: st.DataObject) -> None:
        seat = self.actor(data)
        body = {"action": self.legal(data, seat), "expected_sequence": self.t.game.sequence}
        self.refused(
            "no key",
            lambda: call(
                self.client, "POST", self.path(), token=self.t.seat_tokens[seat], body=body
            ),
        )

    @precondition(lambda self: self.running())
    @rule(data=st.data(), authorization=bad_authorizations)
    def a_bad_authorization_is_refused(self, data: st.DataObject, authorization: str) -> None:
        seat = self.actor(data)
        body = {"action": self.legal(data, seat), "expected_sequence": self.t.game.sequence}
        headers = {"Authorization": authorization}
        problem = self.refused(authorization, lambda: self.post(body, seat=seat, headers=headers))
        assert problem["status"] == 401

    @precondition(lambda self: self.running())
    @rule(
        data=st.data(),
        content_type=st.sampled_from(
            [
                "text/plain",
                "application/xml",
                "multipart/form-data; boundary=x",
                "application/x-www-form-urlencoded",
            ]
        ),
    )
    def a_body_that_is_not_json_is_refused(self, data: st.DataObject, content_type: str) -> None:
        seat = self.actor(data)
        raw = json.dumps(
            {"action": self.legal(data, seat), "expected_sequence": self.t.game.sequence}
        )
        self.refused(content_type, lambda: self.post(raw=raw, seat=seat, content_type=content_type))

    @precondition(lambda self: self.running())
    @rule(data=st.data(), size=st.integers(min_value=2049, max_value=40_000))
    def a_body_over_the_limit_is_refused(self, data: st.DataObject, size: int) -> None:
        seat = self.actor(data)
        body = {
            "action": self.legal(data, seat),
            "expected_sequence": self.t.game.sequence,
            "padding": "x" * size,
        }
        with override_settings(DATA_UPLOAD_MAX_MEMORY_SIZE=2048):
            problem = self.refused(f"{size} bytes", lambda: self.post(body, seat=seat))
        assert problem["status"] == 413

    # -- the game's other resources -------------------------------------------------------------

    @precondition(lambda self: self.table is not None)
    @rule(
        data=st.data(),
        resource=st.sampled_from(
            [
                "/events?after=",
                "/stream?timeout=",
                "/stream?last_event_id=",
                "?after=",
                "?after=1&wait=",
            ]
        ),
        value=st.sampled_from(
            ["-1", "x", "1e99", "9" * 30, "0x10", " ", "%00", "1.5.2", "nan", "²", "99999999999"]
        ),
    )
    def a_bad_query_parameter_is_refused(
        self, data: st.DataObject, resource: str, value: str
    ) -> None:
        if resource.endswith("last_event_id=") and (
            not value.strip() or (value.isdecimal() and int(value) <= 2**31 - 1)
        ):
            return  # blank: no Last-Event-ID; a sequence: a place to resume after
        if resource.endswith("wait=") and _seconds(value):
            return  # any number of seconds is a wait (a long one is cut to the maximum)
        token = data.draw(st.sampled_from([None, *self.t.seat_tokens]), label="caller")
        self.refused(
            resource + value,
            lambda: call(self.client, "GET", self.path(resource + value), token=token),
        )

    @precondition(lambda self: self.running())
    @rule(data=st.data())
    def the_record_of_a_running_game_is_refused(self, data: st.DataObject) -> None:
        token = data.draw(st.sampled_from([None, self.t.organiser, *self.t.seat_tokens]))
        problem = self.refused(
            "record", lambda: call(self.client, "GET", self.path("/record"), token=token)
        )
        assert problem["status"] == 409


def test_bad_input_to_the_action_endpoint_is_always_a_4xx_problem_that_changes_nothing() -> None:
    run_state_machine_as_test(
        BadInput,
        settings=settings(
            max_examples=int(os.environ.get("FUZZ_EXAMPLES", "24")),
            stateful_step_count=30,
            deadline=None,
            suppress_health_check=list(HealthCheck),
        ),
    )


def test_a_body_over_the_default_limit_is_a_413_problem_that_changes_nothing() -> None:
    table = fuzz_table("old_maid")
    client = Client()
    before = snapshot()
    raw = json.dumps(
        {"action": {"type": "draw", "index": 0}, "expected_sequence": 1, "pad": "x" * 1_100_000}
    )
    response = call(
        client,
        "POST",
        f"/api/v1/games/{table.game.pk}/actions",
        token=table.seat_tokens[table.game.waiting_for[0]],
        raw=raw,
        headers={"Idempotency-Key": "huge"},
    )
    assert assert_problem(response, "1.1 MB")["status"] == 413
    assert snapshot() == before
