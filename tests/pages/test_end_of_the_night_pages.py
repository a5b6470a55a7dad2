"""Issue 20's pages: confirmation before destructive actions, editing and deleting a
tournament, forfeits at the desk, the podium, the CSV export, the projector, a finished
tournament's desk without live controls, and the organiser's words."""

from __future__ import annotations

import csv
import io
import re

import pytest
from django.utils import translation

from tests.factories import PageWorld as World
from tests.factories import bot_tournament
from tournaments import services
from tournaments.models import Forfeit, Registration, Tournament

pytestmark = pytest.mark.django_db


def test_withdrawing_asks_first_and_a_registration_before_round_one_is_gone(
    world: World,
) -> None:
    t = services.create_tournament(world.club, "Quiz", "bhabhi", 2)
    services.register(t, world.player)
    org = world.client(world.organiser)
    url = f"/tournaments/{t.pk}/confirm/withdraw"
    asked = org.get(url, {"player": world.player.pk})
    page = asked.content.decode()
    assert asked.status_code == 200 and "Withdraw Ann from Quiz?" in page
    assert Registration.objects.filter(tournament=t).exists()  # asking changes nothing
    done = org.post(url, {"player": world.player.pk}, follow=True)
    assert "Ann is withdrawn from Quiz." in done.content.decode()
    assert not Registration.objects.filter(tournament=t).exists()


def test_a_tournament_is_edited_with_the_create_form_until_round_one_is_seated(
    world: World,
) -> None:
    t = services.create_tournament(world.club, "Quiz", "bhabhi", 2)
    org = world.client(world.organiser)
    form = org.get(f"/tournaments/{t.pk}/edit").content.decode()
    assert "Save the settings" in form and 'value="Quiz"' in form
    data = {
        "club": world.club.pk,
        "name": "Quiz Night",
        "game": "bhabhi",
        "rounds": 3,
        "seating_mode": "mixing",
        "timeouts_to_bot": 2,
    }
    saved = org.post(f"/tournaments/{t.pk}/edit", data)
    assert saved.status_code == 302
    t.refresh_from_db()
    assert (t.name, t.rounds, t.timeouts_to_bot, t.timeout_forfeits) == (
        "Quiz Night",
        3,
        2,
        False,  # the box was left unticked
    )
    for bot in world.bots[:3]:
        services.register(t, bot)
    services.start_round(t, auto_check_in=True)
    # Once a round is seated the page changes its name only (it refused every change, a
    # misspelt name included: found by trying).
    named = org.get(f"/tournaments/{t.pk}/edit").content.decode()
    assert "Round 1 is seated" in named and 'name="rounds"' not in named
    saved = org.post(f"/tournaments/{t.pk}/edit", {"name": "Quiz Night, fixed", "rounds": 9})
    assert saved.status_code == 302
    t.refresh_from_db()
    assert (t.name, t.rounds) == ("Quiz Night, fixed", 3)
    blank = org.post(f"/tournaments/{t.pk}/edit", {"name": "\u200b"}).content.decode()
    assert "needs a name" in blank


def test_a_tournament_that_has_not_started_is_deleted_after_confirmation(world: World) -> None:
    t = services.create_tournament(world.club, "Mistake", "bhabhi", 1)
    org = world.client(world.organiser)
    desk = org.get(f"/tournaments/{t.pk}/manage").content.decode()
    assert "Delete the tournament" in desk and "Edit the settings" in desk
    asked = org.get(f"/tournaments/{t.pk}/confirm/delete").content.decode()
    assert "Delete Mistake?" in asked and "cannot be undone" in asked
    assert org.post(f"/tournaments/{t.pk}/confirm/delete").status_code == 302
    assert not Tournament.objects.filter(pk=t.pk).exists()
    assert world.client(world.person).get("/").status_code == 200


def test_only_organisers_may_confirm(world: World) -> None:
    t = services.create_tournament(world.club, "Closed", "bhabhi", 1)
    assert world.client(world.person).post(f"/tournaments/{t.pk}/confirm/delete").status_code == 403
    assert Tournament.objects.filter(pk=t.pk).exists()


def test_the_desk_forfeits_and_lifts_a_series_and_the_standings_mark_it(world: World) -> None:
    t = bot_tournament(world, rounds=1)
    winner = services.queries.standings_rows(t)[2][0].player
    org = world.client(world.organiser)
    desk = org.get(f"/tournaments/{t.pk}/manage").content.decode()
    assert f'aria-label="Forfeit {winner.name} in round 1"' in desk
    url = f"/tournaments/{t.pk}/confirm/forfeit"
    asked = org.get(url, {"player": winner.pk, "round": 1}).content.decode()
    assert f"Forfeit {winner.name}&#x27;s series in round 1?" in asked
    org.post(url, {"player": winner.pk, "round": 1})
    row = Forfeit.objects.get()
    assert (row.by, row.cause) == (world.organiser, "organiser")
    page = org.get(f"/tournaments/{t.pk}/").content.decode()
    assert "forfeit" in page and "(round 1)" in page
    rows = list(
        csv.reader(
            io.StringIO(org.get(f"/tournaments/{t.pk}/standings.csv").content.decode("utf-8-sig"))
        )
    )
    line = next(r for r in rows if r[1] == winner.name)
    assert line[rows[0].index("forfeits")] == "1" and line[rows[0].index("forfeited_rounds")] == "1"
    assert line[0] == "3"  # last of three now
    org.post(f"/tournaments/{t.pk}/confirm/unforfeit", {"player": winner.pk, "round": 1})
    assert services.queries.standings_rows(t)[2][0].player == winner


def test_a_finished_tournament_shows_its_podium_and_its_desk_has_no_live_controls(
    world: World,
) -> None:
    t = bot_tournament(world, rounds=1)
    t.refresh_from_db()
    assert t.status == Tournament.Status.FINISHED
    rows = services.queries.standings_rows(t)[2]
    page = world.client().get(f"/tournaments/{t.pk}/?fragment=1").content.decode()
    assert 'id="podium"' in page and "Final standings" in page
    assert '<span class="badge finished">finished</span>' in page  # in the live fragment
    assert rows[0].player.name in page.split('id="podium"')[1].split("</section>")[0]
    desk = world.client(world.organiser).get(f"/tournaments/{t.pk}/manage").content.decode()
    assert "Check everyone in for round" not in desk
    assert "Give the seat back" not in desk
    assert "The tournament is finished" in desk


def test_the_standings_export_as_csv_with_names_points_and_tie_breaks(world: World) -> None:
    t = bot_tournament(world, rounds=1)
    answer = world.client().get(f"/tournaments/{t.pk}/standings.csv")
    assert answer["Content-Type"].startswith("text/csv")
    assert "attachment;" in answer["Content-Disposition"]
    # A byte order mark first, so that Excel reads the names as UTF-8 (it garbled them).
    assert answer.content.startswith("\ufeff".encode())
    rows = list(csv.reader(io.StringIO(answer.content.decode("utf-8-sig"))))
    assert rows[0][:4] == ["rank", "player", "points", "opponents_points"]
    assert sorted(r[1] for r in rows[1:]) == sorted(b.name for b in world.bots[:3])
    assert sum(float(r[2]) for r in rows[1:]) == pytest.approx(1.5)  # a table of 3 hands out 3/2


def test_a_name_that_reads_as_a_formula_is_exported_as_text(world: World) -> None:
    """A spreadsheet that opens the standings must not run a name (CSV injection: any club
    member names themselves on the join page; found by trying, 2026-12-07)."""
    t = bot_tournament(world, rounds=1)
    named = {'=HYPERLINK("http://evil","x")', "+1", "-2", "@SUM(A1)"}
    for bot, name in zip(world.bots[:3], sorted(named), strict=False):
        bot.name = name
        bot.save(update_fields=["name"])
    rows = list(
        csv.reader(
            io.StringIO(
                world.client().get(f"/tournaments/{t.pk}/standings.csv").content.decode("utf-8-sig")
            )
        )
    )
    shown = {r[1] for r in rows[1:]}
    assert shown == {f"'{n}" for n in sorted(named)[:3]}, shown
    assert all(float(r[2]) >= 0 for r in rows[1:])  # numbers stay numbers


def test_the_projector_shows_the_round_the_standings_and_no_controls(world: World) -> None:
    t = bot_tournament(world, rounds=2)
    page = world.client(world.organiser).get(f"/tournaments/{t.pk}/projector").content.decode()
    assert 'data-poll="5000"' in page and "?fragment=1" in page
    assert "Round 1" in page and "Standings" in page
    assert "<form" not in page and "<nav" not in page
    assert "Break" in page and "Round 2 is next." in page
    fragment = world.client().get(f"/tournaments/{t.pk}/projector?fragment=1").content.decode()
    assert "projector-standings" in fragment


def test_the_create_form_states_each_games_defaults_from_the_engine(world: World) -> None:
    page = world.client(world.organiser).get("/tournaments/new").content.decode()
    assert "Bhabhi / Getaway: tables of 3–8, 5 deals, fewest losses" in page
    assert "3 deals counted in losses" not in page


def test_a_series_kind_the_game_cannot_use_is_refused_in_words(world: World) -> None:
    data = {
        "club": world.club.pk,
        "name": "Wrong",
        "game": "old_maid",
        "rounds": 1,
        "series_kind": "first_to",
        "series_target": 3,
        "seating_mode": "mixing",
    }
    page = world.client(world.organiser).post("/tournaments/new", data).content.decode()
    assert "Old Maid is played as N deals, fewest losses, not first to N round wins" in page
    with pytest.raises(services.ServiceError, match="Old Maid.* is played as N deals"):
        services.create_tournament(
            world.club, "Wrong", "old_maid", 1, series={"kind": "first_to", "target": 3}
        )


def test_a_seating_refusal_names_the_player(world: World) -> None:
    t = services.create_tournament(world.club, "Named", "bhabhi", 1, table_max=3)
    for bot in world.bots[:6]:
        services.register(t, bot)
    round_ = services.start_round(t, auto_check_in=True)
    with pytest.raises(
        services.ServiceError, match="Bot 0 is fixed to table 9; this round.s last table is 2"
    ):
        services.reseat(round_, fixed={world.bots[0]: 9})


def test_the_desk_marks_a_player_absent_after_confirmation(world: World) -> None:
    t = services.create_tournament(world.club, "Absent", "bhabhi", 1)
    services.register(t, world.player)
    org = world.client(world.organiser)
    url = f"/tournaments/{t.pk}/confirm/absent"
    assert (
        "Mark Ann absent for round 1?" in org.get(url, {"player": world.player.pk}).content.decode()
    )
    done = org.post(url, {"player": world.player.pk}, follow=True).content.decode()
    assert "Ann is absent for round 1." in done
    # The desk says so on her line, a bot's too (a bot showed as checked in: found by trying).
    bot = services.add_player(world.club, "Absent Bot", bot_level="random")
    services.register(t, bot)
    services.mark_absent(t, bot)
    desk = org.get(f"/tournaments/{t.pk}/manage").content.decode()
    for name in ("Ann", "Absent Bot"):
        line = desk.split(f'data-player="{name}"', 1)[1].split("</tr>", 1)[0]
        assert "absent" in line and "checked in" not in line, line


def test_a_seating_refusal_is_told_in_russian(world: World) -> None:
    # Found by a Russian-speaking organiser: the seating's own refusals were English
    # inside the Russian sentence («тур 1 нельзя рассадить: Bot 0 is fixed to table 9…»).
    t = services.create_tournament(world.club, "Named", "bhabhi", 1, table_max=3)
    for bot in world.bots[:6]:
        services.register(t, bot)
    round_ = services.start_round(t, auto_check_in=True)
    crowded = {bot: 1 for bot in world.bots[:4]}
    for fixed, russian in (
        ({world.bots[0]: 9}, "за игроком Bot 0 закреплён стол 9, а последний стол этого тура — 2"),
        (crowded, "за столом 1 закреплено больше игроков, чем за ним помещается"),
    ):
        with translation.override("ru"), pytest.raises(services.ServiceError) as refused:
            services.reseat(round_, fixed=fixed)
        assert str(refused.value.message) == f"тур 1 нельзя рассадить: {russian}"
        # No English word but the players' names.
        assert not re.findall(r"[A-Za-z]{2,}", refused.value.message.replace("Bot", ""))


def test_a_round_that_has_begun_is_named_by_its_status_in_russian(world: World) -> None:
    # Found by a Russian-speaking organiser: «тур 1 уже начат (playing): …».
    t = services.create_tournament(world.club, "Begun", "bhabhi", 1)
    for bot in world.bots[:3]:
        services.register(t, bot)
    round_ = services.begin_round(services.start_round(t, auto_check_in=True))
    with translation.override("ru"), pytest.raises(services.ServiceError) as refused:
        services.swap_players(round_, world.bots[0], world.bots[1])
    assert refused.value.message.startswith("тур 1 уже начат (идёт)"), refused.value.message
    assert not re.search(r"[A-Za-z]", refused.value.message), refused.value.message
