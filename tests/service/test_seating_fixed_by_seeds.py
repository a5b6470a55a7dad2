"""A round's seating is fixed once a player of it has set a client seed after it was seated.

The server holds the committed server seeds and reads every client seed, so after a
player's contribution any new seating's decks are decks it can work out: a swap, a
reseat or a late seating then would let the organiser choose among them.  Each is
refused (services/seeds.py, ``check_seating_may_change``), in the service and so in
the organiser's desk page, the API and the admin; before any contribution the
seating may change as before (docs/fairness.md, "What an operator can and cannot do").
"""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from engine.series import SeriesFormat
from tests import factories
from tournaments import services
from tournaments.api.authentication import create_token
from tournaments.models import Game, Player, Round, Table, TableSeat, Tournament
from tournaments.services import ServiceError

pytestmark = pytest.mark.django_db

FIXED = "seating is fixed"


def seated_round(duplicate: bool = False) -> tuple[Tournament, Round, dict[str, Any]]:
    """Four people with logins (a table of 3 or 4), one round seated; the organiser too."""
    organiser = factories.user(f"org-{factories.unique()}")
    club = factories.club(f"Seed Club {factories.unique()}", organisers=[organiser])
    logins = {name: factories.user(f"{name}-{factories.unique()}") for name in "abcd"}
    players = {name: factories.person(club, name.upper(), login) for name, login in logins.items()}
    t = factories.tournament(
        club,
        list(players.values()),
        game="old_maid",
        rounds=2,
        series=SeriesFormat("losses", 1),
        table_min=2,
        table_max=2,
        duplicate_deals=duplicate,
    )
    services.set_client_seed(logins["a"], "set before the round was seated: fine")
    round_ = services.start_round(t, auto_check_in=True)
    return t, round_, {"logins": logins, "players": players, "organiser": organiser}


def seating(round_: Round) -> list[tuple[int, int, int]]:
    return sorted(
        TableSeat.objects.filter(table__round=round_).values_list(
            "table__number", "seat", "player_id"
        )
    )


@pytest.mark.parametrize("duplicate", [False, True], ids=["tables", "duplicate"])
def test_no_swap_reseat_or_late_seating_once_a_player_contributed_after_seating(
    duplicate: bool,
) -> None:
    t, round_, world = seated_round(duplicate)
    players = world["players"]
    a, b = players["a"], players["b"]
    # Before any contribution the organiser may still adjust the seating.
    services.swap_players(round_, a, b)
    services.reseat(round_)
    before = seating(round_)
    commitments = list(Table.objects.filter(round=round_).values_list("next_commitment"))
    services.set_client_seed(world["logins"]["c"], "C saw the commitment, then chose this")
    for change in (
        lambda: services.swap_players(round_, a, b),
        lambda: services.reseat(round_),
        lambda: services.seat_late(round_),
    ):
        with pytest.raises(ServiceError) as refused:
            change()
        assert FIXED in str(refused.value) and "C set a client seed" in str(refused.value)
        assert "Begin the round as it is seated" in str(refused.value)
    assert seating(round_) == before
    assert list(Table.objects.filter(round=round_).values_list("next_commitment")) == commitments
    # The round begins as seated, with C's contribution in its decks.
    services.begin_round(round_)
    assert Game.objects.filter(table__round=round_).count() == 2


def test_a_bye_players_contribution_fixes_the_seating_too() -> None:
    t, round_, world = seated_round()
    late = factories.person(t.club, "E", factories.user(f"e-{factories.unique()}"))
    services.register(t, late)
    services.check_in(t, late)
    services.seat_late(round_)  # E has a bye: five players, tables of two
    round_.refresh_from_db()
    (pid,) = round_.byes
    login = Player.objects.get(pk=pid).user
    assert login is not None
    services.set_client_seed(login, "the bye's seed")
    with pytest.raises(ServiceError, match=FIXED):
        services.swap_players(round_, pid, world["players"]["a"])


def test_the_api_and_the_desk_page_refuse_with_the_reason(settings: Any) -> None:
    t, round_, world = seated_round()
    services.set_client_seed(world["logins"]["b"], "B's own")
    a, b = world["players"]["a"], world["players"]["b"]
    token = create_token(world["organiser"], "desk")[1]
    client = Client()
    answer = client.post(
        f"/api/v1/tournaments/{t.pk}/rounds/{round_.number}/swaps",
        {"players": [a.pk, b.pk]},
        content_type="application/json",
        headers={"Authorization": f"Bearer {token}"},
    )
    assert 400 <= answer.status_code < 500, answer.content
    assert answer["Content-Type"].startswith("application/problem+json")
    assert FIXED in answer.json()["detail"]
    before = seating(round_)
    client.force_login(world["organiser"])
    page = client.post(f"/tournaments/{t.pk}/confirm/reseat", {}, follow=True)
    assert FIXED in page.content.decode()
    assert seating(round_) == before


def test_no_drop_withdrawal_or_absence_reseats_a_round_whose_seating_is_fixed() -> None:
    """A drop, a withdrawal and an absence each seat a seated round again without the
    player: once a player of it contributed a seed after the seating, each is refused as a
    reseat is (they went around the rule: found by review), and nothing changes; a player
    not in that round (or before any contribution) is taken out as before."""
    t, round_, world = seated_round()
    players = world["players"]
    before = seating(round_)
    services.set_client_seed(world["logins"]["c"], "C saw the commitment, then chose this")
    a = players["a"]
    for leave in (
        lambda: services.withdraw(t, a),
        lambda: services.check_withdrawal(t, a),
        lambda: services.mark_absent(t, a),
        lambda: services.check_absence(t, a),
    ):
        with pytest.raises(ServiceError) as refused:
            leave()
        words = str(refused.value)
        assert FIXED in words and "A can leave once it has been played" in words, words
        assert "C set" not in words, words  # no other player named
    assert seating(round_) == before
    assert t.registrations.filter(player=a, dropped_after__isnull=True).exists()
    assert not t.absences.filter(player=a).exists()
    # Round 1 over (marked so: its games are people's), round 2 seated and then fixed: a
    # drop out of it is refused the same way.
    services.begin_round(round_)
    Round.objects.filter(pk=round_.pk).update(status=Round.Status.FINISHED)
    second = services.start_round(t, auto_check_in=True)
    before = seating(second)
    services.drop(t, players["d"])  # before any contribution: seated again without them
    assert players["d"].pk not in {p for _, _, p in seating(second)}
    services.set_client_seed(world["logins"]["b"], "B saw round 2's commitments")
    for leave in (lambda: services.drop(t, a), lambda: services.check_drop(t, a)):
        with pytest.raises(ServiceError) as refused:
            leave()
        assert FIXED in str(refused.value) and "a player of it set a client seed" in str(
            refused.value
        )
    assert t.registrations.filter(player=a, dropped_after__isnull=True).exists()
    assert before != seating(second)
