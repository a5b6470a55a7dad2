"""The provably fair shuffle: a committed seed, a deterministic deck (docs/fairness.md).

When the service creates a game it draws a secret 32-byte seed with
:func:`new_seed`, derives the deck from it with :func:`derive_deck` and shows
only :func:`commitment` (the SHA-256 of the seed) while the game runs.  When the
game ends it reveals the seed; anyone can then check that the seed hashes to
the commitment and that it derives the very deck that was dealt
(:func:`check_shuffle`, or the standalone ``docs/fairness_check.py``).

The algorithm, version ``hmac-sha256-ctr-fisher-yates/1``:

1. The cards are put in canonical order (:func:`canonical_order`): suits
   S H D C, ranks 2 … A within a suit.
2. A byte stream is produced in counter mode: block ``i`` (``i = 0, 1, 2 …``)
   is ``HMAC-SHA256(key=seed, msg=b"parlour-deck/1" + i as 8 bytes big-endian)``;
   the blocks are concatenated.
3. An index below ``n`` is drawn by reading the next 4 bytes as a big-endian
   unsigned integer ``x``; if ``x >= 2**32 - (2**32 % n)`` it is rejected and the
   next 4 bytes are read (so every index is exactly equally likely); otherwise
   the index is ``x % n``.
4. Fisher–Yates: for ``i`` from ``len(cards) - 1`` down to ``1``, draw ``j`` below
   ``i + 1`` and swap the cards at ``i`` and ``j``.  The result is the deck in
   dealing order (first card dealt first).

Pure Python, no Django; folding a game never calls this module.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import secrets
import struct
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from engine.contract import said
from engine.words import PhrasedError, gettext_noop

#: The name and version of the algorithm above.
ALGORITHM = "hmac-sha256-ctr-fisher-yates/1"
#: Bytes of entropy in a seed.
SEED_BYTES = 32
#: The HMAC message prefix of every block (domain separation).
_LABEL = b"parlour-deck/1"
_SUITS = "SHDC"
_RANKS = "23456789TJQKA"


class FairnessError(PhrasedError):
    """A shuffle that does not check out: a bad seed, commitment or deck (its words a
    phrase: a client seed refused on a Russian page was told in English, found by trying).
    """


def new_seed() -> bytes:
    """A fresh secret seed from the operating system's secure source."""
    return secrets.token_bytes(SEED_BYTES)


def commitment(seed: bytes) -> str:
    """The public commitment to ``seed``: its SHA-256 as lower-case hex."""
    return hashlib.sha256(seed).hexdigest()


def canonical_order(cards: Sequence[str]) -> list[str]:
    """``cards`` sorted the canonical way: suits S H D C, ranks 2 … A within a suit."""
    for card in cards:
        valid = isinstance(card, str) and len(card) == 2
        if not (valid and card[0] in _RANKS and card[1] in _SUITS):
            raise FairnessError(
                gettext_noop("%(card)s is not a canonical card code"), card=said(card)
            )
    return sorted(cards, key=lambda c: (_SUITS.index(c[1]), _RANKS.index(c[0])))


#: An HMAC-SHA256 block as eight big-endian 32-bit words.
_BLOCK_WORDS = struct.Struct(">8I")


def _words(seed: bytes) -> Iterator[int]:
    """The byte stream (docs/fairness.md) read as 32-bit big-endian words.

    A block is 32 bytes, eight whole words, so no word spans two blocks: reading the
    words of each block is reading the stream four bytes at a time (a generator of
    bytes cost a fifth of a deal's CPU, issue 24).
    """
    counter = 0
    while True:
        block = hmac.new(seed, _LABEL + counter.to_bytes(8, "big"), hashlib.sha256).digest()
        yield from _BLOCK_WORDS.unpack(block)
        counter += 1


def _below(words: Iterator[int], n: int) -> int:
    """An index in ``range(n)``, uniformly, by rejection sampling of 32-bit words."""
    limit = 2**32 - (2**32 % n)
    while True:
        x = next(words)
        if x < limit:
            return x % n


def derive_deck(seed: bytes, cards: Sequence[str]) -> list[str]:
    """The deck ``seed`` deals from ``cards`` (given in canonical order), in dealing order."""
    if not seed:
        raise FairnessError(gettext_noop("a seed has at least one byte"))
    deck = list(cards)
    words = _words(seed)
    for i in range(len(deck) - 1, 0, -1):
        j = _below(words, i + 1)
        deck[i], deck[j] = deck[j], deck[i]
    return deck


#: The algorithm when the players contribute (docs/fairness.md, "With the players' help").
ALGORITHM_WITH_CLIENTS = "hmac-sha256-ctr-fisher-yates/1+client-seeds/1"
#: The longest client seed a player may set (characters of printable ASCII).
CLIENT_SEED_MAX = 64


def check_client_seed(seed: str) -> str:
    """``seed`` if it is a usable client seed; :class:`FairnessError` says why not."""
    if not isinstance(seed, str) or len(seed) > CLIENT_SEED_MAX:
        raise FairnessError(
            gettext_noop("a client seed is text of at most %(most)s characters"),
            most=CLIENT_SEED_MAX,
        )
    if any(not (" " <= ch <= "~") for ch in seed):
        raise FairnessError(
            gettext_noop("a client seed is printable ASCII (letters, digits, punctuation)")
        )
    return seed


def mix_seed(server_seed: bytes, client_seeds: Sequence[str], nonce: int) -> bytes:
    """The deck seed of one deal: the server's committed seed, the players' seeds, the deal.

    ``HMAC-SHA256(key=server_seed, message=b"parlour-mix/1" + JSON)`` where JSON is
    ``{"clients": client_seeds, "nonce": nonce}`` with sorted keys, no spaces:
    ``client_seeds`` in seat order (``""`` for a seat without one), ``nonce`` the
    game's number in its series.  Any one player who changes their seed after seeing
    the commitment makes the deck one the server could not have chosen.
    """
    for seed in client_seeds:
        check_client_seed(seed)
    message = json.dumps(
        {"clients": list(client_seeds), "nonce": nonce}, separators=(",", ":"), sort_keys=True
    ).encode("ascii")
    return hmac.new(server_seed, b"parlour-mix/1" + message, hashlib.sha256).digest()


def parse_seed(seed: str | bytes) -> bytes:
    """A seed given as bytes or as the hex text records show."""
    if isinstance(seed, bytes):
        return seed
    try:
        return bytes.fromhex(seed)
    except ValueError:
        raise FairnessError(
            gettext_noop("the seed %(seed)s is not hexadecimal"), seed=said(seed)
        ) from None


def check_shuffle(
    deck: Sequence[str],
    *,
    commitment_hex: str,
    seed: str | bytes,
    cards: Sequence[str] | None = None,
    client_seeds: Sequence[str] | None = None,
    nonce: int | None = None,
) -> None:
    """Check a revealed shuffle; :class:`FairnessError` says what does not hold.

    ``deck`` is the deck as dealt, ``commitment_hex`` what was shown while the game
    ran, ``seed`` the revealed seed, ``cards`` the game's cards (default: the
    cards of ``deck`` itself, put in canonical order); with ``client_seeds`` the deck
    derives from :func:`mix_seed` of the seed, those and ``nonce``.
    """
    raw = parse_seed(seed)
    if commitment(raw) != str(commitment_hex).lower():
        raise FairnessError(
            gettext_noop(
                "the seed does not match the commitment: sha256(seed) is %(digest)s,"
                " the commitment was %(commitment)s"
            ),
            digest=commitment(raw),
            commitment=commitment_hex,
        )
    source = canonical_order(deck if cards is None else cards)
    if client_seeds is not None:
        raw = mix_seed(raw, client_seeds, nonce or 0)
    derived = derive_deck(raw, source)
    if derived != list(deck):
        pairs = zip(derived, deck, strict=False)
        first = next((i for i, (a, b) in enumerate(pairs) if a != b), min(len(derived), len(deck)))
        raise FairnessError(
            gettext_noop(
                "the deck is not the one the seed derives: they differ first at position %(first)s"
            ),
            first=first,
        )


def shuffle_contributions(shuffle: Mapping[str, Any]) -> tuple[list[str] | None, int | None]:
    """A record's ``shuffle`` contributions: its ``client_seeds`` and ``nonce``, checked.

    ``(None, None)`` for a shuffle of the server's seed alone (algorithm ``/1``).
    """
    seeds = shuffle.get("client_seeds")
    if seeds is None:
        return None, None
    nonce = shuffle.get("nonce")
    if not isinstance(seeds, list) or not all(isinstance(s, str) for s in seeds):
        raise FairnessError(
            gettext_noop("shuffle.client_seeds is a list of the seats' seeds (text)")
        )
    if not isinstance(nonce, int) or isinstance(nonce, bool) or nonce < 0:
        raise FairnessError(gettext_noop("shuffle.nonce is the game's number, a whole number"))
    return [check_client_seed(s) for s in seeds], nonce
