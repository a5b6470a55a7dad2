"""Two organisers adding names that read the same at the same moment (the desk and the
API, say) store one of them, on the real PostgreSQL: only exact duplicates are stopped by
the database, so adding a player takes its club's lock for names
(``sql.lock_player_names``) before it asks whether the name is taken."""

from __future__ import annotations

import io
import threading
import time
from collections.abc import Callable
from typing import Any

import pytest
from django.core.management import call_command
from django.db import connection, transaction

from tests import factories
from tournaments import services, sql
from tournaments.models import Club, Player, Registration
from tournaments.services import ServiceError, desk

pytestmark = pytest.mark.django_db(transaction=True)


def _in_a_thread(work: Callable[[], Any], outcome: dict[str, Any]) -> threading.Thread:
    """``work`` in a thread of its own (its own connection, closed after), its result or
    refusal kept in ``outcome``."""

    def run() -> None:
        try:
            outcome["player"] = work()
        except ServiceError as error:
            outcome["refused"] = error.message
        finally:
            connection.close()

    thread = threading.Thread(target=run)
    thread.start()
    return thread


def _waits_for_a_lock(pid: int) -> bool:
    with connection.cursor() as cursor:
        cursor.execute("SELECT wait_event_type FROM pg_stat_activity WHERE pid = %s", [pid])
        found = cursor.fetchone()
    return found is not None and found[0] == "Lock"


def _one_then_another(
    first: Callable[[Callable[[], None]], Any], second: Callable[[], Any]
) -> tuple[dict[str, Any], dict[str, Any]]:
    """``first`` in a transaction, in a thread; ``second`` in another, begun when ``first``
    calls the function it is given, which returns once ``second`` waits for a lock (or is
    done).  Their outcomes."""
    first_ready, release = threading.Event(), threading.Event()
    second_pid: list[int] = []
    outcomes: tuple[dict[str, Any], dict[str, Any]] = ({}, {})

    def let_the_second_in() -> None:
        first_ready.set()
        release.wait(10)

    def hold() -> Any:
        with transaction.atomic():
            return first(let_the_second_in)

    def ask() -> Any:
        connection.ensure_connection()
        second_pid.append(connection.connection.info.backend_pid)
        first_ready.wait(10)
        return second()

    holding = _in_a_thread(hold, outcomes[0])
    asking = _in_a_thread(ask, outcomes[1])
    assert first_ready.wait(10)
    deadline = time.monotonic() + 10
    while asking.is_alive() and time.monotonic() < deadline:
        if second_pid and _waits_for_a_lock(second_pid[0]):
            break
        time.sleep(0.02)
    release.set()
    holding.join(15)
    asking.join(15)
    return outcomes


def _admin_adds(club: Club, name: str) -> Player:
    """What the admin's "add player" does in its transaction: the form, then the save."""
    from tournaments.admin import PlayerForm

    form = PlayerForm(data={"club": club.pk, "name": name, "bot_level": ""})
    assert form.is_valid(), form.errors
    return form.save()


@pytest.mark.parametrize("first_by", ["services", "admin"])
def test_a_name_added_while_one_that_reads_the_same_is_uncommitted_waits_and_is_refused(
    on_postgres: None, first_by: str
) -> None:
    # "Kate" added and not yet committed; «Кате» (Cyrillic) asked for meanwhile did not see
    # it, and both were stored (the brief's race of two organisers).
    club = factories.club()
    add = services.add_player if first_by == "services" else _admin_adds

    def add_and_hold(let_the_second_in: Callable[[], None]) -> Player:
        player = add(club, "Kate")
        let_the_second_in()  # committed only once the second has asked
        return player

    first, second = _one_then_another(add_and_hold, lambda: services.add_player(club, "Кате"))
    assert "player" in first, first
    assert "already has a player called" in second.get("refused", ""), second
    assert list(Player.objects.filter(club=club).values_list("name", flat=True)) == ["Kate"]


def test_a_sign_up_while_an_organiser_adds_a_player_waits_for_it_without_a_deadlock(
    on_postgres: None,
) -> None:
    # The sign-up locked the club's row and then waited for the names' lock, which the
    # desk's add_player held while its insert waited for that row: a deadlock.  The
    # pause between the names' lock and the insert stands for a slow check of the names.
    club = factories.club()
    token = services.renew_signup_link(club)

    def lock_then_add(let_the_second_in: Callable[[], None]) -> Player:
        sql.lock_player_names(club.pk)
        let_the_second_in()
        return services.add_player(club, "Kate")

    def sign_up() -> Player:
        return services.sign_up(token, "Zoe", "zoe", "a long club night")

    first, second = _one_then_another(lock_then_add, sign_up)
    assert "player" in first and "player" in second, (first, second)
    assert sorted(Player.objects.filter(club=club).values_list("name", flat=True)) == [
        "Kate",
        "Zoe",
    ]


def test_two_organisers_adding_names_that_read_the_same_at_once_store_one(
    on_postgres: None,
) -> None:
    # Eight clubs, a race in each: without the lock, every one of them stored both.
    clubs = [Club.objects.create(name=f"Race {n}", slug=f"race-{n}") for n in range(8)]
    for club in clubs:
        barrier = threading.Barrier(2)
        outcomes: list[dict[str, Any]] = [{}, {}]

        def add(name: str, club: Club = club, barrier: threading.Barrier = barrier) -> Player:
            connection.ensure_connection()  # connected before the start
            barrier.wait(10)
            return services.add_player(club, name)

        threads = [
            _in_a_thread(lambda n=name: add(n), outcome)
            for name, outcome in zip(["Kate", "Кате"], outcomes, strict=True)
        ]
        for thread in threads:
            thread.join(10)
        assert Player.objects.filter(club=club).count() == 1, outcomes
        assert sum("refused" in o for o in outcomes) == 1, outcomes


def test_register_create_beside_the_desk_s_add_and_register_makes_no_deadlock(
    on_postgres: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    # register --create took the tournament's lock for a known player, then the names'
    # lock for a new one; the desk's add-and-register takes them the other way round.
    from tournaments.management.commands import register

    club = factories.club()
    factories.person(club, "Ann")
    night = factories.tournament(club)
    real_add_player = register.add_player

    def command(let_the_second_in: Callable[[], None]) -> Player:
        def add_player(*args: Any, **kwargs: Any) -> Player:
            let_the_second_in()  # the desk comes between the two players of the command
            return real_add_player(*args, **kwargs)

        monkeypatch.setattr(register, "add_player", add_player)
        call_command("register", str(night.pk), "Ann", "Zed", "--create", stdout=io.StringIO())
        return Player.objects.get(club=club, name="Zed")

    first, second = _one_then_another(command, lambda: desk.add_and_register(night, "Zoe"))
    assert "player" in first and "player" in second, (first, second)
    assert sorted(
        Registration.objects.filter(tournament=night).values_list("player__name", flat=True)
    ) == ["Ann", "Zed", "Zoe"]


def test_a_login_made_by_an_organiser_while_a_sign_up_takes_its_username_is_refused_not_deadlocked(
    on_postgres: None,
) -> None:
    # The organiser's add-with-login inserted its login and then waited for the names'
    # lock, which the sign-up held while its own insert of that username waited for the
    # organiser's: a deadlock, where one of them should be told the username is taken.
    club = factories.club()
    token = services.renew_signup_link(club)

    def sign_up(let_the_second_in: Callable[[], None]) -> Player:
        sql.lock_player_names(club.pk)  # as the sign-up takes it, first
        let_the_second_in()
        return services.sign_up(token, "Zoe", "zoe", "a long club night")

    def add_with_login() -> Player:
        return services.add_player_with_login(club, "Zed", "zoe", password="a long club night")[0]

    first, second = _one_then_another(sign_up, add_with_login)
    assert "player" in first, (first, second)
    assert "is taken" in second.get("refused", ""), (first, second)
