"""What every tournament use case shares: the refusal, the row locks, the lookups of a player.

An organiser's change locks the tournament first (its advisory lock, then its row:
:func:`_lock`), then its rounds and tables; the series hook, at a game's end, shares the
tournament's locks, then locks its table, and only a table whose series is over its
round (docs/tournaments.md, "Each table's series").  So concurrent organisers and game
workers serialise instead of deadlocking.  Adding or renaming a player takes its club's
lock for names (:func:`tournaments.sql.lock_player_names`) before all of these and before
the club's row: the desk's add-and-register takes it, then the tournament's.
"""

from __future__ import annotations

import unicodedata
from collections import Counter
from itertools import groupby
from typing import Any

from django.utils.translation import gettext, pgettext_lazy

from engine.contract import said
from tournaments import sql
from tournaments.models import Player, Registration, Round, Tournament

PlayerRef = Player | int


class ServiceError(ValueError):
    """A use case refused: ``message`` says what is wrong and how to fix it; nothing changed.

    ``field`` names the input at fault when there is one (``"rounds"``, ``"player"``).
    """

    def __init__(self, message: str, field: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.field = field


class NotThere(ServiceError):
    """Refused because what was named is not there: no registration of the player, no
    drop to take back.  Where the caller's address names that thing (the API's
    ``DELETE …/registrations/{player}`` and ``DELETE …/drops/{player}``) it is a 404;
    elsewhere it is refused as any :class:`ServiceError` is."""


def _positive(
    value: int | None,
    name: str,
    *,
    allow_none: bool = False,
    least: int = 1,
    most: int | None = None,
) -> None:
    if value is None and allow_none:
        return
    whole = isinstance(value, int) and not isinstance(value, bool)
    if whole and least <= value and (most is None or value <= most):  # type: ignore[operator]
        return
    bounds = {"name": name, "least": least, "most": most, "value": said(value)}
    raise ServiceError(
        gettext("%(name)s is a whole number of at least %(least)s, not %(value)s") % bounds
        if most is None
        else gettext("%(name)s is a whole number from %(least)s to %(most)s, not %(value)s")
        % bounds,
        name,
    )


#: Characters that show nothing beside those Unicode classes as format or control (Cf, Cc):
#: variation selectors, the combining grapheme joiner, the Hangul fillers, the braille blank.
_INVISIBLE = frozenset(
    [*map(chr, range(0xFE00, 0xFE10)), *map(chr, range(0xE0100, 0xE01F0))]
    + ["\u034f", "\u115f", "\u1160", "\u3164", "\uffa0", "\u2800"]
)


def written_name(text: str | None) -> str:
    """A name as kept: Unicode's composed form (NFC), without the characters that show
    nothing (format and control characters, bidirectional overrides among them, which made
    "\u202enna" read "ann"; variation selectors, fillers), its spaces single and none around
    it; ``""`` if nothing in it is a letter, digit, symbol or mark of punctuation (a name of
    a zero-width space made a tournament no one could see the name of: found by trying),
    which the callers refuse as a missing name."""
    name = " ".join(unicodedata.normalize("NFC", text or "").split())  # a tab is a space
    kept = "".join(
        c for c in name if c not in _INVISIBLE and unicodedata.category(c) not in ("Cf", "Cc")
    )
    name = " ".join(kept.split())
    shown = any(unicodedata.category(c)[0] in "LNSP" for c in name if c not in _INVISIBLE)
    return name if shown else ""


def same_name_taken(club: Any, name: str, *, other_than: int | None = None) -> str | None:
    """The name of the player of ``club`` called ``name`` as a reader would read it, or
    ``None``: up to case, compatibility forms, what shows nothing and lookalike letters of
    another alphabet ("ann" or "Ann\u200b" beside "Ann" was two players whom the organiser
    could not tell apart on a list: found by trying).  Named so that a refusal can say which
    player it clashes with ("Strauss" reads as "Strauß": case folding writes ß as ss).

    Compared in Python: SQLite's ``LOWER`` and ``LIKE`` fold ASCII letters only, and
    «Аня» beside «аня» is the same mistake.  A club's names, an organiser's action."""
    wanted = _as_read(name)
    players = Player.objects.filter(club=club)
    if other_than is not None:
        players = players.exclude(pk=other_than)
    names = players.values_list("name", flat=True)
    return next((other for other in names.iterator() if _as_read(other) == wanted), None)


def refuse_taken_name(club: Any, name: str, *, other_than: int | None = None) -> None:
    """Refuse ``name`` for a player of ``club`` if another reads the same
    (:func:`same_name_taken`), naming that player when it is written otherwise."""
    taken = same_name_taken(club, name, other_than=other_than)
    if taken is None:
        return
    if taken == name:
        message = gettext("%(club)s already has a player called %(name)s")
    else:
        message = gettext(
            "%(club)s already has a player called %(taken)s, which reads the same as "
            "%(name)s: tell them apart, with a surname or an initial"
        )
    raise ServiceError(message % {"club": club, "name": said(name), "taken": said(taken)}, "name")


def _as_read(name: str) -> str:
    """A name as a reader tells it from another: its compatibility form (NFKC) as kept
    (:func:`written_name`), case folded, decomposed (so that a Cyrillic «ё» meets a Latin
    "ë" as "e" and its diaeresis), each letter of :data:`_LOOKALIKES` as its Latin twin."""
    read = written_name(unicodedata.normalize("NFKC", name)).casefold()
    return unicodedata.normalize("NFD", read).translate(_LOOKALIKES)


#: The Cyrillic and Greek letters that look like a Latin one, as case folding leaves them
#: (small), each to that Latin letter: «КОТ» and "KOT" and Greek "ΚΟΤ" read the same.
#: Where a letter's capital and small forms look like two different Latin letters (Greek
#: "Ν" like N, "ν" like v; Cyrillic «Н» like H, «н» like nothing), the capital decides:
#: capitals are the exact copies, and a name begins with one.  Letters only: the digit 3
#: beside «З», or Latin "rn" beside "m", are not caught (docs/tournaments.md).
_LOOKALIKES = str.maketrans(
    {
        "\N{CYRILLIC SMALL LETTER A}": "a",
        "\N{CYRILLIC SMALL LETTER VE}": "b",
        "\N{CYRILLIC SMALL LETTER IE}": "e",
        "\N{CYRILLIC SMALL LETTER KA}": "k",
        "\N{CYRILLIC SMALL LETTER EM}": "m",
        "\N{CYRILLIC SMALL LETTER EN}": "h",
        "\N{CYRILLIC SMALL LETTER O}": "o",
        "\N{CYRILLIC SMALL LETTER ER}": "p",
        "\N{CYRILLIC SMALL LETTER ES}": "c",
        "\N{CYRILLIC SMALL LETTER TE}": "t",
        "\N{CYRILLIC SMALL LETTER U}": "y",
        "\N{CYRILLIC SMALL LETTER HA}": "x",
        "\N{CYRILLIC SMALL LETTER BYELORUSSIAN-UKRAINIAN I}": "i",
        "\N{CYRILLIC SMALL LETTER JE}": "j",
        "\N{CYRILLIC SMALL LETTER DZE}": "s",
        "\N{CYRILLIC SMALL LETTER SHHA}": "h",
        "\N{CYRILLIC SMALL LETTER KOMI DE}": "d",
        "\N{CYRILLIC SMALL LETTER QA}": "q",
        "\N{CYRILLIC SMALL LETTER WE}": "w",
        "\N{CYRILLIC SMALL LETTER PALOCHKA}": "l",
        "\N{GREEK SMALL LETTER ALPHA}": "a",
        "\N{GREEK SMALL LETTER BETA}": "b",
        "\N{GREEK SMALL LETTER EPSILON}": "e",
        "\N{GREEK SMALL LETTER ZETA}": "z",
        "\N{GREEK SMALL LETTER ETA}": "h",
        "\N{GREEK SMALL LETTER IOTA}": "i",
        "\N{GREEK SMALL LETTER KAPPA}": "k",
        "\N{GREEK SMALL LETTER MU}": "m",
        "\N{GREEK SMALL LETTER NU}": "n",
        "\N{GREEK SMALL LETTER OMICRON}": "o",
        "\N{GREEK SMALL LETTER RHO}": "p",
        "\N{GREEK SMALL LETTER TAU}": "t",
        "\N{GREEK SMALL LETTER UPSILON}": "y",
        "\N{GREEK SMALL LETTER CHI}": "x",
        "\N{GREEK LUNATE SIGMA SYMBOL}": "c",
        "\N{GREEK LETTER YOT}": "j",
    }
)

#: The alphabets whose letters look alike, by the first word of a letter's Unicode name,
#: and how a refusal names their letters.
_LOOKALIKE_SCRIPTS = {
    "LATIN": pgettext_lazy("letters", "Latin"),
    "CYRILLIC": pgettext_lazy("letters", "Cyrillic"),
    "GREEK": pgettext_lazy("letters", "Greek"),
}


def _script(letter: str) -> str | None:
    """Which of :data:`_LOOKALIKE_SCRIPTS` ``letter`` is of, if any."""
    first = unicodedata.name(letter, "").split(" ", 1)[0]
    return first if first in _LOOKALIKE_SCRIPTS else None


def refuse_mixed_scripts(name: str) -> None:
    """Refuse a player's name with a word that mixes Latin, Cyrillic and Greek letters:
    «Ивaн» with a Latin "a" reads as «Иван» on the standings, and lets one player pass for
    another.  A word is a run of letters (and their marks), so "Jean-Пьер" has two, each in
    one alphabet, and is taken.  Read in compatibility form (NFKC), as names are compared,
    so that a fullwidth or mathematical "a" is Latin too.  The refusal names the letters
    not in the word's main alphabet, which look like the others and cannot be seen."""
    read = unicodedata.normalize("NFKC", name)
    for is_word, run in groupby(read, key=lambda c: unicodedata.category(c)[0] in "LM"):
        if not is_word:
            continue
        word = "".join(run)
        letters = [(c, script) for c in word if (script := _script(c)) is not None]
        counts = Counter(script for _, script in letters)
        if len(counts) < 2:
            continue
        main = max(counts, key=lambda script: counts[script])  # a tie: the first's
        odd = "; ".join(
            f"{_LOOKALIKE_SCRIPTS[script]}: "
            + ", ".join(said(c) for c in dict.fromkeys(c for c, s in letters if s == script))
            for script in counts
            if script != main
        )
        raise ServiceError(
            gettext(
                "the word %(word)s mixes alphabets whose letters look alike (%(letters)s): "
                "write each word in one alphabet"
            )
            % {"word": said(word), "letters": odd},
            "name",
        )


def _lock(tournament: Tournament) -> Tournament:
    """The tournament row, locked for the rest of the transaction, fresh from the database
    (its advisory lock first: :func:`tournaments.sql.lock_tournament`)."""
    sql.lock_tournament(tournament.pk)
    return Tournament.objects.select_for_update().get(pk=tournament.pk)


def _rounds(tournament: Tournament) -> list[Round]:
    return list(Round.objects.filter(tournament=tournament).order_by("number"))


def _begun(round_: Round) -> bool:
    return round_.status in (Round.Status.PLAYING, Round.Status.FINISHED)


def next_round_number(tournament: Tournament) -> int:
    """The first round that has not begun (a ``SEATED`` round has not): where entries go."""
    begun = [r.number for r in _rounds(tournament) if _begun(r)]
    return max(begun, default=0) + 1


def _player(tournament: Tournament, player: PlayerRef) -> Player:
    if isinstance(player, Player):
        found = player
    else:
        found_or_none = Player.objects.filter(pk=player).first()
        if found_or_none is None:
            raise ServiceError(
                gettext("there is no player %(player)s") % {"player": said(player)}, "player"
            )
        found = found_or_none
    if found.club_id != tournament.club_id:
        raise ServiceError(
            gettext("%(found)s is not a player of %(club)s")
            % {"found": found.name, "club": tournament.club},
            "player",
        )
    return found


def _registration(tournament: Tournament, player: Player, *, leaving: bool = False) -> Registration:
    """``player``'s registration in ``tournament``; without one, a :class:`ServiceError`
    that says to register them first, or (``leaving``: a withdrawal or a drop, which
    registering would not help) only that they are not registered."""
    found = Registration.objects.filter(tournament=tournament, player=player).first()
    if found is None:
        words = (
            gettext("%(player)s is not registered in %(tournament)s")
            if leaving
            else gettext("%(player)s is not registered in %(tournament)s: register them first")
        )
        raise NotThere(words % {"player": player.name, "tournament": tournament.name}, "player")
    return found


def _not_dropped(tournament: Tournament, who: Player, registration: Registration) -> None:
    """Refuse what a player who dropped out may no longer do (check in, be absent, be
    seated late)."""
    if registration.dropped_after is not None:
        raise ServiceError(
            gettext("%(who)s dropped out of %(tournament)s")
            % {"who": who.name, "tournament": tournament.name},
            "player",
        )


def _active(registration: Registration, round_number: int) -> bool:
    return registration.dropped_after is None and registration.from_round <= round_number
