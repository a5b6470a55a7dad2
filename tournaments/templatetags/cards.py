"""Cards as people recognise them: rank and suit symbol in the suit's colour, with a spoken name.

``{% load cards %}`` gives

* ``{% card "QH" %}`` — a face-up card: ``Q♥`` in red, ``aria-label="queen of hearts"``;
  ``{% card "QH" "small" %}`` a smaller one;
* ``{% card_back %}`` — a face-down card (``aria-label="face-down card"``);
* ``{% stack 12 %}`` — a face-down pile with its count (``aria-label="12 face-down cards"``);
* ``{{ "QH"|card_name }}`` — ``queen of hearts``, and ``{{ "QH"|card_text }}`` — ``Q♥``.

The markup is plain HTML and CSS (``static/parlour/parlour.css``): no image, no script.
"""

from __future__ import annotations

from django import template
from django.utils.html import format_html
from django.utils.safestring import SafeString

register = template.Library()

RANK_NAMES = {
    "A": "ace",
    "K": "king",
    "Q": "queen",
    "J": "jack",
    "T": "ten",
    "9": "nine",
    "8": "eight",
    "7": "seven",
    "6": "six",
    "5": "five",
    "4": "four",
    "3": "three",
    "2": "two",
}
RANK_SHOWN = {"T": "10"}
SUIT_NAMES = {"S": "spades", "H": "hearts", "D": "diamonds", "C": "clubs"}
SUIT_SYMBOLS = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}
RED_SUITS = frozenset({"H", "D"})


def _valid(code: object) -> bool:
    return (
        isinstance(code, str) and len(code) == 2 and code[0] in RANK_NAMES and code[1] in SUIT_NAMES
    )


@register.filter
def card_name(code: object) -> str:
    """``"QH"`` → ``"queen of hearts"``; anything else as text."""
    if not _valid(code):
        return "hidden card" if code is None else str(code)
    assert isinstance(code, str)
    return f"{RANK_NAMES[code[0]]} of {SUIT_NAMES[code[1]]}"


@register.filter
def card_text(code: object) -> str:
    """``"QH"`` → ``"Q♥"``, ``"TS"`` → ``"10♠"``."""
    if not _valid(code):
        return "?" if code is None else str(code)
    assert isinstance(code, str)
    return RANK_SHOWN.get(code[0], code[0]) + SUIT_SYMBOLS[code[1]]


def card_html(code: object, size: str = "") -> SafeString:
    """A face-up card (or a face-down one for ``None``) as HTML."""
    if not _valid(code):
        return back_html(size)
    assert isinstance(code, str)
    colour = "red" if code[1] in RED_SUITS else "black"
    return format_html(
        '<span class="card {} {} suit-{}" role="img" aria-label="{}" data-card="{}">'
        '<span class="rank" aria-hidden="true">{}</span>'
        '<span class="suit" aria-hidden="true">{}</span></span>',
        colour,
        size,
        code[1],
        card_name(code),
        code,
        RANK_SHOWN.get(code[0], code[0]),
        SUIT_SYMBOLS[code[1]],
    )


def back_html(size: str = "", label: str = "face-down card") -> SafeString:
    return format_html('<span class="card back {}" role="img" aria-label="{}"></span>', size, label)


def stack_html(count: int, size: str = "", what: str = "face-down") -> SafeString:
    """A face-down pile of ``count`` cards, or an empty place."""
    if not count:
        return format_html(
            '<span class="stack empty {}" role="img" aria-label="no {} cards">'
            '<span class="card slot {}"></span><span class="count">0</span></span>',
            size,
            what,
            size,
        )
    label = f"{count} {what} card" + ("" if count == 1 else "s")
    return format_html(
        '<span class="stack {}" role="img" aria-label="{}">'
        '<span class="card back {}" aria-hidden="true"></span>'
        '<span class="count" aria-hidden="true">{}</span></span>',
        size,
        label,
        size,
        count,
    )


@register.simple_tag
def card(code: object, size: str = "") -> SafeString:
    """``{% card "QH" %}``: one face-up card; ``None`` draws a face-down card."""
    return card_html(code, size)


@register.simple_tag
def card_back(size: str = "", label: str = "face-down card") -> SafeString:
    """``{% card_back %}``: one face-down card."""
    return back_html(size, label)


@register.simple_tag
def stack(count: int, size: str = "", what: str = "face-down") -> SafeString:
    """``{% stack 12 %}``: a face-down pile with its count."""
    return stack_html(int(count or 0), size, what)
