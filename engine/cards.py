"""Cards as canonical codes: rank then suit, ``TS`` is the ten of spades.

Ranks ``2 3 4 5 6 7 8 9 T J Q K A``, suits ``S H D C`` (♠ ♥ ♦ ♣).  Input
accepts ``10`` for ``T`` and lower case; output is always canonical.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterable, Sequence

from engine.words import Phrase, gettext_noop, said

Card = str

RANKS: tuple[str, ...] = ("2", "3", "4", "5", "6", "7", "8", "9", "T", "J", "Q", "K", "A")
SUITS: tuple[str, ...] = ("S", "H", "D", "C")
SUIT_SYMBOLS: dict[str, str] = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}

#: 1 for an ace … 13 for a king: the order of Give Away's foundations.
ACE_LOW_VALUE: dict[str, int] = {r: i for i, r in enumerate(("A",) + RANKS[:-1], start=1)}
#: 2 … 14 (ace high): Bhabhi's order.
ACE_HIGH_VALUE: dict[str, int] = {r: i for i, r in enumerate(RANKS, start=2)}


class CardError(ValueError):
    """A text that is not a card code; ``phrase`` is the message with its places."""

    def __init__(self, phrase: Phrase) -> None:
        super().__init__(str(phrase))
        self.phrase = phrase


def parse_card(text: object) -> Card:
    """The canonical code of ``text`` (``"10h"`` → ``"TH"``); :class:`CardError` if it is none."""
    if not isinstance(text, str):
        raise CardError(
            Phrase(
                gettext_noop('a card is a code such as "TS" or "10S", not %(text)s'),
                text=said(text),
            )
        )
    code = text.strip().upper()
    if code.startswith("10"):
        code = "T" + code[2:]
    if len(code) != 2 or code[0] not in RANKS or code[1] not in SUITS:
        raise CardError(
            Phrase(
                gettext_noop(
                    "%(text)s is not a card: use rank (2-9, T or 10, J, Q, K, A) then suit"
                    " (S, H, D, C)"
                ),
                text=said(text),
            )
        )
    return code


def rank(card: Card) -> str:
    """The rank letter of a canonical card code."""
    return card[0]


def suit(card: Card) -> str:
    """The suit letter of a canonical card code."""
    return card[1]


def full_deck() -> tuple[Card, ...]:
    """The 52 cards in a fixed order: suits S H D C, ranks 2 … A within each."""
    return tuple(r + s for s in SUITS for r in RANKS)


def old_maid_deck() -> tuple[Card, ...]:
    """The 51 cards of Old Maid: the full deck without the queen of clubs."""
    return tuple(c for c in full_deck() if c != "QC")


def secure_shuffle(cards: Iterable[Card]) -> list[Card]:
    """A uniformly random order of ``cards`` from the operating system's secure source."""
    order = list(cards)
    secrets.SystemRandom().shuffle(order)
    return order


def check_deck(deck: Sequence[object], expected: Sequence[Card]) -> list[Card]:
    """``deck`` canonicalised, or :class:`CardError` unless it is a permutation of ``expected``."""
    cards = [parse_card(c) for c in deck]
    if sorted(cards) != sorted(expected):
        missing = sorted(set(expected) - set(cards))
        doubled = sorted({c for c in cards if cards.count(c) > 1})
        extra = sorted(set(cards) - set(expected))
        raise CardError(
            Phrase(
                gettext_noop(
                    "the deck must hold each of the %(count)s cards once"
                    " (missing %(missing)s, doubled %(doubled)s, not in this game %(extra)s)"
                ),
                count=len(expected),
                missing=said(missing),
                doubled=said(doubled),
                extra=said(extra),
            )
        )
    return cards


def deal_round_robin(deck: Sequence[Card], seats: int, dealer: int) -> list[list[Card]]:
    """Hands dealt one card at a time clockwise from ``dealer + 1``, the list's first card first."""
    hands: list[list[Card]] = [[] for _ in range(seats)]
    for i, card in enumerate(deck):
        hands[(dealer + 1 + i) % seats].append(card)
    return hands
