"""Cards, events and tables as the pages draw them (template tags, no database)."""

from __future__ import annotations

import random
import re

import pytest
from django.template import Context, Template

from engine.registry import get_game
from tournaments.templatetags.cards import card_name, card_text
from tournaments.templatetags.tables import action_choices, describe, ordinal, present


def test_cards_have_their_suit_symbol_colour_and_spoken_name() -> None:
    html = Template('{% load cards %}{% card "QH" %}{% card "TS" "small" %}{% card_back %}').render(
        Context()
    )
    assert 'aria-label="queen of hearts"' in html and "♥" in html and "card red" in html
    assert 'aria-label="ten of spades"' in html and ">10<" in html and "card black" in html
    assert 'aria-label="face-down card"' in html
    assert card_name("AC") == "ace of clubs" and card_text("TD") == "10♦"
    assert card_name(None) == "hidden card"


def test_a_face_down_pile_says_how_many_cards_it_holds() -> None:
    html = Template("{% load cards %}{% stack 12 %}{% stack 1 %}{% stack 0 %}").render(Context())
    assert 'aria-label="12 face-down cards"' in html
    assert 'aria-label="1 face-down card"' in html
    assert 'aria-label="no face-down cards"' in html


def test_ordinals() -> None:
    assert [ordinal(n) for n in (1, 2, 3, 4, 11, 12, 13, 21, 22)] == [
        "1st",
        "2nd",
        "3rd",
        "4th",
        "11th",
        "12th",
        "13th",
        "21st",
        "22nd",
    ]


@pytest.mark.parametrize(
    ("kind", "payload", "words"),
    [
        (
            "give_away",
            {"type": "move", "seat": 0, "action": {"type": "play", "card": "AH", "foundation": 2}},
            "plays",
        ),
        ("give_away", {"type": "move", "seat": 1, "action": {"type": "pass"}}, "passes"),
        (
            "old_maid",
            {"type": "move", "seat": 0, "action": {"type": "draw", "index": 2}},
            "draws card 3",
        ),
        (
            "old_maid",
            {"type": "move", "seat": 1, "action": {"type": "arrange", "order": []}, "chance": True},
            "shuffled",
        ),
        ("bhabhi", {"type": "move", "seat": 0, "action": {"type": "take_left"}}, "takes the hand"),
        (
            "bhabhi",
            {
                "type": "move",
                "seat": 0,
                "action": {"type": "draw_discard", "card": "5D"},
                "chance": True,
            },
            "draws blind",
        ),
        (
            "give_and_take",
            {
                "type": "move",
                "seat": 1,
                "action": {"type": "declare_ace", "pile": "left", "value": 14},
            },
            "as 14",
        ),
        (
            "give_and_take",
            {"type": "move", "seat": 1, "action": {"type": "place_capture", "pile": "right"}},
            "right pile",
        ),
    ],
)
def test_every_action_reads_as_a_sentence(kind: str, payload: dict, words: str) -> None:
    text = str(describe(kind, payload, ["Ann", "Bo"], {"kind": "timeout"}))
    assert words in text
    assert "time ran out" in text


@pytest.mark.parametrize("kind", ["give_away", "old_maid", "bhabhi", "give_and_take"])
def test_every_game_presents_its_table_for_a_seat_a_spectator_and_a_replay(kind: str) -> None:
    engine = get_game(kind)
    seats = 3
    deck = list(engine.deck)
    random.Random(7).shuffle(deck)
    state = engine.fold(engine.deal(seats, 0, deck))
    players = ["Ann", "Bo", "Cy"]
    for viewer in (None, 0):
        view = engine.view(state, viewer)
        table = present(kind, view, players, me=viewer)
        assert len(table["seats"]) == seats
        assert table["top"] and table["bottom"]
        html = Template("{% load tables %}{% game_table t %}").render(Context({"t": table}))
        assert "Ann" in html and "Cy" in html
    full = engine.view(state, None) | {"hidden": engine.hidden(state)}
    html = Template("{% load tables %}{% game_table t %}").render(
        Context({"t": present(kind, full, players)})
    )
    # With the hidden cards every card of the deal is drawn face up.
    assert set(re.findall(r'data-card="(\w\w)"', html)) == set(engine.deck)
    seat = engine.to_act(state)[0]
    choices = action_choices(kind, engine.view(state, seat), players)
    assert choices["cards"] or choices["buttons"]
