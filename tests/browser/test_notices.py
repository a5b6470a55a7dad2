"""'Your game has started': a player on another page is told, with a link, when their game is
dealt; with alerts on, the browser's notification and a sound too."""

from __future__ import annotations

import uuid
from typing import Any

from tests.browser.conftest import DESKTOP, PHONE, Harness, login, shot


def test_a_player_s_notice_arrives_while_they_are_on_another_page(
    browser: Any, server: str, harness: Harness
) -> None:
    tag = uuid.uuid4().hex[:6]
    setup = harness("play", tag=tag, game="bhabhi", begin=False)
    context = browser.new_context(viewport=DESKTOP, base_url=server, permissions=["notifications"])
    context.set_default_timeout(15_000)
    tab = context.new_page()
    errors: list[str] = []
    tab.on("pageerror", lambda error: errors.append(str(error)))
    login(tab, setup["username"], setup["password"])
    # The player waits on the tournament's page: nothing to tell yet.
    tab.goto(f"/tournaments/{setup['tournament']}/")
    toggle = tab.locator("[data-notify-toggle]")
    toggle.wait_for(state="visible")
    assert toggle.inner_text() == "Alerts: off"
    toggle.click()
    assert toggle.inner_text() == "Alerts: on"
    assert toggle.get_attribute("aria-pressed") == "true"
    assert tab.locator("#notices").is_hidden()
    game = harness("begin", tournament=setup["tournament"])["tables"][0]["game"]
    # The notice arrives on the page the player has open, without a reload.
    notice = tab.locator("#notices [data-notice]").first
    notice.wait_for(state="visible", timeout=20_000)
    said = notice.inner_text()
    assert "Your game has started" in said or "Your move" in said, said
    assert f"game {game}" in said
    link = notice.locator("[data-notice-link]")
    assert link.get_attribute("href") == f"/games/{game}/play"
    # Alerts are on and the browser allows notifications: one was shown, with a sound.
    tab.wait_for_function(
        "() => +document.getElementById('notices').dataset.notified >= 1"
        " && +document.getElementById('notices').dataset.sounded >= 1"
    )
    shot(tab, "notice-game-started")
    tab.set_viewport_size(PHONE)
    assert tab.evaluate("() => document.documentElement.scrollWidth - window.innerWidth") <= 0
    shot(tab, "notice-game-started-phone")
    tab.set_viewport_size(DESKTOP)
    # The link opens the game; there its own notice is not shown again.
    link.click()
    tab.wait_for_selector("#play")
    assert tab.url.endswith(f"/games/{game}/play")
    tab.wait_for_function("() => document.getElementById('notices').dataset.notices !== undefined")
    assert tab.locator(f"#notices [data-notice^='{game}:']").count() == 0
    # Elsewhere again (their own page): its start is told no more, but once the bots have
    # played up to the player, the game waiting for their move is.
    tab.goto("/me/")
    turn = tab.locator(f"#notices [data-notice^='{game}:turn:']")
    turn.wait_for(state="visible", timeout=30_000)
    assert "Your move" in turn.inner_text()
    assert tab.locator(f"#notices [data-notice='{game}:start']").count() == 0
    shot(tab, "notice-your-move")
    # Closed, it stays closed on the next polls.
    polls = int(tab.get_attribute("#notices", "data-polls") or "0")
    turn.locator("button").click()
    # The answers after the click (data-polls counts them; two, so that one surely came
    # after it) must not bring it back.
    tab.wait_for_function(
        "n => +document.getElementById('notices').dataset.polls > n + 1", arg=polls, timeout=30_000
    )
    assert tab.locator(f"#notices [data-notice^='{game}:turn:']").count() == 0
    context.close()
    assert not errors, f"JavaScript errors on the page: {errors}"
