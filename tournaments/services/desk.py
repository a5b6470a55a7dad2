"""The organiser's desk: use cases of several steps that the web pages run as one.

Each is one transaction over the use cases of :mod:`tournaments.services` (all of it,
or none of it); their side effects (tasks, notifications) are the services' own,
sent on commit.
"""

from __future__ import annotations

from collections.abc import Iterable

from django.db import transaction

from tournaments.models import CheckIn, Player, Registration, Tournament
from tournaments.services.base import next_round_number
from tournaments.services.clubs import add_player
from tournaments.services.entries import check_in, register


def register_players(tournament: Tournament, players: Iterable[Player]) -> list[Player]:
    """Register every one of ``players`` in ``tournament``, or none of them."""
    chosen = list(players)
    with transaction.atomic():
        for player in chosen:
            register(tournament, player)
    return chosen


def add_and_register(tournament: Tournament, name: str, *, bot_level: str = "") -> Player:
    """A new player of the tournament's club, registered in it: both, or neither."""
    with transaction.atomic():
        player = add_player(tournament.club, name, bot_level=bot_level)
        register(tournament, player)
    return player


def check_in_all(tournament: Tournament) -> tuple[int, list[str]]:
    """Check in for the next round every active registration not checked in yet, or none.

    Returns the round's number and the names of the players checked in now.
    """
    number = next_round_number(tournament)
    done = []
    with transaction.atomic():
        for registration in Registration.objects.filter(
            tournament=tournament, dropped_after__isnull=True
        ).select_related("player"):
            if registration.from_round > number:
                continue
            if CheckIn.objects.filter(
                tournament=tournament, player=registration.player, round_number=number
            ).exists():
                continue
            check_in(tournament, registration.player)
            done.append(registration.player.name)
    return number, done
