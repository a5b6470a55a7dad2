"""Failed password logins are limited per account and per address, on every way in.

HTTP Basic on ``POST /api/v1/tokens``, ``/accounts/login/`` and the admin's login
all count in ``tournaments/api/throttling.py``'s fixed windows, before the password
is hashed (``tournaments/logins.py``).  The clock is pinned, and each test counts
in a cache of its own (a fresh local-memory one, or the real Redis under a key
prefix of its own), as in test_throttles.py.
"""

from __future__ import annotations

import base64
from dataclasses import dataclass
from typing import Any

import pytest
from django.contrib.auth import base_user
from django.test import Client

from tests.api.conftest import Api
from tests.api.test_throttles import START, use_cache
from tests.factories import PASSWORD, ClubWorld
from tournaments.api import throttling

pytestmark = pytest.mark.django_db

TOKENS = "/api/v1/tokens"


@dataclass
class Clock:
    now: float = START


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    pinned = Clock()
    monkeypatch.setattr(throttling, "login_timer", lambda: pinned.now)
    return pinned


@pytest.fixture(params=["locmem", pytest.param("redis", marks=pytest.mark.redis)])
def backend(request: pytest.FixtureRequest, settings: Any) -> str:
    use_cache(settings, request.param)
    return str(request.param)


@pytest.fixture
def hashes(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every password checked against a hash (what a guess costs the server)."""
    checked: list[str] = []
    real = base_user.check_password

    def counting(password: str | None, encoded: str, *args: Any, **kwargs: Any) -> bool:
        checked.append(str(password))
        return real(password, encoded, *args, **kwargs)

    monkeypatch.setattr(base_user, "check_password", counting)
    return checked


def limits(settings: Any, account: str | None = "10/hour", address: str | None = None) -> None:
    settings.PARLOUR_LOGIN_RATES = {"account": account, "address": address}


def basic(username: str, password: str) -> dict[str, str]:
    raw = base64.b64encode(f"{username}:{password}".encode()).decode()
    return {"Authorization": f"Basic {raw}"}


def test_a_hundred_guesses_on_the_api_are_refused_and_cost_no_more_hashes_than_the_limit(
    backend: str, clock: Clock, settings: Any, world: ClubWorld, api: Api, hashes: list[str]
) -> None:
    limits(settings)
    alice = world.users["alice"].username
    answers = [api.post(TOKENS, {}, headers=basic(alice, f"guess-{i}"))[0] for i in range(100)]
    assert answers == [401] * 10 + [429] * 90
    assert len(hashes) == 10
    status, problem, response = api.post(TOKENS, {}, headers=basic(alice, PASSWORD))
    assert status == 429 and problem["type"] == "/api/v1/problems/throttled"
    assert "even with the right password" in problem["detail"]
    assert int(response["Retry-After"]) == problem["retry_after"] == 3600 - START % 3600
    assert len(hashes) == 10, "a refused attempt hashes nothing"
    # The lockout ends with its window, by itself.
    clock.now += 3600
    status, created, _ = api.post(TOKENS, {}, headers=basic(alice, PASSWORD))
    assert status == 201 and created["key"].startswith("prl_")


def test_successful_logins_do_not_spend_the_limit(
    backend: str, clock: Clock, settings: Any, world: ClubWorld, api: Api
) -> None:
    limits(settings, account="3/hour")
    alice = world.users["alice"].username
    for _ in range(5):
        assert api.post(TOKENS, {}, headers=basic(alice, PASSWORD))[0] == 201
    assert [api.post(TOKENS, {}, headers=basic(alice, "no"))[0] for _ in range(4)] == [
        401,
        401,
        401,
        429,
    ]


def test_guesses_at_many_accounts_from_one_address_are_refused(
    backend: str, clock: Clock, settings: Any, world: ClubWorld, api: Api
) -> None:
    limits(settings, account=None, address="5/hour")
    answers = [api.post(TOKENS, {}, headers=basic(f"nobody-{i}", "x"))[0] for i in range(8)]
    assert answers == [401] * 5 + [429] * 3
    # Another address is not locked out.
    other = Api(Client(REMOTE_ADDR="10.1.2.3"))
    assert other.post(TOKENS, {}, headers=basic(world.users["bob"].username, PASSWORD))[0] == 201


def test_the_login_page_locks_out_with_a_readable_message_that_ends_by_itself(
    backend: str, clock: Clock, settings: Any, world: ClubWorld
) -> None:
    limits(settings, account="5/hour")
    client = Client()
    alice = world.users["alice"].username
    for i in range(100):
        page = client.post("/accounts/login/", {"username": alice, "password": f"guess-{i}"})
        assert page.status_code == 200
    assert "Too many failed logins" in page.content.decode()
    right = client.post("/accounts/login/", {"username": alice, "password": PASSWORD})
    assert right.status_code == 200 and "Too many failed logins" in right.content.decode()
    assert "_auth_user_id" not in client.session
    clock.now += 3600
    right = client.post("/accounts/login/", {"username": alice, "password": PASSWORD})
    assert right.status_code == 302 and "_auth_user_id" in client.session


def test_the_admin_login_locks_out_too(
    backend: str, clock: Clock, settings: Any, world: ClubWorld
) -> None:
    limits(settings, account="5/hour")
    world.organiser.is_staff = True
    world.organiser.save()
    client = Client()
    name = world.organiser.username
    for i in range(6):
        page = client.post("/admin/login/", {"username": name, "password": f"guess-{i}"})
    assert page.status_code == 200 and "Too many failed logins" in page.content.decode()
    right = client.post("/admin/login/", {"username": name, "password": PASSWORD})
    assert "Too many failed logins" in right.content.decode()
    assert "_auth_user_id" not in client.session
    clock.now += 3600
    right = client.post("/admin/login/", {"username": name, "password": PASSWORD})
    assert right.status_code == 302 and "_auth_user_id" in client.session


def test_the_account_is_counted_whatever_case_its_name_is_typed_in(
    backend: str, clock: Clock, settings: Any, world: ClubWorld, api: Api
) -> None:
    limits(settings, account="2/hour")
    alice = world.users["alice"].username
    for name in (alice, alice.upper(), f" {alice.title()}"):
        api.post(TOKENS, {}, headers=basic(name, "wrong"))
    assert api.post(TOKENS, {}, headers=basic(alice, PASSWORD))[0] == 429


def test_a_guess_while_another_is_being_hashed_is_refused_without_a_hash(
    backend: str,
    clock: Clock,
    settings: Any,
    world: ClubWorld,
    api: Api,
    hashes: list[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """One password at a time per account and per address: parallel guessers get no
    more cores than one (bench/abuse.py's 32 at once took both)."""
    limits(settings, account="10/hour", address="100/hour")
    alice, bob = world.users["alice"].username, world.users["bob"].username
    during: list[tuple[int, Any]] = []
    real = base_user.check_password

    def a_second_guess_meanwhile(password: str | None, encoded: str, *a: Any, **k: Any) -> bool:
        if not during:  # while the first password is being checked
            for name in (alice, bob):  # the same account; another from the same address
                status, problem, response = api.post(TOKENS, {}, headers=basic(name, "again"))
                during.append((status, problem))
                assert response["Retry-After"] == "1"
        return real(password, encoded, *a, **k)

    monkeypatch.setattr(base_user, "check_password", a_second_guess_meanwhile)
    assert api.post(TOKENS, {}, headers=basic(alice, "first"))[0] == 401
    assert [s for s, _ in during] == [429, 429]
    assert all("being checked right now" in p["detail"] for _, p in during)
    assert hashes == ["first"], "the refused guesses hashed nothing"
    # Counted like any guess (alice's account has had 2 of its 10), and the marks given
    # back: the next guesses are hashed again, up to the limit.
    answers = [api.post(TOKENS, {}, headers=basic(alice, f"later-{i}"))[0] for i in range(9)]
    assert answers == [401] * 8 + [429]
    assert len(hashes) == 9


def test_the_login_page_says_so_when_another_login_is_being_checked(
    backend: str, clock: Clock, settings: Any, world: ClubWorld
) -> None:
    limits(settings, account="5/hour")
    alice = world.users["alice"].username
    throttling.login_attempt(None, alice)  # another attempt at this account, not done yet
    page = Client().post("/accounts/login/", {"username": alice, "password": PASSWORD})
    assert page.status_code == 200
    assert "being checked right now: try again in a moment" in page.content.decode()
