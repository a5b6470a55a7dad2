"""The play page: a seated person's hand, legal actions, clock, and actions posted through it."""

from __future__ import annotations

import json
import re
from collections.abc import Callable

import pytest
from django.contrib.auth.models import User

from engine.contract import IllegalAction
from engine.registry import get_game
from tests.factories import PageWorld
from tournaments.models import Game
from tournaments.play import game_view
from tournaments.play.state import load_state
from tournaments.services.access import seat_of
from tournaments.workers.autoplay import play_forced_move

pytestmark = pytest.mark.django_db

GAMES = ["give_away", "old_maid", "bhabhi", "give_and_take"]


def _actions(page: str) -> list[dict[str, object]]:
    return [
        json.loads(value.replace("&quot;", '"'))
        for value in re.findall(r'name="action" value="([^"]+)"', page)
    ]


@pytest.mark.parametrize("kind", GAMES)
def test_the_play_page_shows_the_own_hand_the_legal_actions_and_the_clock(
    world: PageWorld, make_person_game: Callable[..., Game], kind: str
) -> None:
    game = make_person_game(kind)
    seat = seat_of(world.person, game)
    assert seat is not None
    page = world.client(world.person).get(f"/games/{game.pk}/play").content.decode()
    view = game_view(game, seat)
    for card in view.get("hand") or []:
        assert f'data-card="{card}"' in page
    offered = _actions(page)
    if seat in game.waiting_for:
        assert "Your move" in page
        assert 'class="clock big"' in page
        assert offered
    legal = [json.dumps(a, sort_keys=True) for a in view["legal_actions"]]
    for action in offered:
        if action == {"type": "shuffle"}:
            continue  # Old Maid's one listed order stands for a shuffle
        assert json.dumps(action, sort_keys=True) in legal
    assert f"/api/v1/games/{game.pk}/stream" in page
    fragment = world.client(world.person).get(f"/games/{game.pk}/play?fragment=1")
    assert 'id="play"' in fragment.content.decode()


@pytest.mark.parametrize("kind", GAMES)
def test_a_person_plays_a_whole_game_through_the_play_page(
    world: PageWorld, make_person_game: Callable[..., Game], kind: str
) -> None:
    from tournaments.workers.autoplay import run_bots

    game = make_person_game(kind)
    client = world.client(world.person)
    for _ in range(500):
        game.refresh_from_db()
        if game.is_over:
            break
        page = client.get(f"/games/{game.pk}/play?fragment=1").content.decode()
        waited = re.search(r'data-waiting="true"', page)
        assert waited, "the page does not say it waits for Ann while the bots are stuck"
        sequence = int(re.findall(r'name="sequence" value="(\d+)"', page)[0])
        action = next(
            a
            for a in re.findall(
                r'name="action" value="([^"]+)"[^>]*data-action(?! data-optional)', page
            )
        )
        answer = client.post(
            f"/games/{game.pk}/act",
            {"action": action.replace("&quot;", '"'), "sequence": sequence},
            HTTP_X_REQUESTED_WITH="fetch",
        )
        assert answer.status_code == 200, answer.content
        assert answer.json()["ok"] is True
        run_bots(game.pk)
    game.refresh_from_db()
    assert game.is_over
    page = client.get(f"/games/{game.pk}/play").content.decode()
    assert "Game over" in page and "Replay this game" in page


def test_an_illegal_or_stale_action_is_refused_and_changes_nothing(
    world: PageWorld, make_person_game: Callable[..., Game]
) -> None:
    game = make_person_game("bhabhi")
    client = world.client(world.person)
    before = game.sequence
    wrong = client.post(
        f"/games/{game.pk}/act",
        {"action": json.dumps({"type": "play", "card": "ZZ"}), "sequence": before},
        HTTP_X_REQUESTED_WITH="fetch",
    )
    assert wrong.status_code == 400 and "Not allowed" in wrong.json()["message"]
    stale = client.post(
        f"/games/{game.pk}/act",
        {"action": json.dumps({"type": "take_left"}), "sequence": before - 1},
        HTTP_X_REQUESTED_WITH="fetch",
    )
    assert stale.status_code == 409 and "moved on" in stale.json()["message"]
    garbage = client.post(
        f"/games/{game.pk}/act",
        {"action": "not json", "sequence": before},
        HTTP_X_REQUESTED_WITH="fetch",
    )
    assert garbage.status_code == 400
    # Without the script the form posts and comes back to the play page with the message.
    form = client.post(
        f"/games/{game.pk}/act",
        {"action": json.dumps({"type": "play", "card": "ZZ"}), "sequence": before},
        follow=True,
    )
    assert form.redirect_chain[-1][0] == f"/games/{game.pk}/play"
    assert "Not allowed" in form.content.decode()
    game.refresh_from_db()
    assert game.sequence == before


@pytest.mark.parametrize(
    "sent", ["", "seven", "1.5", "-1", "+3", " 3", "\u0663", "1_0", "9" * 30, str(2**63)]
)
def test_a_malformed_sequence_in_the_play_form_is_a_readable_400_that_changes_nothing(
    world: PageWorld, make_person_game: Callable[..., Game], sent: str
) -> None:
    # A stale sequence is a 409 (the game moved on); a sequence that is no whole number of
    # the API's range names no position of any game: the form is wrong, not late.
    game = make_person_game("bhabhi")
    client = world.client(world.person)
    before = game.sequence
    fetched = client.post(
        f"/games/{game.pk}/act",
        {"action": json.dumps({"type": "take_left"}), "sequence": sent},
        HTTP_X_REQUESTED_WITH="fetch",
    )
    message = fetched.json()["message"]
    assert fetched.status_code == 400, message
    assert "sequence" in message and "whole number" in message, message
    form = client.post(
        f"/games/{game.pk}/act",
        {"action": json.dumps({"type": "take_left"}), "sequence": sent},
        follow=True,
    )
    assert form.redirect_chain[-1][0] == f"/games/{game.pk}/play"
    assert "whole number" in form.content.decode()
    game.refresh_from_db()
    assert game.sequence == before


def test_deeply_nested_json_in_the_play_form_is_a_readable_400(
    world: PageWorld, make_person_game: Callable[..., Game]
) -> None:
    game = make_person_game("bhabhi")
    client = world.client(world.person)
    before = game.sequence
    deep = client.post(
        f"/games/{game.pk}/act",
        {"action": "[" * 100_000, "sequence": before},
        HTTP_X_REQUESTED_WITH="fetch",
    )
    assert deep.status_code == 400 and "not an action" in deep.json()["message"]
    form = client.post(
        f"/games/{game.pk}/act", {"action": '{"a":' * 100_000, "sequence": before}, follow=True
    )
    assert form.status_code == 200 and "not an action" in form.content.decode()
    game.refresh_from_db()
    assert game.sequence == before


def test_only_a_seated_login_may_open_the_play_page_or_act(
    world: PageWorld, make_person_game: Callable[..., Game]
) -> None:
    game = make_person_game("give_away")
    anonymous = world.client().get(f"/games/{game.pk}/play")
    assert anonymous.status_code == 302 and "/accounts/login/" in anonymous["Location"]
    stranger = User.objects.create_user("stranger", password="x")
    refused = world.client(stranger).get(f"/games/{game.pk}/play")
    assert refused.status_code == 403
    assert "do not sit at this table" in refused.content.decode()
    posted = world.client(stranger).post(
        f"/games/{game.pk}/act", {"action": json.dumps({"type": "pass"}), "sequence": 1}
    )
    assert posted.status_code == 403
    assert world.client(world.person).get(f"/games/{game.pk}/act").status_code == 405


def test_my_games_lists_the_games_waiting_for_the_person(
    world: PageWorld, make_person_game: Callable[..., Game]
) -> None:
    game = make_person_game("bhabhi")
    page = world.client(world.person).get("/me/").content.decode()
    assert f"/games/{game.pk}/play" in page
    assert "Ann" in page
    assert world.client().get("/me/").status_code == 302


def test_login_page_logs_in_and_back_to_the_page_asked_for(world: PageWorld) -> None:
    client = world.client()
    page = client.get("/accounts/login/?next=/me/")
    assert page.status_code == 200
    answer = client.post(
        "/accounts/login/", {"username": "ann", "password": "ann-secret", "next": "/me/"}
    )
    assert answer.status_code == 302 and answer["Location"] == "/me/"
    assert "Log out" in client.get("/").content.decode()


def test_the_play_page_shows_the_tables_series_and_its_deal_limit(
    world: PageWorld, make_person_game: Callable[..., Game]
) -> None:
    game = make_person_game("old_maid")
    page = world.client(world.person).get(f"/games/{game.pk}/play").content.decode()
    assert "Series: 1 deal, fewest losses" in page
    tournament = game.table.round.tournament  # type: ignore[union-attr]
    tournament.series = {"kind": "first_to", "target": 3, "deal_limit": 9}
    tournament.save()
    page = world.client(world.person).get(f"/games/{game.pk}/play").content.decode()
    assert "Series: first to 3 round wins, at most 9 deals (then placed by round wins" in page
    watched = world.client(world.organiser).get(f"/games/{game.pk}/").content.decode()
    assert "Series: first to 3 round wins, at most 9 deals (then placed by round wins" in watched


def test_a_forced_move_is_announced_played_for_the_player_and_marked_in_the_log(
    world: PageWorld, make_person_game: Callable[..., Game]
) -> None:
    game = make_person_game("give_away")
    client = world.client(world.person)
    page = client.get(f"/games/{game.pk}/play").content.decode()
    assert "A forced move: it cannot change the game" in page
    assert play_forced_move(game.pk, game.sequence) is not None
    log = client.get(f"/games/{game.pk}/play").content.decode()
    assert "automatic: a forced move" in log


def test_a_player_turns_forced_moves_off_on_their_page_and_then_clicks(
    world: PageWorld, make_person_game: Callable[..., Game]
) -> None:
    client = world.client(world.person)
    assert 'name="play_forced_moves" checked' in client.get("/me/").content.decode()
    answer = client.post("/me/preferences", {})
    assert answer.status_code == 302
    page = client.get(answer["Location"]).content.decode()
    assert 'name="play_forced_moves" checked' not in page and "Saved." in page
    world.player.refresh_from_db()
    assert not world.player.play_forced_moves
    game = make_person_game("give_away")
    assert "A forced move" not in client.get(f"/games/{game.pk}/play").content.decode()
    assert play_forced_move(game.pk, game.sequence) is None
    client.post("/me/preferences", {"play_forced_moves": "on"})
    world.player.refresh_from_db()
    assert world.player.play_forced_moves


def test_the_play_form_is_no_card_oracle_an_old_maid_draw_naming_a_card_is_refused_unread(
    world: PageWorld, make_person_game: Callable[..., Game]
) -> None:
    """Naming the card at a position got "the card at position 0 is not QS" for every wrong
    guess: the drawer could find the queen without drawing it.  Now any draw naming a card
    is refused with the same words, whatever the card, and nothing is drawn."""
    from tournaments.play import load_state

    game = make_person_game("old_maid")
    seat = seat_of(world.person, game)
    state = load_state(game)
    assert seat in game.to_act
    offered = state.hands[state.offerer]
    absent = next(c for c in ("QS", "QH", "QD", "2S", "2H") if c not in offered)
    client = world.client(world.person)
    answers = set()
    for card in (offered[0], absent):
        answer = client.post(
            f"/games/{game.pk}/act",
            {
                "action": json.dumps({"type": "draw", "index": 0, "card": card}),
                "sequence": game.sequence,
            },
            HTTP_ACCEPT="application/json",
            HTTP_X_REQUESTED_WITH="fetch",
        )
        body = answer.json()
        assert answer.status_code == 400 and not body["ok"]
        answers.add(body["message"])
        assert card not in body["message"]
    assert len(answers) == 1 and "position only" in answers.pop()
    before = game.sequence
    game.refresh_from_db()
    assert game.sequence == before


def test_a_game_hidden_from_a_login_is_not_found_on_the_play_page_like_a_missing_one(
    world: PageWorld,
) -> None:
    """A running game outside any tournament is hidden from everyone but its seats: its play
    page must not answer 403 where a missing id answers 404 (ids could be probed)."""
    from tournaments.play import create_game

    game = create_game("give_away", 2, players=["A", "B"])
    stranger = world.client(User.objects.create_user("stranger", password="x"))
    hidden = stranger.get(f"/games/{game.pk}/play")
    missing = stranger.get(f"/games/{game.pk + 1000}/play")
    assert hidden.status_code == missing.status_code == 404
    acted = stranger.post(
        f"/games/{game.pk}/act", {"action": json.dumps({"type": "pass"}), "sequence": 1}
    )
    assert acted.status_code == 404


def test_a_refusal_on_the_play_page_is_in_russian_for_a_russian_reader(
    world: PageWorld, make_person_game: Callable[..., Game]
) -> None:
    game = make_person_game("bhabhi")
    client = world.client(world.person)
    before = game.sequence
    wrong = client.post(
        f"/games/{game.pk}/act",
        {"action": json.dumps({"type": "play", "card": "ZZ"}), "sequence": before},
        HTTP_X_REQUESTED_WITH="fetch",
        HTTP_ACCEPT_LANGUAGE="ru",
    )
    message = wrong.json()["message"]
    assert wrong.status_code == 400 and message.startswith('Нельзя: "ZZ" — не карта'), message
    assert "Not allowed" not in message and "is not a card" not in message
    taken = client.post(
        f"/games/{game.pk}/act",
        {"action": json.dumps({"type": "take_left", "extra": 1}), "sequence": before},
        HTTP_X_REQUESTED_WITH="fetch",
        HTTP_ACCEPT_LANGUAGE="ru",
    )
    assert "игрок не указывает" in taken.json()["message"], taken.json()
    stale = client.post(
        f"/games/{game.pk}/act",
        {"action": json.dumps({"type": "take_left"}), "sequence": before - 1},
        HTTP_X_REQUESTED_WITH="fetch",
        HTTP_ACCEPT_LANGUAGE="ru",
    )
    moved_on = "Партия ушла вперёд, пока ваш ход был в пути: выберите ещё раз."
    assert stale.json()["message"] == moved_on
    malformed = client.post(
        f"/games/{game.pk}/act",
        {"action": json.dumps({"type": "take_left"}), "sequence": "-1"},
        HTTP_X_REQUESTED_WITH="fetch",
        HTTP_ACCEPT_LANGUAGE="ru",
    )
    assert malformed.status_code == 400
    assert "целое число (0 или больше)" in malformed.json()["message"], malformed.json()
    assert "sequence" not in malformed.json()["message"]
    form = client.post(
        f"/games/{game.pk}/act",
        {"action": json.dumps({"type": "play", "card": "ZZ"}), "sequence": before},
        follow=True,
        HTTP_ACCEPT_LANGUAGE="ru",
    )
    assert "Нельзя: " in form.content.decode()
    game.refresh_from_db()
    assert game.sequence == before, "nothing was stored"


@pytest.mark.parametrize(
    "kind,name",
    [
        ("give_away", "Give Away: общие базы"),
        ("old_maid", "Старая дева"),
        ("bhabhi", "Бхабхи (Getaway)"),
        ("give_and_take", "Дайте и возьмите"),
    ],
)
def test_the_play_page_of_a_russian_reader_tells_the_game_in_russian(
    world: PageWorld, make_person_game: Callable[..., Game], kind: str, name: str
) -> None:
    game = make_person_game(kind)
    page = (
        world.client(world.person)
        .get(f"/games/{game.pk}/play", HTTP_ACCEPT_LANGUAGE="ru")
        .content.decode()
    )
    assert name in page
    # The log's deal, the cards' spoken names and the piles are Russian.
    assert "раздаёт" in page and " deals " not in page
    assert re.search(r'aria-label="[^"]*(пик|червей|бубен|треф|рубашкой вверх|на руке)"', page)
    assert not re.search(r'aria-label="[^"]*\b(of spades|of hearts|of diamonds|of clubs)', page)


def test_a_refusal_naming_a_seat_or_position_is_not_shown_counted_from_zero(
    world: PageWorld, make_person_game: Callable[..., Game]
) -> None:
    # The rules' words count seats and positions from 0 (the API's); the page counts from
    # 1, and no button sends a seat or a position it does not offer.
    game = make_person_game("old_maid")
    client = world.client(world.person)
    view = client.get(f"/api/v1/games/{game.pk}").json()
    crafted = {"type": "draw", "index": 99}  # beyond any fan, or not this seat's draw
    with pytest.raises(IllegalAction) as refused:
        get_game("old_maid").decide(load_state(game.pk), view["seat"], crafted)
    assert any(str(n) in str(refused.value) for n in range(4)), refused.value  # from 0
    wrong = client.post(
        f"/games/{game.pk}/act",
        {"action": json.dumps(crafted), "sequence": game.sequence},
        HTTP_X_REQUESTED_WITH="fetch",
    )
    message = wrong.json()["message"]
    assert wrong.status_code == 400 and "choose one of the buttons" in message, message
