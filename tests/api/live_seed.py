"""Seed a live server's database for the API's end-to-end tests; prints what it made as JSON.

Run in a child process with ``DATABASE_URL`` pointing at the live database
(``python -m tests.api.live_seed``).  With ``CELERY_TASK_ALWAYS_EAGER=true``
bot seats play at once, in whatever process makes the move before them.
"""

from __future__ import annotations

import json
import random
import sys
from typing import Any

import django


def _give_away_clicked_by(person: Any, club: Any, bots: list[Any]) -> dict[str, int]:
    from tournaments import services

    assert person.user is not None
    services.set_play_forced_moves(person.user, False)
    return _tournament(club, "Give Away night", "give_away", [person, *bots])


def _tournament(
    club: Any, name: str, game: str, players: list[Any], series_target: int = 1
) -> dict[str, int]:
    from engine.registry import get_game
    from tournaments import services
    from tournaments.models import Game

    tournament = services.create_tournament(
        club,
        name,
        game,
        1,
        series={"kind": get_game(game).default_series.kind, "target": series_target},
        table_min=len(players),
        table_max=len(players),
    )
    for player in players:
        services.register(tournament, player)
        services.check_in(tournament, player)
    round_ = services.start_round(tournament)
    services.begin_round(round_)
    game_row = Game.objects.filter(table__round=round_).order_by("id").first()
    assert game_row is not None
    return {"tournament": tournament.pk, "game": game_row.pk, "table": game_row.table_id}


#: Cards the two hands of a duel keep after the opening discard, at least: enough for the
#: stream tests' three draws.  The server's shuffle decides the deal, and about 1 deal in 300
#: leaves each player one or two cards (the game then ends at its first draw).
DUEL_CARDS = 9


def _duel(club: Any, name: str, players: list[Any]) -> dict[str, int]:
    """An Old Maid tournament of two whose deal keeps at least :data:`DUEL_CARDS` cards."""
    from tournaments import play as games
    from tournaments.models import Game

    for attempt in range(1, 21):
        made = _tournament(
            club, name if attempt == 1 else f"{name} ({attempt})", "old_maid", players
        )
        state = games.load_state(Game.objects.get(pk=made["game"]))
        if sum(len(hand) for hand in state.hands) >= DUEL_CARDS:
            return made
    raise AssertionError(f"20 deals of {name} kept fewer than {DUEL_CARDS} cards")


def seed(password: str) -> dict[str, Any]:
    from django.contrib.auth.models import User

    from engine.bots import bot_levels
    from tournaments import play as games
    from tournaments import services
    from tournaments.api.authentication import create_token
    from tournaments.models import Game

    users = {
        name: User.objects.create_user(name, password=password)
        for name in ("org", "ann", "ben", "cat", "dan", "eli", "fay", "fuzz", "gus")
    }
    club = services.create_club("Live Club", slug="live", organisers=[users["org"]])
    fuzz_club = services.create_club("Fuzz Club", slug="fuzz", organisers=[users["fuzz"]])
    people = {
        name: services.add_player(club, name.title(), user=users[name])
        for name in ("ann", "ben", "cat", "dan", "eli", "fay", "gus")
    }
    people["gus"].play_forced_moves = False
    people["gus"].save(update_fields=["play_forced_moves"])
    level = bot_levels("give_away")[0]
    bots = [services.add_player(club, f"Bot {i}", bot_level=level) for i in (1, 2)]
    made: dict[str, Any] = {
        "club": club.pk,
        "fuzz_club": fuzz_club.pk,
        "password": password,
        "tokens": {name: create_token(user, "live tests")[1] for name, user in users.items()},
        "players": {name: p.pk for name, p in people.items()},
        # Three people at Old Maid: three example clients play it.
        "old_maid": _tournament(
            club, "Old Maid night", "old_maid", [people[n] for n in ("ann", "ben", "cat")]
        ),
        # One person against two bots at Give Away, first to one round win (a drawn deal
        # is followed by another).
        # Dan makes his own moves (they are all forced: the server would play them).
        "bots": _give_away_clicked_by(people["dan"], club, bots),
        # Two people at Old Maid, moved by the tests of streams (one game per server kind).
        "duel_wsgi": _duel(club, "Duel 1", [people["eli"], people["fay"]]),
        "duel_asgi": _duel(club, "Duel 2", [people["eli"], people["fay"]]),
        # Retries and races over HTTP.
        "retry": _duel(club, "Retry", [people["eli"], people["fay"]]),
        # The push channel (tests/api/test_push.py): a whole game, retries, two web processes.
        "push": _duel(club, "Push", [people["eli"], people["fay"]]),
        "push_retry": _duel(club, "Push retry", [people["eli"], people["fay"]]),
        "push_scale": _duel(club, "Push scale", [people["eli"], people["fay"]]),
    }
    # A bot written against the client generated from the schema plays Gus's seat of
    # Bhabhi against two bots.  Some deals end before Gus is ever waited for (the bots
    # move at once), so the table's series is several deals long and the bot is given
    # the deal that waits for Gus ("game", below); every move there is the bot's (the
    # server plays no forced move for Gus).  Now and then (the server's shuffles) a whole
    # series ends so: the table is seated again, a tournament of its own each time.
    for attempt in range(1, 11):
        typed = _tournament(
            club,
            f"Typed Bhabhi {attempt}",
            "bhabhi",
            [people["gus"]]
            + [
                services.add_player(club, f"Typed bot {attempt}.{i}", bot_level="random")
                for i in (1, 2)
            ],
            series_target=5,
        )
        waiting = (
            Game.objects.filter(table_id=typed["table"], status=Game.Status.RUNNING)
            .order_by("-id")
            .first()
        )
        if waiting is not None:
            break
    assert waiting is not None, "no deal of 10 typed tables waited for Gus"
    made["typed"] = typed | {"game": waiting.pk}
    # The fuzzer's own club, tournament and game, and a finished standalone game.
    fuzz_players = [
        services.add_player(fuzz_club, "Fuzzer", user=users["fuzz"]),
        services.add_player(fuzz_club, "Other"),
    ]
    made["fuzz"] = _tournament(fuzz_club, "Fuzz cup", "old_maid", fuzz_players)
    finished = games.create_game("give_away", 3)
    rng = random.Random(1)
    from engine.registry import get_game

    engine = get_game("give_away")
    while not finished.is_over:
        state = games.load_state(finished)
        seat = rng.choice(finished.waiting_for or finished.to_act)
        games.submit_action(
            finished.pk,
            seat,
            rng.choice(engine.legal_actions(state, seat)),
            expected_sequence=finished.sequence,
        )
        finished.refresh_from_db()
    made["finished_game"] = finished.pk
    return made


def main() -> int:
    django.setup()
    print(json.dumps(seed(sys.argv[1] if len(sys.argv) > 1 else "live-password")), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
