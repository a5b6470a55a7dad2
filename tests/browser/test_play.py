"""Playing: a person logs in and plays a whole game of each kind by clicking; bots play the rest."""

from __future__ import annotations

import uuid
from typing import Any

import pytest

from tests.browser.conftest import DESKTOP, PHONE, Harness, login, shot

#: Clicks a person makes at most in one game (Bhabhi at 3 takes about 20, Give Away 1 to 5).
MOST_CLICKS = 300

READY = (
    "() => { const p = document.querySelector('#play'); if (!p) return false;"
    " if (p.dataset.status === 'over') return true;"
    " return p.dataset.waiting === 'true'"
    " && !!p.querySelector('[data-action]:not([data-optional]):not([disabled])'); }"
)


def play_to_the_end(tab: Any, name: str) -> int:
    """Click the first action the game waits for until it is over; the number of clicks."""
    clicks = 0
    while clicks < MOST_CLICKS:
        try:
            tab.wait_for_function(READY, timeout=20_000)
        except Exception as error:
            shot(tab, f"play-{name}-stuck")
            html = tab.inner_html("#play")[:3000] if tab.locator("#play").count() else ""
            raise AssertionError(f"{name}: stuck after {clicks} clicks:\n{html}") from error
        play = tab.locator("#play")
        if play.get_attribute("data-status") == "over":
            return clicks
        sequence = play.get_attribute("data-sequence")
        if clicks == 1:
            shot(tab, f"play-{name}")
            tab.set_viewport_size(PHONE)
            shot(tab, f"play-{name}-phone")
            tab.set_viewport_size(DESKTOP)
        tab.locator("#play [data-action]:not([data-optional])").first.click()
        clicks += 1
        try:
            tab.wait_for_function(
                "s => { const p = document.querySelector('#play');"
                " return p && (p.dataset.sequence !== s || p.dataset.status === 'over'); }",
                arg=sequence,
                timeout=20_000,
            )
        except Exception as error:
            shot(tab, f"play-{name}-stuck")
            html = tab.inner_html("#play")[:3000] if tab.locator("#play").count() else ""
            raise AssertionError(f"{name}: no move after click {clicks}:\n{html}") from error
    raise AssertionError(f"{name}: still not over after {MOST_CLICKS} clicks")


@pytest.mark.parametrize("kind", ["give_away", "old_maid", "bhabhi", "give_and_take"])
def test_a_person_plays_a_whole_game_by_clicking(page: Any, harness: Harness, kind: str) -> None:
    tag = uuid.uuid4().hex[:6]
    setup = harness("play", tag=tag, game=kind)
    login(page, setup["username"], setup["password"])
    page.goto("/me/")
    page.click("[data-play-link]")
    page.wait_for_selector("#play")
    assert page.url.endswith(f"/games/{setup['game']}/play")
    # Their own cards are shown to them only, the table is live, the clock runs.
    assert page.locator(".seat.me").count() == 1
    # live.js marks the stream open once it runs, after the deferred JavaScript catalog.
    page.wait_for_selector("[data-live][data-streams='1']", state="attached", timeout=15_000)
    assert page.get_attribute("[data-live]", "data-streams") == "1"
    # The game followed over the page's WebSocket, the push channel, signed in as the seat.
    assert page.get_attribute("[data-live]", "data-pushed") == "1"
    page.wait_for_selector("html[data-push='open']", state="attached")
    if page.locator("#play").get_attribute("data-waiting") == "true":
        assert page.locator(".your-move .clock").count() == 1
    clicks = play_to_the_end(page, kind)
    assert clicks >= 1
    state = harness("game", game=setup["game"])
    assert state["status"] == "over"
    assert page.locator("[data-result]").inner_text().strip() != ""
    shot(page, f"play-{kind}-over")
    # The finished game's replay is linked from the play page.
    page.click("text=Replay this game")
    page.wait_for_selector("[data-replay]")
