"""The log tells the story: a Bhabhi replay names every pickup; a double tap on the play page
makes one move and loses nothing; long names never widen a page."""

from __future__ import annotations

import uuid
from typing import Any

from tests.browser.conftest import DESKTOP, PHONE, Harness, login, shot
from tests.browser.test_play import READY

WIDER = "() => document.documentElement.scrollWidth - window.innerWidth"


def test_a_bhabhi_replay_names_every_pickup_with_its_count(page: Any, harness: Harness) -> None:
    tag = uuid.uuid4().hex[:6]
    setup = harness("finished", tag=tag, game="bhabhi", players=4, least=30)
    game = setup["games"][-1]
    pickups = harness("pickups", game=game["id"])["pickups"]
    assert pickups, "the deal had no pickup to tell"
    page.goto(f"/games/{game['id']}/replay")
    page.wait_for_selector("[data-replay][data-ready=true]")
    for pickup in pickups:
        said = page.inner_text(f"#move-{pickup['move']}")
        assert pickup["text"] in said, (pickup, said)
    # The end says why: one player is left with cards.
    assert "is the Bhabhi" in page.inner_text(f"#move-{game['moves']}")
    assert page.evaluate(WIDER) <= 0
    shot(page, "story-replay-bhabhi")
    page.set_viewport_size(PHONE)
    assert page.evaluate(WIDER) <= 0
    shot(page, "story-replay-bhabhi-phone")
    page.set_viewport_size(DESKTOP)


def test_the_replay_without_javascript_shows_no_slider_or_play_button(
    browser: Any, server: str, harness: Harness
) -> None:
    tag = uuid.uuid4().hex[:6]
    game = harness("finished", tag=tag, game="old_maid", players=3)["games"][-1]
    context = browser.new_context(viewport=DESKTOP, base_url=server, java_script_enabled=False)
    tab = context.new_page()
    tab.goto(f"/games/{game['id']}/replay")
    assert not tab.locator("[data-slider]").is_visible()
    assert not tab.locator("[data-autoplay]").is_visible()
    assert tab.locator("[data-step=next]").is_visible()
    context.close()


def test_a_double_tap_on_the_play_page_makes_one_move_and_loses_nothing(
    page: Any, phone: Any, harness: Harness
) -> None:
    tag = uuid.uuid4().hex[:6]
    setup = harness("play", tag=tag, game="bhabhi")
    login(page, setup["username"], setup["password"])
    page.goto(f"/games/{setup['game']}/play")
    page.wait_for_function(READY, timeout=20_000)
    me = page.locator("#play .seat.me").get_attribute("data-seat")
    before = harness("pickups", game=setup["game"])["seat_moves"][int(me)]
    sequence = page.locator("#play").get_attribute("data-sequence")
    # The playable cards are in the hand's order: suit, then rank.
    cards = page.eval_on_selector_all(
        "#play .hand-actions [data-card]", "els => els.map(e => e.dataset.card)"
    )
    hand = page.eval_on_selector_all(
        "#play .seat.me [data-card]", "els => els.map(e => e.dataset.card)"
    )
    assert cards == [c for c in hand if c in cards], (cards, hand)
    shot(page, "story-play-bhabhi")
    page.locator("#play [data-action]:not([data-optional])").first.dblclick()
    page.wait_for_function(
        "s => { const p = document.querySelector('#play');"
        " return p && (p.dataset.sequence !== s || p.dataset.status === 'over'); }",
        arg=sequence,
        timeout=20_000,
    )
    page.wait_for_timeout(500)
    after = harness("pickups", game=setup["game"])["seat_moves"][int(me)]
    assert after == before + 1
    assert page.locator("[data-inline-flash]").is_hidden(), page.inner_text("[data-inline-flash]")
    assert page.evaluate(WIDER) <= 0
    # On a phone, the same page keeps to the screen.
    login(phone, setup["username"], setup["password"])
    phone.goto(f"/games/{setup['game']}/play")
    phone.wait_for_selector("#play")
    assert phone.evaluate(WIDER) <= 0
    shot(phone, "story-play-bhabhi-phone")


def test_the_longest_names_widen_no_page_and_show_whole_on_hover(
    page: Any, phone: Any, harness: Harness
) -> None:
    tag = uuid.uuid4().hex[:6]
    # The longest a player's name (80) and a tournament's (120) may be, without a space.
    name = ("Maximiliana" * 8)[:74] + tag
    title = ("Championship" * 10)[:114] + tag
    setup = harness("play", tag=tag, game="bhabhi", name=name, title=title)
    game, table, tournament = setup["game"], setup["table"], setup["tournament"]
    paths = [
        "/me/",
        f"/tournaments/{tournament}/",
        f"/tables/{table}/",
        f"/games/{game}/",
        f"/games/{game}/play",
        f"/players/{setup['player']}/",
    ]
    for tab, size in ((page, "desktop"), (phone, "phone")):
        login(tab, setup["username"], setup["password"])
        for path in paths:
            tab.goto(path)
            tab.wait_for_load_state("load")
            assert tab.evaluate(WIDER) <= 0, (size, path, tab.evaluate(WIDER))
        # A seat cuts the name with an ellipsis; its title holds it whole.
        tab.goto(f"/games/{game}/play")
        tab.wait_for_selector("#play .seat.me")
        assert tab.get_attribute("#play .seat.me .long-name", "title") == name
        shot(tab, f"story-long-name-{size}")
