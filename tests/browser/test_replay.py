"""Replays: step forward and back through a finished game, jump to a move, link to it, autoplay."""

from __future__ import annotations

import uuid
from typing import Any

from tests.browser.conftest import Harness, shot


def _move(tab: Any) -> int:
    return int(tab.get_attribute("[data-replay]", "data-move"))


def _wait_move(tab: Any, n: int) -> None:
    tab.wait_for_function(
        "n => document.querySelector('#replay-board .fragment')?.dataset.move === String(n)",
        arg=n,
    )


def test_a_finished_game_replays_move_by_move_with_every_card_shown(
    page: Any, phone: Any, harness: Harness
) -> None:
    tag = uuid.uuid4().hex[:6]
    setup = harness("finished", tag=tag, game="bhabhi", players=3, least=14)
    game = setup["games"][-1]
    assert game["status"] == "over"
    total = game["moves"]
    assert total > 10

    page.goto(f"/games/{game['id']}/replay?move=0")
    page.wait_for_selector("[data-replay][data-ready=true]")
    # The deal: all 52 cards face up, each with its name.
    faces = page.locator("#replay-board .card:not(.back):not(.slot)")
    assert faces.count() == 52
    assert page.locator('#replay-board [aria-label="ace of spades"]').count() == 1
    assert "The deal" in page.inner_text("#replay-board .current")
    shot(page, "replay-deal")

    page.click("[data-step=next]")
    _wait_move(page, 1)
    assert "move=1" in page.url and page.url.endswith("#move-1")
    page.click("[data-step=next]")
    _wait_move(page, 2)
    page.click("[data-step=prev]")
    _wait_move(page, 1)
    page.keyboard.press("ArrowRight")
    _wait_move(page, 2)
    assert page.inner_text("[data-move-label]") == f"2 / {total}"

    # Jump to a move from the list; it is marked as the current one.
    page.click("#move-8 a")
    _wait_move(page, 8)
    assert page.get_attribute("#move-8", "aria-current") == "step"
    assert "Move 8 of" in page.inner_text("#replay-board .current")

    page.click("[data-step=last]")
    _wait_move(page, total)
    assert page.locator("#replay-board .result-line").count() == 1
    shot(page, "replay-end")

    # A link to a move: #move-N opens that move; ?move=N is served as it.
    page.goto(f"/games/{game['id']}/replay#move-5")
    _wait_move(page, 5)
    page.goto(f"/games/{game['id']}/replay?move=6")
    assert "Move 6 of" in page.inner_text("#replay-board .current")

    # Autoplay goes on by itself, and pauses.
    page.select_option("[data-speed]", "200")
    page.click("[data-autoplay]")
    page.wait_for_function(
        "() => Number(document.querySelector('[data-replay]').dataset.move) >= 9"
    )
    page.click("[data-autoplay]")
    paused = _move(page)
    page.wait_for_timeout(600)
    assert _move(page) == paused
    assert page.get_attribute("[data-autoplay]", "aria-pressed") == "false"

    phone.goto(f"/games/{game['id']}/replay?move=12")
    shot(phone, "replay-phone")


def test_a_replay_follows_one_seat_s_point_of_view_from_the_selector(
    page: Any, phone: Any, harness: Harness
) -> None:
    tag = uuid.uuid4().hex[:6]
    setup = harness("finished", tag=tag, game="bhabhi", players=3, least=14)
    game = setup["games"][-1]
    page.goto(f"/games/{game['id']}/replay?move=0")
    page.wait_for_selector("[data-replay][data-ready=true]")
    page.select_option("#replay-seat", "2")
    page.click("[data-point-of-view] button[type=submit]")
    page.wait_for_selector("[data-seat-view]")
    assert "seat=2" in page.url
    # The deal as seat 2 saw it: its own 17 or 18 cards face up, the others' face down
    # (beside the seats, the note names the card the leader must lead: A♠, in sight).
    assert page.locator("#replay-board .seat.me").get_attribute("data-seat") == "1"
    faces = page.locator("#replay-board .seat .card:not(.back):not(.slot)")
    assert faces.count() in (17, 18)
    others = page.locator("#replay-board .card:not(.back):not(.slot):not(.seat .card)")
    assert others.count() == 0 or others.first.get_attribute("aria-label") == "ace of spades"
    assert page.locator("#replay-board .seat.me .card:not(.back)").count() == faces.count()
    assert page.locator("#replay-board .seat:not(.me) .card:not(.back):not(.slot)").count() == 0
    # Steps keep the point of view, in the address and in what they fetch.
    page.click("[data-step=next]")
    _wait_move(page, 1)
    assert "seat=2&move=1" in page.url
    page.click("#move-5 a")
    _wait_move(page, 5)
    assert page.locator("#replay-board .seat.me").count() == 1
    assert page.input_value("[data-point-of-view] [name=move]") == "5"
    shot(page, "replay-seat-view")
    # Back to every card, at the same move.
    page.select_option("#replay-seat", "all")
    page.click("[data-point-of-view] button[type=submit]")
    page.wait_for_selector("[data-replay][data-ready=true]")
    assert page.locator("[data-seat-view]").count() == 0
    assert "Move 5 of" in page.inner_text("#replay-board .current")
    phone.goto(f"/games/{game['id']}/replay?seat=2&move=5")
    shot(phone, "replay-seat-view-phone")


def test_the_replay_s_script_speaks_russian_to_a_russian_browser(
    browser: Any, server: str, harness: Harness
) -> None:
    # The autoplay button's words are written by replay.js from the JavaScript catalog.
    tag = uuid.uuid4().hex[:6]
    setup = harness("finished", tag=tag, game="old_maid", players=3, least=6)
    game = setup["games"][-1]
    context = browser.new_context(base_url=server, locale="ru-RU")
    context.set_default_timeout(15_000)
    tab = context.new_page()
    errors: list[str] = []
    tab.on("pageerror", lambda error: errors.append(str(error)))
    try:
        tab.goto(f"/games/{game['id']}/replay?move=0")
        tab.wait_for_selector("[data-replay][data-ready=true]")
        assert tab.inner_text("[data-autoplay]") == "▶ Пуск"
        assert "Сдача" in tab.inner_text("#replay-board .current")
        tab.select_option("[data-speed]", "200")
        tab.click("[data-autoplay]")
        tab.wait_for_selector("[data-autoplay][aria-pressed=true]")
        assert tab.inner_text("[data-autoplay]") == "❚❚ Пауза"
        tab.click("[data-autoplay]")
        assert tab.inner_text("[data-autoplay]") == "▶ Пуск"
        shot(tab, "replay-ru")
    finally:
        context.close()
    assert not errors, f"JavaScript errors on the page: {errors}"
