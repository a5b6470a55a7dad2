"""Entries: register a player, check them in for a round (or mark them absent), drop them
out (and take a drop back), withdraw them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.db import transaction
from django.utils.translation import gettext

from engine.bots import bot_levels
from engine.contract import said
from tournaments.models import Absence, CheckIn, Player, Registration, Round, Tournament
from tournaments.play import randomness
from tournaments.seating import Constraints
from tournaments.services.base import (
    NotThere,
    PlayerRef,
    ServiceError,
    _begun,
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
from tournaments.services.seeds import seating_fixed_by


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
            # Not "already registered": the entry is there, dropped (found by trying); and
            # registering again is not how a drop is undone (take_back_drop is).
            names = {
                "who": who.name,
                "tournament": tournament.name,
                "number": entered.dropped_after,
                "next": entered.dropped_after + 1,
            }
            if (
                next_round_number(tournament) == entered.dropped_after + 1
                and entered.dropped_after < tournament.rounds  # a round left to come back to
            ):
                words = gettext(
                    "%(who)s dropped out of %(tournament)s after round %(number)s: bring them"
                    " back into the tournament instead (a drop is taken back until round"
                    " %(next)s begins)"
                )
            else:
                words = gettext(
                    "%(who)s dropped out of %(tournament)s after round %(number)s, and round"
                    " %(next)s has begun since: their drop stands"
                )
            raise ServiceError(words % names, "player")
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


def _check_leaving_seated_round(tournament: Tournament, who: Player) -> None:
    """Refuse (:class:`ServiceError`) taking ``who`` out of the seated next round they sit
    in (a drop, a withdrawal, an absence: each seats it again without them) once its
    seating is fixed by a client seed set since it was seated: a new seating then would
    let the server choose among decks it can work out (docs/fairness.md), as a reseat
    would.  The round is begun as seated, and they leave after it."""
    seated = next((r for r in _rounds(tournament) if r.status == Round.Status.SEATED), None)
    if seated is None or not _in_round(seated, who):
        return
    if seating_fixed_by(seated) is None:
        return
    # Worded for the player too (their own withdrawal asks this): no other player named,
    # no organiser's step to take.
    raise ServiceError(
        gettext(
            "round %(number)s is seated with %(who)s, and its seating is fixed: a player of"
            " it set a client seed after it was seated, and a new seating now would let the"
            " server choose among decks it can already work out (docs/fairness.md). The"
            " round is played as seated (a seat can be handed to a bot, or its series"
            " forfeited); %(who)s can leave once it has been played."
        )
        % {"number": seated.number, "who": who.name},
        "player",
    )


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
    _check_leaving_seated_round(tournament, who)
    return registration


@dataclass(frozen=True)
class TakeBack:
    """A drop taken back: what :func:`check_take_back_drop` finds it would do, and what
    :func:`take_back_drop` did."""

    registration: Registration
    #: The next round, seated already, that is seated again with them in it; ``None`` if
    #: no round is seated, or if that round stays as it is (``left_out`` says why).
    reseated: int | None
    #: Why the seated next round stays seated without them, in words for the organiser
    #: (not checked in for it, marked absent, its seating fixed); ``None`` otherwise.
    left_out: str | None


def check_take_back_drop(tournament: Tournament, player: PlayerRef) -> TakeBack:
    """What :func:`take_back_drop` would do, or a :class:`ServiceError` saying why it may
    not (not dropped, the tournament finished, a round begun since the drop): what it asks,
    and the page's confirmation before it."""
    who = _player(tournament, player)
    registration = _registration(tournament, who, leaving=True)
    if registration.dropped_after is None:
        raise NotThere(
            gettext("%(who)s has not dropped out of %(tournament)s: there is no drop to take back")
            % {"who": who.name, "tournament": tournament.name},
            "player",
        )
    if tournament.status == Tournament.Status.FINISHED:
        raise ServiceError(
            gettext("%(tournament)s is finished: the drop of %(who)s stands")
            % {"tournament": tournament.name, "who": who.name},
            "player",
        )
    rounds = _rounds(tournament)
    # An undo, not a late entry: once play went on without them, the rounds they missed
    # would score nothing and the drop is the truer record.
    since = [r for r in rounds if r.number > registration.dropped_after and _begun(r)]
    if since:
        raise ServiceError(
            gettext(
                "round %(number)s has begun since %(who)s dropped out (after round"
                " %(dropped_after)s), so their drop stands"
            )
            % {
                "number": since[0].number,
                "who": who.name,
                "dropped_after": registration.dropped_after,
            },
            "player",
        )
    seated = next((r for r in rounds if r.status == Round.Status.SEATED), None)
    # A late entry from a round after the seated one is not seated in it either way.
    if seated is None or registration.from_round > seated.number:
        return TakeBack(registration, None, None)
    left_out = _left_out_of(tournament, who, seated)
    return TakeBack(registration, None if left_out else seated.number, left_out)


def _left_out_of(tournament: Tournament, who: Player, round_: Round) -> str | None:
    """Why the seated ``round_`` cannot be seated again with ``who`` (back from a drop) in
    it, or ``None`` if it can: seating again seats the checked-in players (bots always
    are), never one marked absent, and not at all once its seating is fixed."""
    names = {"who": who.name, "number": round_.number, "next": round_.number + 1}
    if seating_fixed_by(round_) is not None:
        # First: no check-in or late seat would bring them into it (a late seating of a
        # fixed round is refused as a reseat is: found by review).
        return (
            gettext(
                "%(who)s is not seated in round %(number)s: its seating is fixed by a"
                " client seed set after it was seated (docs/fairness.md), so it is played"
                " as seated; they play again from round %(next)s"
            )
            % names
        )
    of_round = {"tournament": tournament, "player": who, "round_number": round_.number}
    if Absence.objects.filter(**of_round).exists():
        return (
            gettext(
                "%(who)s is marked absent for round %(number)s, which stays seated without"
                " them: check them in to lift the absence, then seat them from the desk"
            )
            % names
        )
    if not who.is_bot and not CheckIn.objects.filter(**of_round).exists():
        return (
            gettext(
                "%(who)s is not checked in for round %(number)s, which stays seated without"
                " them: check them in, then seat them from the desk"
            )
            % names
        )
    return None


def take_back_drop(tournament: Tournament, player: PlayerRef) -> TakeBack:
    """Undo a drop (a mis-click at the desk) before play goes on without the player.

    Allowed while no round after the one they dropped after has begun and the
    tournament is not finished: the registration is as if never dropped, and the
    standings lose the "dropped" mark.  If the next round is already seated (their drop
    seated it again without them), it is seated again with them in it, as a drop seats
    it again (earlier swaps and constraints of that round must be made again); if they
    are not checked in for it, marked absent, or its seating is fixed, it stays as it
    is and :attr:`TakeBack.left_out` says why.
    """
    with transaction.atomic():
        tournament = _lock(tournament)
        who = _player(tournament, player)
        found = check_take_back_drop(tournament, who)
        registration = found.registration
        registration.dropped_after = None
        registration.save(update_fields=["dropped_after"])
        if found.reseated is not None:
            seated = Round.objects.get(tournament=tournament, number=found.reseated)
            _reseat(tournament, seated, Constraints(), randomness.source.seeded_generator())
        return TakeBack(registration, found.reseated, found.left_out)


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
        _check_leaving_seated_round(tournament, who)
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
    _check_leaving_seated_round(tournament, who)
    return number


def check_withdrawal(tournament: Tournament, player: PlayerRef) -> None:
    """Refuse (:class:`ServiceError`) a withdrawal :func:`withdraw` would refuse: after
    round 1 has begun it is a drop, which waits for the round being played."""
    if next_round_number(tournament) > 1:
        check_drop(tournament, player)
    else:
        who = _player(tournament, player)
        _registration(tournament, who, leaving=True)
        _check_leaving_seated_round(tournament, who)


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
