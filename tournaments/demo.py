"""The live demo: a bot tournament of the demo club is always being played.

``make run`` sets ``PARLOUR_DEMO_LIVE=true``; beat then runs
:func:`tournaments.workers.tasks.keep_demo_live` every ``parlour.celery.DEMO_CHECK_SECONDS``
(5 s), which calls
:func:`keep_demo_live`.  A new demo tournament begins as soon as every running
one has reached its second-to-last round, so the next is under way before the last ends
and the home page never shows an evening with nothing being played.  The games
take turns (Bhabhi, Old Maid, Give Away, Give & Take).
"""

from __future__ import annotations

from django.db import transaction

from engine.registry import get_game
from engine.series import SeriesFormat
from tournaments.models import Club, Player, Round, Tournament

#: The demo club of ``manage.py load_demo`` (its slug).
DEMO_CLUB = "parlour-demo"
#: The games of the demo's tournaments, in turn.
DEMO_GAMES = ("bhabhi", "old_maid", "give_away", "give_and_take")
DEMO_ROUNDS = 3


def _near_its_end(tournament: Tournament) -> bool:
    # From its second-to-last round: at no think delay a round of bots can be
    # shorter than beat's check, so waiting for the last round left gaps.
    last = Round.objects.filter(tournament=tournament).order_by("number").last()
    return last is not None and last.number >= tournament.rounds - 1


def keep_demo_live() -> Tournament | None:
    """Begin the next demo tournament of bots if every running one of the demo club is
    in its last two rounds (or none runs); return it, or ``None`` (nothing to do, or no
    demo club: ``load_demo`` was not run).  One transaction, the club's row locked:
    two calls at once begin one tournament."""
    from tournaments.services import begin_round, create_tournament, register, start_round

    with transaction.atomic():
        club = Club.objects.select_for_update().filter(slug=DEMO_CLUB).first()
        if club is None:
            return None
        running = Tournament.objects.filter(club=club, status=Tournament.Status.RUNNING)
        if not all(_near_its_end(t) for t in running):
            return None
        bots = list(Player.objects.filter(club=club).exclude(bot_level="").order_by("id"))
        count = Tournament.objects.filter(club=club, name__startswith="Demo live ").count()
        kind = DEMO_GAMES[count % len(DEMO_GAMES)]
        game = get_game(kind)
        size = min(4, game.max_seats)
        if len(bots) < game.min_seats:
            return None
        tournament = create_tournament(
            club,
            f"Demo live {count + 1}: {game.name}",
            kind,
            DEMO_ROUNDS,
            series=SeriesFormat(game.default_series.kind, 2, game.default_series.points),
            table_preferred=size,
            turn_seconds=60,
        )
        for bot in bots:
            register(tournament, bot)
        begin_round(start_round(tournament, auto_check_in=True))
    tournament.refresh_from_db()
    return tournament
