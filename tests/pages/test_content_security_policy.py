"""Every page carries the Content-Security-Policy and keeps to it.

The policy (``CONTENT_SECURITY_POLICY`` in parlour/settings.py, sent by
django-csp) allows scripts and styles from our own static files only, so a page
may hold no inline ``<script>`` (a JSON data block is not a script), no inline
event handler (``onclick=``…) and no ``style`` attribute or ``<style>`` block.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from html.parser import HTMLParser

import pytest
from django.contrib.auth.models import User
from django.test import Client

from tests.factories import PageWorld, bot_tournament
from tournaments.models import Game

pytestmark = pytest.mark.django_db

DATA_TYPES = {"application/json", "application/ld+json"}


class InlineFinder(HTMLParser):
    """What a page has that the policy would block."""

    def __init__(self) -> None:
        super().__init__()
        self.found: list[str] = []
        self._script_without_src = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        named = dict(attrs)
        for name, _ in attrs:
            if name.startswith("on"):
                self.found.append(f"<{tag} {name}=…>")
            if name == "style":
                self.found.append(f"<{tag} style=…>")
        if tag == "style":
            self.found.append("<style> block")
        if tag == "script":
            kind = (named.get("type") or "").lower()
            self._script_without_src = "src" not in named and kind not in DATA_TYPES

    def handle_data(self, data: str) -> None:
        if self._script_without_src and data.strip():
            self.found.append(f"inline <script>: {data.strip()[:40]}")

    def handle_endtag(self, tag: str) -> None:
        if tag == "script":
            self._script_without_src = False


def blocked(html: str) -> list[str]:
    finder = InlineFinder()
    finder.feed(html)
    return finder.found


def policy(client: Client, path: str) -> tuple[str, str]:
    response = client.get(path)
    assert response.status_code == 200, path
    return response["Content-Security-Policy"], response.content.decode()


def test_the_policy_allows_only_our_own_scripts_and_styles(world: PageWorld) -> None:
    header, _ = policy(world.client(), "/")
    directives = dict(
        (part.split(" ", 1) + [""])[:2] for part in (p.strip() for p in header.split(";")) if part
    )
    assert directives["script-src"] == "'self'"
    assert directives["style-src"] == "'self'"
    assert directives["default-src"] == "'self'"
    assert directives["frame-ancestors"] == "'none'"
    assert directives["object-src"] == "'none'"


def test_every_page_keeps_to_the_policy(
    world: PageWorld, make_person_game: Callable[..., Game]
) -> None:
    tournament = bot_tournament(world)
    finished = Game.objects.filter(table__round__tournament=tournament).first()
    assert finished is not None and finished.table is not None
    playing = make_person_game("bhabhi")
    superuser = User.objects.create_superuser("root", password="root-secret")
    pages: list[tuple[User | None, str]] = [
        (None, "/"),
        (None, "/accounts/login/"),
        (None, f"/tournaments/{tournament.pk}/"),
        (None, f"/tables/{finished.table.pk}/"),
        (None, f"/games/{finished.pk}/"),
        (None, f"/games/{finished.pk}/replay"),
        (None, f"/players/{world.player.pk}/"),
        (world.person, "/me/"),
        (world.person, f"/games/{playing.pk}/play"),
        (world.organiser, "/tournaments/new"),
        (world.organiser, f"/tournaments/{tournament.pk}/manage"),
        (None, "/admin/login/"),
        (superuser, "/admin/"),
        (superuser, "/admin/tournaments/tournament/"),
        (superuser, f"/admin/tournaments/tournament/{tournament.pk}/change/"),
        (superuser, f"/admin/tournaments/club/{world.club.pk}/change/"),
    ]
    for user, path in pages:
        header, html = policy(world.client(user), path)
        assert "script-src 'self'" in header, path
        assert blocked(html) == [], path


def test_the_api_docs_page_loads_its_script_from_a_url(world: PageWorld) -> None:
    header, html = policy(world.client(), "/api/v1/docs")
    assert "script-src 'self'" in header
    assert [b for b in blocked(html) if not b.startswith("<style>")] == []
    script = re.search(r'<script src="([^"]*\?[^"]*script[^"]*)"', html)
    assert script is not None
    answer = world.client().get(script.group(1).replace("&amp;", "&"))
    assert answer.status_code == 200 and "SwaggerUIBundle" in answer.content.decode()
