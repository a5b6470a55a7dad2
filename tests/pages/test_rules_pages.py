"""The rules pages state every convention of CONVENTIONS.md, in Russian and in English.

Every bullet of ``../shared/rules/CONVENTIONS.md`` (the binding settlement of the points the
seeds leave open) has a stable id in tests/pages/rules_conventions.py, with the game it
concerns, the opening words of its bullet and, for each language, phrases its paragraph must
contain: the short check that the paragraph states the convention and is not an empty section
with the right id.  Each rules page marks the paragraph of a convention ``<section
id="convention-<id>">``; a page that lacks one of its game's (or the common) conventions fails
here, and so does a Russian page with an English word on it.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from html.parser import HTMLParser
from pathlib import Path

import pytest
from django.test import Client
from django.urls import reverse

from engine.registry import game_ids
from tests.factories import PageWorld, bot_tournament
from tests.pages.rules_conventions import CONVENTIONS, Convention
from tournaments.models import Game, Table

pytestmark = pytest.mark.django_db

ROOT = Path(__file__).resolve().parents[2]
#: The binding conventions, beside the project as the seeds are (docs/rules/README.md), or
#: where PARLOUR_SHARED says the shared folder is (a clone made elsewhere).
CONVENTIONS_MD = (
    Path(os.environ.get("PARLOUR_SHARED") or ROOT.parent / "shared") / "rules" / "CONVENTIONS.md"
)
GAMES = ("give_away", "old_maid", "bhabhi", "give_and_take")
LANGUAGES = ("en", "ru")


#: The Latin words a Russian rules page may hold: the games' proper names and the brand (the
#: glossary).
PROPER_NAMES = frozenset({"Give", "Away", "Take", "Getaway", "tochoo", "Parlour"})


def conventions_of(game: str) -> dict[str, Convention]:
    return {k: c for k, c in CONVENTIONS.items() if c.game in (None, game)}


class _Page(HTMLParser):
    """The rules article of a page: its text, each convention section's text, the code in it."""

    def __init__(self) -> None:
        super().__init__()
        self.depth = 0  # inside <article class="rules">: the nesting depth there
        self.sections: dict[str, list[str]] = {}
        self.open: list[tuple[str, int]] = []
        self.code = 0
        self.text: list[str] = []
        self.code_text: list[str] = []
        self.lang = ""

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        if tag == "html":
            self.lang = found.get("lang") or ""
        if self.depth:
            self.depth += 1
        elif tag == "article" and "rules" in (found.get("class") or "").split():
            self.depth = 1
        if not self.depth:
            return
        ident = found.get("id") or ""
        if tag == "section" and ident.startswith("convention-"):
            assert ident not in self.sections, f"{ident} twice"
            self.sections[ident] = []
            self.open.append((ident, self.depth))
        if tag == "code":
            self.code += 1

    def handle_endtag(self, tag: str) -> None:
        if not self.depth:
            return
        if tag == "code":
            self.code -= 1
        if self.open and self.open[-1][1] == self.depth:
            self.open.pop()
        self.depth -= 1

    def handle_data(self, data: str) -> None:
        if not self.depth:
            return
        (self.code_text if self.code else self.text).append(data)
        for ident, _depth in self.open:
            self.sections[ident].append(data)

    def section(self, ident: str) -> str:
        return " ".join("".join(self.sections[ident]).split())


def read(client: Client, url: str, language: str) -> _Page:
    response = client.get(url, HTTP_ACCEPT_LANGUAGE=language)
    assert response.status_code == 200, url
    page = _Page()
    page.feed(response.content.decode())
    assert page.depth == 0 and not page.open, "the article is closed"
    return page


# -- CONVENTIONS.md and the table above agree --------------------------------------------


def conventions_md_bullets() -> dict[str | None, list[str]]:
    """Each section's bullets (their first line), keyed by the section's engine id."""
    bullets: dict[str | None, list[str]] = {}
    game: str | None = None
    for line in CONVENTIONS_MD.read_text().splitlines():
        if line.startswith("## "):
            ids = re.findall(r"`([a-z_]+)`", line)
            game = ids[0] if ids else None
            bullets[game] = []
        elif line.startswith("- ") and bullets:
            bullets[game].append(line[2:])
    return bullets


@pytest.mark.skipif(
    not CONVENTIONS_MD.exists(),
    reason=f"{CONVENTIONS_MD} is not beside the project (PARLOUR_SHARED=path/to/shared)",
)
def test_every_bullet_of_conventions_md_has_an_id_and_every_id_a_bullet() -> None:
    bullets = conventions_md_bullets()
    assert set(bullets) == {None, *GAMES}
    for game, lines in bullets.items():
        ours = [c.opening for c in CONVENTIONS.values() if c.game == game]
        assert len(ours) == len(lines), f"{game}: {len(lines)} bullets, {len(ours)} ids"
        for opening, line in zip(ours, lines, strict=True):
            assert line.startswith(opening), f"{game}: {opening!r} is not {line!r}"


def test_every_game_has_conventions_and_the_ids_are_stable_words() -> None:
    assert {c.game for c in CONVENTIONS.values()} == {None, *GAMES}
    assert set(GAMES) <= set(game_ids())
    for ident in CONVENTIONS:
        assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", ident), ident


# -- every page states every convention ----------------------------------------------------


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("game", GAMES)
def test_the_rules_page_states_every_convention_of_its_game(game: str, language: str) -> None:
    page = read(Client(), reverse("rules-game", args=[game]), language)
    assert page.lang == language
    wanted = conventions_of(game)
    missing = sorted(set(f"convention-{k}" for k in wanted) - set(page.sections))
    assert not missing, f"{game} ({language}) lacks {missing}"
    unknown = sorted(set(page.sections) - {f"convention-{k}" for k in wanted})
    assert not unknown, f"{game} ({language}) marks {unknown}, not its conventions"
    for ident, convention in wanted.items():
        text = page.section(f"convention-{ident}").lower()
        for phrase in getattr(convention, language):
            assert phrase.lower() in text, f"{game} ({language}) {ident}: no {phrase!r}"


@pytest.mark.parametrize("game", GAMES)
def test_both_languages_mark_the_same_conventions(game: str) -> None:
    client = Client()
    url = reverse("rules-game", args=[game])
    english, russian = (read(client, url, language) for language in LANGUAGES)
    assert list(english.sections) == list(russian.sections)


def _latin_words(text: str) -> list[str]:
    return re.findall(r"[A-Za-z]{2,}", text)


@pytest.mark.parametrize("url", [*(f"/rules/{game}" for game in GAMES), "/rules/"])
def test_a_russian_rules_page_has_no_english_word_but_the_games_names(url: str) -> None:
    page = read(Client(), url, "ru")
    prose = "".join(page.text)
    assert not [w for w in _latin_words(prose) if w not in PROPER_NAMES]
    # Code is a card's code or a formula: single letters and card codes (TS), no words.
    code = " ".join(page.code_text)
    assert all(re.fullmatch(r"[2-9TJQKA][SHDC]", w) for w in _latin_words(code)), code
    assert re.search(r"[а-яё]{4}", prose)


@pytest.mark.parametrize("game", GAMES)
def test_the_frame_of_a_russian_rules_page_is_russian_too(game: str) -> None:
    html = Client().get(f"/rules/{game}", HTTP_ACCEPT_LANGUAGE="ru").content.decode()
    title = re.search(r"<title>(.*?)</title>", html, re.S)
    assert title and title.group(1).startswith("Правила: ")
    crumbs = html.split('<p class="crumbs">')[1].split("</p>")[0]
    others = html.split("</article>")[1].split("</main>")[0]
    for part in (title.group(1), crumbs, others):
        words = _latin_words(re.sub(r"<[^>]+>", " ", part))
        assert not [w for w in words if w not in PROPER_NAMES], part


@pytest.mark.parametrize("game", GAMES)
def test_tochoo_appears_on_a_russian_page_only_in_brackets(game: str) -> None:
    prose = "".join(read(Client(), f"/rules/{game}", "ru").text)
    assert prose.count("tochoo") == prose.count("(tochoo)")


# -- served in the request's language, linked from the pages that name a game --------------


def test_the_index_lists_every_game_in_the_request_language() -> None:
    client = Client()
    english = client.get("/rules/").content.decode()
    russian = client.get("/rules/", HTTP_ACCEPT_LANGUAGE="ru").content.decode()
    for game in GAMES:
        link = f'href="{reverse("rules-game", args=[game])}"'
        assert link in english and link in russian
    assert "The rules of the games" in english and "Правила игр" in russian
    assert "The rules of the games" not in russian
    assert "2–6 игроков" in russian and "2–4 игрока" in russian and "3–8 игроков" in russian


def test_the_language_chosen_in_the_switcher_beats_the_browser() -> None:
    client = Client()
    client.cookies["django_language"] = "ru"
    page = client.get("/rules/old_maid", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "непарная дама" in page and "odd queen" not in page
    english = Client().get("/rules/old_maid").content.decode()
    assert "odd queen" in english and "непарная дама" not in english


def test_a_game_without_rules_has_no_page() -> None:
    assert Client().get("/rules/no_such_game").status_code == 404
    assert Client().get("/rules/..%2Fbase").status_code == 404


def test_the_pages_that_name_a_game_link_to_its_rules(world: PageWorld) -> None:
    tournament = bot_tournament(world, "old_maid", players=3)
    game = Game.objects.get(table__round__tournament=tournament)
    table = Table.objects.get(round__tournament=tournament)
    rules = f'href="{reverse("rules-game", args=["old_maid"])}"'
    client = world.client(world.organiser)
    for url in (
        reverse("tournament", args=[tournament.pk]),
        reverse("table", args=[table.pk]),
        reverse("game", args=[game.pk]),
        reverse("game-replay", args=[game.pk]),
    ):
        assert rules in client.get(url).content.decode(), url


@pytest.mark.parametrize("game", GAMES)
def test_the_play_page_links_the_rules_of_its_game_in_russian_too(
    world: PageWorld, make_person_game: Callable[..., Game], game: str
) -> None:
    played = make_person_game(game)
    client = world.client(world.person)
    page = client.get(reverse("game-play", args=[played.pk]), HTTP_ACCEPT_LANGUAGE="ru")
    rules = reverse("rules-game", args=[game])
    assert f'<a class="rules-link small" href="{rules}">Правила</a>' in page.content.decode()
