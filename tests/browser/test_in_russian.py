"""Issue 23's proof in a real browser: Chromium with the Russian locale (``ru-RU``: its
Accept-Language and its JavaScript's language) plays a game by clicking, and the organiser
runs the desk; a screenshot of every page visited goes to var/screenshots/ru/ (listed in the
test's output and in var/screenshots/ru/index-<game>.txt), and what a person reads on each page —
its text, also the parts the scripts wrote or keep hidden for now, and the read attributes
(tests/english.py) — holds no English word but the names people typed, «Parlour» and card
faces.

The pages are found by their URLs, ids and data attributes, never by their English words.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import pytest

from tests.browser.conftest import DESKTOP, SCREENSHOTS, Harness, login
from tests.english import JS_READ_TEXT, english_words, has_russian

RUSSIAN = SCREENSHOTS / "ru"
#: Clicks a person makes at most in one game.
MOST_CLICKS = 300
#: The play page is waiting for a click, or the game is over.
READY = (
    "() => { const p = document.querySelector('#play'); if (!p) return false;"
    " if (p.dataset.status === 'over') return true;"
    " return p.dataset.waiting === 'true'"
    " && !!p.querySelector('[data-action]:not([data-optional]):not([disabled])'); }"
)


class Visits:
    """The pages seen: each one's screenshot, and the English found on it (``names``: the
    names people typed, which may be in any letters)."""

    def __init__(self, names: list[str]) -> None:
        self.names = names
        self.shots: list[str] = []
        self.offenders: dict[str, list[str]] = {}

    def see(self, tab: Any, name: str) -> None:
        """Screenshot the page as it is now and read it."""
        tab.wait_for_load_state("networkidle")
        RUSSIAN.mkdir(parents=True, exist_ok=True)
        path = RUSSIAN / f"{len(self.shots) + 1:02d}-{name}.png"
        tab.screenshot(path=str(path), full_page=True)
        self.shots.append(f"{path.relative_to(SCREENSHOTS.parent.parent)}  ({tab.url})")
        read = list(tab.evaluate(JS_READ_TEXT))
        found = english_words(read, self.names)
        if not has_russian(read):
            found.insert(0, "no Russian at all on the page")
        if found:
            self.offenders[f"{name} ({tab.url})"] = found

    def visit(self, tab: Any, url: str, name: str) -> None:
        tab.goto(url)
        self.see(tab, name)

    def report(self) -> str:
        return "\n".join(
            f"{where}:\n    " + "\n    ".join(words) for where, words in self.offenders.items()
        )


@pytest.fixture
def russian(browser: Any, server: str) -> Iterator[Any]:
    """A browser that speaks Russian: a tab of its own (own cookies), no JavaScript error."""
    context = browser.new_context(viewport=DESKTOP, base_url=server, locale="ru-RU")
    context.set_default_timeout(15_000)
    tab = context.new_page()
    errors: list[str] = []
    tab.on("pageerror", lambda error: errors.append(str(error)))
    yield tab
    context.close()
    assert not errors, f"JavaScript errors on the page: {errors}"


@pytest.fixture
def russian_organiser(browser: Any, server: str) -> Iterator[Any]:
    context = browser.new_context(viewport=DESKTOP, base_url=server, locale="ru-RU")
    context.set_default_timeout(15_000)
    tab = context.new_page()
    yield tab
    context.close()


def log_in(tab: Any, visits: Visits, username: str, password: str, name: str) -> None:
    """Log in through the login page (its screenshot first)."""
    tab.goto("/accounts/login/")
    visits.see(tab, f"{name}-login")
    login(tab, username, password)


def play_by_clicking(tab: Any, visits: Visits, kind: str) -> int:
    """Click the first action the game waits for until it is over, reading the page at the
    first clicks (every game's own words: its table, its buttons, its log)."""
    clicks = 0
    while clicks < MOST_CLICKS:
        tab.wait_for_function(READY, timeout=30_000)
        play = tab.locator("#play")
        if play.get_attribute("data-status") == "over":
            return clicks
        if clicks in (0, 3):
            visits.see(tab, f"{kind}-play-move-{clicks + 1}")
        sequence = play.get_attribute("data-sequence")
        tab.locator("#play [data-action]:not([data-optional])").first.click()
        clicks += 1
        tab.wait_for_function(
            "s => { const p = document.querySelector('#play');"
            " return p && (p.dataset.sequence !== s || p.dataset.status === 'over'); }",
            arg=sequence,
            timeout=30_000,
        )
    raise AssertionError(f"still not over after {MOST_CLICKS} clicks")


# Bhabhi only: in Old Maid the random bot, while it waits for the person to draw, keeps
# rearranging its own fan (an optional action it may always take), and the play page is
# redrawn by every one of those moves; the Russian of the Old Maid play page is checked
# without a browser (tests/pages/test_russian_pages.py, test_pages_in_russian.py).
@pytest.mark.parametrize("kind", ["bhabhi"])
def test_a_game_played_by_clicking_in_russian_shows_no_english(
    russian: Any, russian_organiser: Any, harness: Harness, kind: str
) -> None:
    tag = uuid.uuid4().hex[:6]
    setup = harness("play", tag=tag, game=kind, name=f"Ann {tag}", title=f"Night {tag}")
    organiser = harness("organiser", tag=tag, bots=0)
    # The names typed so far (also by the other tests on this server), and those to come.
    visits = Visits([*harness("names")["names"], f"Friday {tag}"])
    for old in RUSSIAN.glob(f"*-{kind}-*.png"):
        old.unlink()
    tab = russian

    visits.visit(tab, "/", f"{kind}-home")
    log_in(tab, visits, setup["username"], setup["password"], kind)
    visits.visit(tab, "/me/", f"{kind}-my-games")
    visits.visit(tab, f"/tournaments/{setup['tournament']}/", f"{kind}-tournament")
    visits.visit(tab, f"/tables/{setup['table']}/", f"{kind}-table")
    visits.visit(tab, f"/games/{setup['game']}/", f"{kind}-game-live")
    tab.goto("/me/")
    tab.click("[data-play-link]")
    tab.wait_for_selector("#play")
    assert tab.url.endswith(f"/games/{setup['game']}/play")
    clicks = play_by_clicking(tab, visits, kind)
    assert clicks >= 1
    assert harness("game", game=setup["game"])["status"] == "over"
    visits.see(tab, f"{kind}-play-over")
    tab.click(f"#play a[href='/games/{setup['game']}/replay']")
    tab.wait_for_selector("[data-replay]")
    visits.see(tab, f"{kind}-replay")
    visits.visit(tab, f"/games/{setup['game']}/replay?seat=1", f"{kind}-replay-seat-1")
    visits.visit(tab, f"/games/{setup['game']}/", f"{kind}-game-over")
    visits.visit(tab, f"/tournaments/{setup['tournament']}/", f"{kind}-standings")
    visits.visit(tab, f"/players/{setup['player']}/", f"{kind}-player")
    visits.visit(tab, f"/tournaments/{setup['tournament']}/projector", f"{kind}-projector")
    visits.visit(tab, "/accounts/password/", f"{kind}-password")
    visits.visit(tab, "/rules/", f"{kind}-rules")
    visits.visit(tab, f"/rules/{kind}", f"{kind}-rules-of-the-game")

    # The organiser of the same club: the desk, the forms, the people, a question.
    desk = russian_organiser
    log_in(desk, visits, organiser["username"], organiser["password"], f"{kind}-organiser")
    visits.visit(desk, f"/tournaments/{setup['tournament']}/manage", f"{kind}-desk")
    desk.goto("/me/")
    people = desk.get_attribute("header.site a[href^='/clubs/']", "href")
    visits.visit(desk, people, f"{kind}-people")
    # A new tournament by its form: refused first (no name: the form's errors), then made
    # (the desk with its message), then its settings and the question before deleting it.
    visits.visit(desk, "/tournaments/new", f"{kind}-new-tournament")
    desk.select_option("#id_game", kind)
    desk.click("main form.form button[type=submit]")
    desk.wait_for_selector("main [role=alert]")
    visits.see(desk, f"{kind}-new-tournament-refused")
    desk.fill("#id_name", f"Friday {tag}")
    desk.click("main form.form button[type=submit]")
    desk.wait_for_url("**/manage")
    visits.see(desk, f"{kind}-new-tournament-made")
    made = desk.url.rstrip("/").split("/")[-2]
    visits.visit(desk, f"/tournaments/{made}/edit", f"{kind}-edit")
    visits.visit(desk, f"/tournaments/{made}/confirm/delete", f"{kind}-delete-question")

    (RUSSIAN / f"index-{kind}.txt").write_text("\n".join(visits.shots) + "\n", encoding="utf-8")
    print(f"\nscreenshots of the {kind} run in Russian:\n  " + "\n  ".join(visits.shots))
    assert not visits.offenders, (
        f"{len(visits.offenders)} pages with English on them in the browser (mark and"
        " translate):\n" + visits.report()
    )
