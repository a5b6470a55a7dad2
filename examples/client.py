#!/usr/bin/env python3
"""A small external Parlour client: it plays one seat of a game over HTTP only.

It uses nothing but the Python standard library (no Parlour import): it signs
in with a personal token, waits for the other seats' moves with a long-poll
(``GET /games/{id}?after=<sequence>``) and, whenever the game waits for its
seat, sends one of the legal actions the
server lists for it — a random one, or the first with ``--strategy first``.
Old Maid's rearrangements are left alone: a draw names a position only.

    python examples/client.py --url http://127.0.0.1:8000 --token prl_... --game 12
    python examples/client.py --url http://127.0.0.1:8000 --token prl_... --mine

``--mine`` plays your running games (``GET /api/v1/games?mine=true``) one after
the other until none is left: a whole series at a tournament table (a finished
game's view names the table's next deal, ``next_game_id``).
The token can also come from the ``PARLOUR_TOKEN`` environment variable, or be
created from ``--username``/``--password`` (HTTP Basic, ``POST /api/v1/tokens``).
At the end it prints one JSON line: the game, the seat, the moves it made and
the result.
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import random
import sys
import time
import urllib.error
import urllib.request
import uuid
from typing import Any


class ApiError(Exception):
    """An error answer of the API (a problem document)."""

    def __init__(self, status: int, problem: dict[str, Any]) -> None:
        super().__init__(f"{status} {problem.get('title')}: {problem.get('detail')}")
        self.status = status
        self.problem = problem

    @classmethod
    def of(cls, error: urllib.error.HTTPError) -> ApiError:
        """The error an HTTP error answer is (its problem document, if it sent one)."""
        try:
            problem = json.loads(error.read().decode())
        except ValueError:
            problem = {"title": error.reason, "detail": ""}
        return cls(error.code, problem)


class Client:
    """The API over urllib: JSON in, JSON out, problems raised as :class:`ApiError`."""

    def __init__(self, url: str, token: str, timeout: float = 30.0) -> None:
        self.base = url.rstrip("/") + "/api/v1"
        self.token = token
        self.timeout = timeout

    def _request(
        self,
        method: str,
        path: str,
        body: Any = None,
        headers: dict[str, str] | None = None,
        timeout: float | None = None,
    ) -> Any:
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.base + path, data=data, method=method)
        request.add_header("Authorization", f"Bearer {self.token}")
        request.add_header("Accept", "application/json")
        if data is not None:
            request.add_header("Content-Type", "application/json")
        for name, value in (headers or {}).items():
            request.add_header(name, value)
        try:
            with urllib.request.urlopen(request, timeout=timeout or self.timeout) as response:
                text = response.read().decode()
                return json.loads(text) if text else None
        except urllib.error.HTTPError as error:
            raise ApiError.of(error) from None

    def get(self, path: str) -> Any:
        return self._request("GET", path)

    def act(self, game: int, action: dict[str, Any], sequence: int) -> dict[str, Any]:
        """Send ``action``; a network failure is retried with the same Idempotency-Key."""
        key = str(uuid.uuid4())
        body = {"action": action, "expected_sequence": sequence}
        for attempt in range(5):
            try:
                result: dict[str, Any] = self._request(
                    "POST", f"/games/{game}/actions", body, {"Idempotency-Key": key}
                )
                return result
            except (urllib.error.URLError, TimeoutError, ConnectionError):
                time.sleep(0.2 * (attempt + 1))  # the same key: never acted twice
        raise RuntimeError("the server did not answer five times in a row")


def create_token(url: str, username: str, password: str) -> str:
    """A new personal token, from a username and password (HTTP Basic)."""
    request = urllib.request.Request(
        url.rstrip("/") + "/api/v1/tokens",
        data=json.dumps({"name": "example client"}).encode(),
        method="POST",
    )
    credentials = base64.b64encode(f"{username}:{password}".encode()).decode()
    request.add_header("Authorization", f"Basic {credentials}")
    request.add_header("Content-Type", "application/json")
    with urllib.request.urlopen(request, timeout=30) as response:
        key: str = json.loads(response.read().decode())["key"]
        return key


def choose(view: dict[str, Any], rng: random.Random, strategy: str) -> dict[str, Any] | None:
    """The action to send when the game waits for us (never a mere rearrangement if there is
    anything else), or ``None`` when there is none."""
    legal = view.get("legal_actions", [])
    actions = [a for a in legal if a.get("type") != "arrange"] or legal
    if not actions:
        return None
    return actions[0] if strategy == "first" else rng.choice(actions)


def play(
    client: Client, game: int, strategy: str = "random", seed: int | None = None
) -> dict[str, Any]:
    """Play our seat of ``game`` to its end; a summary."""
    rng = random.Random(seed)
    moves = conflicts = 0
    view = client.get(f"/games/{game}")
    seat = view["seat"]
    if seat is None:
        raise SystemExit(f"you hold no seat in game {game}")
    while view["status"] == "running":
        action = choose(view, rng, strategy) if seat in view["waiting_for"] else None
        if action is not None:
            try:
                view = client.act(game, action, view["sequence"])["view"]
                moves += 1
            except ApiError as error:
                if error.status != 409:  # a conflict: someone moved first, look again
                    raise
                conflicts += 1
                view = client.get(f"/games/{game}")
            continue
        # Not our turn: a long-poll answers with the view once the game moves on.
        view = client.get(f"/games/{game}?after={view['sequence']}&wait=25")
    return {
        "game_id": game,
        "seat": seat,
        "move_count": moves,
        "conflict_count": conflicts,
        "result": view.get("result"),
        "sequence": view["sequence"],
        "next_game_id": view.get("next_game_id"),
    }


def login_arguments(parser: argparse.ArgumentParser) -> None:
    """The server and the ways to sign in: ``--url``, ``--token`` (or ``PARLOUR_TOKEN``),
    ``--username`` and ``--password``."""
    parser.add_argument("--url", default="http://127.0.0.1:8000", help="the server")
    parser.add_argument("--token", default=os.environ.get("PARLOUR_TOKEN"), help="your API key")
    parser.add_argument("--username", help="create a token with this login ...")
    parser.add_argument("--password", help="... and this password")


def token_of(parser: argparse.ArgumentParser, args: argparse.Namespace) -> str:
    """The token :func:`login_arguments` gave, created from the password if need be."""
    token: str | None = args.token
    if not token and args.username and args.password:
        token = create_token(args.url, args.username, args.password)
    if not token:
        parser.error("give --token (or PARLOUR_TOKEN), or --username and --password")
    return token


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    login_arguments(parser)
    which = parser.add_mutually_exclusive_group(required=True)
    which.add_argument("--game", type=int, help="the game to play")
    which.add_argument("--mine", action="store_true", help="play your first running game")
    parser.add_argument("--strategy", choices=["random", "first"], default="random")
    parser.add_argument("--seed", type=int, default=None, help="seed of the random strategy")
    args = parser.parse_args(argv)
    client = Client(args.url, token_of(parser, args))
    me = client.get("/me")
    if not args.mine:
        summary = play(client, args.game, args.strategy, args.seed)
        print(json.dumps(summary | {"player": me["username"]}), flush=True)
        return 0
    # --mine: every running game of ours, one after the other (a table's series deals
    # its next game as soon as one ends), until none is left.
    played = 0
    following: int | None = None
    while True:
        if following is None:
            running = client.get("/games?mine=true&status=running")["results"]
            if not running:
                break
            following = running[-1]["id"]
        summary = play(client, following, args.strategy, args.seed)
        print(json.dumps(summary | {"player": me["username"]}), flush=True)
        played += 1
        # The view of a finished game names the table's next deal, if the series goes on.
        following = summary["next_game_id"]
    if not played:
        print(f"{me['username']} has no running game", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
