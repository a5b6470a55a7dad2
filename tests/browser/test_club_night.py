"""Issue 20's proof as one evening in a real browser, from an empty database: the first-run
page makes the club and its organiser; a sign-up link brings Ann and Bo in, and the organiser
hands Cy a login with a made-up password; they register and check in themselves; Bo arrives
late and is seated with one action; Cy never plays, so the clock hands his seat to a bot and
his series is forfeited; three rounds; the projector updates while a round plays; the podium;
the standings as CSV.  Screenshots (var/screenshots/evening-*) at 1280 and 390 px.

People's moves are Give Away's, every one of them forced: the server plays them for Ann and
Bo (the helper does what the worker's ``forced_move`` task does), while Cy turned that off on
his page and then never came back, so his turns run out on the clock.
"""

from __future__ import annotations

import csv
from collections.abc import Iterator
from typing import Any

import pytest

from tests.browser.conftest import (
    DESKTOP,
    PHONE,
    SCREENSHOTS,
    Harness,
    first_run,
    login,
    people_tabs,
    shot,
    sign_up,
    wait_for_round,
)

PASSWORD = "a long club night"
NIGHT = "Friday Night"


@pytest.fixture
def tabs(browser: Any, empty_evening: tuple[str, Harness]) -> Iterator[dict[str, Any]]:
    """Olga's and Ann's desktop tabs, Bo's and Cy's phones, the projector (cookies of their own)."""
    viewports = {"olga": DESKTOP, "ann": DESKTOP, "bo": PHONE, "cy": PHONE, "projector": DESKTOP}
    with people_tabs(browser, empty_evening[0], viewports) as made:
        yield made


def _sign_up(tab: Any, link: str, name: str, username: str) -> None:
    sign_up(tab, link, name, username, PASSWORD, "Hearts Club")


def _confirm(tab: Any, name: str) -> None:
    """Answer a confirmation page (a destructive action asks first), with its screenshot."""
    tab.wait_for_selector("#question")
    shot(tab, f"evening-confirm-{name}")
    tab.click("#confirm-form button[type=submit]")


def _series_offered(tab: Any) -> list[str]:
    """The series options the select shows for the chosen game (series.js hides the rest)."""
    return list(
        tab.eval_on_selector_all(
            "#id_series_kind option", "os => os.filter(o => !o.hidden).map(o => o.value)"
        )
    )


def test_one_club_night_from_an_empty_install_to_the_podium(
    tabs: dict[str, Any], empty_evening: tuple[str, Harness]
) -> None:
    _, harness = empty_evening
    olga, ann, bo, cy, projector = (tabs[k] for k in ("olga", "ann", "bo", "cy", "projector"))

    # -- the club and its organiser, on the first-run page --------------------------------
    olga.goto("/")
    olga.wait_for_selector("text=this install has no club yet")
    shot(olga, "evening-empty-home-1280")
    first_run(olga, "Hearts Club", "olga", PASSWORD, "evening-first-run-1280")
    people = olga.url

    # -- the people: a sign-up link for Ann and Bo, a login handed to Cy ------------------
    olga.click("text=Make a sign-up link")
    olga.wait_for_selector("text=The sign-up link is on.")
    link = olga.input_value("#signup-url")
    _sign_up(ann, link, "Ann", "ann")
    _sign_up(bo, link, "Bo", "bo")
    shot(bo, "evening-joined-390")
    olga.goto(people)
    olga.fill("#new-login-form input[name=name]", "Cy")
    olga.fill("#new-login-form input[name=username]", "cy")
    olga.click("text=Create the player and login")
    handed = olga.inner_text("[data-password]")
    shot(olga, "evening-people-1280")
    login(cy, "cy", handed)
    cy.goto("/me/")
    cy.uncheck("#preferences input[name=play_forced_moves]")
    cy.click("#preferences button[type=submit]")
    cy.wait_for_selector("#preferences [role=status]")

    # -- the tournament: the form offers only the series the chosen game allows ------------
    olga.goto("/tournaments/new")
    olga.select_option("#id_game", "old_maid")
    assert _series_offered(olga) == ["", "losses"]
    olga.select_option("#id_game", "give_away")
    assert _series_offered(olga) == ["", "first_to"]
    olga.fill("#id_name", NIGHT)
    olga.fill("#id_rounds", "3")
    olga.select_option("#id_series_kind", "first_to")
    olga.fill("#id_series_target", "2")  # a round long enough to watch it play
    olga.fill("#id_turn_seconds", "2")
    olga.fill("#id_first_turn_grace", "0")
    olga.fill("#id_timeouts_to_bot", "1")
    assert olga.is_checked("#id_timeout_forfeits")  # the no-show rule is on by default
    shot(olga, "evening-new-tournament-1280")
    olga.click("text=Create the tournament")
    olga.wait_for_selector("text=is open for registration")
    desk = olga.url
    page = desk.replace("/manage", "/")
    tournament = int(desk.rstrip("/").split("/")[-2])
    olga.fill("#new-player-form input[name=name]", "Robot")
    olga.select_option("#new-player-form select[name=bot_level]", "random")
    olga.click("text=Add and register")
    olga.wait_for_selector("text=Added Robot")

    # -- they register and check in themselves; Bo does not check in yet -------------------
    for tab in (ann, bo, cy):
        tab.goto(page)
        tab.click(f"text=Register for {NIGHT}")
        tab.wait_for_selector(f"text=You are registered in {NIGHT}.")
    for tab in (ann, cy):
        tab.click("text=Check in for round 1")
        tab.wait_for_selector("text=You are checked in for round 1.")
    shot(bo, "evening-registered-390")

    # -- seating warns about Bo; he arrives late and is seated with one action -------------
    olga.goto(desk)
    olga.uncheck("#id_auto_check_in")
    olga.click("text=Seat round 1")
    olga.wait_for_selector("#seating-check")
    assert "Bo" in olga.inner_text("#seating-check")
    shot(olga, "evening-seating-check-1280")
    olga.click("text=Seat round 1 without them")
    olga.wait_for_selector("text=Round 1 is seated")
    bo.reload()
    bo.click("text=Check in for round 1")
    bo.wait_for_selector("text=You are checked in for round 1.")
    olga.goto(desk)
    olga.wait_for_selector("text=Bo is checked in for round 1 but not seated.")
    shot(olga, "evening-late-1280")
    olga.click("text=Seat Bo")
    olga.wait_for_selector("text=Bo is seated at table 1 of round 1.")
    assert olga.locator("#late-players").count() == 0
    shot(olga, "evening-late-seated-1280")

    # -- round 1 plays while the projector follows it --------------------------------------
    projector.goto(f"/tournaments/{tournament}/projector")
    assert projector.locator("form, nav, button").count() == 0
    # Slow bots while the projector is watched, so that the round is still being played.
    harness("bots", delay=1.5, forced=True, clock=True)
    olga.click("text=Begin round 1")
    olga.wait_for_selector("text=Round 1 has begun")
    playing = "#projector-round h2 .badge.playing"  # the round's badge
    projector.wait_for_selector(playing)
    before = int(projector.locator("[data-live]").get_attribute("data-refreshes") or "0")
    projector.wait_for_function(  # a new fragment, and the round still being played
        "([before, playing]) => parseInt(document.querySelector('[data-live]')"
        ".getAttribute('data-refreshes') || '0', 10) > before"
        " && document.querySelector(playing) !== null",
        arg=[before, playing],
    )
    shot(projector, "evening-projector-playing-1280")
    harness("bots", delay=0.05)
    wait_for_round(harness, tournament, 1)
    projector.wait_for_selector("text=Round 2 is next.")
    shot(projector, "evening-projector-between-rounds-1280")

    # Cy never played: the clock gave his seat to a bot and his series is forfeited.
    seats = harness("seats", tournament=tournament)["seats"]
    assert {s["player"] for s in seats} == {"Ann", "Bo", "Cy", "Robot"}
    assert [s["autoplay"] for s in seats if s["player"] == "Cy"] == [True]
    assert not any(s["autoplay"] for s in seats if s["player"] in ("Ann", "Bo"))
    ann.goto(page)
    cy_row = ann.locator("#standings tr", has_text="Cy")
    assert "forfeit" in cy_row.locator(".forfeit").inner_text()
    shot(ann, "evening-standings-after-round-1-1280")

    # -- between rounds Olga drops Cy (a drop asks first); rounds 2 and 3 ------------------
    olga.goto(desk)
    olga.click('[aria-label="Drop Cy"]')
    _confirm(olga, "drop")
    olga.wait_for_selector("text=Cy has dropped out of Friday Night.")
    harness("bots", delay=0.02)
    for number in (2, 3):
        olga.goto(desk)
        olga.check("#start-round-form input[name=auto_check_in]")
        olga.click(f"text=Seat round {number}")
        olga.wait_for_selector(f"text=Round {number} is seated")
        olga.click(f"text=Begin round {number}")
        olga.wait_for_selector(f"text=Round {number} has begun")
        wait_for_round(harness, tournament, number)
    assert harness("tournament", tournament=tournament)["status"] == "finished"

    # -- the end of the night: the podium, the CSV, a desk without live controls -----------
    # Ann's page, open since round 1, turns to the podium and "finished" by itself.
    ann.wait_for_selector("#tournament-facts .badge.finished")
    ann.wait_for_selector("#podium")
    assert ann.locator("#tournament-facts .badge").inner_text() == "finished"
    assert "running" not in ann.inner_text("#tournament-facts")
    standings = ann.locator("#standings tr", has_text="Cy")
    assert standings.locator(".forfeit").count() == 1
    assert standings.locator("text=dropped").count() == 1
    shot(ann, "evening-podium-1280")
    bo.goto(page)
    bo.wait_for_selector("#podium")
    shot(bo, "evening-podium-390")
    with ann.expect_download() as waiting:
        ann.click("text=Standings as CSV")
    rows = list(csv.reader(open(waiting.value.path(), encoding="utf-8-sig")))  # noqa: SIM115
    assert rows[0][:3] == ["rank", "player", "points"]
    assert {r[1] for r in rows[1:]} == {"Ann", "Bo", "Cy", "Robot"}
    cy_csv = next(r for r in rows if r[1] == "Cy")
    assert cy_csv[rows[0].index("forfeited_rounds")] == "1"
    # The seating prints one round a page, without the site's header, forms or buttons.
    ann.emulate_media(media="print")
    breaks = ann.eval_on_selector_all(
        "article.round", "rounds => rounds.map(r => getComputedStyle(r).breakAfter)"
    )
    assert breaks == ["page", "page", "auto"]
    assert ann.locator("header.site").is_hidden() and ann.locator("form").first.is_hidden()
    printed = ann.pdf(path=str(SCREENSHOTS / "evening-printed.pdf"))
    assert printed.count(b"/Type /Page") - printed.count(b"/Type /Pages") >= len(breaks)
    ann.emulate_media(media="screen")
    olga.goto(desk)
    assert olga.locator("text=Check everyone in for round").count() == 0
    assert olga.locator("text=Give the seat back").count() == 0
    shot(olga, "evening-desk-finished-1280")
    projector.goto(f"/tournaments/{tournament}/projector")
    projector.wait_for_selector("#podium")
    shot(projector, "evening-projector-final-1280")
    projector.set_viewport_size(PHONE)
    shot(projector, "evening-projector-final-390")
