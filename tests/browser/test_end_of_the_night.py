"""The end of a club night in a real browser (issue 20): a tiny 3-round bot tournament
with one forfeit, the projector updating while a round plays, the podium, the CSV export."""

from __future__ import annotations

import csv
import uuid
from typing import Any

from tests.browser.conftest import DESKTOP, PHONE, Harness, login, shot, wait_for_round


def _seat_and_begin(page: Any, number: int) -> None:
    page.check("#start-round-form input[name=auto_check_in]")
    page.click(f"text=Seat round {number}")
    page.wait_for_selector(f"text=Round {number} is seated")
    page.click(f"text=Begin round {number}")
    page.wait_for_selector(f"text=Round {number} has begun")


def test_a_three_round_night_with_a_forfeit_ends_on_the_podium(
    page: Any, browser: Any, server: str, harness: Harness
) -> None:
    tag = uuid.uuid4().hex[:6]
    setup = harness("organiser", tag=tag, bots=3)
    login(page, setup["username"], setup["password"])
    page.goto("/tournaments/new")
    page.fill("#id_name", f"Finale {tag}")
    page.select_option("#id_game", "bhabhi")
    page.fill("#id_rounds", "3")
    page.select_option("#id_series_kind", "losses")
    page.fill("#id_series_target", "1")
    page.click("text=Create the tournament")
    page.wait_for_selector("text=is open for registration")
    tournament = int(page.url.rstrip("/").split("/")[-2])
    manage = page.url
    for box in page.locator("#register-form input[type=checkbox]").all():
        box.check()
    page.click("text=Register the chosen players")
    page.wait_for_selector("text=Registered")

    # The projector, in a tab of its own, follows round 1 while it is played.
    harness("bots", delay=0.15)
    projector = browser.new_context(viewport=DESKTOP, base_url=server).new_page()
    projector.goto(f"/tournaments/{tournament}/projector")
    assert projector.locator("form, nav, button").count() == 0
    _seat_and_begin(page, 1)
    projector.wait_for_selector("#projector-round .table-card", timeout=20_000)
    before = int(projector.locator("[data-live]").get_attribute("data-refreshes") or "0")
    projector.wait_for_function(
        f"() => parseInt(document.querySelector('[data-live]').getAttribute('data-refreshes')"
        f" || '0', 10) > {before}",
        timeout=20_000,
    )
    shot(projector, "end-projector-playing-1280")
    wait_for_round(harness, tournament, 1, seconds=90)
    projector.wait_for_selector("text=Round 2 is next.", timeout=20_000)
    harness("bots", delay=0.02)

    # One player never really played round 1: the organiser forfeits their series.
    forfeited = setup["bots"][0]
    page.goto(manage)
    page.click(f'[aria-label="Forfeit {forfeited} in round 1"]')
    page.wait_for_selector("#question")
    shot(page, "end-confirm-forfeit")
    page.click("#confirm-form button[type=submit]")
    page.wait_for_selector(f"text={forfeited}'s series in round 1 is forfeited.")

    for number in (2, 3):
        page.goto(manage)
        _seat_and_begin(page, number)
        wait_for_round(harness, tournament, number, seconds=90)
    assert harness("tournament", tournament=tournament)["status"] == "finished"

    # The end of the night: the podium and the final standings, the badge says so.
    page.goto(f"/tournaments/{tournament}/")
    page.wait_for_selector("#podium")
    assert page.locator("#tournament-facts .badge").inner_text() == "finished"
    assert page.locator("#standings tr", has_text=forfeited).locator(".forfeit").count() == 1
    shot(page, "end-podium-1280")
    page.set_viewport_size(PHONE)
    shot(page, "end-podium-390")
    page.set_viewport_size(DESKTOP)
    with page.expect_download() as waiting:
        page.click("text=Standings as CSV")
    rows = list(csv.reader(open(waiting.value.path(), encoding="utf-8-sig")))  # noqa: SIM115
    assert rows[0][:3] == ["rank", "player", "points"]
    assert {r[1] for r in rows[1:]} == set(setup["bots"])
    marked = next(r for r in rows if r[1] == forfeited)
    assert marked[rows[0].index("forfeited_rounds")] == "1"

    # The desk of a finished tournament has no live controls.
    page.goto(manage)
    assert page.locator("text=Check everyone in for round").count() == 0
    assert page.locator("text=Give the seat back").count() == 0
    projector.goto(f"/tournaments/{tournament}/projector")
    projector.wait_for_selector("#podium")
    shot(projector, "end-projector-final-1280")
    projector.set_viewport_size(PHONE)
    shot(projector, "end-projector-final-390")
    projector.context.close()
