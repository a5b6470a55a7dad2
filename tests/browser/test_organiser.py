"""The organiser's flow: create a tournament, register and check in, seat, adjust, begin,
watch the tables play, see the standings after round 1, drop a player."""

from __future__ import annotations

import uuid
from typing import Any

from tests.browser.conftest import Harness, login, shot


def _tables(tab: Any) -> dict[str, int]:
    """Player name → table number in the seated round shown on the organiser's page."""
    found = {}
    for card in tab.locator("[data-live] .table-card").all():
        number = int(card.get_attribute("data-table"))
        for item in card.locator("ol.seating li").all():
            found[item.inner_text().split(" D")[0].strip()] = number
    return found


def test_an_organiser_runs_round_one_from_creation_to_standings(
    page: Any, harness: Harness
) -> None:
    tag = uuid.uuid4().hex[:6]
    setup = harness("organiser", tag=tag, bots=5)
    login(page, setup["username"], setup["password"])

    page.goto("/tournaments/new")
    page.fill("#id_name", f"Cup {tag}")
    page.select_option("#id_game", "give_away")
    page.fill("#id_rounds", "2")
    page.select_option("#id_series_kind", "first_to")
    page.fill("#id_series_target", "1")
    page.fill("#id_table_min", "2")
    page.fill("#id_table_max", "3")
    shot(page, "organiser-create")
    page.click("text=Create the tournament")
    page.wait_for_selector("text=is open for registration")
    manage = page.url
    tournament = int(manage.rstrip("/").split("/")[-2])

    # Register the club's players, and a new one made on the spot.
    for box in page.locator("#register-form input[type=checkbox]").all():
        box.check()
    page.click("text=Register the chosen players")
    page.wait_for_selector("text=Registered")
    page.fill("#new-player-form input[name=name]", f"Late {tag}")
    page.select_option("#new-player-form select[name=bot_level]", "random")
    page.click("text=Add and register")
    page.wait_for_selector(f"text=Added Late {tag}")
    assert page.locator("table.registrations tbody tr").count() == 6
    page.click("text=Check everyone in for round 1")
    page.wait_for_selector("text=Checked in")

    # Seat round 1, look at the seating, swap two players of different tables.
    page.click("text=Seat round 1")
    page.wait_for_selector("text=Round 1 is seated")
    seating = _tables(page)
    assert sorted(seating.values()).count(1) == 3 and sorted(seating.values()).count(2) == 3
    shot(page, "organiser-seated")
    a = next(name for name, t in seating.items() if t == 1)
    b = next(name for name, t in seating.items() if t == 2)
    page.select_option("#swap-form select[name=a]", label=a)
    page.select_option("#swap-form select[name=b]", label=b)
    page.click("#swap-form button")
    page.wait_for_selector(f"text=Swapped {a} and {b}")
    swapped = _tables(page)
    assert swapped[a] == 2 and swapped[b] == 1

    # Begin: the bots play; the organiser's page and the standings follow live.
    page.click("text=Begin round 1")
    page.wait_for_selector("text=Round 1 has begun")
    shot(page, "organiser-playing")
    page.goto(f"/tournaments/{tournament}/")
    page.wait_for_selector("[data-live]")
    page.wait_for_function(
        "() => document.querySelectorAll('#standings thead th').length > 0"
        # The round's own badge (its heading's), not one of its tables'.
        " && [...document.querySelectorAll('.round h3 .badge')]"
        ".some(b => b.textContent === 'finished')",
        timeout=60_000,
    )
    # The chart is drawn once the standings are in; a loaded machine takes longer than
    # the 15 s default (tests/browser/conftest.py).
    page.wait_for_selector("svg.chart", timeout=60_000)
    rows = page.locator("#standings tbody tr")
    assert rows.count() == 6
    points = [float(r.locator("td.num").first.inner_text()) for r in rows.all()]
    assert sum(points) == 3.0  # two tables of 3 hand out 1.5 points each
    shot(page, "organiser-standings-round-1")
    state = harness("tournament", tournament=tournament)
    assert state["rounds"] == [{"number": 1, "status": "finished"}]

    # Between rounds a player drops out; the standings keep them, marked.
    page.goto(manage)
    page.click(f'[aria-label="Drop Late {tag}"]')
    page.wait_for_selector("#question")  # a drop asks first
    shot(page, "organiser-confirm-drop")
    page.click("#confirm-form button[type=submit]")
    page.wait_for_selector(f"text=Late {tag} has dropped out")
    page.goto(f"/tournaments/{tournament}/")
    assert page.locator("#standings tr.dropped", has_text=f"Late {tag}").count() == 1
