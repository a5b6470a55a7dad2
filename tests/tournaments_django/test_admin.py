"""The admin as organisers use it: their clubs only, every rule through the use cases."""

from __future__ import annotations

import random

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse

from tests import factories
from tournaments import services
from tournaments.models import (
    CheckIn,
    Club,
    Game,
    Player,
    Registration,
    Round,
    Table,
    TableSeat,
    Tournament,
)

pytestmark = pytest.mark.django_db

MODELS = [Club, Player, Tournament, Registration, CheckIn, Round, Table, TableSeat, Game]


def organiser_client(club: Club, username: str = "org") -> Client:
    user = User.objects.create_user(username, password="pw", is_staff=True)
    club.organisers.add(user)
    client = Client()
    client.force_login(user)
    return client


def url(model: type, view: str, *args: object) -> str:
    return reverse(f"admin:tournaments_{model._meta.model_name}_{view}", args=args)


@pytest.fixture
def night() -> Tournament:
    club = factories.club()
    t = factories.tournament(club, factories.bots(club, 8), table_preferred=4)
    services.begin_round(services.start_round(t, rng=random.Random(1)))
    return t


def test_every_tournament_page_opens_for_a_superuser(night: Tournament) -> None:
    client = Client()
    client.force_login(User.objects.create_superuser("root"))
    for model in MODELS:
        assert client.get(url(model, "changelist")).status_code == 200, model
        row = model.objects.first()
        assert client.get(url(model, "change", row.pk)).status_code == 200, model
    for model in (Club, Player, Tournament, Registration, CheckIn):
        assert client.get(url(model, "add")).status_code == 200, model


def test_an_organiser_sees_their_clubs_rows_only_without_django_permissions(
    night: Tournament,
) -> None:
    other = factories.club("Other Club")
    factories.tournament(other, factories.bots(other, 3, prefix="Other"))
    client = organiser_client(night.club)
    page = client.get(url(Tournament, "changelist"))
    assert page.status_code == 200 and "Test Night" in page.content.decode()
    assert page.context["cl"].result_count == 1
    assert client.get(url(Player, "changelist")).context["cl"].result_count == 8
    foreign = Tournament.objects.get(club=other)
    assert client.get(url(Tournament, "change", foreign.pk)).status_code == 302
    assert client.get(url(Club, "add")).status_code == 403
    outsider = Client()
    outsider.force_login(User.objects.create_user("nobody", is_staff=True))
    assert outsider.get(url(Tournament, "changelist")).status_code == 403


def test_a_tournament_is_created_in_the_admin_through_the_use_case() -> None:
    club = factories.club()
    client = organiser_client(club)
    form = {
        "club": club.pk,
        "name": "Admin Night",
        "game": "old_maid",
        "rounds": 2,
        "series": "",
        "table_min": "",
        "table_max": "",
        "table_preferred": 9,
        "seating_mode": "mixing",
        "turn_seconds": "",
        "timeouts_to_bot": 0,
        **inline_management(),
    }
    refused = client.post(url(Tournament, "add"), form)
    assert refused.status_code == 200
    assert "the preferred table size 9 is outside 2–6" in refused.content.decode()
    assert not Tournament.objects.exists()
    done = client.post(url(Tournament, "add"), form | {"table_preferred": 3})
    assert done.status_code == 302
    t = Tournament.objects.get()
    assert (t.table_min, t.table_max, t.series) == (2, 6, {"kind": "losses", "target": 5})


def inline_management() -> dict[str, object]:
    data: dict[str, object] = {}
    for prefix in ("registrations", "round_set"):
        data |= {
            f"{prefix}-TOTAL_FORMS": 0,
            f"{prefix}-INITIAL_FORMS": 0,
            f"{prefix}-MIN_NUM_FORMS": 0,
            f"{prefix}-MAX_NUM_FORMS": 1000,
        }
    return data


def test_registrations_and_check_ins_in_the_admin_follow_the_rules(night: Tournament) -> None:
    client = organiser_client(night.club)
    (ann,) = factories.people(night.club, ["Ann"])
    form = {"tournament": night.pk, "player": ann.pk, "from_round": 1}
    refused = client.post(url(Registration, "add"), form)
    assert "from_round must be between 2 (the next round) and 2" in refused.content.decode()
    assert client.post(url(Registration, "add"), form | {"from_round": ""}).status_code == 302
    assert Registration.objects.get(player=ann).from_round == 2
    again = client.post(url(Registration, "add"), form | {"from_round": ""})
    assert "Ann is already registered in Test Night" in again.content.decode()
    check = {"tournament": night.pk, "player": ann.pk, "round_number": ""}
    assert client.post(url(CheckIn, "add"), check).status_code == 302
    assert CheckIn.objects.get(player=ann).round_number == 2


def test_admin_actions_seat_and_begin_rounds_and_drop_players() -> None:
    club = factories.club()
    t = factories.tournament(club, factories.bots(club, 6), rounds=2)
    client = organiser_client(club)
    action = {"_selected_action": [t.pk], "index": 0}
    client.post(url(Tournament, "changelist"), action | {"action": "seat_next_round"})
    round_ = Round.objects.get()
    assert round_.status == Round.Status.SEATED
    page = client.post(
        url(Tournament, "changelist"), action | {"action": "seat_next_round"}, follow=True
    )
    assert "round 1 is seated and has not begun" in page.content.decode()
    client.post(url(Tournament, "changelist"), action | {"action": "begin_seated_round"})
    round_.refresh_from_db()
    assert round_.status == Round.Status.PLAYING
    registration = Registration.objects.filter(tournament=t).first()
    assert registration is not None
    page = client.post(
        url(Registration, "changelist"),
        {"_selected_action": [registration.pk], "action": "drop_players", "index": 0},
        follow=True,
    )
    assert "round 1 is being played" in page.content.decode()


def test_changing_a_seats_player_swaps_them_before_the_round_begins() -> None:
    club = factories.club()
    players = factories.bots(club, 8)
    t = factories.tournament(club, players, table_preferred=4)
    round_ = services.start_round(t, rng=random.Random(1))
    client = organiser_client(club)
    seat = TableSeat.objects.filter(table__number=1).order_by("seat").first()
    other = TableSeat.objects.filter(table__number=2).order_by("seat").first()
    assert seat is not None and other is not None
    a, b = seat.player_id, other.player_id
    done = client.post(url(TableSeat, "change", seat.pk), {"player": b})
    assert done.status_code == 302
    assert TableSeat.objects.get(table__number=1, seat=seat.seat).player_id == b
    assert TableSeat.objects.get(table__number=2, seat=other.seat).player_id == a
    services.begin_round(round_)
    moved = TableSeat.objects.get(table__number=1, seat=seat.seat)
    page = client.get(url(TableSeat, "change", moved.pk))
    assert page.status_code == 200 and 'name="player"' not in page.content.decode()


def test_a_running_tournament_can_be_renamed_in_the_admin_but_not_reshaped(
    night: Tournament,
) -> None:
    client = organiser_client(night.club)
    management = inline_management() | {
        "registrations-TOTAL_FORMS": 8,
        "registrations-INITIAL_FORMS": 8,
        "round_set-TOTAL_FORMS": 1,
        "round_set-INITIAL_FORMS": 1,
    }
    for i, registration in enumerate(Registration.objects.filter(tournament=night)):
        management[f"registrations-{i}-id"] = registration.pk
        management[f"registrations-{i}-tournament"] = night.pk
    management["round_set-0-id"] = Round.objects.get(tournament=night).pk
    management["round_set-0-tournament"] = night.pk
    form = {
        "name": "Renamed Night",
        "game": "bhabhi",
        "rounds": night.rounds,
        "series": '{"kind": "losses", "target": 1}',
        "table_min": 3,
        "table_max": 8,
        "table_preferred": 4,
        "seating_mode": "mixing",
        "turn_seconds": "",
        "timeouts_to_bot": 0,
        **management,
    }
    refused = client.post(url(Tournament, "change", night.pk), form | {"rounds": 5})
    assert "has seated rounds: only its name can change now" in refused.content.decode()
    done = client.post(url(Tournament, "change", night.pk), form)
    assert done.status_code == 302, done.content.decode()[:2000]
    night.refresh_from_db()
    assert (night.name, night.rounds) == ("Renamed Night", 2)


def test_not_even_a_superuser_reads_a_running_games_deck_or_seed_on_the_event_page() -> None:
    from events.models import Event
    from tests.service.play import play
    from tournaments.play import create_game

    game = create_game("old_maid", 3)
    deal = Event.objects.get(stream=game.stream, sequence=1)
    deck, seed = deal.payload["deck"], deal.payload["shuffle"]["seed"]
    client = Client()
    client.force_login(User.objects.create_superuser("root"))
    page = reverse("admin:events_event_change", args=[deal.pk])
    shown = client.get(page).content.decode()
    assert seed not in shown and deck[0] + "&quot;, &quot;" + deck[1] not in shown
    assert deal.payload["shuffle"]["commitment"] in shown
    play(game, random.Random(4))
    after = client.get(page).content.decode()
    assert seed in after  # a finished game is public, here too


def test_the_event_page_shows_no_tables_committed_seed_before_its_game_is_revealed() -> None:
    """A table's next deal has its server seed committed (stream table-<id>) before it is
    dealt: with the players' client seeds it would give the coming deck."""
    from events.models import Event
    from tests.service.play import play

    club = factories.club()
    t = factories.tournament(club, factories.bots(club, 3), rounds=1, table_max=3)
    services.begin_round(services.start_round(t, rng=random.Random(2)))
    seeds = Event.objects.filter(stream__startswith="table-", type="table_seed")
    assert seeds.exists()
    client = Client()
    client.force_login(User.objects.create_superuser("root"))
    for event in seeds:
        page = client.get(reverse("admin:events_event_change", args=[event.pk]))
        assert event.payload["seed"] not in page.content.decode()
    game = Game.objects.get(table__round__tournament=t, number_in_series=1)
    play(game, random.Random(5))
    first = seeds.get(payload__game_number=1)
    page = client.get(reverse("admin:events_event_change", args=[first.pk]))
    assert first.payload["seed"] in page.content.decode()
