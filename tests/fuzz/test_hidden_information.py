"""No response or stream shows a caller a card hidden from them, in any of the four games.

Random games of every game are played through the API.  At every step, for every
seat (with that seat's token) and for an anonymous spectator — and every few steps
also for a club player without a seat and for the organiser — every resource a
caller can read about the game is fetched: the game view, its events, its record
(refused while the game runs) and its Server-Sent Events stream; and, for one
of those callers in turn at each step, the table and the tournament's stream.
The acting seat's POST answer is checked too.

What a viewer may not see is computed from the engine alone, independently of the
service: the state is folded from the stored events, ``hidden(state)`` splits the
hidden cards (``"seat:<n>"``: only seat n may see them; any other key: nobody), and
a card counts as *known* to a viewer once it was in that viewer's engine view
without being hidden from them, or once a move named it and took it out of the
mover's own hand (played face up: a trick gathered face down stays known).  A card
hidden from the viewer now and never known to them must not appear in any string of
any response; nor may the shuffle's seed, nor the deck in dealing order, before the
game is over.  After the end, the record, the seed and
the deck are public (which shows the checks look in the right places).
"""

from __future__ import annotations

import json
import random
import re
from typing import Any

import pytest
from django.test import Client

from engine.registry import get_game
from events.store import read_stream
from tests.fuzz.conftest import Table, assert_problem, make_table

CARD = re.compile(r"[2-9TJQKA][SHDC]")

#: (game, seats) of the games played: each game at two table sizes but Bhabhi, whose
#: games are long (one game at four, the most hands hidden from each viewer).
GAMES = [
    ("give_away", 2),
    ("give_away", 3),
    ("old_maid", 2),
    ("old_maid", 3),
    ("bhabhi", 4),
    ("give_and_take", 2),
    ("give_and_take", 3),
]


def strings(value: Any) -> set[str]:
    """Every string in a JSON value, keys included."""
    if isinstance(value, str):
        return {value}
    if isinstance(value, dict):
        found = set()
        for key, item in value.items():
            found.add(str(key))
            found |= strings(item)
        return found
    if isinstance(value, list):
        found = set()
        for item in value:
            found |= strings(item)
        return found
    return set()


def cards_in(value: Any) -> set[str]:
    return {s for s in strings(value) if CARD.fullmatch(s)}


def lists_in(value: Any) -> list[list[Any]]:
    if isinstance(value, list):
        return [value, *(inner for item in value for inner in lists_in(item))]
    if isinstance(value, dict):
        return [inner for item in value.values() for inner in lists_in(item)]
    return []


class Secrets:
    """What each viewer may not see, from the engine and the stored events alone."""

    def __init__(self, table: Table) -> None:
        self.table = table
        self.game = table.game.pk
        self.known: dict[int | None, set[str]] = {}
        self.state: Any = None
        self.sequence = 0
        self.deal: dict[str, Any] = {}

    def update(self) -> dict[int | None, set[str]]:
        """Fold the stream's new events; each viewer's secret cards now (``None``: a spectator).

        After each event, a viewer knows what its engine view shows that is not
        hidden from it; and a card a move names becomes known to everyone when the
        move took it out of the mover's own hand (played face up, even when the same
        move gathers it face down, or into a hand, as a Bhabhi trick can).  A card a
        move takes from elsewhere (an Old Maid draw, a Bhabhi blind draw) or keeps
        in the mover's hand (an Old Maid arrangement) stays private.
        """
        game = self.table.refresh()
        engine = get_game(game.kind)
        viewers: list[int | None] = [*range(game.seats), None]
        for event in read_stream(game.stream, from_sequence=self.sequence + 1):
            payload = event.payload
            mover = f"seat:{payload.get('seat')}"
            before = cards_in(engine.hidden(self.state).get(mover)) if self.state else set()
            self.state = engine.evolve(self.state, payload)
            self.sequence = event.sequence
            if event.sequence == 1:
                self.deal = payload
            hidden = engine.hidden(self.state)
            # Cards the move took out of the mover's own hand were played face up.
            played = cards_in(payload.get("action") or {}) & (before - cards_in(hidden.get(mover)))
            for viewer in viewers:
                unseen = self.unseen(hidden, viewer)
                shown = cards_in(engine.view(self.state, viewer))
                self.known.setdefault(viewer, set()).update((shown - unseen) | played)
        hidden = engine.hidden(self.state)
        return {v: self.unseen(hidden, v) - self.known[v] for v in viewers}

    @staticmethod
    def unseen(hidden: dict[str, Any], viewer: int | None) -> set[str]:
        return {
            c for key, part in hidden.items() if key != f"seat:{viewer}" for c in cards_in(part)
        }

    @property
    def seed(self) -> str:
        return str((self.deal.get("shuffle") or {}).get("seed", ""))


def sse_frames(response: Any) -> tuple[str, list[Any]]:
    assert response.status_code == 200, response.status_code
    assert response["Content-Type"].startswith("text/event-stream")
    text = b"".join(response.streaming_content).decode()
    data = [
        json.loads(line[len("data: ") :]) for line in text.splitlines() if line.startswith("data: ")
    ]
    return text, data


def where(value: Any, wanted: set[str], path: str = "") -> list[str]:
    """The paths in a JSON value at which the strings ``wanted`` stand."""
    if isinstance(value, str):
        return [path] if value in wanted else []
    items = (
        value.items()
        if isinstance(value, dict)
        else enumerate(value)
        if isinstance(value, list)
        else []
    )
    return [p for key, item in items for p in where(item, wanted, f"{path}/{key}")]


def check(what: str, text: str, body: Any, secret: set[str], secrets: Secrets) -> None:
    leaked = cards_in(body) & secret
    assert not leaked, (
        f"{what} shows {sorted(leaked)}, hidden from this caller, at {where(body, leaked)[:5]}"
    )
    assert secrets.seed not in text, f"{what} shows the shuffle's seed before the end"
    deck = list(secrets.deal["deck"])
    assert deck not in lists_in(body), f"{what} shows the deck before the end"


def read_everything(
    client: Client,
    table: Table,
    token: str | None,
    secret: set[str],
    secrets: Secrets,
    *,
    wider: bool,
) -> int:
    """Fetch every resource about the game as ``token``'s caller; check each; how many.

    The game's view, events, record and stream always; with ``wider`` also the table
    and the tournament's stream (which show the game among others).
    """
    game = table.game
    auth = {"Authorization": f"Bearer {token}"} if token else {}
    who = f"{game.kind} #{game.pk} at {game.sequence}, caller {token[:10] if token else None}"
    paths = [f"/api/v1/games/{game.pk}", f"/api/v1/games/{game.pk}/events?limit=500"]
    streams = [f"/api/v1/games/{game.pk}/stream?timeout=0.001"]
    if wider:
        paths.append(f"/api/v1/tables/{game.table_id}")
        streams.append(f"/api/v1/tournaments/{table.tournament.pk}/stream?timeout=0.001")
    for path in paths:
        response = client.get(path, headers=auth)
        assert response.status_code == 200, (path, response.content[:300])
        body = response.json()
        if path.startswith("/api/v1/tables/"):
            # The series' earlier games are over: public, and dealt from other decks.
            body["games"] = [g for g in body["games"] if g["id"] == game.pk]
        check(f"{who}: {path}", response.content.decode(), body, secret, secrets)
    record = client.get(f"/api/v1/games/{game.pk}/record", headers=auth)
    problem = assert_problem(record, f"{who}: record")
    assert problem["status"] == 409
    check(f"{who}: record refusal", record.content.decode(), problem, secret, secrets)
    for path in streams:
        text, frames = sse_frames(client.get(path, headers=auth))
        # The tournament's earlier games are over: public, and dealt from other decks.
        frames = [f for f in frames if f.get("game_id", game.pk) == game.pk]
        check(f"{who}: {path}", text, frames, secret, secrets)
    return len(paths) + 1 + len(streams)


def choose(view: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    actions = view["legal_actions"]
    if view["game"] == "old_maid" and rng.random() < 0.2:
        return {"type": "shuffle"}  # a chance move: its order is hidden from the others
    moving = [a for a in actions if a["type"] != "arrange"] or actions
    if rng.random() < 0.9:  # Bhabhi's taking of a hand ends games early: keep it rare
        moving = [a for a in moving if a["type"] != "take_left"] or moving
    return dict(rng.choice(moving))


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("kind,seats", GAMES)
def test_no_response_or_stream_shows_a_caller_a_card_hidden_from_them(
    kind: str, seats: int
) -> None:
    table = make_table(kind, seats)
    client = Client()
    secrets = Secrets(table)
    rng = random.Random(f"{kind}-{seats}")
    steps = fetched = guarded = 0
    while not table.current().is_over:
        assert steps < 1000, "the game should have ended"
        if table.game.pk != secrets.game:
            secrets = Secrets(table)
        secret = secrets.update()
        guarded += any(secret.values())
        viewers: list[tuple[str | None, int | None]] = [
            *((token, seat) for seat, token in enumerate(table.seat_tokens)),
            (None, None),
        ]
        if steps % 4 == 0:
            viewers += [(table.bystander, None), (table.organiser, None)]
        for index, (token, seat) in enumerate(viewers):
            # The table and the tournament's stream: one viewer a step, each in turn.
            wider = index == steps % len(viewers)
            fetched += read_everything(client, table, token, secret[seat], secrets, wider=wider)
        # One seat the game waits for (or that may act) acts, through the API.
        game = table.game
        seat = rng.choice(game.waiting_for or game.to_act)
        token = table.seat_tokens[seat]
        auth = {"Authorization": f"Bearer {token}"}
        view = client.get(f"/api/v1/games/{game.pk}", headers=auth).json()
        response = client.post(
            f"/api/v1/games/{game.pk}/actions",
            {"action": choose(view, rng), "expected_sequence": view["sequence"]},
            content_type="application/json",
            headers=auth | {"Idempotency-Key": f"step-{steps}"},
        )
        assert response.status_code == 200, response.content[:300]
        if not table.refresh().is_over:
            after = secrets.update()
            check(
                f"{kind}: the actor's answer",
                response.content.decode(),
                response.json(),
                after[seat],
                secrets,
            )
        steps += 1
    # Over: the record, the seed and the deck are public now.
    game = table.game
    record = client.get(f"/api/v1/games/{game.pk}/record")
    assert record.status_code == 200
    assert secrets.seed and secrets.seed in record.content.decode()
    assert record.json()["deck"] == list(secrets.deal["deck"])
    assert fetched >= 4 * (seats + 1) * steps
    # The check is not empty: cards were hidden from someone at several steps.
    assert guarded >= min(steps, 3), (guarded, steps)
    print(f"{kind} at {seats}: {steps} steps, {fetched} responses checked")
