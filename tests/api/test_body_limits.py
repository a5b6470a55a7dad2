"""The project's ASGI handler (tournaments/api/handler.py): bodies and turns.

Django's ASGI handler reads a whole body before any middleware runs; the project's
does not read one announced over its limit, and reads one without a length only up
to its limit: these requests send the start of a body and never the rest, so an
answer proves the server did not wait for it.  And it runs only so many requests of
a process in threads at once, and holds its refusals (429) back a moment.
"""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

import pytest
from asgiref.testing import ApplicationCommunicator

from tests.api.test_waiting_asgi import _scope as waiting_scope
from tournaments.api.parsers import body_limit

VERIFY = "/api/v1/records/verify"


def _scope(path: str, headers: list[tuple[bytes, bytes]]) -> dict[str, Any]:
    """A POST of JSON to ``path`` with ``headers`` (test_waiting_asgi's GET, posted)."""
    scope = waiting_scope(path, None)
    extra = [(b"content-type", b"application/json"), *headers]
    return scope | {"method": "POST", "headers": scope["headers"] + extra}


async def _post_part(
    path: str, headers: list[tuple[bytes, bytes]], chunks: list[bytes]
) -> tuple[int, Any]:
    """Send ``chunks`` of a body that goes on (``more_body`` stays true): the answer."""
    from parlour.asgi import application

    talk = ApplicationCommunicator(application, _scope(path, headers))
    for chunk in chunks:
        await talk.send_input({"type": "http.request", "body": chunk, "more_body": True})
    status, body = await _read(talk, 10)
    await talk.send_input({"type": "http.disconnect"})
    await talk.wait(10)
    return status, json.loads(body)


async def _read(talk: ApplicationCommunicator, seconds: float) -> tuple[int, bytes]:
    """The status and the whole body of the answer ``talk`` is sending."""
    start = await talk.receive_output(seconds)
    body = b""
    while True:
        message = await talk.receive_output(seconds)
        body += message.get("body", b"")
        if not message.get("more_body", False):
            return int(start["status"]), body


async def _answer_of(scope: dict[str, Any]) -> tuple[int, Any]:
    """The project's ASGI application's answer to ``scope`` (no body sent): its status and
    its JSON (``None`` when it is not JSON)."""
    from parlour.asgi import application

    talk = ApplicationCommunicator(application, scope)
    await talk.send_input({"type": "http.request", "body": b"", "more_body": False})
    status, body = await _read(talk, 20)
    await talk.wait(20)
    try:
        return status, json.loads(body)
    except ValueError:
        return status, None


async def _status_of(scope: dict[str, Any]) -> int:
    return (await _answer_of(scope))[0]


def test_a_record_announced_over_the_record_limit_is_a_413_before_its_body_arrives(
    settings: Any,
) -> None:
    most = settings.PARLOUR_RECORD_MAX_BYTES
    assert body_limit(VERIFY) == (most, " (PARLOUR_RECORD_MAX_BYTES, the largest record taken)")
    assert most < settings.DATA_UPLOAD_MAX_MEMORY_SIZE  # the 0.88 MB fits the general one
    headers = [(b"content-length", b"880000")]
    began = time.monotonic()
    status, problem = asyncio.run(_post_part(VERIFY, headers, [b'{"moves": [']))
    assert status == 413 and problem["type"] == "/api/v1/problems/payload-too-large"
    assert "880000" in problem["detail"] and "PARLOUR_RECORD_MAX_BYTES" in problem["detail"]
    # Held back a moment, as a 429 is: a client posting it in a loop makes one a second.
    assert time.monotonic() - began >= settings.PARLOUR_REFUSAL_DELAY_SECONDS


def test_any_api_body_announced_over_the_limit_is_a_413_before_it_arrives(settings: Any) -> None:
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 2048
    for path in ("/api/v1/games/1/actions", "/api/v1/tokens", "/api/v1/nothing"):
        status, problem = asyncio.run(_post_part(path, [(b"content-length", b"4096")], [b"{"]))
        assert status == 413 and "at most 2048" in problem["detail"], (path, problem)


def test_a_body_refused_for_its_size_is_refused_in_the_language_asked(settings: Any) -> None:
    # The refusal comes before the language middleware runs: it reads Accept-Language itself.
    headers = [(b"content-length", b"880000"), (b"accept-language", b"ru-RU,ru;q=0.9")]
    status, problem = asyncio.run(_post_part(VERIFY, headers, [b'{"moves": [']))
    assert status == 413 and problem["type"] == "/api/v1/problems/payload-too-large"
    assert problem["title"] == "Тело запроса слишком большое", problem
    assert problem["detail"].startswith("в теле запроса 880000 байт"), problem
    assert "PARLOUR_RECORD_MAX_BYTES, самая большая принимаемая запись" in problem["detail"]


@pytest.mark.django_db
def test_a_body_without_a_length_is_read_only_up_to_its_limit(settings: Any) -> None:
    settings.PARLOUR_RECORD_MAX_BYTES = 4096
    chunks = [b'{"players": ["' + b"x" * 3000, b"x" * 3000]  # and more never sent
    status, problem = asyncio.run(_post_part(VERIFY, [(b"transfer-encoding", b"chunked")], chunks))
    # Answered without the rest; the API reads no body without a Content-Length (DRF's
    # rule), so the record is empty: a problem, nothing verified.
    assert 400 <= status < 500 and problem["status"] == status, problem


@pytest.mark.django_db(transaction=True)
def test_a_process_runs_only_so_many_requests_in_threads_at_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The rest wait in the event loop, holding no thread (tournaments/api/handler.py): of
    4 turns, one client (these requests' one address) may hold 2."""
    from tournaments.api import handler

    monkeypatch.setattr(handler, "requests_at_once", lambda: 4)
    running, most = 0, 0
    real = handler.BoundedASGIHandler.run_get_response

    async def counted(self: Any, request: Any) -> Any:
        nonlocal running, most
        running += 1
        most = max(most, running)
        await asyncio.sleep(0.05)  # a view that takes a while
        try:
            return await real(self, request)
        finally:
            running -= 1

    monkeypatch.setattr(handler.BoundedASGIHandler, "run_get_response", counted)

    async def one() -> int:
        return await _status_of(waiting_scope("/api/v1/games", None))

    async def six() -> list[int]:
        return await asyncio.gather(*(one() for _ in range(6)))

    assert asyncio.run(six()) == [200] * 6
    assert most == 2


def test_turns_go_round_robin_between_waiting_addresses_and_none_is_lost() -> None:
    from tournaments.api.handler import Turns

    async def run() -> list[str]:
        turns = Turns(total=1, per_address=1)
        order: list[str] = []
        await turns.take("a")  # a burst from a: its first runs
        waiting = {}
        for name in ("a2", "a3", "b1", "a4"):
            waiting[name] = asyncio.ensure_future(turns.take(name[0]))
            await asyncio.sleep(0)
        gone = waiting.pop("a4")
        gone.cancel()  # a client that went away while waiting
        await asyncio.sleep(0)
        address = "a"
        while waiting:
            turns.give_back(address)
            await asyncio.sleep(0)
            (name,) = [n for n, t in waiting.items() if t.done()]
            order.append(name)
            del waiting[name]
            address = name[0]
        turns.give_back(address)
        assert turns.running == 0 and not turns.waiting and not turns.by_address
        return order

    # b's one request does not wait behind a's burst: it is next but one.
    assert asyncio.run(run()) == ["a2", "b1", "a3"]


def test_one_address_holds_at_most_its_share_of_the_turns() -> None:
    from tournaments.api.handler import Turns

    async def run() -> tuple[int, bool]:
        turns = Turns(total=4, per_address=2)
        await turns.take("a")
        await turns.take("a")
        third = asyncio.ensure_future(turns.take("a"))
        await asyncio.sleep(0)
        await asyncio.wait_for(turns.take("b"), 1)  # another client still runs at once
        running = turns.running
        turns.give_back("a")
        await asyncio.sleep(0)
        return running, third.done()

    assert asyncio.run(run()) == (3, True)


@pytest.mark.django_db(transaction=True)
def test_a_refusal_is_held_back_while_other_clients_are_answered_at_once(settings: Any) -> None:
    """A 429 waits ``PARLOUR_REFUSAL_DELAY_SECONDS`` (at most its Retry-After) in the event
    loop: a client looping on refusals makes one a second, and the wait holds up nobody."""

    settings.PARLOUR_REFUSAL_DELAY_SECONDS = 3.0
    rates = dict(settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"], anon="1/day")
    settings.REST_FRAMEWORK = dict(settings.REST_FRAMEWORK, DEFAULT_THROTTLE_RATES=rates)

    async def get(address: str, answered: list[tuple[str, int, float]]) -> None:
        began = time.monotonic()
        scope = waiting_scope("/api/v1/games", None) | {"client": (address, 5000)}
        status = await _status_of(scope)
        answered.append((address, status, time.monotonic() - began))

    async def run() -> list[tuple[str, int, float]]:
        answered: list[tuple[str, int, float]] = []
        await get("10.7.0.1", answered)  # the address's one request today
        refused = asyncio.ensure_future(get("10.7.0.1", answered))
        await asyncio.sleep(0.2)
        await get("10.7.0.2", answered)  # another client, meanwhile
        await refused
        return answered

    first, other, refused = asyncio.run(run())
    assert first[:2] == ("10.7.0.1", 200) and other[:2] == ("10.7.0.2", 200)
    assert refused[:2] == ("10.7.0.1", 429)
    assert refused[2] >= 3.0, "the refusal was not held back"


@pytest.mark.django_db(transaction=True)
def test_a_refusal_is_given_again_for_a_moment_without_running_the_request(
    settings: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """For a second after a 429 the same caller's requests of the same route are refused
    from the event loop (tournaments/api/handler.py, ``Refusals``): no thread, no query."""
    from tournaments.api import handler

    settings.PARLOUR_REFUSAL_DELAY_SECONDS = 0.0
    rates = dict(settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"], anon="1/day")
    settings.REST_FRAMEWORK = dict(settings.REST_FRAMEWORK, DEFAULT_THROTTLE_RATES=rates)
    handler.refusals.clear()
    ran: list[str] = []
    real = handler.BoundedASGIHandler.run_get_response

    async def counted(self: Any, request: Any) -> Any:
        ran.append(request.path)
        return await real(self, request)

    monkeypatch.setattr(handler.BoundedASGIHandler, "run_get_response", counted)

    async def get(path: str, address: str, *headers: tuple[bytes, bytes]) -> tuple[int, Any]:
        scope = waiting_scope(path, None) | {"client": (address, 5000)}
        scope["headers"] = [*scope["headers"], *headers]
        return await _answer_of(scope)

    async def run() -> list[tuple[int, Any]]:
        return [
            await get("/api/v1/games/1", "10.7.1.1"),  # the day's one request: a 404
            await get("/api/v1/games/1", "10.7.1.1"),  # refused by the throttle
            await get("/api/v1/games/2", "10.7.1.1"),  # the same refusal, not run
            await get("/api/v1/games/2", "10.7.1.2"),  # another address: run
            await get("/api/v1/games/2", "10.7.1.1", (b"accept-language", b"ru")),  # run
        ]

    answers = asyncio.run(run())
    assert [status for status, _ in answers] == [404, 429, 429, 404, 429]
    assert ran == ["/api/v1/games/1", "/api/v1/games/1", "/api/v1/games/2", "/api/v1/games/2"]
    (_, first), (_, again) = answers[1], answers[2]
    assert again["instance"] == "/api/v1/games/2" and again["type"] == first["type"]
    assert 1 <= again["retry_after"] <= first["retry_after"]
    assert again["detail"] == first["detail"]
    assert answers[4][1]["title"] != first["title"]  # answered in Russian, not given again


@pytest.mark.django_db(transaction=True)
def test_an_address_whose_open_streams_are_full_is_refused_again_whoever_asks(
    settings: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The address's cap counts every caller of the address: once it has refused one, the
    same route asked from that address by another token (or by nobody) is refused from
    the event loop for a moment, not run again (a burst with many tokens: abuse d, g)."""
    from tests.factories import club_world, tournament_game
    from tournaments.api import handler

    settings.PARLOUR_REFUSAL_DELAY_SECONDS = 0.0
    settings.PARLOUR_OPEN_STREAMS_PER_ADDRESS = 0  # the address's streams: all taken
    handler.refusals.clear()
    world = club_world()
    _, game = tournament_game(world)
    ran: list[str | None] = []
    real = handler.BoundedASGIHandler.run_get_response

    async def counted(self: Any, request: Any) -> Any:
        ran.append(request.META.get("HTTP_AUTHORIZATION"))
        return await real(self, request)

    monkeypatch.setattr(handler.BoundedASGIHandler, "run_get_response", counted)
    waiting = f"/api/v1/games/{game.pk}?after={game.sequence}&wait=1"

    async def get(path: str, address: str, token: str | None) -> tuple[int, Any]:
        return await _answer_of(waiting_scope(path, token) | {"client": (address, 5000)})

    alice, bob = (f"Bearer {world.tokens[name]}" for name in ("alice", "bob"))

    async def run() -> list[tuple[int, Any]]:
        return [
            await get(waiting, "10.7.2.1", world.tokens["alice"]),  # refused: run
            await get(waiting, "10.7.2.1", world.tokens["bob"]),  # the same refusal
            await get(waiting, "10.7.2.1", None),  # and for nobody signed in
            await get(waiting, "10.7.2.2", world.tokens["bob"]),  # another address: run
            await get(f"/api/v1/games/{game.pk}", "10.7.2.1", world.tokens["bob"]),  # run
        ]

    answers = asyncio.run(run())
    assert [status for status, _ in answers] == [429, 429, 429, 429, 200]
    assert answers[0][1]["limit"] == "open_address", answers[0][1]
    assert answers[1][1]["detail"] == answers[0][1]["detail"]
    assert ran == [alice, bob, bob]


@pytest.mark.django_db(transaction=True)
def test_a_locked_out_login_is_refused_again_whatever_the_password(
    settings: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each guess carries a password of its own, so keyed by the credentials every guess
    took the whole path (a thread, the limits' round trip): once a login is refused for
    its account, the same account's name is refused from the event loop for a moment from
    any address, whatever the password, and once for its address, anyone's login from
    that address (abuse a)."""
    import base64

    from tests.api.test_throttles import use_cache
    from tests.factories import user
    from tournaments.api import handler

    use_cache(settings, "locmem")
    settings.PARLOUR_REFUSAL_DELAY_SECONDS = 0.0
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    settings.PARLOUR_LOGIN_RATES = {"account": "1/hour", "address": "3/hour"}
    handler.refusals.clear()
    user("victim-1")
    user("victim-2")
    ran: list[str] = []
    real = handler.BoundedASGIHandler.run_get_response

    async def counted(self: Any, request: Any) -> Any:
        ran.append(request.META.get("HTTP_AUTHORIZATION", ""))
        return await real(self, request)

    monkeypatch.setattr(handler.BoundedASGIHandler, "run_get_response", counted)

    def basic(name: str, password: str) -> bytes:
        return b"Basic " + base64.b64encode(f"{name}:{password}".encode())

    async def post(name: str, password: str, address: str) -> tuple[int, Any]:
        scope = waiting_scope("/api/v1/tokens", None) | {
            "client": (address, 5000),
            "method": "POST",
        }
        scope["headers"] = [*scope["headers"], (b"authorization", basic(name, password))]
        return await _answer_of(scope)

    async def run() -> list[tuple[int, Any]]:
        return [
            await post("victim-1", "guess 1", "10.7.3.1"),  # hashed: 401
            await post("victim-1", "guess 2", "10.7.3.1"),  # the account's limit: run, 429
            await post("Victim-1", "guess 3", "10.7.3.2"),  # the same refusal, not run
            await post("victim-2", "guess 4", "10.7.3.1"),  # another account: run, 401
            await post("victim-2", "guess 5", "10.7.3.1"),  # the address's limit: run, 429
            await post("someone", "guess 6", "10.7.3.1"),  # anyone from it: not run
            await post("someone", "guess 7", "10.7.3.3"),  # elsewhere: run, 401
        ]

    answers = asyncio.run(run())
    assert [status for status, _ in answers] == [401, 429, 429, 401, 429, 429, 401], answers
    assert answers[1][1]["limit"] == "login_account", answers[1][1]
    assert answers[4][1]["limit"] == "login_address", answers[4][1]
    assert answers[2][1]["detail"] == answers[1][1]["detail"]
    assert ran == [
        basic(*g).decode()
        for g in [
            ("victim-1", "guess 1"),
            ("victim-1", "guess 2"),
            ("victim-2", "guess 4"),
            ("victim-2", "guess 5"),
            ("someone", "guess 7"),
        ]
    ]
