"""Issue 20 in a real browser, from an empty database: the first-run page makes the club and
its organiser, a sign-up link brings two people in, they register and check in themselves,
one comes late and is seated with one action.  Screenshots at 1280 and 390 px."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.browser.conftest import DESKTOP, PHONE, shot

PASSWORD = "a long club night"


def _tab(browser: Any, base: str, viewport: dict[str, int]) -> Any:
    context = browser.new_context(viewport=viewport, base_url=base)
    context.set_default_timeout(15_000)
    return context.new_page()


@pytest.fixture
def tabs(browser: Any, empty_server: str) -> Iterator[dict[str, Any]]:
    """The organiser's desktop tab, Ann's desktop tab and Bo's phone tab (cookies of their own)."""
    made = {
        "olga": _tab(browser, empty_server, DESKTOP),
        "ann": _tab(browser, empty_server, DESKTOP),
        "bo": _tab(browser, empty_server, PHONE),
    }
    errors: list[str] = []
    for tab in made.values():
        tab.on("pageerror", lambda error: errors.append(str(error)))
    yield made
    for tab in made.values():
        tab.context.close()
    assert not errors, f"JavaScript errors on the page: {errors}"


def _sign_up(tab: Any, link: str, name: str, username: str) -> None:
    tab.goto(link)
    tab.fill("#id_name", name)
    tab.fill("#id_username", username)
    tab.fill("#id_password", PASSWORD)
    tab.fill("#id_password_again", PASSWORD)
    tab.click("#sign-up-form button[type=submit]")
    tab.wait_for_selector(f"text=Welcome to Hearts Club, {name}.")


def test_from_an_empty_install_to_a_late_player_seated(tabs: dict[str, Any]) -> None:
    olga, ann, bo = tabs["olga"], tabs["ann"], tabs["bo"]

    # The empty install points to the first-run page; it makes the club and logs Olga in.
    olga.goto("/")
    olga.wait_for_selector("text=this install has no club yet")
    shot(olga, "club-night-empty-home")
    olga.click("text=Set up your club")
    olga.fill("#id_club_name", "Hearts Club")
    olga.fill("#id_username", "olga")
    olga.fill("#id_password", PASSWORD)
    olga.fill("#id_password_again", PASSWORD)
    shot(olga, "club-night-first-run")
    olga.click("#first-run-form button[type=submit]")
    olga.wait_for_selector("text=Hearts Club is ready and you organise it.")

    # A sign-up link; Ann (desktop) and Bo (phone) join through it.
    olga.click("text=Make a sign-up link")
    olga.wait_for_selector("text=The sign-up link is on.")
    link = olga.input_value("#signup-url")
    shot(olga, "club-night-people")
    _sign_up(ann, link, "Ann", "ann")
    _sign_up(bo, link, "Bo", "bo")
    shot(bo, "club-night-joined-phone")

    # Olga makes a tournament with a bot, so that Ann and the bot can make a table.
    olga.goto("/tournaments/new")
    olga.fill("#id_name", "Friday Night")
    olga.select_option("#id_game", "give_away")
    olga.fill("#id_rounds", "1")
    olga.select_option("#id_series_kind", "first_to")
    olga.fill("#id_series_target", "1")
    olga.fill("#id_table_min", "2")
    olga.fill("#id_table_max", "3")
    olga.click("text=Create the tournament")
    olga.wait_for_selector("text=is open for registration")
    desk = olga.url
    olga.fill("#new-player-form input[name=name]", "Robot")
    olga.select_option("#new-player-form select[name=bot_level]", "random")
    olga.click("text=Add and register")
    olga.wait_for_selector("text=Added Robot")
    page = desk.replace("/manage", "/")

    # Ann and Bo register themselves; only Ann checks in.
    for tab in (ann, bo):
        tab.goto(page)
        tab.click("text=Register for Friday Night")
        tab.wait_for_selector("text=You are registered in Friday Night.")
    ann.click("text=Check in for round 1")
    ann.wait_for_selector("text=You are checked in for round 1.")
    shot(ann, "club-night-checked-in")
    shot(bo, "club-night-registered-phone")

    # Seating without auto check-in asks first, naming Bo; Olga seats without him.
    olga.goto(desk)
    olga.uncheck("#id_auto_check_in")
    olga.click("text=Seat round 1")
    olga.wait_for_selector("#seating-check")
    assert "Bo" in olga.inner_text("#seating-check")
    shot(olga, "club-night-seating-check")
    olga.click("text=Seat round 1 without them")
    olga.wait_for_selector("text=Round 1 is seated")

    # Bo arrives late and checks in from his phone; the desk says how to seat him.
    bo.reload()
    bo.click("text=Check in for round 1")
    bo.wait_for_selector("text=You are checked in for round 1.")
    olga.goto(desk)
    olga.wait_for_selector("text=Bo is checked in for round 1 but not seated.")
    shot(olga, "club-night-late")
    olga.click("text=Seat Bo")
    olga.wait_for_selector("text=Bo is seated at table 1 of round 1.")
    assert olga.locator("#late-players").count() == 0
    shot(olga, "club-night-late-seated")
    olga.click("text=Begin round 1")
    olga.wait_for_selector("text=Round 1 has begun")
