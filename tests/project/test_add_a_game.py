"""Adding a game is one engine module, one presenter and one table template (docs/engine.md,
"How to add a game"): the toy game Last Card (tests/toy_game), registered through the public
registries alone, is dealt, played, shown and scored by the service, the API and the pages
like the four games."""

from __future__ import annotations

import copy
import random
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from engine.bots import bot_levels
from engine.registry import game_ids, get_game
from tests.api.conftest import Api
from tests.factories import PASSWORD, ClubWorld, club_world
from tests.toy_game import TEMPLATES, registered
from tests.toy_game.last_card import GAME as LAST_CARD
from tournaments import play as service
from tournaments import services
from tournaments.models import Game
from tournaments.presenters import presenter_for

pytestmark = pytest.mark.django_db

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def _last_card(settings: Any) -> Iterator[None]:
    """The three parts: the game and its presenter registered, its template's dir added."""
    templates = copy.deepcopy(settings.TEMPLATES)
    templates[0]["DIRS"] = [*templates[0]["DIRS"], TEMPLATES]
    settings.TEMPLATES = templates
    with registered():
        yield
    assert "last_card" not in game_ids(), "the toy game does not outlive its test"


@pytest.fixture
def world(db: Any) -> ClubWorld:
    return club_world("toy-club")


def _last_card_tournament(world: ClubWorld, names: tuple[str, ...] = ("alice", "bob")) -> Game:
    tournament = services.create_tournament(
        world.club, "Last Card night", "last_card", 1, table_min=2, table_max=2
    )
    for name in names:
        services.register(tournament, world.players[name])
        services.check_in(tournament, world.players[name])
    services.begin_round(services.start_round(tournament))
    return Game.objects.get(table__round__tournament=tournament)


def test_the_registered_toy_game_is_known_everywhere_a_game_is_listed(world: ClubWorld) -> None:
    assert get_game("last_card") is LAST_CARD and "last_card" in game_ids()
    assert presenter_for("last_card").game_id == "last_card"
    assert bot_levels("last_card") == ["random"], "a game needs no bot of its own"
    client = Api().client
    client.force_login(world.organiser)
    page = client.get("/tournaments/new").content.decode()
    assert "Last Card (2–4 players)" in page
    assert "N deals, fewest losses (Bhabhi / Getaway, Last Card, Old Maid)" in page


def test_a_game_registered_first_does_not_keep_the_built_in_games_out() -> None:
    # A fresh interpreter: in this one the registry has long been read.
    script = (
        "from engine.registry import all_games, register\n"
        "from tests.toy_game.last_card import GAME\n"
        "register(GAME)\n"
        "print(' '.join(g.id for g in all_games()))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    assert done.stdout.split() == ["bhabhi", "give_and_take", "give_away", "last_card", "old_maid"]


def test_the_service_deals_plays_and_shows_the_toy_game() -> None:
    game = service.create_game("last_card", 2, players=["Ann", "Bo"], dealer=0)
    assert game.to_act == [1] and game.waiting_for == [1]
    view = service.game_view(game, 1)
    assert view["pile_size"] == 52 and view["hand"] == []
    assert view["legal_actions"] == [{"type": "take", "count": n} for n in (1, 2, 3)]
    with pytest.raises(service.IllegalAction):
        service.submit_action(
            game.pk, 0, {"type": "take", "count": 1}, expected_sequence=game.sequence
        )
    rng = random.Random(7)
    while not game.is_over:
        seat = game.to_act[0]
        action = rng.choice(service.game_view(game, seat)["legal_actions"])
        service.submit_action(game.pk, seat, action, expected_sequence=game.sequence)
        game.refresh_from_db()
    assert game.result is not None and game.result["loser"] in (0, 1)
    seen = service.game_view(game, 1 - game.result["loser"])
    assert seen["revealed"] is True and seen["hidden"]["pile"] == []
    hands = seen["hidden"]
    assert len(hands["seat:0"]) + len(hands["seat:1"]) == 52
    record = service.export_record(game)
    assert record["game"] == "last_card" and record["result"] == game.result


def test_the_api_and_the_pages_play_the_toy_game(world: ClubWorld) -> None:
    api = Api()
    game = _last_card_tournament(world)
    seats = {entry["player"]: s for s, entry in enumerate(game.context["seats"])}
    name_at = {seats[p.pk]: name for name, p in world.players.items() if p.pk in seats}
    page_client = Api().client
    for move in range(60):
        game.refresh_from_db()
        if game.is_over:
            break
        seat = game.to_act[0]
        token = world.tokens[name_at[seat]]
        status, view, _ = api.get(f"/api/v1/games/{game.pk}", token=token)
        assert status == 200 and view["seat"] == seat
        assert len(view["hand"]) == view["hand_sizes"][seat]
        if move == 0:
            assert page_client.login(
                username=world.users[name_at[seat]].username, password=PASSWORD
            )
            page = page_client.get(f"/games/{game.pk}/play").content.decode()
            assert "52 cards left in the pile" in page and "to take" in page
            assert "Take 1 card" in page and "Take 3 cards" in page
        action = view["legal_actions"][-1]
        status, body, _ = api.post(
            f"/api/v1/games/{game.pk}/actions",
            {"action": action, "expected_sequence": view["sequence"]},
            token=token,
            headers={"Idempotency-Key": f"last-card-{move}"},
        )
        assert status in (200, 201), body
    game.refresh_from_db()
    assert game.is_over and game.result is not None
    loser = game.result["loser"]
    status, events, _ = api.get(f"/api/v1/games/{game.pk}/events?limit=500")
    assert status == 200
    assert events["results"][-1]["payload"]["action"]["type"] == "take"
    replay = page_client.get(f"/games/{game.pk}/replay").content.decode()
    assert f"{name_at[loser].title()} loses (took the last card)" in replay
    assert f"{name_at[1 - loser].title()} takes 3 cards" in replay
    table = page_client.get(f"/tables/{game.table_id}/").content.decode()
    assert "3 deals, fewest losses" in table, "the game's default series, from its module"
    assert f"{name_at[loser].title()} loses (took the last card)" in table
