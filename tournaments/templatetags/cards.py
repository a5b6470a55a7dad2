"""Cards as people recognise them: rank and suit symbol in the suit's colour, with a spoken name.

``{% load cards %}`` gives

* ``{% card "QH" %}`` — a face-up card: ``Q♥`` in red, ``aria-label="queen of hearts"``;
  ``{% card "QH" "small" %}`` a smaller one;
* ``{% card_back %}`` — a face-down card (``aria-label="face-down card"``; a label given
  by the template is its own: translate it there);
* ``{% stack 12 %}`` — a face-down pile with its count (``aria-label="12 face-down cards"``);
* ``{{ "QH"|card_name }}`` — ``queen of hearts``, and ``{{ "QH"|card_text }}`` — ``Q♥``.

The spoken names are in the request's language (the Russian catalog: «дама червей»,
«12 карт рубашкой вверх»).  The markup is plain HTML and CSS
(``static/parlour/parlour.css``): no image, no script.
"""

from __future__ import annotations

from django import template
from django.utils.functional import Promise
from django.utils.html import format_html
from django.utils.safestring import SafeString
from django.utils.translation import gettext, ngettext, pgettext, pgettext_lazy

StrOrPromise = str | Promise

register = template.Library()

# Ranks and suits in words, each in the form its place needs (in Russian a card's name is
# the rank in the case of the sentence, «сыграть даму червей», and the suit in the
# genitive, «дама червей»; a suit on its own is nominative, «пики»).
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
#: A rank as a card's name starts: «дама».
RANKS_NOMINATIVE: dict[str, StrOrPromise] = {
    "A": pgettext_lazy("card rank", "ace"),
    "K": pgettext_lazy("card rank", "king"),
    "Q": pgettext_lazy("card rank", "queen"),
    "J": pgettext_lazy("card rank", "jack"),
    "T": pgettext_lazy("card rank", "ten"),
    "9": pgettext_lazy("card rank", "nine"),
    "8": pgettext_lazy("card rank", "eight"),
    "7": pgettext_lazy("card rank", "seven"),
    "6": pgettext_lazy("card rank", "six"),
    "5": pgettext_lazy("card rank", "five"),
    "4": pgettext_lazy("card rank", "four"),
    "3": pgettext_lazy("card rank", "three"),
    "2": pgettext_lazy("card rank", "two"),
}
#: A rank as the object of a verb: «даму».
RANKS_ACCUSATIVE: dict[str, StrOrPromise] = {
    "A": pgettext_lazy("card rank, accusative", "ace"),
    "K": pgettext_lazy("card rank, accusative", "king"),
    "Q": pgettext_lazy("card rank, accusative", "queen"),
    "J": pgettext_lazy("card rank, accusative", "jack"),
    "T": pgettext_lazy("card rank, accusative", "ten"),
    "9": pgettext_lazy("card rank, accusative", "nine"),
    "8": pgettext_lazy("card rank, accusative", "eight"),
    "7": pgettext_lazy("card rank, accusative", "seven"),
    "6": pgettext_lazy("card rank, accusative", "six"),
    "5": pgettext_lazy("card rank, accusative", "five"),
    "4": pgettext_lazy("card rank, accusative", "four"),
    "3": pgettext_lazy("card rank, accusative", "three"),
    "2": pgettext_lazy("card rank, accusative", "two"),
}
#: A suit in a card's name: «червей».
SUITS_IN_NAME: dict[str, StrOrPromise] = {
    "S": pgettext_lazy("suit in a card's name (genitive)", "spades"),
    "H": pgettext_lazy("suit in a card's name (genitive)", "hearts"),
    "D": pgettext_lazy("suit in a card's name (genitive)", "diamonds"),
    "C": pgettext_lazy("suit in a card's name (genitive)", "clubs"),
}
#: A suit on its own: «червы».
SUITS_ALONE: dict[str, StrOrPromise] = {
    "S": pgettext_lazy("suit", "spades"),
    "H": pgettext_lazy("suit", "hearts"),
    "D": pgettext_lazy("suit", "diamonds"),
    "C": pgettext_lazy("suit", "clubs"),
}
RANK_SHOWN = {"T": "10"}
SUIT_NAMES = {"S": "spades", "H": "hearts", "D": "diamonds", "C": "clubs"}
SUIT_SYMBOLS = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}
RED_SUITS = frozenset({"H", "D"})


def _valid(code: object) -> bool:
    return (
        isinstance(code, str) and len(code) == 2 and code[0] in RANK_NAMES and code[1] in SUIT_NAMES
    )


def suit_name(suit: str) -> str:
    """A suit in words, as a suit is named on its own (Russian «пики»)."""
    return str(SUITS_ALONE[suit])


@register.filter
def card_name(code: object, case: str = "nominative") -> str:
    """``"QH"`` → ``"queen of hearts"`` (Russian «дама червей»; ``case="accusative"`` gives
    «даму червей» for the object of a verb); anything else as text."""
    if not _valid(code):
        return gettext("hidden card") if code is None else str(code)
    assert isinstance(code, str)
    ranks = RANKS_ACCUSATIVE if case == "accusative" else RANKS_NOMINATIVE
    return pgettext("card name", "{rank} of {suit}").format(
        rank=ranks[code[0]], suit=SUITS_IN_NAME[code[1]]
    )


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


def back_html(size: str = "", label: str = "") -> SafeString:
    return format_html(
        '<span class="card back {}" role="img" aria-label="{}"></span>',
        size,
        label or gettext("face-down card"),
    )


def _stack_label(count: int, what: str) -> str:
    """A pile's spoken name: ``what`` is ``face-down``, ``in hand`` or ``discarded``."""
    if what == "in hand":
        if not count:
            return gettext("no cards in hand")
        return ngettext("{n} card in hand", "{n} cards in hand", count).format(n=count)
    if what == "discarded":
        if not count:
            return gettext("no discarded cards")
        return ngettext("{n} discarded card", "{n} discarded cards", count).format(n=count)
    if not count:
        return gettext("no face-down cards")
    return ngettext("{n} face-down card", "{n} face-down cards", count).format(n=count)


def stack_html(count: int, size: str = "", what: str = "face-down") -> SafeString:
    """A face-down pile of ``count`` cards, or an empty place; ``what`` names the pile
    (``face-down``, ``in hand``, ``discarded``)."""
    label = _stack_label(count, what)
    if not count:
        return format_html(
            '<span class="stack empty {}" role="img" aria-label="{}">'
            '<span class="card slot {}"></span><span class="count">0</span></span>',
            size,
            label,
            size,
        )
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
def card_back(size: str = "", label: str = "") -> SafeString:
    """``{% card_back %}``: one face-down card."""
    return back_html(size, label)


@register.simple_tag
def stack(count: int, size: str = "", what: str = "face-down") -> SafeString:
    """``{% stack 12 %}``: a face-down pile with its count."""
    return stack_html(int(count or 0), size, what)
