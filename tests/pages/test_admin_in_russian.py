"""The admin's pages of Parlour's models are in Russian when asked for in Russian: Django
translates its own words, and every field's label, column and choice is ours to mark
(the models' ``verbose_name``\\ s, the admin's actions)."""

from __future__ import annotations

import re

import pytest
from django.contrib import admin
from django.contrib.auth.models import User
from django.test import Client

from tests.english import english_words, read_in_html
from tests.factories import bot_tournament, page_world

pytestmark = pytest.mark.django_db

RUSSIAN = {"HTTP_ACCEPT_LANGUAGE": "ru"}
#: Labels of a form's fields, and a change list's column headers (sortable or not).
#: Not the search box's: Django's own template leaves its icon's ``alt="Search"`` untranslated.
LABEL = re.compile(r'<label\b(?![^>]*for="searchbar")[^>]*>(.*?)</label>', re.S)
COLUMN = re.compile(r'<th scope="col"[^>]*>(.*?)</th>', re.S)


def ours() -> list[tuple[str, str]]:
    """(app, model) of every model of Parlour's apps in the admin."""
    return sorted(
        (model._meta.app_label, model._meta.model_name)
        for model in admin.site._registry
        if model._meta.app_label in ("tournaments", "events")
    )


def test_every_label_and_column_of_our_models_in_the_admin_is_in_russian() -> None:
    world = page_world()
    bot_tournament(world, game="old_maid")
    boss = User.objects.create_superuser("root", password="root-secret")
    client = Client()
    client.force_login(boss)
    # "ID": Django's name of the key column, in Russian too.
    names = [world.club.name, *(p.name for p in world.bots), world.player.name, "ID"]
    offenders: dict[str, list[str]] = {}
    seen = 0
    for app, model in ours():
        pages = [f"/admin/{app}/{model}/"]
        listing = client.get(pages[0], **RUSSIAN)
        assert listing.status_code == 200, (pages[0], listing.status_code)
        found = re.search(rf'href="(/admin/{app}/{model}/\d+/change/[^"]*)"', listing.text)
        if found:
            pages.append(found.group(1).replace("&amp;", "&"))
        for path in pages:
            page = listing if path == pages[0] else client.get(path, **RUSSIAN)
            assert page.status_code == 200, (path, page.status_code)
            texts = [
                " ".join(read_in_html(piece))
                for piece in LABEL.findall(page.text) + COLUMN.findall(page.text)
            ]
            texts = [t for t in texts if t.strip()]
            seen += len(texts)
            wrong = english_words(texts, names)
            if wrong:
                offenders[path] = wrong
    assert seen > 100, seen  # the pages were read, with their labels
    assert not offenders, "\n".join(f"{path}: {wrong}" for path, wrong in offenders.items())
