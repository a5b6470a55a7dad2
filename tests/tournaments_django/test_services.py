"""The tournament use cases: settings, registration, check-in, seating, the series, drops."""

from __future__ import annotations

import hashlib
import random

import pytest
from django.contrib.auth.models import AnonymousUser, User

from engine.fairness import canonical_order, derive_deck, mix_seed
from engine.registry import get_game
from engine.series import SeriesFormat
from events import store
from tests import factories
from tournaments import services
from tournaments.management.commands.play_bots import run_all_bots
from tournaments.models import CheckIn, Game, Registration, Round, Table, TableSeat, Tournament
from tournaments.seating import duplicate_seed
from tournaments.services import ServiceError
from tournaments.standings import compute_standings, live_standings

pytestmark = pytest.mark.django_db


def seated_ids(round_: Round) -> list[int]:
    return sorted(TableSeat.objects.filter(table__round=round_).values_list("player_id", flat=True))


def tables_of(round_: Round) -> list[list[int]]:
    return [
        list(TableSeat.objects.filter(table=t).order_by("seat").values_list("player_id", flat=True))
        for t in Table.objects.filter(round=round_).order_by("number")
    ]


# -- settings ---------------------------------------------------------------------------------


def test_a_new_tournament_takes_the_games_defaults() -> None:
    club = factories.club()
    t = services.create_tournament(club, "Night", "bhabhi", 3)
    assert (t.table_min, t.table_max, t.table_preferred) == (3, 8, None)
    assert t.series == {"kind": "losses", "target": 5}
    assert t.status == Tournament.Status.REGISTRATION and t.seating_mode == "mixing"


@pytest.mark.parametrize(
    "settings,field,words",
    [
        ({"game": "poker"}, "game", 'there is no game "poker"'),
        ({"rounds": 0}, "rounds", "rounds is a whole number from 1 to 100"),
        ({"table_min": 2}, "table_min", "is played by 3 to 8 players"),
        ({"table_min": 5, "table_max": 4}, "table_min", "the smallest table cannot be larger"),
        ({"table_max": 9}, "table_max", "is played by 3 to 8 players"),
        ({"table_preferred": 7, "table_max": 6}, "table_preferred", "outside 3–6"),
        ({"seating_mode": "chaos"}, "seating_mode", "mixing, swiss"),
        ({"series": {"kind": "best_of", "target": 3}}, "series", "bad series format"),
        ({"turn_seconds": 0}, "turn_seconds", "from 1 to 86400"),
        ({"name": " "}, "name", "needs a name"),
    ],
)
def test_bad_tournament_settings_are_refused_with_the_reason(
    settings: dict[str, object], field: str, words: str
) -> None:
    club = factories.club()
    args: dict[str, object] = {"name": "Night", "game": "bhabhi", "rounds": 3} | settings
    with pytest.raises(ServiceError) as error:
        services.create_tournament(club, **args)  # type: ignore[arg-type]
    assert error.value.field == field and words in error.value.message
    assert not Tournament.objects.exists()


def test_settings_change_until_a_round_is_seated_then_only_the_name() -> None:
    club = factories.club()
    t = factories.tournament(club, factories.bots(club, 4), rounds=2)
    services.update_tournament(t, rounds=3, table_preferred=4)
    t.refresh_from_db()
    assert (t.rounds, t.table_preferred) == (3, 4)
    services.start_round(t)
    services.update_tournament(t, name="Renamed")
    with pytest.raises(ServiceError, match="only its name can change"):
        services.update_tournament(t, rounds=5)
    t.refresh_from_db()
    assert (t.name, t.rounds) == ("Renamed", 3)


def test_bots_must_be_of_a_known_level_and_players_unique_in_their_club() -> None:
    club = factories.club()
    services.add_player(club, "Ann")
    with pytest.raises(ServiceError, match='already has a player called "Ann"'):
        services.add_player(club, "Ann")
    with pytest.raises(ServiceError, match='no bot level "genius"'):
        services.add_player(club, "Robo", bot_level="genius")


def test_organisers_are_the_clubs_staff_or_superusers() -> None:
    club = factories.club()
    other = factories.club("Other Club")
    staff = User.objects.create_user("org", is_staff=True)
    club.organisers.add(staff)
    root = User.objects.create_superuser("root")
    assert services.is_organiser(staff, club) and not services.is_organiser(staff, other)
    assert services.is_organiser(root, other)
    assert not services.is_organiser(AnonymousUser(), club)


# -- registration and check-in ---------------------------------------------------------------


def test_registration_is_once_per_player_and_within_the_club() -> None:
    club, other = factories.club(), factories.club("Elsewhere")
    (ann,) = factories.people(club, ["Ann"])
    (stranger,) = factories.people(other, ["Zed"])
    t = factories.tournament(club, [ann])
    with pytest.raises(ServiceError, match="already registered"):
        services.register(t, ann)
    with pytest.raises(ServiceError, match="not a player of Test Club"):
        services.register(t, stranger)


def test_people_are_seated_only_when_checked_in_and_bots_always() -> None:
    club = factories.club()
    humans = factories.people(club, ["Ann", "Bo", "Cy", "Di", "Eve"])
    robots = factories.bots(club, 2)
    t = factories.tournament(club, [*humans, *robots])
    for person in humans[:3]:
        services.check_in(t, person)
    round_ = services.start_round(t, rng=random.Random(1))
    assert seated_ids(round_) == sorted(p.pk for p in [*humans[:3], *robots])
    assert CheckIn.objects.filter(tournament=t, round_number=1).count() == 5


def test_auto_check_in_seats_every_active_registered_player() -> None:
    club = factories.club()
    humans = factories.people(club, ["Ann", "Bo", "Cy", "Di"])
    t = factories.tournament(club, humans)
    round_ = services.start_round(t, auto_check_in=True)
    assert seated_ids(round_) == sorted(p.pk for p in humans)


def test_checking_in_twice_is_harmless_and_only_for_rounds_to_come() -> None:
    club = factories.club()
    players = factories.bots(club, 4)
    (ann,) = factories.people(club, ["Ann"])
    t = factories.tournament(club, players)
    with pytest.raises(ServiceError, match="Ann is not registered"):
        services.check_in(t, ann)
    services.register(t, ann)
    assert services.check_in(t, ann) == services.check_in(t, ann, 1)
    services.begin_round(services.start_round(t))
    with pytest.raises(ServiceError, match="round 1 cannot take check-ins: the next round is 2"):
        services.check_in(t, ann, 1)
    assert services.check_in(t, ann).round_number == 2


def test_a_round_needs_enough_players_checked_in() -> None:
    club = factories.club()
    t = factories.tournament(club, factories.people(club, ["Ann", "Bo", "Cy"]))
    with pytest.raises(ServiceError, match="round 1 cannot start: 0 player"):
        services.start_round(t)
    assert not Round.objects.exists()


# -- seating and the organiser's hand -------------------------------------------------------


def test_seating_the_last_round_twice_says_it_is_seated_not_that_every_round_was_had() -> None:
    # A double click of Seat on the last round said "has had all its 1 rounds" (found by
    # trying), where the round before the last is told it is seated and not begun.
    club = factories.club()
    t = factories.tournament(club, factories.bots(club, 4), rounds=1)
    services.start_round(t, rng=random.Random(3))
    with pytest.raises(ServiceError, match="round 1 is seated and has not begun"):
        services.start_round(t)


def test_a_seated_round_has_tables_and_seats_but_no_game_until_it_begins() -> None:
    club = factories.club()
    t = factories.tournament(club, factories.bots(club, 9), table_preferred=4)
    round_ = services.start_round(t, rng=random.Random(3))
    assert round_.status == Round.Status.SEATED
    assert [len(x) for x in tables_of(round_)] == [5, 4]
    assert not Game.objects.exists() and t.status == Tournament.Status.REGISTRATION
    with pytest.raises(ServiceError, match="round 1 is seated and has not begun"):
        services.start_round(t)
    services.begin_round(round_)
    round_.refresh_from_db()
    t.refresh_from_db()
    assert round_.status == Round.Status.PLAYING and round_.started_at is not None
    assert t.status == Tournament.Status.RUNNING
    assert Game.objects.count() == 2
    with pytest.raises(ServiceError, match="round 1 has begun"):
        services.begin_round(round_)


def test_the_first_game_of_a_table_carries_the_tournament_context() -> None:
    club = factories.club()
    players = factories.bots(club, 4)
    human = factories.people(club, ["Ann"])[0]
    t = factories.tournament(club, [*players, human], turn_seconds=30)
    round_ = services.begin_round(services.start_round(t, auto_check_in=True))
    table = Table.objects.get(round=round_)
    seats = list(TableSeat.objects.filter(table=table).select_related("player").order_by("seat"))
    game = Game.objects.get()
    assert game.context == {
        "tournament": t.pk,
        "round": 1,
        "table": table.pk,
        "game_number": 1,
        "seats": [
            {"player": s.player_id, "name": s.player.name, "bot": s.player.bot_level or None}
            for s in seats
        ],
    }
    assert game.players == [s.player.name for s in seats]
    assert (game.table_id, game.number_in_series) == (table.pk, 1)
    assert game.dealer == table.first_dealer and game.turn_seconds == 30
    assert store.read_stream(game.stream)[0].cause_kind == "organiser"


def test_the_organiser_swaps_two_players_or_a_player_and_a_bye() -> None:
    club = factories.club()
    players = factories.bots(club, 9)
    t = factories.tournament(club, players, table_min=4, table_max=4)
    round_ = services.start_round(t, rng=random.Random(5))
    before = tables_of(round_)
    assert [len(x) for x in before] == [4, 4] and len(round_.byes) == 1
    a, b = before[0][1], before[1][2]
    services.swap_players(round_, a, b)
    after = tables_of(round_)
    assert after[0][1] == b and after[1][2] == a
    bye = round_.byes[0]
    services.swap_players(round_, bye, a)
    round_.refresh_from_db()
    assert round_.byes == [a] and tables_of(round_)[1][2] == bye
    with pytest.raises(ServiceError, match="a swap needs two different players"):
        services.swap_players(round_, a, a)
    services.begin_round(round_)
    with pytest.raises(ServiceError, match="has begun"):
        services.swap_players(round_, after[0][0], after[1][0])


def test_reseating_honours_fixed_tables_and_pairs_kept_apart() -> None:
    club = factories.club()
    players = factories.bots(club, 8)
    t = factories.tournament(club, players, table_preferred=4)
    round_ = services.start_round(t, rng=random.Random(2))
    a, b, c = players[0], players[1], players[2]
    for seed in range(5):
        services.reseat(round_, fixed={c: 2}, apart=[(a, b)], rng=random.Random(seed))
        tables = tables_of(round_)
        assert c.pk in tables[1]
        assert not any(a.pk in x and b.pk in x for x in tables)
    with pytest.raises(ServiceError, match="is fixed to table 3; this round.s last table is 2"):
        services.reseat(round_, fixed={a: 3})


def test_byes_score_half_a_point_and_go_to_different_players() -> None:
    club = factories.club()
    players = factories.bots(club, 5)
    t = factories.tournament(club, players, rounds=2, table_min=4, table_max=4)
    first = factories.play_round(t, rng=random.Random(1))
    second = factories.play_round(t, rng=random.Random(2))
    assert len(first.byes) == len(second.byes) == 1 and first.byes != second.byes
    lines = {s.player: s for s in live_standings(t)}
    for bye in (first.byes[0], second.byes[0]):
        assert lines[str(bye)].byes == 1 and lines[str(bye)].played == 1
    assert sum(s.points for s in lines.values()) == 5  # (4/2 + 1/2) per round
    assert compute_standings(t) == live_standings(t)


# -- the series ----------------------------------------------------------------------------


def test_a_round_cannot_start_while_the_last_one_is_playing() -> None:
    club = factories.club()
    people = factories.people(club, ["Ann", "Bo", "Cy"])
    t = factories.tournament(
        club, [*factories.bots(club, 6), *people], table_preferred=3, table_max=3
    )
    # The three people at one table: seated among bots, a bot could take a person's hand
    # before trick 1 and finish their table without them (a random deal's flake).
    fixed = {person: 1 for person in people}
    round_ = services.start_round(t, fixed=fixed, auto_check_in=True, rng=random.Random(4))
    services.begin_round(round_)
    run_all_bots(t)  # the all-bot tables finish, Ann's, Bo's and Cy's table waits for them
    waiting = Table.objects.exclude(status=Table.Status.FINISHED).count()
    assert waiting >= 1
    with pytest.raises(ServiceError) as error:
        services.start_round(t, auto_check_in=True)
    assert error.value.message == (
        f"round 2 cannot start: round 1 still has {waiting} table(s) playing"
    )


def test_each_table_plays_its_series_and_the_round_and_tournament_finish() -> None:
    club = factories.club()
    t = factories.tournament(
        club, factories.bots(club, 7), rounds=2, series=SeriesFormat("losses", 3)
    )
    first = factories.play_round(t, rng=random.Random(8))
    assert first.status == Round.Status.FINISHED and first.finished_at is not None
    assert first.seed == first.commitment == ""  # no duplicate deals: no round seed
    for table in Table.objects.filter(round=first):
        games = list(Game.objects.filter(table=table).order_by("number_in_series"))
        assert [g.number_in_series for g in games] == [1, 2, 3]
        assert [g.dealer for g in games] == [
            (table.first_dealer + k) % games[0].seats for k in range(3)
        ]
    t.refresh_from_db()
    assert t.status == Tournament.Status.RUNNING
    factories.play_round(t, rng=random.Random(9))
    t.refresh_from_db()
    assert t.status == Tournament.Status.FINISHED
    with pytest.raises(ServiceError, match="has had all its 2 rounds"):
        services.start_round(t)


def test_the_series_hook_called_again_changes_nothing() -> None:
    club = factories.club()
    t = factories.tournament(club, factories.bots(club, 3), rounds=1)
    round_ = factories.play_round(t)
    game = Game.objects.get()
    table = Table.objects.get(round=round_)
    services.game_over(game)
    assert Game.objects.count() == 1
    table.refresh_from_db()
    assert table.status == Table.Status.FINISHED and table.placings is not None


def test_a_first_to_series_of_give_away_and_a_place_points_series_finish_too() -> None:
    for game, count in (("give_away", 3), ("give_and_take", 2)):
        club = factories.club(f"Club {game}")
        fmt = (
            SeriesFormat("first_to", 1) if game == "give_away" else SeriesFormat("place_points", 2)
        )
        t = factories.tournament(club, factories.bots(club, count), game=game, rounds=1, series=fmt)
        round_ = factories.play_round(t)
        assert round_.status == Round.Status.FINISHED
        assert compute_standings(t) == live_standings(t)


# -- duplicate deals -------------------------------------------------------------------------


def test_duplicate_deals_give_equal_tables_the_same_decks_from_a_committed_round_seed() -> None:
    club = factories.club()
    players = factories.bots(club, 8)
    t = factories.tournament(
        club,
        players,
        rounds=1,
        table_min=4,
        table_max=4,
        duplicate_deals=True,
        series=SeriesFormat("losses", 2),
    )
    round_ = services.begin_round(services.start_round(t, rng=random.Random(1)))
    assert len(round_.commitment) == 64 and round_.seed == ""
    run_all_bots(t)
    round_.refresh_from_db()
    assert round_.status == Round.Status.FINISHED
    seed = bytes.fromhex(round_.seed)
    assert hashlib.sha256(seed).hexdigest() == round_.commitment
    cards = canonical_order(get_game("bhabhi").deck)
    decks: dict[int, set[tuple[str, ...]]] = {}
    for game in Game.objects.filter(table__round=round_):
        deck = tuple(store.read_stream(game.stream, limit=1)[0].payload["deck"])
        number = game.number_in_series or 0
        # Mixed with every player of the round's client seed, frozen as it began (all "":
        # bots), docs/fairness.md.
        frozen = services.round_contributions(round_)
        assert frozen == [""] * 8
        mixed = mix_seed(duplicate_seed(seed, 4, number - 1), frozen, number)
        assert list(deck) == derive_deck(mixed, cards)
        decks.setdefault(number, set()).add(deck)
    assert {k: len(v) for k, v in decks.items()} == {1: 1, 2: 1}


def test_tables_of_different_sizes_get_different_duplicate_decks() -> None:
    club = factories.club()
    t = factories.tournament(
        club, factories.bots(club, 7), rounds=1, table_preferred=4, duplicate_deals=True
    )
    round_ = services.begin_round(services.start_round(t, rng=random.Random(1)))
    decks = [
        tuple(store.read_stream(g.stream, limit=1)[0].payload["deck"])
        for g in Game.objects.filter(table__round=round_)
    ]
    assert len(decks) == 2 and decks[0] != decks[1]


# -- drops and late entries -----------------------------------------------------------------


def test_a_dropped_player_keeps_their_results_and_is_never_seated_again() -> None:
    club = factories.club()
    players = factories.bots(club, 7)
    t = factories.tournament(club, players, rounds=3)
    factories.play_round(t, rng=random.Random(1))
    gone = players[3]
    registration = services.drop(t, gone)
    assert registration.dropped_after == 1
    with pytest.raises(ServiceError, match="already dropped out after round 1"):
        services.drop(t, gone)
    with pytest.raises(ServiceError, match="dropped out"):
        services.check_in(t, gone)
    for number in (2, 3):
        round_ = factories.play_round(t, rng=random.Random(number))
        assert gone.pk not in seated_ids(round_) and gone.pk not in round_.byes
    line = next(s for s in live_standings(t) if s.player == str(gone.pk))
    assert line.dropped and line.played == 1
    assert compute_standings(t) == live_standings(t)


def test_a_drop_before_round_1_has_begun_is_refused_withdraw_instead() -> None:
    """One rule for the desk, the API, the admin and the command: before round 1 has begun
    a drop would leave a line "dropped after round 0" in the standings, where a withdrawal
    leaves none (the desk refused it; the API's drop made it: found by trying)."""
    club = factories.club()
    players = factories.bots(club, 6)
    t = factories.tournament(club, players, rounds=2)
    for seated in (False, True):
        if seated:
            services.start_round(t, auto_check_in=True)
        for refuse in (services.check_drop, services.drop):
            with pytest.raises(ServiceError, match="withdraw Bot 00 instead") as refused:
                refuse(t, players[0])
            assert refused.value.field == "player"
    assert not Registration.objects.filter(tournament=t, dropped_after__isnull=False).exists()
    assert services.withdraw(t, players[0]) is None  # what it says to do


def test_drops_wait_for_the_round_being_played_and_unseat_a_seated_round() -> None:
    club = factories.club()
    players = factories.bots(club, 6)
    (ann,) = factories.people(club, ["Ann"])
    t = factories.tournament(club, [*players, ann], rounds=2, table_preferred=3)
    round_ = services.begin_round(services.start_round(t, auto_check_in=True))
    with pytest.raises(ServiceError, match="round 1 is being played: Bot 00 can drop out once it"):
        services.drop(t, players[0])
    # Ann does not play: finish round 1 by hand for her table's games.
    from tests.service.play import play

    while Game.objects.filter(status=Game.Status.RUNNING).exists():
        run_all_bots(t)
        for game in Game.objects.filter(status=Game.Status.RUNNING):
            play(game, random.Random(0))
    round_.refresh_from_db()
    assert round_.status == Round.Status.FINISHED
    second = services.start_round(t, auto_check_in=True, rng=random.Random(2))
    assert players[0].pk in seated_ids(second)
    services.drop(t, players[0])
    assert players[0].pk not in seated_ids(second) and len(seated_ids(second)) == 6


def test_a_late_entry_plays_from_the_next_round_on_zero_points() -> None:
    club = factories.club()
    players = factories.bots(club, 6)
    t = factories.tournament(club, players, rounds=3)
    factories.play_round(t, rng=random.Random(1))
    (late,) = factories.bots(club, 1, prefix="Late")
    registration = services.register(t, late)
    assert registration.from_round == 2
    with pytest.raises(ServiceError, match="from_round must be between 2"):
        services.register(t, factories.bots(club, 1, prefix="Early")[0], from_round=1)
    round_ = factories.play_round(t, rng=random.Random(2))
    assert late.pk in seated_ids(round_)
    line = next(s for s in live_standings(t) if s.player == str(late.pk))
    assert line.played == 1 and line.byes == 0
    factories.play_round(t, rng=random.Random(3))
    with pytest.raises(ServiceError, match="finished: nobody can enter"):
        services.register(t, factories.bots(club, 1, prefix="Too late")[0])


def test_a_player_registered_for_a_later_round_is_not_seated_before_it() -> None:
    club = factories.club()
    players = factories.bots(club, 6)
    t = factories.tournament(club, players[:5], rounds=2)
    services.register(t, players[5], from_round=2)
    assert Registration.objects.get(player=players[5]).from_round == 2
    first = services.start_round(t, auto_check_in=True)
    assert players[5].pk not in seated_ids(first)


def test_a_series_kind_that_cannot_score_the_game_is_refused() -> None:
    from tournaments import services

    club = services.create_club("Kind Club")
    with pytest.raises(services.ServiceError, match='scored as "first_to"'):
        services.create_tournament(
            club, "Wrong", "give_away", rounds=1, series={"kind": "place_points", "target": 2}
        )
