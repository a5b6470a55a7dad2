"""The Russian catalogs are whole: every marked string is in them, translated and not fuzzy.

The marked strings are extracted afresh (Django's makemessages, GNU xgettext underneath) into
a copy of locale/ and compared with the committed catalogs, so a string marked in a template
or in Python but never added to the catalog fails here, as does an entry left behind after
its string was removed.  docs/i18n.md says how to update the catalogs.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from django.conf import settings

LOCALE = Path(settings.BASE_DIR) / "locale"
DOMAINS = ("django", "djangojs")
#: What is scanned for marked strings: the code and templates people meet (not the tests,
#: benches or examples).
SOURCES = ("manage.py", "parlour", "engine", "events", "tournaments", "templates", "locale")

needs_gettext = pytest.mark.gettext


def catalogs() -> list[Path]:
    return [
        LOCALE / code / "LC_MESSAGES" / f"{domain}.po"
        for code, _name in settings.LANGUAGES
        if code != "en"
        for domain in DOMAINS
        if (LOCALE / code / "LC_MESSAGES" / f"{domain}.po").exists()
    ]


def msgids(po: Path) -> set[tuple[str, str]]:
    """The (msgctxt, msgid) of every live entry, read back by msgattrib: not parsed by us."""
    out = subprocess.run(
        ["msgattrib", "--no-obsolete", "--no-wrap", "--no-location", str(po)],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    found: set[tuple[str, str]] = set()
    context = ""
    for line in out.splitlines():
        if line.startswith("msgctxt "):
            context = line[len("msgctxt ") :]
        elif line.startswith("msgid "):
            if line != 'msgid ""' or context:
                found.add((context, line[len("msgid ") :]))
            context = ""
    return found


def entries_where(po: Path, *flags: str) -> str:
    return subprocess.run(
        ["msgattrib", "--no-obsolete", *flags, str(po)], check=True, capture_output=True, text=True
    ).stdout


@needs_gettext
def test_there_is_a_russian_catalog() -> None:
    assert LOCALE / "ru" / "LC_MESSAGES" / "django.po" in catalogs()


@needs_gettext
@pytest.mark.parametrize("po", catalogs(), ids=lambda po: f"{po.parent.parent.name}/{po.name}")
def test_every_entry_of_the_catalog_is_translated_and_not_fuzzy(po: Path) -> None:
    untranslated = entries_where(po, "--untranslated")
    fuzzy = entries_where(po, "--only-fuzzy")
    assert not untranslated.strip(), f"untranslated in {po}:\n{untranslated}"
    assert not fuzzy.strip(), f"fuzzy in {po}:\n{fuzzy}"


@needs_gettext
def test_every_marked_string_is_in_the_catalog_and_nothing_else(tmp_path: Path) -> None:
    # makemessages writes into the locale/ it finds under the folder it runs in: it runs
    # in a copy of the sources, so the committed catalogs are only read.
    root = Path(settings.BASE_DIR)
    copy = tmp_path / "parlour"
    copy.mkdir()
    for name in SOURCES:
        source = root / name
        if source.is_dir():
            shutil.copytree(
                source, copy / name, ignore=shutil.ignore_patterns("__pycache__", "*.mo")
            )
        else:
            shutil.copy(source, copy / name)
    for domain in DOMAINS:
        subprocess.run(
            [
                sys.executable,
                "manage.py",
                "makemessages",
                "--locale",
                "ru",
                "--domain",
                domain,
                "--no-location",
                "--verbosity",
                "0",
            ],
            cwd=copy,
            check=True,
        )
    for domain in DOMAINS:
        committed = LOCALE / "ru" / "LC_MESSAGES" / f"{domain}.po"
        extracted = copy / "locale" / "ru" / "LC_MESSAGES" / f"{domain}.po"
        found = msgids(extracted) if extracted.exists() else set()
        kept = msgids(committed) if committed.exists() else set()
        missing = sorted(found - kept)
        stale = sorted(kept - found)
        assert not missing, f"marked but not in {committed}: {missing}"
        assert not stale, f"in {committed} but no longer marked anywhere: {stale}"
