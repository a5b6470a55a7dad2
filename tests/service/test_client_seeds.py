"""Provably fair with the players' help: client seeds, a commitment before every deal.

Each login may set a client seed.  A table's next deal has a server seed committed
(``Table.next_commitment``) before it is dealt; the deck derives from that seed,
the seated players' client seeds and the game's number, so a player who saved the
commitment and then set a new seed knows the server could not have chosen the
deck.  docs/fairness_check.py checks a record against the commitment they saved.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import random
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client

from engine.cards import full_deck
from engine.fairness import (
    FairnessError,
    canonical_order,
    check_shuffle,
    commitment,
    derive_deck,
    mix_seed,
)
from engine.registry import get_game
from engine.series import SeriesFormat
from events import store
from tests import factories
from tests.service.play import play
from tournaments import play as service
from tournaments import services
from tournaments.models import ClientSeed, Game, Table, Tournament
from tournaments.seating import duplicate_seed

pytestmark = pytest.mark.django_db

ROOT = Path(__file__).resolve().parents[2]
CHECKER = ROOT / "docs" / "fairness_check.py"


def test_the_mix_is_the_documented_hmac_and_every_input_changes_the_deck() -> None:
    seed = bytes(range(32))
    message = b'parlour-mix/1{"clients":["ann-seed",""],"nonce":1}'
    assert mix_seed(seed, ["ann-seed", ""], 1) == hmac.new(seed, message, hashlib.sha256).digest()
    assert mix_seed(seed, ["ann-seed", ""], 1).hex().startswith("c94ef763fac5b142")
    decks = {
        tuple(derive_deck(mix_seed(seed, clients, nonce), full_deck()))
        for clients, nonce in [(["a", ""], 1), (["b", ""], 1), (["a", ""], 2), (["", "a"], 1)]
    }
    assert len(decks) == 4
    with pytest.raises(FairnessError):
        mix_seed(seed, ["x" * 65], 1)


def people_tournament(
    deals: int = 1, names: tuple[str, ...] = ("ann", "bo", "cy"), **settings: Any
) -> tuple[Tournament, list[User]]:
    club = factories.club("Fair Club")
    users = [factories.user(name, password="pw") for name in names]
    t = factories.tournament(
        club,
        [factories.person(club, user.username.title(), user) for user in users],
        game="old_maid",
        rounds=1,
        name="Fair night",
        series=SeriesFormat("losses", deals),
        table_min=len(names),
        table_max=len(names),
        **settings,
    )
    return t, users


def run_checker(
    tmp_path: Path, record: dict[str, Any], *args: str
) -> subprocess.CompletedProcess[str]:
    path = tmp_path / "record.json"
    path.write_text(json.dumps(record))
    return subprocess.run(
        [sys.executable, "-I", str(CHECKER), str(path), *args],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )


def test_a_player_saves_the_commitment_sets_a_seed_and_checks_the_record(tmp_path: Path) -> None:
    t, (ann, bo, _) = people_tournament()
    services.set_client_seed(bo, "bo's lucky seed")
    round_ = services.start_round(t, auto_check_in=True, rng=random.Random(1))
    table = Table.objects.get(round=round_)
    assert len(table.next_commitment) == 64
    # Ann sees the commitment on her page before the deal, saves it, then sets her seed.
    client = Client()
    client.force_login(ann)
    page = client.get("/me/").content.decode()
    assert table.next_commitment in page
    saved = table.next_commitment
    assert client.post("/me/client-seed", {"seed": "ann chose this"}).status_code == 302
    assert ClientSeed.objects.get(user=ann).seed == "ann chose this"
    services.begin_round(round_)
    game = Game.objects.get(table=table)
    assert game.commitment == saved
    order = [s.player.user.username for s in table.seats.order_by("seat")]
    seeds = {"ann": "ann chose this", "bo": "bo's lucky seed", "cy": ""}
    running = service.game_view(game, None)
    assert "seed" not in running.get("shuffle", {}) and running.get("seed", "") == ""
    play(game, random.Random(2))
    record = service.export_record(game)
    shuffle = record["shuffle"]
    assert shuffle["client_seeds"] == [seeds[name] for name in order] and shuffle["nonce"] == 1
    check_shuffle(
        record["deck"],
        commitment_hex=saved,
        seed=shuffle["seed"],
        client_seeds=shuffle["client_seeds"],
        nonce=1,
    )
    ok = run_checker(tmp_path, record, "--commitment", saved, "--client-seed", "ann chose this")
    assert ok.returncode == 0 and "record 1: OK" in ok.stdout, ok.stdout + ok.stderr
    # Another seed with its own commitment passes a check against itself, never against
    # the commitment Ann saved; nor does a deck that left her seed out.
    forged = bytes(32)
    swapped = record | {
        "shuffle": shuffle | {"seed": forged.hex(), "commitment": commitment(forged)},
        "deck": derive_deck(
            mix_seed(forged, shuffle["client_seeds"], 1), canonical_order(record["deck"])
        ),
    }
    alone = run_checker(tmp_path, swapped)
    assert "checked against each record's own commitment" in alone.stdout
    against = run_checker(tmp_path, swapped, "--commitment", saved)
    assert against.returncode == 1 and "not the one you saved" in against.stdout
    without = run_checker(tmp_path, record, "--client-seed", "not ann's")
    assert without.returncode == 1 and "your client seed is not among" in without.stdout


def test_each_deal_of_a_series_was_committed_before_it_was_dealt() -> None:
    t, (ann, _, _) = people_tournament(deals=3)
    round_ = services.start_round(t, auto_check_in=True, rng=random.Random(3))
    table = Table.objects.get(round=round_)
    committed = [table.next_commitment]
    services.begin_round(round_)
    for number in (1, 2):
        table.refresh_from_db()
        committed.append(table.next_commitment)  # the next deal's, shown during this one
        game = Game.objects.get(table=table, number_in_series=number)
        assert game.commitment == committed[number - 1]
        if number == 2:
            break
        services.set_client_seed(ann, f"new seed for deal {number + 1}")
        play(game, random.Random(number))
    second = Game.objects.get(table=table, number_in_series=2)
    assert second.commitment == committed[1] != committed[0]
    # Once the series is over no deal comes: no commitment promises one (a finished
    # table showed the commitment of a deal that was never dealt).
    play(second, random.Random(2))
    while (game := Game.objects.filter(table=table, status="running").first()) is not None:
        play(game, random.Random(game.pk))
    table.refresh_from_db()
    assert table.status == Table.Status.FINISHED and table.next_commitment == ""
    answer = Client().get(f"/api/v1/tables/{table.pk}")
    assert answer.status_code == 200 and answer.json()["next_commitment"] is None


def test_records_with_client_seeds_verify_and_import_through_the_api(
    tmp_path: Path,
) -> None:
    t, (ann, _, _) = people_tournament()
    services.set_client_seed(ann, "mine")
    services.begin_round(services.start_round(t, auto_check_in=True))
    record = service.export_record(play(Game.objects.get(), random.Random(5)))
    client = Client()
    answer = client.post("/api/v1/records/verify", record, content_type="application/json")
    assert answer.status_code == 200 and answer.json()["shuffle_verified"], answer.content
    tampered = record | {"shuffle": record["shuffle"] | {"client_seeds": ["", "", "other"]}}
    refused = client.post("/api/v1/records/verify", tampered, content_type="application/json")
    assert refused.status_code == 422 and refused.json()["field"] == "shuffle"
    # manage.py verify checks it as the API does (it checked the server's seed alone, and
    # failed this record: found by a helper reading the code).
    from tests.service.test_commands import run

    (tmp_path / "good.json").write_text(json.dumps(record))
    (tmp_path / "bad.json").write_text(json.dumps(tampered))
    code, lines = run("verify", str(tmp_path / "good.json"))
    assert code == 0 and "shuffle checked" in lines[0], lines
    code, lines = run("verify", str(tmp_path / "bad.json"))
    assert code == 1 and "FAILED" in lines[0], lines
    imported = service.import_game(record)
    assert service.export_record(imported)["shuffle"] == record["shuffle"]


def test_duplicate_deals_mix_every_round_players_seed_frozen_as_the_round_begins() -> None:
    club = services.create_club("Dup Club")
    users = [User.objects.create_user(f"p{i}", password="pw") for i in range(6)]
    t = services.create_tournament(
        club,
        "Dup night",
        "old_maid",
        1,
        series=SeriesFormat("losses", 2),
        table_min=3,
        table_max=3,
        duplicate_deals=True,
    )
    for user in users:
        services.register(t, services.add_player(club, user.username, user=user))
    services.set_client_seed(users[0], "first")
    round_ = services.start_round(t, auto_check_in=True)
    assert round_.commitment
    services.begin_round(round_)
    services.set_client_seed(users[0], "changed after the round began")
    frozen = services.round_contributions(round_)
    assert frozen is not None and len(frozen) == 6 and "first" in frozen
    seed = services.round_seed(round_)
    assert seed is not None
    cards = canonical_order(get_game("old_maid").deck)
    expected = derive_deck(mix_seed(duplicate_seed(seed, 3, 0), frozen, 1), cards)
    first = list(Game.objects.filter(number_in_series=1).order_by("table__number"))
    assert len(first) == 2
    for game in first:
        assert store.read_stream(game.stream, limit=1)[0].payload["deck"] == expected


def check_round(
    tmp_path: Path, records: list[dict[str, Any]], round_: dict[str, Any], *args: str
) -> subprocess.CompletedProcess[str]:
    """docs/fairness_check.py on ``records`` (one table's games, in order) with --round."""
    (tmp_path / "records.json").write_text(json.dumps(records))
    (tmp_path / "round.json").write_text(json.dumps(round_))
    return subprocess.run(
        [sys.executable, "-I", str(CHECKER), "records.json", "--round", "round.json", *args],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )


def test_a_duplicate_rounds_records_check_against_its_commitment_and_contributions(
    tmp_path: Path,
) -> None:
    club = services.create_club("Dup Check Club")
    users = [User.objects.create_user(f"d{i}", password="pw") for i in range(6)]
    t = services.create_tournament(
        club,
        "Dup check",
        "old_maid",
        1,
        series=SeriesFormat("losses", 2),
        table_min=3,
        table_max=3,
        duplicate_deals=True,
    )
    for user in users:
        services.register(t, services.add_player(club, user.username, user=user))
    round_ = services.start_round(t, auto_check_in=True, rng=random.Random(4))
    api = Client()
    url = f"/api/v1/tournaments/{t.pk}/rounds/1"
    seated = api.get(url).json()
    assert len(seated["commitment"]) == 64 and seated["seed"] is None
    assert seated["client_seeds"] is None
    # d0 saves the round's commitment (her page shows it, not a table's unused one), then
    # sets a seed of her own before the round begins.
    saved = seated["commitment"]
    page = Client()
    page.force_login(users[0])
    mine = page.get("/me/").content.decode()
    assert "round's commitment (duplicate deals" in mine and saved in mine
    unused = Table.objects.get(seats__player__user=users[0], round=round_).next_commitment
    assert unused not in mine
    services.set_client_seed(users[0], "d0 after seeing it")
    services.begin_round(round_)
    rng = random.Random(6)
    while (running := Game.objects.filter(status=Game.Status.RUNNING).first()) is not None:
        play(running, rng)
    finished = api.get(url).json()
    assert finished["status"] == "finished" and finished["commitment"] == saved
    assert finished["seed"] and len(finished["client_seeds"]) == 6
    assert "d0 after seeing it" in finished["client_seeds"]
    table = Table.objects.filter(round=round_).order_by("number").first()
    records = [
        service.export_record(g)
        for g in Game.objects.filter(table=table).order_by("number_in_series")
    ]
    assert len(records) >= 2 and all("shuffle" not in r for r in records)

    ok = check_round(
        tmp_path, records, finished, "--commitment", saved, "--client-seed", "d0 after seeing it"
    )
    assert ok.returncode == 0, ok.stdout + ok.stderr
    assert f"{len(records)} passed, 0 failed" in ok.stdout and "game 2 of round 1" in ok.stdout
    second = check_round(tmp_path, records[1:2], finished, "--game-number", "2")
    assert second.returncode == 0 and "record 1: OK" in second.stdout, second.stdout
    misnumbered = check_round(tmp_path, records[:1], finished, "--game-number", "2")
    assert misnumbered.returncode == 1 and "does not derive this deck" in misnumbered.stdout

    # A substituted seed: with the round's own commitment it does not hash to it; with a
    # commitment of its own (and decks dealt from it) it passes only a check against
    # itself, never against the commitment d0 saved.
    forged = bytes(32)
    kept = check_round(tmp_path, records, finished | {"seed": forged.hex()}, "--commitment", saved)
    assert kept.returncode == 1 and "is not the round's commitment" in kept.stdout
    cards = canonical_order(get_game("old_maid").deck)
    frozen = finished["client_seeds"]
    forged_records = [
        r | {"deck": derive_deck(mix_seed(duplicate_seed(forged, 3, k), frozen, k + 1), cards)}
        for k, r in enumerate(records)
    ]
    forged_round = finished | {"seed": forged.hex(), "commitment": commitment(forged)}
    alone = check_round(tmp_path, forged_records, forged_round)
    assert alone.returncode == 0 and "checked against each record's own commitment" in alone.stdout
    against = check_round(tmp_path, forged_records, forged_round, "--commitment", saved)
    assert against.returncode == 1 and "not the one you saved" in against.stdout
    # The wrong commitment (another round's) is refused even for the true records.
    wrong = check_round(tmp_path, records, finished, "--commitment", commitment(forged))
    assert wrong.returncode == 1 and "not the one you saved" in wrong.stdout
    # Not d0's seed, or contributions left out: refused.
    other = check_round(tmp_path, records, finished, "--client-seed", "someone else's")
    assert other.returncode == 1 and "not among the round's contributions" in other.stdout
    dropped = finished | {"client_seeds": [s for s in frozen if s != "d0 after seeing it"]}
    left_out = check_round(tmp_path, records, dropped)
    assert left_out.returncode == 1 and "does not derive this deck" in left_out.stdout


def test_the_client_seed_api_sets_and_shows_it_and_refuses_bad_ones() -> None:
    user = User.objects.create_user("dee", password="pw")
    client = Client()
    client.force_login(user)
    assert client.get("/api/v1/me/client-seed").json()["seed"] is None
    done = client.put("/api/v1/me/client-seed", {"seed": "dee-42"}, content_type="application/json")
    assert done.status_code == 200 and done.json()["seed"] == "dee-42"
    assert client.get("/api/v1/me/client-seed").json()["seed"] == "dee-42"
    bad = client.put("/api/v1/me/client-seed", {"seed": "é"}, content_type="application/json")
    assert bad.status_code == 422 and "printable ASCII" in bad.json()["detail"]
    assert ClientSeed.objects.get(user=user).seed == "dee-42"
    assert Client().get("/api/v1/me/client-seed").status_code == 401


def test_a_standalone_games_players_see_its_commitment_contribute_and_check_it(
    tmp_path: Path,
) -> None:
    """A game outside tournaments, made in two steps, mixes its players' seeds too."""
    world = factories.club_world("standalone-seeds")
    alice, bob = world.players["alice"], world.players["bob"]
    services.set_client_seed(world.users["bob"], "bob set his long ago")
    pending = services.commit_standalone_deal("old_maid", [alice, bob])
    assert len(pending.commitment) == 64 and pending.game is None
    # Alice sees the commitment before the deal, on her page and through the API.
    client = Client()
    client.force_login(world.users["alice"])
    assert pending.commitment in client.get("/me/").content.decode()
    shown = client.get("/api/v1/me/client-seed").json()["standalone_deals"]
    assert shown == [{"id": pending.pk, "game": "old_maid", "commitment": pending.commitment}]
    saved = pending.commitment
    assert client.post("/me/client-seed", {"seed": "alice after the commitment"}).status_code == 302
    game = services.deal_standalone(pending)
    assert game.commitment == saved and game.table is None
    assert client.get("/api/v1/me/client-seed").json()["standalone_deals"] == []
    with pytest.raises(services.ServiceError, match="dealt already"):
        services.deal_standalone(pending)
    record = service.export_record(play(game, random.Random(4)))
    shuffle = record["shuffle"]
    assert shuffle["client_seeds"] == ["alice after the commitment", "bob set his long ago"]
    assert shuffle["nonce"] == 1 and shuffle["commitment"] == saved
    ok = run_checker(
        tmp_path, record, "--commitment", saved, "--client-seed", "alice after the commitment"
    )
    assert ok.returncode == 0 and "record 1: OK" in ok.stdout, ok.stdout + ok.stderr
    other = run_checker(tmp_path, record, "--commitment", commitment(bytes(32)))
    assert other.returncode == 1 and "not the one you saved" in other.stdout


def test_a_standalone_game_that_cannot_be_played_is_refused_before_any_commitment() -> None:
    world = factories.club_world("standalone-refused")
    alice = world.players["alice"]
    for kind, players, field in (
        ("no_such_game", [alice, world.players["bob"]], "kind"),
        ("old_maid", [alice], "players"),
        ("old_maid", [alice, alice], "players"),
    ):
        with pytest.raises(services.ServiceError) as refused:
            services.commit_standalone_deal(kind, players)
        assert refused.value.field == field
    assert not services.standalone_deals_waiting(world.users["alice"])


def _over_when_dealt(cards: Sequence[str]) -> list[str]:
    """A two-seat Old Maid deck whose first hand dealt (26 cards) is 13 pairs: that seat goes
    out at the opening discard and the other holds the odd queen, so the game is over as
    soon as it is dealt."""
    by_rank: dict[str, list[str]] = {}
    for card in cards:
        by_rank.setdefault(card[0], []).append(card)
    first = [card for group in by_rank.values() for card in group[:2]]
    second = [card for group in by_rank.values() for card in group[2:]]
    assert len(first) == 26 and len(second) == 25
    deck = [""] * 51
    deck[0::2], deck[1::2] = first, second
    return deck


@pytest.mark.parametrize("which", [1, 2])
def test_a_deal_over_as_soon_as_it_is_dealt_leaves_the_next_deals_commitment_shown(
    monkeypatch: pytest.MonkeyPatch, which: int
) -> None:
    """A deal can be over when dealt (every hand but one emptied by its pairs): it ends in
    the transaction that deals it, and the series hook deals the one after in it too.  The
    table then shows that one's successor's commitment, and each deal was committed before
    it was dealt, whether the deal over at once was a round's first (``which`` 1) or dealt
    at a deal's end (2)."""
    calls = []

    def rigged(seed: bytes, cards: Sequence[str]) -> list[str]:
        calls.append(seed)
        return _over_when_dealt(cards) if len(calls) == which else derive_deck(seed, cards)

    monkeypatch.setattr("tournaments.play.deals.derive_deck", rigged)
    t, _ = people_tournament(deals=4, names=("ann", "bo"))
    round_ = services.start_round(t, auto_check_in=True, rng=random.Random(3))
    services.begin_round(round_)
    table = Table.objects.get(round=round_)
    if which == 2:
        play(Game.objects.get(table=table, number_in_series=1), random.Random(1))
    games = list(Game.objects.filter(table=table).order_by("number_in_series"))
    assert [g.status for g in games] == [Game.Status.OVER] * which + [Game.Status.RUNNING]
    table.refresh_from_db()
    assert table.series_deals == which
    seeds = {
        e.payload["game_number"]: e.payload["commitment"]
        for e in store.read_stream(f"table-{table.pk}")
    }
    for game in games:
        assert game.commitment == seeds[game.number_in_series]
    assert table.next_commitment == seeds[which + 2] != seeds[which + 1]
