"""A duplicate deal stays hidden while a twin plays it (issue 15).

A round of duplicate deals with two tables of three dealt from the same decks: a fast
table (a person whose seat a bot plays, and two bots) plays its whole series out, a
slow table of three people has made a few moves and is left running.  Everything
anyone can read then (anonymous, the fast table's person, a slow table's person,
the organiser; every game's view, events, record and stream, the tables, rounds,
tournament, standings and the tournament's stream; the game, replay, play, table
and tournament pages and their fragments) is searched for what the slow table hides,
computed from its full state and the store, not from the service's redaction:

* the slow game's hidden cards, in what is about the slow game itself (elsewhere the
  same cards are legitimately public: the fast table played them);
* everywhere: each slow seat's hand (the cards of a list or of a run of cards on a
  page), the hands it was dealt, every deck of the round (a fast table's next deck is
  the slow table's next deal), the round's seed and the games' shuffle seeds.

The finished fast games say they are revealed when the other tables finish (view
``revealed: false``, record 409, replay page 409).  Once the slow table finishes and
the round ends, everything is public.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Sequence
from html.parser import HTMLParser
from typing import Any

import pytest
from django.contrib.auth.models import AnonymousUser
from django.test import Client

from engine.registry import get_game
from engine.series import SeriesFormat
from events import store
from tests import factories
from tests.factories import ClubWorld, seat_of_name
from tests.service.play import step
from tournaments import services
from tournaments.api.problems import Forbidden
from tournaments.management.commands.play_bots import run_all_bots
from tournaments.models import Game, Player, Round, TableSeat, Tournament

pytestmark = pytest.mark.django_db

CARD = re.compile(r"(?<![A-Za-z0-9])([2-9TJQKA][SHDC])(?![A-Za-z0-9])")


def setup_round(
    world: ClubWorld, **settings: Any
) -> tuple[Tournament, Round, list[Game], list[Game]]:
    """The round begun: (fast table's games, slow table's games), the fast one played out
    (``settings``: the tournament's, a clock say)."""
    bots = [services.add_player(world.club, f"Bot {i}", bot_level="random") for i in range(2)]
    fast = [world.players["alice"], *bots]
    slow = [world.players[name] for name in ("bob", "carol", "dave")]
    tournament = factories.tournament(
        world.club,
        fast + slow,
        game="old_maid",
        rounds=1,
        name="Duplicate night",
        series=SeriesFormat("losses", 2),
        check_in=True,
        table_min=3,
        table_max=3,
        duplicate_deals=True,
        **settings,
    )
    round_ = services.start_round(tournament, rng=random.Random(5))
    fixed: dict[Player | int, int] = {p: 1 for p in fast} | {p: 2 for p in slow}
    services.reseat(round_, fixed=fixed, rng=random.Random(5))
    services.begin_round(round_)
    TableSeat.objects.filter(player=world.players["alice"]).update(autoplay=True)
    fast_table = TableSeat.objects.get(player=world.players["alice"]).table_id
    assert {s.player_id for s in TableSeat.objects.filter(table_id=fast_table)} == {
        p.pk for p in fast
    }, "the reseat put the bots and Alice at the first table"
    run_all_bots(tournament)
    fast_games = list(Game.objects.filter(table_id=fast_table).order_by("id"))
    (slow_game,) = Game.objects.filter(table__round=round_).exclude(table_id=fast_table)
    rng = random.Random(7)
    for _ in range(3):
        step(slow_game, rng)
    slow_game.refresh_from_db()
    assert all(g.is_over for g in fast_games) and len(fast_games) >= 2, fast_games
    assert not slow_game.is_over
    return tournament, round_, fast_games, [slow_game]


def hands_of(kind: str, events: list[dict[str, Any]]) -> dict[str, list[set[str]]]:
    """Each hidden part of the game now and as dealt (after the deal's discards), by key."""
    engine = get_game(kind)
    found: dict[str, list[set[str]]] = {}
    for state in (engine.fold(events), engine.fold(events[:1])):
        for key, part in engine.hidden(state).items():
            found.setdefault(key, []).append(set(part))
    return found


def held_by(world: ClubWorld, name: str, games: list[Game]) -> list[set[str]]:
    """Every hand ``name`` held in ``games`` (its seat's hidden part at every state)."""
    held: list[set[str]] = []
    player = world.players.get(name)
    for game in games:
        if player is None or player.pk not in [e["player"] for e in game.context["seats"]]:
            continue
        engine = get_game(game.kind)
        key = f"seat:{seat_of_name(world, game, name)}"
        state: Any = None
        for event in store.read_stream(game.stream):
            state = engine.evolve(state, event.payload)
            held.append(set(engine.hidden(state).get(key) or []))
    return held


def lists_in(value: Any) -> list[list[Any]]:
    if isinstance(value, list):
        return [value, *(inner for item in value for inner in lists_in(item))]
    if isinstance(value, dict):
        return [inner for item in value.values() for inner in lists_in(item)]
    return []


class Secrets:
    """What the slow table hides and the round's decks and seeds, from the store alone."""

    def __init__(
        self,
        round_: Round,
        slow: Game,
        fast: list[Game],
        seat: int | None = None,
        held: Sequence[set[str]] = (),
    ) -> None:
        """``seat``: the viewer's seat at the slow table (its own hand is no secret to it);
        ``held``: the hands it held at the fast table (a twin seat's hand, its own to see)."""
        parts = hands_of(slow.kind, [e.payload for e in store.read_stream(slow.stream)])
        mine = set().union(*parts.get(f"seat:{seat}", []))
        self.slow = slow
        #: Cards hidden from this viewer that it never held.
        self.slow_cards = {
            c for key, sets in parts.items() if key != f"seat:{seat}" for c in sets[0]
        } - mine
        self.hands = [
            h
            for key, sets in parts.items()
            if key != f"seat:{seat}"
            for h in sets
            if len(h) > 1 and h not in held
        ]
        deals = [store.read_stream(g.stream, limit=1)[0].payload for g in [slow, *fast]]
        self.decks = [list(d["deck"]) for d in deals]
        assert self.decks[0] == self.decks[1], "the slow table's deck is the fast table's first"
        seed = store.read_stream(f"{services.ROUND_STREAM_PREFIX}{round_.pk}")[0].payload["seed"]
        self.seeds = [seed, *(d["shuffle"]["seed"] for d in deals if d.get("shuffle"))]

    def search(self, what: str, text: str, body: Any, about_slow: bool) -> list[str]:
        hits = [f"{what}: a seed" for seed in self.seeds if seed in text]
        if about_slow:
            shown = set(CARD.findall(text)) & self.slow_cards
            hits += [f"{what}: the slow game's hidden {sorted(shown)}"] if shown else []
        for listed in lists_in(body) if body is not None else []:
            if listed in self.decks:
                hits.append(f"{what}: a deck of the round")
            if len(listed) >= 2 and set(map(str, listed)) in self.hands:
                hits.append(f"{what}: a slow seat's hand {listed}")
        drawn = DrawnCards.read(text)
        for hand in self.hands:
            if drawn.shows(hand):
                hits.append(f"{what}: a slow seat's hand drawn as cards {sorted(hand)}")
        return hits


class DrawnCards(HTMLParser):
    """The cards a page draws (``data-card``), as the groups its markup puts them in.

    A hand is drawn as cards side by side in one element (a fan, a hand) or as all
    the cards of an element (a hand drawn suit by suit).  A run of cards that crosses
    from one element into the next is not one thing shown: two public pairs side by
    side (``JC JS`` | ``7C 7D``) hold a run ``JS 7C`` by chance.
    """

    VOID = frozenset({"area", "br", "col", "embed", "hr", "img", "input", "link", "meta", "wbr"})

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.open: list[tuple[str, int]] = []  # the elements now open: tag, number
        self.runs: dict[int, list[str]] = {}  # each element's cards side by side
        self.inside: dict[int, list[str]] = {}  # each element's cards at any depth
        self.count = 0

    @classmethod
    def read(cls, text: str) -> DrawnCards:
        drawn = cls()
        drawn.feed(text)
        drawn.close()
        return drawn

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        card = dict(attrs).get("data-card") or ""
        if CARD.fullmatch(card):
            parent = self.open[-1][1] if self.open else -1
            self.runs.setdefault(parent, []).append(card)
            for _, element in self.open:
                self.inside.setdefault(element, []).append(card)
        if tag not in self.VOID:
            self.count += 1
            self.open.append((tag, self.count))

    def handle_endtag(self, tag: str) -> None:
        # An end tag closes its element and any left open inside it (as a browser does).
        if any(open_tag == tag for open_tag, _ in self.open):
            while self.open and self.open.pop()[0] != tag:
                pass

    def shows(self, hand: set[str]) -> bool:
        """Whether ``hand`` is drawn: side by side in one element, or as all an element's."""
        size = len(hand)
        for run in self.runs.values():
            if any(set(run[i : i + size]) == hand for i in range(len(run) - size + 1)):
                return True
        return any(len(cards) == size and set(cards) == hand for cards in self.inside.values())


def test_the_drawn_cards_check_finds_a_hand_in_one_group_and_not_across_groups() -> None:
    fan = '<p><span class="fan"><b data-card="2C"></b><b data-card="7C"><i>7</i></b>'
    fan += '<b data-card="JS"></b></span></p>'
    assert DrawnCards.read(fan).shows({"7C", "JS"})
    by_suit = '<div><p><b data-card="7C"></b></p><p><b data-card="JS"></b></p></div>'
    assert DrawnCards.read(by_suit).shows({"7C", "JS"})
    pairs = '<div><span><b data-card="JC"></b><b data-card="JS"></b></span>'
    pairs += '<span><b data-card="7C"></b><b data-card="7D"></b></span></div>'
    assert not DrawnCards.read(pairs).shows({"JS", "7C"})
    assert DrawnCards.read(pairs).shows({"JS", "JC"})


def read_all(
    client: Client, token: str | None, tournament: Tournament, round_: Round, games: list[Game]
) -> list[tuple[str, int, str, Any]]:
    """Everything this caller can read: (path, status, text, JSON or None) of each."""
    auth = {"Authorization": f"Bearer {token}"} if token else {}
    t = tournament.pk
    tables = sorted({g.table_id for g in games})
    paths = [
        f"/api/v1/tournaments/{t}",
        f"/api/v1/tournaments/{t}/rounds",
        f"/api/v1/tournaments/{t}/rounds/{round_.number}",
        f"/api/v1/tournaments/{t}/standings",
        f"/api/v1/tournaments/{t}/stream?timeout=0.001",
        f"/api/v1/games?tournament={t}",
        *(f"/api/v1/tables/{table}" for table in tables),
        f"/tournaments/{t}/",
        f"/tournaments/{t}/?fragment=1",
        *(f"/tables/{table}/" for table in tables),
        *(f"/tables/{table}/?fragment=1" for table in tables),
        "/",
    ]
    for game in games:
        paths += [
            f"/api/v1/games/{game.pk}",
            f"/api/v1/games/{game.pk}?after=0&wait=0",
            f"/api/v1/games/{game.pk}/events?limit=500",
            f"/api/v1/games/{game.pk}/record",
            f"/api/v1/games/{game.pk}/stream?timeout=0.001",
            f"/games/{game.pk}/",
            f"/games/{game.pk}/?fragment=1",
            f"/games/{game.pk}/replay",
            f"/games/{game.pk}/play",
            f"/games/{game.pk}/play?fragment=1",
        ]
    found = []
    for path in paths:
        response = client.get(path, headers=auth)
        if getattr(response, "streaming", False):
            text = b"".join(response.streaming_content).decode()
            data = [json.loads(line[6:]) for line in text.splitlines() if line.startswith("data: ")]
            found.append((path, response.status_code, text, data))
            continue
        text = response.content.decode()
        is_json = response.get("Content-Type", "").split(";")[0].endswith("json")
        found.append((path, response.status_code, text, json.loads(text) if is_json else None))
    return found


def about(path: str, slow: Game) -> bool:
    """Whether a response is about the slow game alone (its own cards are its secrets)."""
    return f"/games/{slow.pk}" in path


def viewers(world: ClubWorld) -> list[tuple[str, Client, str | None]]:
    found: list[tuple[str, Client, str | None]] = [("anonymous", Client(), None)]
    for name in ("alice", "bob", "org"):
        client = Client()
        client.force_login(world.users[name])
        found.append((name, client, world.tokens[name]))
    return found


def test_a_duplicate_deal_stays_hidden_everywhere_while_a_twin_table_plays_it(
    world: ClubWorld,
) -> None:
    tournament, round_, fast, (slow,) = setup_round(world)
    secrets = Secrets(round_, slow, fast)
    games = [*fast, slow]
    read = 0
    for name, client, token in viewers(world):
        seat = seat_of_name(world, slow, name) if name == "bob" else None
        seen = Secrets(round_, slow, fast, seat, held_by(world, name, fast))
        for path, status, text, body in read_all(client, token, tournament, round_, games):
            read += 1
            assert status in (200, 302, 403, 404, 409), (name, path, status, text[:300])
            hits = seen.search(f"{name} {path}", text, body, about(path, slow))
            assert not hits, hits[:5]
    assert read >= 4 * (12 + 10 * len(games))
    # The fast games are over, and tell their players they are revealed when the other
    # tables finish (anyone else is refused them while the round runs: the next test).
    alice = Client()
    alice.force_login(world.users["alice"])
    for game in fast:
        view = alice.get(f"/api/v1/games/{game.pk}").json()
        assert view["status"] == "over" and view["revealed"] is False
        assert "deck" not in view and "seed" not in json.dumps(view.get("shuffle") or {})
        record = alice.get(f"/api/v1/games/{game.pk}/record")
        assert record.status_code == 409
        assert "other tables" in record.json()["detail"]
        replay = alice.get(f"/games/{game.pk}/replay")
        assert replay.status_code == 409
        assert "Revealed when the other tables finish" in replay.content.decode()
        assert (
            "revealed when the other tables finish"
            in alice.get(f"/games/{game.pk}/").content.decode()
        )
    anonymous = Client()
    # The slow table plays on to the end of its series: the round ends, all is public.
    rng = random.Random(8)
    while True:
        running = Game.objects.filter(table_id=slow.table_id, status=Game.Status.RUNNING).first()
        if running is None:
            break
        step(running, rng)
    round_.refresh_from_db()
    assert round_.status == Round.Status.FINISHED
    assert round_.seed == secrets.seeds[0]
    for game in Game.objects.filter(table__round=round_):
        deck = list(store.read_stream(game.stream, limit=1)[0].payload["deck"])
        view = anonymous.get(f"/api/v1/games/{game.pk}").json()
        assert view["revealed"] is True and view["deck"] == deck
        record = anonymous.get(f"/api/v1/games/{game.pk}/record")
        assert record.status_code == 200 and record.json()["deck"] == deck
        assert anonymous.get(f"/games/{game.pk}/replay").status_code == 200
    assert Player.objects.filter(club=world.club).count() >= 6


def test_a_revealed_duplicate_deal_says_it_has_no_seed_of_its_own_with_null_everywhere(
    world: ClubWorld,
) -> None:
    """Found by trying (2026-12-08): a revealed duplicate game's view said ``"seed": ""``
    where its summary (``GET /games``, the table's games) said ``null`` for the same "none":
    its deck is the round's, whose seed the round shows."""
    from tests.factories import tournament_game
    from tests.service.play import play

    tournament, round_, _, (slow,) = setup_round(world)
    rng = random.Random(8)
    while running := Game.objects.filter(table_id=slow.table_id, status="running").first():
        step(running, rng)
    api = Client()
    summaries = api.get(f"/api/v1/games?tournament={tournament.pk}&limit=500").json()["results"]
    seeds = {s["id"]: s["seed"] for s in summaries}
    for game in Game.objects.filter(table__round=round_):
        view = api.get(f"/api/v1/games/{game.pk}").json()
        table = api.get(f"/api/v1/tables/{game.table_id}").json()
        assert view["revealed"] is True and view["seed"] is None, view.get("seed")
        assert seeds[game.pk] is None
        assert [g["seed"] for g in table["games"]] == [None] * len(table["games"])
    shown = api.get(f"/api/v1/tournaments/{tournament.pk}/rounds/1").json()
    assert isinstance(shown["seed"], str) and len(shown["seed"]) == 64
    # A game with a seed of its own shows the same text in its view and its summary.
    _, own = tournament_game(world, names=("bob", "carol"))
    play(own)
    view = api.get(f"/api/v1/games/{own.pk}").json()
    summary = api.get(f"/api/v1/games?table={own.table_id}").json()["results"][-1]
    assert view["seed"] and view["seed"] == summary["seed"]


# Committed as it goes: on PostgreSQL the tournament's stream reads only events of
# transactions that have ended (docs/store.md), and one left open would show it nothing.
@pytest.mark.django_db(transaction=True)
def test_a_duplicate_round_s_games_are_shown_to_their_players_and_organisers_alone_until_it_ends(
    world: ClubWorld,
) -> None:
    """What is public at one table of a duplicate round (a card played, a pair put down)
    is a hidden card at its twin, where the same deck is dealt: a player of the round who
    watched the other table, or had a spectator watch it, would learn its opponents'
    hands (found by trying: a seated Bhabhi player read the other table's plays).  So
    while the round runs, each game is refused to all but its players and the organisers
    (403, saying when it is shown), its table draws no cards for them, and its events are
    left out of the tournament's stream; once the round ends, all of it is public."""
    from tournaments.api import push

    tournament, round_, fast, (slow,) = setup_round(world)
    # Bob organises the club too: an organiser who plays in the round is one of its
    # players, and sees no other table of it (a reviewer's catch).
    world.club.organisers.add(world.users["bob"])
    bob, alice = Client(), Client()
    bob.force_login(world.users["bob"])
    alice.force_login(world.users["alice"])
    # Who is refused which games: everyone but their players (and the organiser).
    refused = [
        ("anonymous", Client(), None, [*fast, slow]),
        ("bob", bob, world.tokens["bob"], fast),
        ("alice", alice, world.tokens["alice"], [slow]),
    ]
    for name, client, token, games in refused:
        auth = {"Authorization": f"Bearer {token}"} if token else {}
        for game in games:
            for path in (
                f"/api/v1/games/{game.pk}",
                f"/api/v1/games/{game.pk}/events",
                f"/api/v1/games/{game.pk}/record",
                f"/api/v1/games/{game.pk}/stream?timeout=0.001",
                f"/games/{game.pk}/",
                f"/games/{game.pk}/replay",
                f"/games/{game.pk}/play",
            ):
                response = client.get(path, headers=auth)
                text = response.content.decode() if not getattr(response, "streaming", 0) else ""
                assert response.status_code in (302, 403), (name, path, response.status_code)
                if response.status_code == 403:
                    assert "duplicate deal" in text, (name, path, text[:300])
            table = client.get(f"/tables/{game.table_id}/").content.decode()
            assert "data-card" not in table and "duplicate deal" in table, (name, game.table_id)
            # Nor does the table's page link its games, which answer 403 (found by trying).
            assert f"/games/{game.pk}/" not in table, (name, game.table_id)
            # The push channel refuses a follow of it as the API does.
            consumer = push.PushConsumer()
            user = world.users[name] if name in world.users else AnonymousUser()
            consumer.begin({"user": user, "auth": None, "refusal": None})
            with pytest.raises(Forbidden):
                consumer.may_follow(game.pk, -1, 0)
        # Nor are they listed, where a summary's turn order, move by move, would say who
        # took each trick (a reviewer's proof read every trick's winner from the table).
        listed = client.get(f"/api/v1/games?tournament={tournament.pk}", headers=auth).json()
        assert not {g["id"] for g in listed["results"]} & {g.pk for g in games}, name
        for table in {g.table_id for g in games}:
            answer = client.get(f"/api/v1/tables/{table}", headers=auth).json()
            assert not {g["id"] for g in answer["games"]} & {g.pk for g in games}, name
            assert len(answer["scores"]) == 3  # the series' scores stay public
        # The tournament's stream leaves their events out.
        stream = client.get(
            f"/api/v1/tournaments/{tournament.pk}/stream?timeout=0.001", headers=auth
        )
        text = b"".join(stream.streaming_content).decode()
        sent = {
            json.loads(line[6:]).get("game_id")
            for line in text.splitlines()
            if line.startswith("data: ")
        }
        assert not sent & {g.pk for g in games}, (name, sent)
    # Each game's players and the organiser see it as before.
    organiser = Client()
    organiser.force_login(world.users["org"])
    for client, token, games in (
        (bob, world.tokens["bob"], [slow]),
        (alice, world.tokens["alice"], fast),
        (organiser, world.tokens["org"], [*fast, slow]),
    ):
        for game in games:
            answer = client.get(
                f"/api/v1/games/{game.pk}", headers={"Authorization": f"Bearer {token}"}
            )
            assert answer.status_code == 200, answer.content[:300]
    assert "data-card" in organiser.get(f"/tables/{slow.table_id}/").content.decode()
    listed = organiser.get(f"/api/v1/games?tournament={tournament.pk}").json()["results"]
    assert {g.pk for g in [*fast, slow]} <= {g["id"] for g in listed}
    # The round ends: every game is anyone's to see, and the home page draws its tables.
    rng = random.Random(8)
    while (
        running := Game.objects.filter(table_id=slow.table_id, status="running").first()
    ) is not None:
        step(running, rng)
    anonymous = Client()
    for game in Game.objects.filter(table__round=round_):
        assert anonymous.get(f"/api/v1/games/{game.pk}").status_code == 200
        assert anonymous.get(f"/api/v1/games/{game.pk}/events").status_code == 200
    stream = anonymous.get(f"/api/v1/tournaments/{tournament.pk}/stream?timeout=0.001")
    text = b"".join(stream.streaming_content).decode()
    sent = {
        json.loads(line[6:]).get("game_id")
        for line in text.splitlines()
        if line.startswith("data: ")
    }
    assert {g.pk for g in [*fast, slow]} <= sent


def test_an_organiser_who_plays_in_a_duplicate_round_sees_no_other_table_on_the_desk(
    world: ClubWorld,
) -> None:
    """The desk's clocks, timeouts and seats in trouble are of the round's games: each change
    of a twin table's clock told an organiser who plays in the round who was waited for
    there and since when, move by move (found by trying)."""
    from tournaments.play import apply_timeout

    tournament, _, fast, (slow,) = setup_round(world, turn_seconds=60)
    world.club.organisers.add(world.users["alice"])  # she played at the finished twin
    waited = next(iter(slow.deadlines))
    apply_timeout(slow.pk, int(waited), slow.sequence, force=True)
    TableSeat.objects.filter(table_id=slow.table_id).update(timeouts_in_a_row=1)
    slow.refresh_from_db()
    assert slow.deadlines and not slow.is_over
    desk = f"/tournaments/{tournament.pk}/manage?fragment=1"
    alice, organiser = Client(), Client()
    alice.force_login(world.users["alice"])
    organiser.force_login(world.users["org"])
    seen = organiser.get(desk).content.decode()
    number = slow.table.number  # type: ignore[union-attr]
    told = [f"/games/{slow.pk}/", "data-deadline", f"table {number}):", f"game {slow.pk}"]
    assert all(words in seen for words in told), "the organiser who plays in no table sees all"
    page = alice.get(desk).content.decode()
    assert not [words for words in told if words in page], page
    assert "You play in this duplicate round" in page
    # The tournament's page links no game it would refuse (a 403 or a 409 after the click):
    # not the other table's, and not her own finished table's replay until the round ends.
    slow_player = world.players["bob"]
    for client in (alice, Client()):
        for path in (f"/tournaments/{tournament.pk}/", f"/players/{slow_player.pk}/"):
            public = client.get(path).content.decode()
            linked = {int(n) for n in re.findall(r'href="/games/(\d+)/', public)}
            assert not linked & {g.pk for g in [*fast, slow]}, (path, linked)
    assert (
        "revealed when the other tables finish"
        in alice.get(f"/tournaments/{tournament.pk}/").content.decode()
    )
