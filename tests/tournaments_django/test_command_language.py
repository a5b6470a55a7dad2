"""The management commands speak LANGUAGE_CODE, or the language their --language names
(docs/i18n.md), and their refusals too."""

from __future__ import annotations

import io

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.test import override_settings
from django.utils import translation

from tests import factories
from tournaments import services

pytestmark = pytest.mark.django_db


def run(*args: str) -> str:
    out = io.StringIO()
    call_command(*args, stdout=out)
    return out.getvalue()


def _create(*extra: str) -> str:
    club = factories.club()
    return run(
        "create_tournament", "Пятница", "--club", club.slug, "--game", "bhabhi",
        "--rounds", "2", "--series", "losses:1", *extra,
    )  # fmt: skip


def test_a_command_speaks_english_by_default() -> None:
    out = _create()
    assert "created tournament" in out and "2 rounds" in out


def test_language_ru_makes_a_command_speak_russian() -> None:
    translation.activate("en")
    out = _create("--language", "ru")
    assert out.startswith("создан турнир") and "2 тура" in out, out
    assert "created" not in out and "rounds" not in out
    # The language was the command's only: the caller's is as it was.
    assert translation.get_language() == "en"


@override_settings(LANGUAGE_CODE="ru")
def test_without_the_option_a_command_speaks_language_code() -> None:
    assert _create().startswith("создан турнир")


def test_a_refusal_is_in_the_commands_language() -> None:
    with pytest.raises(CommandError, match="турнира 9999 нет"):
        run("show_seating", "9999", "--language", "ru")
    with pytest.raises(CommandError, match="there is no tournament 9999"):
        run("show_seating", "9999")


def test_show_seating_names_the_game_and_the_statuses_in_russian() -> None:
    # Found by trying: «(bhabhi, 1 из 2 туров рассажено, running)» and «Стол 1 (…; playing)».
    club = factories.club()
    t = factories.tournament(club, factories.bots(club, 3), game="bhabhi", rounds=2)
    services.begin_round(services.start_round(t))
    out = run("show_seating", str(t.pk), "--round", "1", "--language", "ru")
    assert "Бхабхи (Getaway)" in out and "идёт" in out, out
    for code in ("bhabhi", "running", "playing", "seated", "waiting"):
        assert code not in out, (code, out)
