"""Every status a page shows updates by itself: each badge sits in a live fragment.

A page's live parts are ``[data-live]`` containers whose fragment ``live.js`` fetches
again every few hundred milliseconds (templates/fragments/); a status badge outside
one would go stale until a reload (a finished tournament once still said "running").
"""

from __future__ import annotations

from collections.abc import Callable
from html.parser import HTMLParser

import pytest
from django.contrib.auth.models import User

from tests.factories import PageWorld, bot_tournament
from tournaments import services
from tournaments.models import Game

pytestmark = pytest.mark.django_db

VOID = {"area", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "wbr"}


class BadgeFinder(HTMLParser):
    """Each status badge of a page, and whether a ``[data-live]`` container holds it."""

    def __init__(self) -> None:
        super().__init__()
        self.open: list[bool] = []  # per open element: is it a live container
        self.badges: list[tuple[str, bool]] = []
        self._badge: bool | None = None
        self._text = ""

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        named = dict(attrs)
        if tag == "span" and "badge" in (named.get("class") or "").split():
            self._badge, self._text = any(self.open), ""
        if tag not in VOID:
            self.open.append("data-live" in named)

    def handle_data(self, data: str) -> None:
        if self._badge is not None:
            self._text += data

    def handle_endtag(self, tag: str) -> None:
        if tag == "span" and self._badge is not None:
            self.badges.append((self._text.strip(), self._badge))
            self._badge = None
        if tag not in VOID and self.open:
            self.open.pop()


def badges(html: str) -> list[tuple[str, bool]]:
    finder = BadgeFinder()
    finder.feed(html)
    return finder.badges


def test_every_status_on_every_page_is_inside_a_live_fragment(
    world: PageWorld, make_person_game: Callable[..., Game]
) -> None:
    finished = bot_tournament(world)
    running = services.create_tournament(
        world.club, "Still on", "give_away", 2, table_min=2, table_max=2
    )
    game = Game.objects.filter(table__round__tournament=finished).first()
    assert game is not None and game.table is not None
    playing = make_person_game("bhabhi")
    assert playing.table is not None
    root = User.objects.create_superuser("root", password="root-secret")
    pages: list[tuple[User | None, str]] = [
        (None, "/"),
        (None, f"/tournaments/{finished.pk}/"),
        (None, f"/tournaments/{running.pk}/"),
        (None, f"/tournaments/{finished.pk}/projector"),
        (None, f"/tables/{game.table.pk}/"),
        (None, f"/tables/{playing.table.pk}/"),
        (None, f"/games/{game.pk}/"),
        (None, f"/games/{playing.pk}/"),
        (root, f"/tournaments/{finished.pk}/manage"),
        (root, f"/tournaments/{running.pk}/manage"),
    ]
    seen = 0
    for user, path in pages:
        response = world.client(user).get(path)
        assert response.status_code == 200, path
        found = badges(response.content.decode())
        seen += len(found)
        stale = [text for text, live in found if not live]
        assert stale == [], f"{path}: {stale} would not update without a reload"
    assert seen >= len(pages)  # the pages do show statuses: the check is not empty
