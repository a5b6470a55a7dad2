"""What every tournament use case shares: the refusal, the row locks, the lookups of a player.

An organiser's change locks the tournament first (its advisory lock, then its row:
:func:`_lock`), then its rounds and tables; the series hook, at a game's end, shares the
tournament's locks, then locks its table, and only a table whose series is over its
round (docs/tournaments.md, "Each table's series").  So concurrent organisers and game
workers serialise instead of deadlocking.
"""

from __future__ import annotations

import unicodedata
from typing import Any

from django.utils.translation import gettext

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


def same_name_taken(club: Any, name: str, *, other_than: int | None = None) -> bool:
    """Whether a player of ``club`` is called ``name`` as a reader would read it: up to case,
    compatibility forms and what shows nothing ("ann" or "Ann\u200b" beside "Ann" was two
    players whom the organiser could not tell apart on a list: found by trying).

    Compared in Python: SQLite's ``LOWER`` and ``LIKE`` fold ASCII letters only, and
    «Аня» beside «аня» is the same mistake.  A club's names, an organiser's action."""
    wanted = _as_read(name)
    players = Player.objects.filter(club=club)
    if other_than is not None:
        players = players.exclude(pk=other_than)
    names = players.values_list("name", flat=True)
    return any(_as_read(other) == wanted for other in names.iterator())


def _as_read(name: str) -> str:
    """A name as a reader tells it from another: its compatibility form (NFKC) as kept
    (:func:`written_name`), case folded."""
    return written_name(unicodedata.normalize("NFKC", name)).casefold()


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
        raise ServiceError(words % {"player": player.name, "tournament": tournament.name}, "player")
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
