"""The games' words in Russian: the move log, its consequences, the table and the buttons.

Random games of each of the four games are told, drawn and offered as buttons under
Russian (``translation.override("ru")``, as LocaleMiddleware sets it for a Russian
request); no Latin word may be left in what a person reads or hears (the text and every
``aria-label``) except the names people typed and the card faces (``Q♥``, one letter).
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterator

import pytest
from django.utils import translation

from engine.registry import get_game
from tournaments.services.queries import game_name
from tournaments.templatetags.cards import card_html, card_name, stack_html
from tournaments.templatetags.tables import action_choices, describe, present

from .test_story import NAMES, told

#: What a Russian page may show in Latin letters besides the names people typed.
ALLOWED = {"Getaway", "Give", "Away"}


def latin_words(html: str) -> list[str]:
    """The Latin words a person reads or hears in ``html``: its text and its aria-labels."""
    spoken = " ".join(re.findall(r'aria-label="([^"]*)"', html))
    text = re.sub(r"<[^>]+>", " ", html) + " " + spoken
    words = re.findall(r"[A-Za-z]{2,}", text)
    return [w for w in words if w not in NAMES and w not in ALLOWED]


def said_in(kind: str, seats: int, seed: int) -> Iterator[str]:
    """Every sentence, table text and button of one random game, in the current language."""
    engine = get_game(kind)
    players = NAMES[:seats]
    deck = list(engine.deck)
    random.Random(seed).shuffle(deck)
    yield str(describe(kind, engine.deal(seats, 0, deck)[0], players))
    for viewer in (None, 0):
        for e in told(kind, seats, seed, viewer):
            yield e["text"]
            for state in (e["before"], e["after"]):
                view = engine.view(state, viewer)
                table = present(kind, view, players, me=viewer)
                yield " ".join(
                    str(table.get(key) or "") for key in ("result_text", "offer_text", "led")
                )
                for seat in table["seats"]:
                    yield f"{seat['status']} {seat['result']}"
                for seat in engine.to_act(state):
                    choices = action_choices(kind, engine.view(state, seat), players)
                    for shown in choices["cards"] + choices["buttons"]:
                        yield f'{shown["label"]} <b aria-label="{shown["aria"]}"></b>'


@pytest.mark.parametrize(
    "kind,seats", [("give_away", 3), ("old_maid", 3), ("bhabhi", 4), ("give_and_take", 3)]
)
def test_a_played_game_reads_in_russian_with_no_english_word_left(kind: str, seats: int) -> None:
    with translation.override("ru"):
        for seed in range(3):
            for html in said_in(kind, seats, seed):
                assert not latin_words(html), html


@pytest.mark.parametrize(
    "kind,seats", [("give_away", 3), ("old_maid", 3), ("bhabhi", 4), ("give_and_take", 3)]
)
def test_the_same_game_still_reads_in_english_by_default(kind: str, seats: int) -> None:
    english = " ".join(said_in(kind, seats, 0))
    assert latin_words(english)
    assert not re.search("[а-яА-Я]", english)


def test_the_log_says_the_deal_and_the_moves_in_natural_russian() -> None:
    with translation.override("ru"):
        bhabhi = " ".join(e["text"] for seed in range(4) for e in told("bhabhi", 4, seed))
        give_away = " ".join(e["text"] for e in told("give_away", 3, 0))
        play = {
            "type": "move",
            "seat": 1,
            "action": {"type": "play", "card": "AH", "foundation": 2},
        }
        played = str(describe("give_away", play, NAMES[:3]))
        old_maid = " ".join(e["text"] for e in told("old_maid", 3, 2))
        engine = get_game("old_maid")
        dealt = str(describe("old_maid", engine.deal(3, 0, list(engine.deck))[0], NAMES[:3]))
    assert "Ann раздаёт 51 карту 3 игрокам" in dealt
    assert " кладёт " in bhabhi and "забирает взятку" in bhabhi
    assert "Bo кладёт" in played and 'aria-label="туз червей"' in played and "на базу 3" in played
    assert "Партия окончена" in give_away
    assert "тянет карту №" in old_maid and "сбрасывает пару" in old_maid


def test_the_cards_are_named_in_russian_with_their_case() -> None:
    with translation.override("ru"):
        assert card_name("QH") == "дама червей"
        assert card_name("AS") == "туз пик"
        assert card_name("TD") == "десятка бубен"
        assert card_name("JC", "accusative") == "валета треф"
        assert card_name("QH", "accusative") == "даму червей"
        assert 'aria-label="дама червей"' in card_html("QH")
        assert 'aria-label="карта рубашкой вверх"' in card_html(None)
    assert card_name("QH") == "queen of hearts"


@pytest.mark.parametrize(
    "count,label",
    [
        (1, "1 карта рубашкой вверх"),
        (3, "3 карты рубашкой вверх"),
        (5, "5 карт рубашкой вверх"),
        (11, "11 карт рубашкой вверх"),
        (21, "21 карта рубашкой вверх"),
        (0, "нет карт рубашкой вверх"),
    ],
)
def test_a_pile_counts_its_cards_with_the_russian_plural(count: int, label: str) -> None:
    with translation.override("ru"):
        assert f'aria-label="{label}"' in stack_html(count)


def test_in_hand_and_discarded_piles_are_counted_in_russian() -> None:
    with translation.override("ru"):
        assert 'aria-label="4 карты на руке"' in stack_html(4, what="in hand")
        assert 'aria-label="7 карт в сбросе"' in stack_html(7, what="discarded")
    assert 'aria-label="4 cards in hand"' in stack_html(4, what="in hand")


def test_the_button_to_play_a_card_names_it_in_the_accusative() -> None:
    # Bhabhi's first trick is led with the ace of spades, by whoever holds it.
    engine = get_game("bhabhi")
    state = engine.fold(engine.deal(3, 0, list(engine.deck)))
    seat = engine.waiting_for(state)[0]
    with translation.override("ru"):
        choices = action_choices("bhabhi", engine.view(state, seat), NAMES[:3])
    assert [c["aria"] for c in choices["cards"]] == ["Сыграть туза пик"]
    assert 'aria-label="туз пик"' in choices["cards"][0]["label"]
    left = NAMES[(seat + 1) % 3]
    assert [c["label"] for c in choices["buttons"]] == [f"Забрать руку игрока {left}"]


def test_the_game_names_are_the_seeds_in_russian() -> None:
    with translation.override("ru"):
        names = [game_name(g) for g in ("give_away", "old_maid", "bhabhi", "give_and_take")]
    assert names == ["Give Away: общие базы", "Старая дева", "Бхабхи (Getaway)", "Дайте и возьмите"]
    assert game_name("old_maid") == "Old Maid"
