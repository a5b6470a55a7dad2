"""Entries: register a player, check them in for a round (or mark them absent), drop them
out, withdraw them."""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.utils.translation import gettext

from engine.bots import bot_levels
from engine.contract import said
from tournaments.models import Absence, CheckIn, Registration, Round, Tournament
from tournaments.play import randomness
from tournaments.seating import Constraints
from tournaments.services.base import (
    PlayerRef,
    ServiceError,
    _lock,
    _not_dropped,
    _player,
    _positive,
    _registration,
    _rounds,
    next_round_number,
)
from tournaments.services.queries import game_name
from tournaments.services.rounds import _in_round, _reseat


def register(
    tournament: Tournament, player: PlayerRef, *, from_round: int | None = None
) -> Registration:
    """Enter ``player`` in ``tournament``; a late entry while rounds remain.

    ``from_round`` (default: the next round that has not begun) is the first
    round the player can be seated in; the rounds before it score nothing.
    """
    with transaction.atomic():
        tournament = _lock(tournament)
        who = _player(tournament, player)
        if tournament.status == Tournament.Status.FINISHED:
            raise ServiceError(
                gettext("%(tournament)s is finished: nobody can enter it now")
                % {"tournament": tournament.name}
            )
        if who.is_bot and who.bot_level not in bot_levels(tournament.game):
            raise ServiceError(
                gettext(
                    "%(who)s is a %(bot_level)s bot, which does not play %(game)s; "
                    "levels: %(value)s"
                )
                % {
                    "who": who.name,
                    "bot_level": said(who.bot_level),
                    "game": game_name(tournament.game),
                    "value": ", ".join(bot_levels(tournament.game)),
                },
                "player",
            )
        entered = Registration.objects.filter(tournament=tournament, player=who).first()
        if entered is not None and entered.dropped_after is not None:
            # Not "already registered": the entry is there, dropped (found by trying).
            raise ServiceError(
                gettext(
                    "%(who)s dropped out of %(tournament)s after round %(number)s: a drop"
                    " is not taken back"
                )
                % {"who": who.name, "tournament": tournament.name, "number": entered.dropped_after},
                "player",
            )
        if entered is not None:
            raise ServiceError(
                gettext("%(who)s is already registered in %(tournament)s")
                % {"who": who.name, "tournament": tournament.name},
                "player",
            )
        first_open = next_round_number(tournament)
        if first_open > tournament.rounds:
            raise ServiceError(
                gettext("%(tournament)s has no rounds left to enter (all %(rounds)s begun)")
                % {"tournament": tournament.name, "rounds": tournament.rounds}
            )
        start = first_open if from_round is None else from_round
        _positive(start, "from_round")
        if not first_open <= start <= tournament.rounds:
            raise ServiceError(
                gettext(
                    "from_round must be between %(first_open)s (the next round) "
                    "and %(rounds)s, not %(start)s"
                )
                % {"first_open": first_open, "rounds": tournament.rounds, "start": start},
                "from_round",
            )
        return Registration.objects.create(tournament=tournament, player=who, from_round=start)


def check_in(tournament: Tournament, player: PlayerRef, round_number: int | None = None) -> CheckIn:
    """Mark ``player`` present for a round (default: the next round that has not begun).

    Checking in twice is harmless (the first check-in is returned).  A player
    checked in for a round already seated is not seated by this: the organiser
    seats them with :func:`~tournaments.services.rounds.seat_late` (nobody else
    moves) or seats the whole round again (:func:`reseat`).
    """
    with transaction.atomic():
        tournament = _lock(tournament)
        who = _player(tournament, player)
        registration = _registration(tournament, who)
        first_open = next_round_number(tournament)
        number = first_open if round_number is None else round_number
        _positive(number, "round_number")
        if tournament.status == Tournament.Status.FINISHED or first_open > tournament.rounds:
            raise ServiceError(
                gettext("%(tournament)s has no rounds left to check in for")
                % {"tournament": tournament.name}
            )
        if not first_open <= number <= tournament.rounds:
            raise ServiceError(
                gettext(
                    "round %(number)s cannot take check-ins: the next round is "
                    "%(first_open)s (of %(rounds)s)"
                )
                % {"number": number, "first_open": first_open, "rounds": tournament.rounds},
                "round",
            )
        _not_dropped(tournament, who, registration)
        if registration.from_round > number:
            raise ServiceError(
                gettext("%(who)s entered from round %(from_round)s, not round %(number)s")
                % {"who": who.name, "from_round": registration.from_round, "number": number},
                "round",
            )
        found, _ = CheckIn.objects.get_or_create(
            tournament=tournament, player=who, round_number=number
        )
        # They are here after all: an absence marked for this round no longer holds.
        Absence.objects.filter(tournament=tournament, player=who, round_number=number).delete()
        return found


def drop(tournament: Tournament, player: PlayerRef) -> Registration:
    """Drop ``player`` out of ``tournament`` between rounds.

    They keep their results (and stay in the standings, marked dropped) and are
    never seated again.  Refused while a round is being played.  If the next
    round is already seated with them in it, it is seated again without them
    (earlier swaps and constraints of that round must be made again).
    """
    with transaction.atomic():
        tournament = _lock(tournament)
        who = _player(tournament, player)
        registration = check_drop(tournament, who)
        rounds = _rounds(tournament)
        finished = [r.number for r in rounds if r.status == Round.Status.FINISHED]
        registration.dropped_after = max(finished, default=0)
        registration.save(update_fields=["dropped_after"])
        seated = [r for r in rounds if r.status == Round.Status.SEATED]
        if seated and _in_round(seated[0], who):
            _reseat(tournament, seated[0], Constraints(), randomness.source.seeded_generator())
        return registration


def check_drop(tournament: Tournament, player: PlayerRef) -> Registration:
    """The registration :func:`drop` would end, or a :class:`ServiceError` saying why it
    may not (already dropped, the tournament finished, a round being played, or no round
    begun yet: then it is a withdrawal): what it asks, and the page's confirmation before it."""
    who = _player(tournament, player)
    registration = _registration(tournament, who, leaving=True)
    if registration.dropped_after is not None:
        raise ServiceError(
            gettext("%(who)s already dropped out after round %(dropped_after)s")
            % {"who": who.name, "dropped_after": registration.dropped_after},
            "player",
        )
    if tournament.status == Tournament.Status.FINISHED:
        raise ServiceError(
            gettext("%(tournament)s is finished: nobody can drop out now")
            % {"tournament": tournament.name}
        )
    playing = [r for r in _rounds(tournament) if r.status == Round.Status.PLAYING]
    if playing:
        raise ServiceError(
            gettext("round %(value)s is being played: %(who)s can drop out once it finishes")
            % {"value": playing[0].number, "who": who.name},
            "player",
        )
    # A drop now would leave a line "dropped after round 0" in the standings: a withdrawal
    # takes the registration back and leaves none (the pages' Withdraw, the API's
    # DELETE of the registration: :func:`unregister`).
    if next_round_number(tournament) == 1:
        raise ServiceError(
            gettext(
                "no round of %(tournament)s has begun: withdraw %(who)s instead (the"
                " registration goes, and no line is left in the standings)"
            )
            % {"tournament": tournament.name, "who": who.name},
            "player",
        )
    return registration


def withdraw(tournament: Tournament, player: PlayerRef) -> Registration | None:
    """Take ``player`` out of ``tournament``: undone before round 1, a drop after.

    Before round 1 has begun the registration (and the player's check-ins) is
    deleted, so they leave no line in the standings, and a seated round 1 is
    seated again without them; returns ``None``.  Once a round has begun it is
    :func:`drop` (they keep their results) and returns the registration.
    """
    with transaction.atomic():
        tournament = _lock(tournament)
        who = _player(tournament, player)
        registration = _registration(tournament, who, leaving=True)
        if next_round_number(tournament) > 1:
            return drop(tournament, who)
        rounds = _rounds(tournament)
        seated = [r for r in rounds if r.status == Round.Status.SEATED]
        CheckIn.objects.filter(tournament=tournament, player=who).delete()
        registration.delete()
        if seated and _in_round(seated[0], who):
            _reseat(tournament, seated[0], Constraints(), randomness.source.seeded_generator())
        return None


def unregister(tournament: Tournament, player: PlayerRef) -> None:
    """Withdraw ``player`` before round 1 has begun (:func:`withdraw`: the registration and
    the check-ins go); refused once it has, where taking the registration back would take
    results with it (a drop keeps them: :func:`drop`).  The API's ``DELETE`` of a
    registration, which says what it does whatever the round."""
    with transaction.atomic():
        tournament = _lock(tournament)
        who = _player(tournament, player)
        _registration(tournament, who, leaving=True)
        if next_round_number(tournament) > 1:
            raise ServiceError(
                gettext(
                    "round 1 of %(tournament)s has begun: a registration is no longer taken"
                    " back; drop %(who)s out instead (their results stay)"
                )
                % {"tournament": tournament.name, "who": who.name},
                "player",
            )
        withdraw(tournament, who)


def check_absence(tournament: Tournament, player: PlayerRef) -> int:
    """The round :func:`mark_absent` would mark ``player`` absent for, or a
    :class:`ServiceError` saying why it may not: what it asks, and the page's question."""
    who = _player(tournament, player)
    registration = _registration(tournament, who)
    number = next_round_number(tournament)
    if tournament.status == Tournament.Status.FINISHED or number > tournament.rounds:
        raise ServiceError(
            gettext("%(tournament)s has no rounds left to be absent from")
            % {"tournament": tournament.name}
        )
    _not_dropped(tournament, who, registration)
    return number


def check_withdrawal(tournament: Tournament, player: PlayerRef) -> None:
    """Refuse (:class:`ServiceError`) a withdrawal :func:`withdraw` would refuse: after
    round 1 has begun it is a drop, which waits for the round being played."""
    if next_round_number(tournament) > 1:
        check_drop(tournament, player)
    else:
        _registration(tournament, _player(tournament, player), leaving=True)


def mark_absent(tournament: Tournament, player: PlayerRef, *, by: Any = None) -> Absence:
    """Mark ``player`` absent for the next round that has not begun: it seats without them.

    Their check-in for that round is removed and even an automatic check-in skips
    them; if that round is already seated with them in it, it is seated again
    without them (earlier swaps and constraints of that round must be made again).
    Checking them in for the round (:func:`check_in`) lifts the absence.  They stay
    registered: the rounds after count them again.
    """
    with transaction.atomic():
        tournament = _lock(tournament)
        who = _player(tournament, player)
        number = check_absence(tournament, who)
        user = by if getattr(by, "is_authenticated", False) else None
        absence, _ = Absence.objects.get_or_create(
            tournament=tournament, player=who, round_number=number, defaults={"by": user}
        )
        CheckIn.objects.filter(tournament=tournament, player=who, round_number=number).delete()
        seated = [r for r in _rounds(tournament) if r.status == Round.Status.SEATED]
        if seated and _in_round(seated[0], who):
            _reseat(tournament, seated[0], Constraints(), randomness.source.seeded_generator())
        return absence
