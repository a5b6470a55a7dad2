"""Players' names that look like another's: a word mixing alphabets whose letters look alike
("Ивaн" with a Latin "a" read as «Иван» on the standings) is refused, and a name written
wholly in lookalike letters of another alphabet reads as the same name."""

from __future__ import annotations

import pytest

from tests import factories
from tournaments import services
from tournaments.models import Player
from tournaments.services import ServiceError

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("name", "odd"),
    [
        ("Ив\N{LATIN SMALL LETTER A}н", '(Latin: "a")'),
        ("Ив\N{LATIN SMALL LETTER A}н Петр\N{LATIN SMALL LETTER O}в", '(Latin: "a")'),
        ("Iv\N{CYRILLIC SMALL LETTER A}n", '(Cyrillic: "а")'),
        ("\N{GREEK CAPITAL LETTER ALPHA}nna", '(Greek: "Α")'),
        ("\N{GREEK SMALL LETTER OMICRON}льга", '(Greek: "ο")'),
        ("P\N{CYRILLIC SMALL LETTER O}\N{CYRILLIC SMALL LETTER O}ja", '(Cyrillic: "о")'),
    ],
)
def test_a_word_mixing_latin_cyrillic_or_greek_letters_is_refused_naming_the_odd_ones(
    name: str, odd: str
) -> None:
    # «Ивaн» with a Latin "a" stood in the standings beside «Иван», and no one could tell
    # which was which (the brief's lookalike names).
    club = factories.club()
    with pytest.raises(ServiceError, match="mixes alphabets") as refused:
        services.add_player(club, name)
    assert refused.value.field == "name" and odd in refused.value.message
    assert not Player.objects.filter(club=club).exists()


@pytest.mark.parametrize(
    "name",
    [
        "Ivan Petrov",
        "Иван Петров",
        "Ivan Петров",
        "Οδυσσέας",
        "Zoë O'Brien-Smith",
        "Jean-Luc Пьер",
        "Іван Їжак",
        "Ёжик 2",
        "R2-D2",
    ],
)
def test_a_name_whose_every_word_is_in_one_alphabet_is_taken(name: str) -> None:
    club = factories.club()
    assert services.add_player(club, name).name == name


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("Kate", "Кате"),  # Cyrillic К, а, т, е
        ("TOM", "ТОМ"),  # Cyrillic
        (
            "TOM",
            "\N{GREEK CAPITAL LETTER TAU}\N{GREEK CAPITAL LETTER OMICRON}"
            "\N{GREEK CAPITAL LETTER MU}",
        ),
        (
            "КОТ",
            "\N{GREEK CAPITAL LETTER KAPPA}\N{GREEK CAPITAL LETTER OMICRON}"
            "\N{GREEK CAPITAL LETTER TAU}",
        ),
        ("HOPE", "НОРЕ"),  # Cyrillic Н, О, Р, Е: in capitals the very same letters
        ("Ann Kate", "Ann Кате"),
        ("Popë", "Рорё"),  # Cyrillic Р, о, р, ё: the ё beside a Latin ë
    ],
)
def test_a_name_differing_only_by_lookalike_letters_of_another_alphabet_is_taken(
    first: str, second: str
) -> None:
    club = factories.club()
    services.add_player(club, first)
    with pytest.raises(ServiceError, match="already has a player called"):
        services.add_player(club, second)
    assert Player.objects.filter(club=club).count() == 1


def test_names_in_two_alphabets_that_do_not_look_alike_are_two_players() -> None:
    club = factories.club()
    services.add_player(club, "Ivan")
    services.add_player(club, "Иван")
    services.add_player(club, "Anna")
    services.add_player(club, "Анна")
    assert Player.objects.filter(club=club).count() == 4


def test_the_admin_s_player_form_refuses_mixed_and_lookalike_names() -> None:
    from tournaments.admin import PlayerForm

    club = factories.club()
    kate = services.add_player(club, "Kate")
    mixed = PlayerForm(data={"club": club.pk, "name": "Ив\N{LATIN SMALL LETTER A}н"})
    assert not mixed.is_valid() and "mixes alphabets" in str(mixed.errors["name"])
    alike = PlayerForm(data={"club": club.pk, "name": "Кате", "bot_level": ""})
    assert not alike.is_valid() and "already has a player called" in str(alike.errors["name"])
    renamed = PlayerForm(data={"club": club.pk, "name": "KATE", "bot_level": ""}, instance=kate)
    assert renamed.is_valid(), renamed.errors


@pytest.mark.parametrize(
    ("first", "second"),
    [("Strauß", "Strauss"), ("Kate", "Кате"), ("Ann Lee", "ANN LEE")],
)
def test_a_name_refused_as_read_the_same_names_the_player_it_clashes_with(
    first: str, second: str
) -> None:
    # "Strauss" was refused beside "Strauß" (case folding reads ß as ss: the same name to
    # a reader), but the refusal named "Strauss" alone: the organiser could not see why.
    club = factories.club()
    services.add_player(club, first)
    with pytest.raises(ServiceError) as refused:
        services.add_player(club, second)
    assert f'already has a player called "{first}"' in refused.value.message
    assert f'reads the same as "{second}"' in refused.value.message


def test_the_sign_up_and_the_admin_name_the_player_a_new_name_clashes_with() -> None:
    from tournaments.admin import PlayerForm

    club = factories.club()
    services.add_player(club, "Strauß")
    token = services.renew_signup_link(club)
    with pytest.raises(ServiceError, match='already has a player called "Strauß"'):
        services.sign_up(token, "Strauss", "strauss", "a long club night")
    form = PlayerForm(data={"club": club.pk, "name": "STRAUSS", "bot_level": ""})
    assert not form.is_valid()
    assert 'already has a player called "Strauß"' in form.errors["name"][0]


@pytest.mark.parametrize(
    ("stored", "beside", "refused"),
    [
        ("Kate", "Кате", "КАТЕ"),
        ("Ив\N{LATIN SMALL LETTER A}н", None, "Ив\N{LATIN SMALL LETTER A}н Jr"),
    ],
)
def test_a_name_stored_before_the_rules_does_not_block_an_edit_of_something_else(
    stored: str, beside: str | None, refused: str
) -> None:
    """A player whose name the rules would refuse now (stored before them) is still edited
    in the admin, its name unchanged (every save of its club showed it as an inline row:
    found by review); renaming it is checked as any rename is."""
    from tournaments.admin import PlayerForm

    club = factories.club()
    player = Player.objects.create(club=club, name=stored)
    if beside is not None:
        Player.objects.create(club=club, name=beside)
    data = {"club": club.pk, "name": stored, "bot_level": "heuristic", "user": ""}
    form = PlayerForm(data=data, instance=player)
    assert form.is_valid(), form.errors
    renamed = PlayerForm(data={**data, "name": refused}, instance=player)
    assert not renamed.is_valid()
