"""The organiser's pages: create a tournament, register, check in, seat, adjust, begin, drop,
watch clocks and timeouts; only the club's organisers may."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User

from tests.factories import PageWorld, bot_tournament
from tournaments import services
from tournaments.models import CheckIn, Game, Player, Registration, Round, TableSeat, Tournament
from tournaments.play import apply_timeout

pytestmark = pytest.mark.django_db


def _create(world: PageWorld, **changes: object) -> object:
    data = {
        "club": world.club.pk,
        "name": "Spring Cup",
        "game": "give_away",
        "rounds": 2,
        "series_kind": "first_to",
        "series_target": 1,
        "table_min": 2,
        "table_max": 3,
        "seating_mode": "mixing",
        "timeouts_to_bot": 0,
    }
    data.update(changes)
    return world.client(world.organiser).post("/tournaments/new", data)


def test_an_organiser_creates_a_tournament_with_the_form(world: PageWorld) -> None:
    form = world.client(world.organiser).get("/tournaments/new")
    assert form.status_code == 200 and "Create the tournament" in form.content.decode()
    answer = _create(world)
    tournament = Tournament.objects.get(name="Spring Cup")
    assert answer["Location"] == f"/tournaments/{tournament.pk}/manage"  # type: ignore[index]
    assert tournament.series == {"kind": "first_to", "target": 1}
    assert (tournament.table_min, tournament.table_max) == (2, 3)


def test_the_use_cases_refusal_shows_on_the_form_field_and_creates_nothing(
    world: PageWorld,
) -> None:
    # Bhabhi with its own series: the table size is what the use case refuses.
    answer = _create(world, game="bhabhi", series_kind="losses", table_min=2)
    page = answer.content.decode()  # type: ignore[attr-defined]
    assert answer.status_code == 200  # type: ignore[attr-defined]
    assert "Bhabhi / Getaway is played by 3 to 8" in page
    missing = _create(world, series_target="")
    assert "Give N for the series you chose." in missing.content.decode()  # type: ignore[attr-defined]
    assert not Tournament.objects.exists()


def test_an_organisers_deal_limit_is_kept_and_shown_with_how_the_match_is_placed(
    world: PageWorld,
) -> None:
    _create(world, series_target=3, series_deal_limit=12)
    tournament = Tournament.objects.get(name="Spring Cup")
    assert tournament.series == {"kind": "first_to", "target": 3, "deal_limit": 12}
    page = world.client(world.organiser).get(f"/tournaments/{tournament.pk}/").content.decode()
    assert "first to 3 round wins, at most 12 deals (then placed by round wins" in page
    wrong = _create(
        world, name="Old Maid night", game="old_maid", series_kind="losses", series_deal_limit=12
    )
    assert "A deal limit is for a first to N series" in wrong.content.decode()  # type: ignore[attr-defined]
    assert not Tournament.objects.filter(name="Old Maid night").exists()


def test_a_give_away_match_shows_it_has_no_deal_limit_by_default(world: PageWorld) -> None:
    _create(world, series_target=3)
    tournament = Tournament.objects.get(name="Spring Cup")
    page = world.client(world.organiser).get(f"/tournaments/{tournament.pk}/").content.decode()
    assert "first to 3 round wins, no limit on deals" in page


def test_only_organisers_of_the_club_may_organise(world: PageWorld) -> None:
    tournament = services.create_tournament(world.club, "Closed", "give_away", 1)
    ann = world.client(world.person)
    assert ann.get("/tournaments/new").status_code == 403
    assert ann.get(f"/tournaments/{tournament.pk}/manage").status_code == 403
    refused = ann.post(
        f"/tournaments/{tournament.pk}/manage/register", {"players": [world.bots[0].pk]}
    )
    assert refused.status_code == 403
    assert not Registration.objects.filter(tournament=tournament).exists()
    assert world.client().get(f"/tournaments/{tournament.pk}/manage").status_code == 302
    other = User.objects.create_user("otto", password="x")
    services.create_club("Other Club", organisers=[other])
    assert world.client(other).get(f"/tournaments/{tournament.pk}/manage").status_code == 403
    assert (
        world.client(world.organiser)
        .post(f"/tournaments/{tournament.pk}/manage/nonsense")
        .status_code
        == 404
    )


def test_an_organiser_runs_a_round_from_registration_to_standings(world: PageWorld) -> None:
    tournament = services.create_tournament(
        world.club,
        "Club Night",
        "give_away",
        2,
        series={"kind": "first_to", "target": 1},
        table_min=2,
        table_max=3,
    )
    org = world.client(world.organiser)
    url = f"/tournaments/{tournament.pk}/manage"
    page = org.get(url).content.decode()
    assert "Nobody is registered yet." in page
    org.post(f"{url}/register", {"players": [world.player.pk, *[b.pk for b in world.bots[:4]]]})
    assert Registration.objects.filter(tournament=tournament).count() == 5
    added = org.post(f"{url}/add-player", {"name": "Newcomer", "bot_level": "random"}, follow=True)
    assert "Added Newcomer" in added.content.decode()
    # Ann is a person: she must be checked in (bots always are).
    org.post(f"{url}/check-in", {"player": world.player.pk})
    assert CheckIn.objects.filter(tournament=tournament, player=world.player).exists()
    org.post(f"{url}/start-round", {})
    round_ = Round.objects.get(tournament=tournament)
    assert round_.status == Round.Status.SEATED
    seated = org.get(url).content.decode()
    assert "Round 1 is seated" in seated and 'id="swap-form"' in seated
    seats = {ts.player_id: ts.table_id for ts in TableSeat.objects.filter(table__round=round_)}
    a = next(p for p, t in seats.items() if t == min(seats.values()))
    b = next(p for p, t in seats.items() if t != seats[a])
    swapped = org.post(f"{url}/swap", {"a": a, "b": b}, follow=True)
    assert "Swapped" in swapped.content.decode()
    after = {ts.player_id: ts.table_id for ts in TableSeat.objects.filter(table__round=round_)}
    assert after[a] == seats[b] and after[b] == seats[a]
    # Seat again with the organiser's hand: two kept apart, one fixed to table 2 (a
    # destructive action: it asks first, tournaments/web/corrections.py, and its
    # confirmation posts to /confirm/reseat).
    keep = [world.bots[0].pk, world.bots[1].pk]
    confirm = f"/tournaments/{tournament.pk}/confirm"
    half = org.post(f"{confirm}/reseat", {"apart_a": keep[0]}, follow=True).content.decode()
    assert "Choose both players to keep apart." in half
    again = org.post(
        f"{confirm}/reseat",
        {"apart_a": keep[0], "apart_b": keep[1], "fixed_player": world.player.pk, "fixed_table": 2},
        follow=True,
    )
    assert "seated again" in again.content.decode()
    tables = {
        ts.player_id: ts.table.number
        for ts in TableSeat.objects.filter(table__round=round_).select_related("table")
    }
    assert tables[keep[0]] != tables[keep[1]]
    assert tables[world.player.pk] == 2
    began = org.post(f"{url}/begin-round", {}, follow=True)
    assert "Round 1 has begun" in began.content.decode()
    round_.refresh_from_db()
    assert round_.status == Round.Status.PLAYING
    # A drop is refused while the round is played, with the use case's reason.
    refused = org.post(f"{confirm}/drop", {"player": world.bots[0].pk}, follow=True)
    assert "is being played" in refused.content.decode()
    live = org.get(f"{url}?fragment=1").content.decode()
    assert "Clocks and timeouts" in live and "<html" not in live


def test_errors_of_organiser_commands_are_shown_and_change_nothing(world: PageWorld) -> None:
    tournament = services.create_tournament(world.club, "Empty", "bhabhi", 1)
    org = world.client(world.organiser)
    url = f"/tournaments/{tournament.pk}/manage"
    no_round = org.post(f"{url}/begin-round", {}, follow=True).content.decode()
    assert "no round is seated" in no_round
    too_few = org.post(f"{url}/start-round", {}, follow=True).content.decode()
    assert "cannot start" in too_few
    assert not Round.objects.filter(tournament=tournament).exists()
    bad = org.post(f"{url}/check-in", {"player": ""}, follow=True).content.decode()
    assert "choose a player" in bad
    twice = org.post(f"{url}/add-player", {"name": "Ann"}, follow=True).content.decode()
    assert "already has a player called" in twice


def test_the_organiser_sees_running_clocks_timeouts_and_gives_a_seat_back(world: PageWorld) -> None:
    tournament = services.create_tournament(
        world.club,
        "Clocked",
        "bhabhi",
        1,
        series={"kind": "losses", "target": 1},
        table_max=3,
        turn_seconds=30,
        timeouts_to_bot=1,
    )
    for player in [world.player, *world.bots[:2]]:
        services.register(tournament, player)
    services.check_in(tournament, world.player)
    services.begin_round(services.start_round(tournament))
    # No bot moves first: bots may take hands before trick 1 and end the deal at once.
    game = Game.objects.get(table__round__tournament=tournament)
    assert game.waiting_for, "right after the deal the A♠ holder is waited for"
    page = world.client(world.organiser).get(f"/tournaments/{tournament.pk}/manage").content
    assert b'class="clock" data-deadline=' in page
    apply_timeout(game.pk, game.waiting_for[0], game.sequence, force=True)
    # The person's seat (the timed-out seat may be a bot's: only a person takes a seat back).
    row = TableSeat.objects.get(table=game.table, player=world.player)
    row.autoplay = True
    row.timeouts_in_a_row = 1
    row.save()
    page = (
        world.client(world.organiser).get(f"/tournaments/{tournament.pk}/manage").content.decode()
    )
    assert "Timeouts (latest first)" in page and "a bot plays the seat" in page
    given = world.client(world.organiser).post(
        f"/tournaments/{tournament.pk}/confirm/take-back", {"table_seat": row.pk}, follow=True
    )
    assert "is theirs again" in given.content.decode()
    row.refresh_from_db()
    assert row.autoplay is False
    # Once the table has finished its seats are no longer in trouble: the list of them
    # kept every earlier round's bot for the evening (found by trying); the timeouts stay.
    row.autoplay = True
    row.save()
    from tournaments.management.commands.play_bots import run_all_bots

    table = row.table
    run_all_bots(tournament)
    table.refresh_from_db()
    assert table.status == "finished"
    page = (
        world.client(world.organiser).get(f"/tournaments/{tournament.pk}/manage").content.decode()
    )
    assert "Timeouts (latest first)" in page and "a bot plays the seat" not in page


def test_finished_tournaments_show_final_standings_to_the_organiser(world: PageWorld) -> None:
    tournament = bot_tournament(world, "old_maid", players=3)
    page = world.client(world.organiser).get(f"/tournaments/{tournament.pk}/manage").content
    assert b"The tournament is finished" in page


def test_a_new_player_whose_registration_is_refused_is_not_added_to_the_club(
    world: PageWorld,
) -> None:
    tournament = services.create_tournament(
        world.club, "Over", "give_away", 1, series={"kind": "first_to", "target": 1}
    )
    Tournament.objects.filter(pk=tournament.pk).update(status=Tournament.Status.FINISHED)
    org = world.client(world.organiser)
    url = f"/tournaments/{tournament.pk}/manage"
    refused = org.post(f"{url}/add-player", {"name": "Latecomer"}, follow=True).content.decode()
    assert "is finished: nobody can enter it now" in refused
    # One use case, one transaction (tournaments.services.desk): no player left behind in the club.
    assert not Player.objects.filter(club=world.club, name="Latecomer").exists()
