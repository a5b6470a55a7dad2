"""Watching: a bot game advances live on the home page and the table page, with no reload."""

from __future__ import annotations

import uuid
from typing import Any

import pytest

from tests.browser.conftest import Harness, shot

NO_RELOAD_MARK = "window.__parlourNoReload = 'still here'"


def _sequence(tab: Any, game: int) -> int:
    return int(tab.get_attribute(f'.felt[data-game-id="{game}"]', "data-sequence"))


def _advances(tab: Any, game: int, moves: int = 3) -> tuple[int, int]:
    """Wait until ``game``'s table on the page shows ``moves`` more moves; before and after."""
    before = _sequence(tab, game)
    tab.wait_for_function(
        "([game, want]) => { const t = document.querySelector(`.felt[data-game-id='${game}']`);"
        " return t && (Number(t.dataset.sequence) >= want || t.classList.contains('over')); }",
        arg=[game, before + moves],
        timeout=30_000,
    )
    return before, _sequence(tab, game)


@pytest.mark.parametrize("transport", ["push", "sse"])
def test_a_bot_game_advances_live_on_the_home_page_and_the_table_page(
    page: Any, harness: Harness, transport: str
) -> None:
    """The table page follows its game over the push channel (the page's WebSocket);
    a browser without WebSockets (or a proxy that drops them) follows it over SSE."""
    if transport == "sse":
        page.add_init_script("delete window.WebSocket")
    harness("bots", delay=0.3)
    try:
        tag = uuid.uuid4().hex[:6]
        setup = harness("watch", tag=tag)
        table, game = setup["tables"][0]["table"], setup["tables"][0]["game"]

        page.goto("/")
        page.wait_for_selector(f'.felt[data-game-id="{game}"]')
        page.evaluate(NO_RELOAD_MARK)
        assert page.locator(f"text=Live {tag}").count() == 1
        before, after = _advances(page, game)
        assert after > before
        assert page.evaluate("window.__parlourNoReload") == "still here"
        assert int(page.get_attribute("[data-live]", "data-refreshes") or 0) >= 1
        # Every card drawn has a spoken name.
        labels = page.eval_on_selector_all(
            f'.felt[data-game-id="{game}"] .card:not(.back):not(.slot)',
            "cards => cards.map(c => c.getAttribute('aria-label'))",
        )
        assert all(" of " in label for label in labels)
        shot(page, "home-live")

        page.goto(f"/tables/{table}/")
        page.wait_for_selector(f'.felt[data-game-id="{game}"]')
        page.evaluate(NO_RELOAD_MARK)
        # The game's stream, followed over the socket or (no WebSocket) as SSE.
        page.wait_for_selector("[data-live][data-streams='1']", state="attached")
        pushed = "1" if transport == "push" else "0"
        assert page.get_attribute("[data-live]", "data-pushed") == pushed
        if transport == "push":
            page.wait_for_selector("html[data-push='open']", state="attached")
        before, after = _advances(page, game)
        assert after > before
        assert page.get_attribute("html", "data-push") == ("open" if transport == "push" else None)
        assert page.evaluate("window.__parlourNoReload") == "still here"
        log = page.locator(".log li").first.inner_text()
        assert "Bot" in log
        shot(page, "table-live")
    finally:
        harness("bots", delay=0.05)


def test_the_standings_page_shows_the_tables_and_standings_of_a_running_tournament(
    page: Any, phone: Any, harness: Harness
) -> None:
    tag = uuid.uuid4().hex[:6]
    setup = harness("finished", tag=tag, game="give_away", players=3)
    page.goto(f"/tournaments/{setup['tournament']}/")
    rows = page.locator("#standings tbody tr")
    assert rows.count() == 3
    assert page.locator("svg.chart").count() == 1
    assert page.locator("#standings thead th", has_text="R1").count() == 1
    assert "Table 1" in page.inner_text("#rounds-title + article")
    shot(page, "tournament-standings")
    phone.goto(f"/tournaments/{setup['tournament']}/")
    assert phone.locator("#standings").is_visible()
    shot(phone, "tournament-standings-phone")
    phone.goto("/")
    shot(phone, "home-phone")
