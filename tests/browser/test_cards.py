"""Cards readable at every size on a phone (the ``phone`` tab: 390 px) and a desktop: the
discard pile's ranks whole, Give & Take's duet cards as big as the table's other small cards."""

from __future__ import annotations

import uuid
from typing import Any

from tests.browser.conftest import Harness, shot

#: Each card's rank and suit inside its card, and their text not wider than the box.
CLIPPED = """sel => [...document.querySelectorAll(sel)].filter(card => {
  const box = card.getBoundingClientRect();
  return [...card.querySelectorAll('.rank, .suit')].some(part => {
    const b = part.getBoundingClientRect();
    return part.scrollWidth > part.clientWidth + 1 || b.left < box.left - 0.5
      || b.right > box.right + 0.5 || b.top < box.top - 0.5 || b.bottom > box.bottom + 0.5;
  });
}).map(card => card.getAttribute('aria-label'))"""

SIZES = """sel => [...document.querySelectorAll(sel)].map(card => {
  const b = card.getBoundingClientRect();
  return [b.width, b.height, parseFloat(getComputedStyle(card.querySelector('.rank')).fontSize)];
})"""


def _finished(harness: Harness, game: str, *, players: int, least: int) -> dict[str, Any]:
    """A finished game of ``game`` with at least ``least`` moves (a bot tournament's)."""
    tag = uuid.uuid4().hex[:6]
    found: dict[str, Any] = harness("finished", tag=tag, game=game, players=players, least=least)[
        "games"
    ][-1]
    return found


def _last_move_with(tab: Any, game: dict[str, Any], selector: str) -> None:
    """Open the replay at the last move whose board shows ``selector``."""
    for move in range(game["moves"], -1, -1):
        tab.goto(f"/games/{game['id']}/replay?move={move}")
        if tab.locator(selector).count():
            return
    raise AssertionError(f"no move of game {game['id']} shows {selector}")


def test_the_discard_pile_s_ranks_are_whole_on_a_phone(
    page: Any, phone: Any, harness: Harness
) -> None:
    game = _finished(harness, "bhabhi", players=4, least=30)
    for tab, name in ((phone, "cards-discard-phone"), (page, "cards-discard")):
        _last_move_with(tab, game, "#replay-board .discard .card:not(.back)")
        assert tab.evaluate(CLIPPED, "#replay-board .discard .card:not(.back)") == []
        assert tab.evaluate(CLIPPED, "#replay-board .card:not(.back):not(.slot)") == []
        for width, height, rank in tab.evaluate(SIZES, "#replay-board .discard .card:not(.back)"):
            assert width >= 20 and height >= 28 and rank >= 11, (width, height, rank)
        tab.locator("#replay-board .discard").scroll_into_view_if_needed()
        shot(tab, name)


def test_give_and_take_s_duet_cards_are_not_tiny_on_a_phone(
    page: Any, phone: Any, harness: Harness
) -> None:
    game = _finished(harness, "give_and_take", players=3, least=6)
    for tab, name in ((phone, "cards-duets-phone"), (page, "cards-duets")):
        _last_move_with(tab, game, "#replay-board table.duets .card")
        duets = tab.evaluate(SIZES, "#replay-board table.duets .card")
        piles = tab.evaluate(SIZES, "#replay-board .gt-pile .card:not(.back):not(.slot)")
        assert duets and piles
        # A duet's card is as big as a pile's top card, and readable.
        assert min(w for w, _, _ in duets) >= min(w for w, _, _ in piles) - 0.5
        assert min(r for _, _, r in duets) >= 11
        assert tab.evaluate(CLIPPED, "#replay-board .card:not(.back):not(.slot)") == []
        assert tab.evaluate("() => document.documentElement.scrollWidth - innerWidth") <= 0
        tab.locator("#replay-board table.duets").scroll_into_view_if_needed()
        shot(tab, name)
