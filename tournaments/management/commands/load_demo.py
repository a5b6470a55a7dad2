"""``manage.py load_demo``: a demo club to look at and play in; running it again changes nothing.

Creates, once each:

* the club "Parlour Demo Club" with the organiser login ``organiser`` (password
  ``organiser``, staff, so the admin works);
* 8 people (Ann and Bo with logins ``ann``/``bo``, password = username) and 12
  bots of mixed levels;
* a finished Old Maid tournament of the bots (played here, synchronously);
* a Bhabhi bot tournament (3 rounds, each table a series of 3 deals counted in
  losses, tables of 4) with round 1 begun: ``make run``'s Celery worker plays it
  live; ``manage.py play_bots --tournament ID --next-rounds`` plays it without one;
* a Give Away tournament open for registration, the people registered, for
  trying the organiser's commands.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import User
from django.db import transaction
from django.utils.translation import gettext

from engine.series import SeriesFormat
from tournaments.management.commands.play_bots import play_tournament
from tournaments.management.language import LanguageCommand
from tournaments.models import Club, Player, Tournament
from tournaments.services import begin_round, create_tournament, register, start_round
from tournaments.services.queries import game_name

CLUB_NAME = "Parlour Demo Club"
CLUB_SLUG = "parlour-demo"
ORGANISER = "organiser"
PEOPLE = ["Ann", "Bo", "Cy", "Di", "Eve", "Flo", "Gus", "Hal"]
LOGINS = {"Ann": "ann", "Bo": "bo"}
BOTS = [
    ("Ada Bot", "heuristic"),
    ("Ben Bot", "random"),
    ("Cal Bot", "heuristic"),
    ("Dot Bot", "random"),
    ("Eli Bot", "heuristic"),
    ("Fay Bot", "heuristic"),
    ("Gil Bot", "random"),
    ("Hap Bot", "heuristic"),
    ("Ivy Bot", "random"),
    ("Jem Bot", "heuristic"),
    ("Kit Bot", "random"),
    ("Lou Bot", "heuristic"),
]
FINISHED = "Demo Old Maid Afternoon"
RUNNING = "Demo Bhabhi Night"
OPEN = "Demo Give Away Friday"


def _login(username: str, *, staff: bool = False) -> tuple[User, bool]:
    user = User.objects.filter(username=username).first()
    if user is not None:
        return user, False
    user = User.objects.create_user(username, password=username, is_staff=staff)
    return user, True


class Command(LanguageCommand):
    help = "Load the demo club, players and tournaments (idempotent)."

    def handle(self, *args: Any, **opts: Any) -> None:
        created: list[str] = []
        with transaction.atomic():
            organiser, new = _login(ORGANISER, staff=True)
            if new:
                created.append(f"login {ORGANISER}")
            club = Club.objects.filter(slug=CLUB_SLUG).first()
            if club is None:
                club = Club.objects.create(name=CLUB_NAME, slug=CLUB_SLUG)
                created.append(f"club {CLUB_NAME}")
            if not club.organisers.filter(pk=organiser.pk).exists():
                club.organisers.add(organiser)
            people = []
            for name in PEOPLE:
                user = _login(LOGINS[name])[0] if name in LOGINS else None
                player, new = Player.objects.get_or_create(
                    club=club, name=name, defaults={"user": user}
                )
                people.append(player)
                if new:
                    created.append(f"player {name}")
            bots = []
            for name, level in BOTS:
                player, new = Player.objects.get_or_create(
                    club=club, name=name, defaults={"bot_level": level}
                )
                bots.append(player)
                if new:
                    created.append(f"bot {name} ({level})")
            tournaments = set(Tournament.objects.filter(club=club).values_list("name", flat=True))
        if FINISHED not in tournaments:
            self.finished(club, bots[:6])
            created.append(f"tournament {FINISHED} (finished)")
        if RUNNING not in tournaments:
            self.running(club, bots)
            created.append(f"tournament {RUNNING} (round 1 playing)")
        if OPEN not in tournaments:
            with transaction.atomic():
                open_ = create_tournament(club, OPEN, "give_away", 3, table_preferred=4)
                for player in [*people, *bots[:4]]:
                    register(open_, player)
            created.append(f"tournament {OPEN} (registration open)")
        self.report(club, created)

    def finished(self, club: Club, bots: list[Player]) -> None:
        with transaction.atomic():
            tournament = create_tournament(
                club, FINISHED, "old_maid", 2, series=SeriesFormat("losses", 1), table_max=3
            )
            for bot in bots:
                register(tournament, bot)
        play_tournament(tournament, next_rounds=True)

    def running(self, club: Club, bots: list[Player]) -> None:
        with transaction.atomic():
            tournament = create_tournament(
                club,
                RUNNING,
                "bhabhi",
                3,
                series=SeriesFormat("losses", 3),
                table_preferred=4,
                turn_seconds=60,
            )
            for bot in bots:
                register(tournament, bot)
            begin_round(start_round(tournament, auto_check_in=True))

    def report(self, club: Club, created: list[str]) -> None:
        if created:
            self.stdout.write("Demo loaded: " + "; ".join(created))
        else:
            self.stdout.write(gettext("Demo already loaded: nothing changed"))
        self.stdout.write(
            f"Organiser login: {ORGANISER} / password {ORGANISER} (staff: /admin/)\n"
            "Player logins: " + ", ".join(f"{u} / password {u}" for u in LOGINS.values())
        )
        for tournament in Tournament.objects.filter(club=club).order_by("id"):
            self.stdout.write(
                gettext("Tournament %(tournament)s: %(tournament2)s (%(game)s, %(status)s)")
                % {
                    "tournament": tournament.pk,
                    "tournament2": tournament.name,
                    "game": game_name(tournament.game),
                    "status": tournament.get_status_display(),
                }
            )
