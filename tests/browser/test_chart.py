"""The standings chart of a 5-round tournament with ties: every line labelled and inside the
chart, tied lines side by side, at 1280 and 390 px."""

from __future__ import annotations

import uuid
from typing import Any

from tests.browser.conftest import DESKTOP, PHONE, Harness, shot

LABELS_INSIDE = """() => {
  const svg = document.querySelector('svg.chart');
  const box = svg.viewBox.baseVal;
  return [...svg.querySelectorAll('text.name')].every(t => {
    const b = t.getBBox();
    return b.x >= box.x && b.y >= box.y && b.x + b.width <= box.x + box.width
      && b.y + b.height <= box.y + box.height;
  });
}"""

#: For each player (by the name labelling their line), the points of their line.
POINTS = """() => Object.fromEntries([...document.querySelectorAll('svg.chart g.line')].map(g =>
  [g.querySelector('text.name').textContent,
   g.querySelector('polyline').getAttribute('points').split(' ')
     .map(p => p.split(',').map(Number))]))"""


def test_the_chart_of_a_five_round_tournament_with_ties(page: Any, harness: Harness) -> None:
    tag = uuid.uuid4().hex[:6]
    setup = harness("rounds", tag=tag, game="bhabhi", players=6, rounds=5)
    assert setup["ties"], "five rounds and no tie: the proof needs one"
    page.goto(f"/tournaments/{setup['tournament']}/")
    page.wait_for_selector("svg.chart")
    # Every player's line is labelled with their name, inside the chart.
    names = page.eval_on_selector_all("svg.chart text.name", "ts => ts.map(t => t.textContent)")
    assert sorted(names) == sorted(setup["players"])
    assert page.evaluate(LABELS_INSIDE)
    # Tied players' lines are side by side: at the round of a tie their points differ.
    lines = page.evaluate(POINTS)
    for number, _, tied in setup["ties"]:
        ys = [lines[name][number][1] for name in tied]
        assert len(set(ys)) == len(ys), (number, tied, ys)
    # Each line names its player on hover (its title) and stands out.
    line = page.locator("svg.chart g.line").first
    assert page.locator("svg.chart g.line title").count() == 6
    shot(page, "chart-five-rounds-ties")
    line.locator("text.name").hover()  # its name, or its line
    assert line.evaluate("g => getComputedStyle(g).opacity") == "1"
    other = page.locator("svg.chart g.line").nth(1)
    assert float(other.evaluate("g => getComputedStyle(g).opacity")) < 1
    shot(page, "chart-five-rounds-ties-hover")
    page.set_viewport_size(PHONE)
    assert page.evaluate(LABELS_INSIDE)
    assert page.evaluate("() => document.documentElement.scrollWidth - window.innerWidth") <= 0
    page.locator("svg.chart").scroll_into_view_if_needed()
    shot(page, "chart-five-rounds-ties-phone")
    page.set_viewport_size(DESKTOP)
