#!/usr/bin/env python3
"""A Parlour bot: it plays every game of its login, in every tournament, until stopped.

Like lichess-bot: give it a personal token and leave it running.  It follows the
account stream (``GET /api/v1/stream/events``, Server-Sent Events) and, whenever a
game of its login waits for it (a ``turn`` event, which carries the seat's view),
sends one of the legal actions of that view (``POST /api/v1/games/{id}/actions``).
It plays any of the four games, since it only ever chooses among the actions the
server lists.  It needs Python 3.11 and nothing but the standard library; it imports
no Parlour code, only ``examples/client.py`` next to it (keep the two together).

Getting started
---------------

1. The club's organiser adds a player for the bot, linked to a login of its own
   (``POST /api/v1/players`` with ``"username"``, or the club's pages), and registers
   it in tournaments as any person.
2. Create a token for that login (once; the key is shown once)::

       curl -s -u botlogin:its-password -X POST $URL/api/v1/tokens \\
            -H 'Content-Type: application/json' -d '{"name": "bot"}'

3. Run the bot with it, and leave it running::

       python examples/bot.py --url http://127.0.0.1:8000 --token prl_...
       PARLOUR_TOKEN=prl_... python examples/bot.py --url https://club.example --heuristic
       python examples/bot.py --url http://127.0.0.1:8000 --username bo --password bo

Options and output
------------------

* ``--heuristic``: instead of a random legal action, a simple strategy over the
  listed actions, the same for every game: shed cards rather than pass, draw or
  take (the highest card first), never take Bhabhi's left hand, never merely
  rearrange one's own Old Maid fan.  ``--seed N`` makes the random choices repeatable.
* It prints one JSON line per game that finishes:
  ``{"game_id": 12, "game": "bhabhi", "seat": 1, "moves": 9, "result": {...},
  "player": "ann"}``, and one more when it stops:
  ``{"stopped": true, "games": 3, "moves": 40}``.  ``--quiet`` prints only these;
  otherwise each move is logged on stderr.
* Stop it with Ctrl-C or SIGTERM: it prints its last line and exits 0.
  ``--games N`` stops it by itself once N of its games have finished.
* The server plays a person's forced moves itself unless told otherwise
  (``PATCH /api/v1/me`` ``{"play_forced_moves": false}``): the bot then loses the
  race for those now and then (a ``409``), which does no harm.

How it stays right when things go wrong
---------------------------------------

* The stream is resumable: on a dropped connection, or when the server closes
  the stream after ``PARLOUR_STREAM_SECONDS``, it reconnects with
  ``Last-Event-ID`` and goes on after the last event it got.  A new stream
  (no ``Last-Event-ID``) starts with every running game of the login as it is.
* An action lost on the way is sent again with the same ``Idempotency-Key``: the
  server never plays it twice.  If the server answers none of the tries, the bot
  starts a new stream, which shows every game as it is now.
* A ``409`` (the game moved on: a timeout, the server's own forced move) is not
  an error: the game's next ``turn`` event comes with the view as it is now.
* It acts on each (game, sequence) at most once, so an event seen again (after a
  reconnect) never makes it send a stale action.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import random
import signal
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

# examples/client.py, next to this file: the client both examples share.
sys.path.insert(0, str(Path(__file__).resolve().parent))
from client import ApiError, Client, login_arguments, token_of  # noqa: E402

#: Seconds without a byte after which the stream is taken for dead (the server sends a
#: keep-alive comment every 15 s).
STREAM_SILENCE = 45.0

#: The order in which the heuristic prefers the kinds of action: shedding first.
PREFERENCE = [
    "play",
    "place_capture",
    "declare_ace",
    "draw_discard",
    "draw",
    "pass",
    "shuffle",
    "arrange",
    "take_left",
]
#: Ranks from low to high, as the cards are written ("10H", "QS", "AD").
RANKS = ["2", "3", "4", "5", "6", "7", "8", "9", "10", "T", "J", "Q", "K", "A"]


class Stopped(Exception):
    """SIGTERM."""


class Api(Client):
    """examples/client.py's client (JSON over urllib, actions retried with their
    Idempotency-Key), and the account stream."""

    def events(self, last_event_id: str | None) -> Iterator[tuple[str, str, Any]]:
        """The account stream from after ``last_event_id``: ``(id, event, data)`` per event,
        until the server closes it (or the connection dies: the caller reconnects)."""
        request = urllib.request.Request(self.base + "/stream/events")
        request.add_header("Authorization", f"Bearer {self.token}")
        request.add_header("Accept", "text/event-stream")
        if last_event_id:
            request.add_header("Last-Event-ID", last_event_id)
        try:
            response = urllib.request.urlopen(request, timeout=STREAM_SILENCE)
        except urllib.error.HTTPError as error:
            raise ApiError.of(error) from None
        with response:
            event_id, event, data = "", "message", ""
            for raw in response:
                line = raw.decode("utf-8").rstrip("\r\n")
                if line == "":  # the end of one event
                    if data:
                        yield event_id, event, json.loads(data)
                    event, data = "message", ""
                    continue
                name, _, value = line.partition(":")
                value = value[1:] if value.startswith(" ") else value
                if name == "id":
                    event_id = value
                elif name == "event":
                    event = value
                elif name == "data":
                    data = data + "\n" + value if data else value
                # "retry" and comments (keep-alives): nothing to do


def card_rank(card: Any) -> int:
    """A card's rank from low (0) to high, -1 for something that is not a card."""
    text = str(card)
    return RANKS.index(text[:-1]) if text[:-1] in RANKS else -1


def choose(view: dict[str, Any], rng: random.Random, heuristic: bool) -> dict[str, Any] | None:
    """The action to send now, from the view's ``legal_actions``; ``None``: nothing to do."""
    legal: list[dict[str, Any]] = list(view.get("legal_actions") or [])
    if not legal:
        return None
    if not heuristic:
        # A random action, but never a mere rearrangement when there is anything else.
        useful = [a for a in legal if a.get("type") not in ("arrange", "shuffle")] or legal
        return rng.choice(useful)

    def rank(action: dict[str, Any]) -> tuple[int, int]:
        kind = str(action.get("type"))
        order = PREFERENCE.index(kind) if kind in PREFERENCE else len(PREFERENCE)
        return order, -card_rank(action.get("card"))

    best = min(rank(a) for a in legal)
    return rng.choice([a for a in legal if rank(a) == best])


class Bot:
    """The loop: follow the account stream, act on each turn."""

    def __init__(self, api: Api, rng: random.Random, *, heuristic: bool, quiet: bool) -> None:
        self.api = api
        self.rng = rng
        self.heuristic = heuristic
        self.quiet = quiet
        #: The highest sequence acted at, per game: never act twice on one state.
        self.acted: dict[int, int] = {}
        self.moves: dict[int, int] = {}
        self.finished: set[int] = set()
        self.total_moves = 0
        self.player = ""
        self.last_event_id: str | None = None

    def log(self, text: str) -> None:
        if not self.quiet:
            print(text, file=sys.stderr, flush=True)

    def run(self, games: int | None = None) -> None:
        try:
            me = self.api.get("/me")
        except ApiError as error:
            raise SystemExit(f"the server refused the token: {error}") from None
        self.player = str(me.get("username", ""))
        self.log(f"playing as {self.player}")
        failures = 0
        while games is None or len(self.finished) < games:
            try:
                for event_id, event, data in self.api.events(self.last_event_id):
                    failures = 0
                    if event_id:
                        self.last_event_id = event_id
                    self.on_event(event, data)
                    if games is not None and len(self.finished) >= games:
                        return
            except ApiError as error:
                if error.status in (401, 403):
                    raise SystemExit(f"the server refused the token: {error}") from None
                failures += 1
                self.log(f"stream refused ({error}); again shortly")
            except (urllib.error.URLError, TimeoutError, ConnectionError, OSError) as error:
                failures += 1
                self.log(f"stream lost ({error!r}); reconnecting")
            # The server closed the stream (its time is up) or it was lost: go on after
            # the last event, at once the first time, then more and more slowly.
            time.sleep(min(10.0, 0.5 * failures))

    def on_event(self, event: str, data: dict[str, Any]) -> None:
        view = data.get("view") or {}
        game_id = int(data["game_id"])
        if event == "finished" or view.get("status") == "over":
            self.finish(game_id, view)
            return
        if event not in ("started", "turn"):
            return
        seat = view.get("seat")
        if seat is None or seat not in (view.get("waiting_for") or []):
            return
        sequence = int(view["sequence"])
        if self.acted.get(game_id, -1) >= sequence:
            return  # this state was acted on already (an event seen again)
        action = choose(view, self.rng, self.heuristic)
        if action is None:
            return
        self.acted[game_id] = sequence
        try:
            result = self.api.act(game_id, action, sequence)
        except RuntimeError:
            # The server did not answer, even to the retries: read everything afresh. A
            # stream without Last-Event-ID starts with every running game as it is now.
            del self.acted[game_id]
            self.last_event_id = None
            raise ConnectionError(f"game {game_id}: the action went unanswered") from None
        except ApiError as error:
            if error.status == 409:  # the game moved on: its next turn event will come
                self.log(f"game {game_id}: moved on before our move ({error})")
                return
            if error.status == 422:  # refused: say why, wait for the next turn
                self.log(f"game {game_id}: {action} refused: {error}")
                return
            raise
        self.moves[game_id] = self.moves.get(game_id, 0) + 1
        self.total_moves += 1
        self.log(f"game {game_id} seat {seat}: {action} -> sequence {result['sequence']}")
        after = result.get("view") or {}
        if after.get("status") == "over":
            self.finish(game_id, after)

    def finish(self, game_id: int, view: dict[str, Any]) -> None:
        if game_id in self.finished:
            return
        self.finished.add(game_id)
        result = view.get("result")
        line = {
            "game_id": game_id,
            "game": view.get("game"),
            "seat": view.get("seat"),
            "moves": self.moves.get(game_id, 0),
            "result": result,
            "player": self.player,
        }
        print(json.dumps(line), flush=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    login_arguments(parser)
    parser.add_argument("--heuristic", action="store_true", help="a strategy, not random")
    parser.add_argument("--seed", type=int, default=None, help="repeatable random choices")
    parser.add_argument("--games", type=int, default=None, help="stop after this many games")
    parser.add_argument("--quiet", action="store_true", help="no log of each move")
    args = parser.parse_args(argv)
    token = token_of(parser, args)

    def stop(signum: int, frame: Any) -> None:
        raise Stopped

    signal.signal(signal.SIGTERM, stop)
    bot = Bot(
        Api(args.url, token),
        random.Random(args.seed),
        heuristic=args.heuristic,
        quiet=args.quiet,
    )
    with contextlib.suppress(KeyboardInterrupt, Stopped):  # stopped: say so, and how much
        bot.run(args.games)
    print(
        json.dumps({"stopped": True, "games": len(bot.finished), "moves": bot.total_moves}),
        flush=True,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
