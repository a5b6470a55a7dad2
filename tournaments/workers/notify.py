"""Wake long-polling readers when a game moves (``GET /games/{id}?after=N&wait=S``).

:func:`publish` is told of every committed change of a game (it receives
:data:`tournaments.play.game_changed`, connected in
:meth:`TournamentsConfig.ready <tournaments.apps.TournamentsConfig.ready>`), in
whatever process made it: a web request, a worker's bot move or timeout.
:func:`wait_for_move` blocks a request until its game's sequence passes a
number, the game is over, or the time is up.

* With Redis (``settings.REDIS_URL`` set) a change is ``PUBLISH``\\ ed on the
  channel ``parlour:<db>:game:<id>`` with the new sequence as the message (``<db>``:
  the Redis database of ``REDIS_URL``; pub/sub ignores Redis's databases, so without
  it two sites or test runs sharing one Redis server would wake each other's waiters).  A waiter
  subscribes first and only then reads the game's row, so a move committed
  between the two is seen one way or the other.  Pub/sub delivers at most once
  (a message sent while Redis restarts is lost), so the waiter also reads the
  row at least every :data:`RECHECK_SECONDS`: a lost message delays an answer,
  it never loses it.  If Redis fails while waiting, the waiter polls instead.
* Without Redis (the embedded SQLite default) the waiter reads the row every
  :data:`POLL_SECONDS`.

The database is the truth: a message is only a hint to answer now.  Nothing
here holds a transaction open while it waits (the web requests are not atomic).
"""

from __future__ import annotations

import functools
import logging
import threading
import time
from collections.abc import Iterable
from typing import Any
from urllib.parse import urlsplit

import redis
from django.conf import settings
from redis.backoff import NoBackoff
from redis.client import PubSub
from redis.retry import Retry

from parlour.cache import LuaScript
from parlour.db import release_pooled_connections
from tournaments.play import game_row

log = logging.getLogger(__name__)

#: Seconds between reads of the game's row when there is no Redis to tell us.
POLL_SECONDS = 0.1
#: Seconds between reads of the game's row while subscribed (in case a message is lost).
RECHECK_SECONDS = 1.0
#: Seconds Redis has to accept a connection or answer; beyond it we carry on without it.
REDIS_SECONDS = 0.5

#: Errors of an unreachable or failing Redis (redis-py wraps most in RedisError).
REDIS_ERRORS = (redis.RedisError, OSError)

_client_lock = threading.Lock()
_client: tuple[str, redis.Redis] | None = None


def channel_prefix() -> str:
    """A game's channel is this prefix and the game's id: ``parlour:<db>:game:``, where
    ``<db>`` is the Redis database of ``settings.REDIS_URL`` (0 when it names none)."""
    return _prefix_of(str(settings.REDIS_URL or ""))


@functools.lru_cache(maxsize=8)
def _prefix_of(url: str) -> str:
    path = urlsplit(url).path.strip("/")
    database = int(path) if path.isdecimal() else 0
    return f"parlour:{database}:game:"


def channel(game_id: int) -> str:
    """The pub/sub channel of game ``game_id``."""
    return f"{channel_prefix()}{game_id}"


def user_channel(user_id: int) -> str:
    """The pub/sub channel of login ``user_id``'s account feed (:mod:`tournaments.play.feed`):
    ``parlour:<db>:user:<id>``, told after each commit that wrote to it."""
    return f"{channel_pattern()[:-1]}user:{user_id}"


def channel_pattern() -> str:
    """The pattern of every channel of this site's Redis database: ``parlour:<db>:*``
    (games' and logins')."""
    return channel_prefix()[: -len("game:")] + "*"


def _redis() -> redis.Redis | None:
    """This process's client of ``settings.REDIS_URL`` (``None`` without Redis).

    Made on first use and shared by every thread (its connection pool is
    thread-safe and re-made after a fork); made again if the URL changes, which
    only tests do.
    """
    global _client
    url = str(getattr(settings, "REDIS_URL", "") or "")
    if not url:
        return None
    with _client_lock:
        if _client is None or _client[0] != url:
            client = redis.Redis.from_url(
                url,
                socket_connect_timeout=REDIS_SECONDS,
                socket_timeout=REDIS_SECONDS,
                # One retry re-opens a pooled connection Redis dropped (a restart);
                # more would hold up the request that published while Redis is down
                # (redis-py's default retries ten times, for seconds).
                retry=Retry(NoBackoff(), 1),
            )
            _client = (url, client)
        return _client[1]


# -- publishing ------------------------------------------------------------------------------


def publish(game_id: int, sequence: int, users: Iterable[int] = ()) -> None:
    """Tell waiters that game ``game_id`` is now at ``sequence``, and the account streams of
    ``users`` that their feed has news.  Never raises.

    Called after the commit: the change stands whatever happens here, and a
    waiter that misses the message finds the change in the database.
    """
    client = _redis()
    if client is None:
        return  # waiters poll the database
    messages = [channel(game_id), str(sequence)]
    for user in sorted(users):  # usually one: the seat the change left waited for
        messages += [user_channel(user), str(game_id)]
    try:
        # One command for all of them, run by its digest: a pipeline of a PUBLISH each
        # cost redis-py's writing and reading of every command, after every move (issue 24).
        _PUBLISH(client, args=messages)
    except REDIS_ERRORS as error:
        log.warning(
            "could not publish game %s at sequence %s (waiters will find it in the database): %s",
            game_id,
            sequence,
            error,
        )


#: :func:`publish`'s messages in one command: ``ARGV`` is channel, message, channel, …
_PUBLISH = LuaScript("""
for i = 1, #ARGV, 2 do
  redis.call('PUBLISH', ARGV[i], ARGV[i + 1])
end
return #ARGV / 2
""")


def on_game_changed(sender: Any, game_id: int, sequence: int, **kwargs: Any) -> None:
    """Receiver of :data:`tournaments.play.game_changed`: :func:`publish` the change."""
    publish(game_id, sequence, kwargs.get("users") or ())


# -- waiting ---------------------------------------------------------------------------------


def moved(game_id: int, after: int) -> bool:
    """Whether game ``game_id`` is past sequence ``after``, over, or gone (nothing to wait for)."""
    game = game_row(game_id)
    # With a pool, a waiter must not keep one of the process's few connections.
    release_pooled_connections()
    return game is None or game.sequence > after or game.is_over


def wait_for_move(game_id: int, after: int, timeout: float) -> None:
    """Return once game ``game_id``'s sequence exceeds ``after`` (or it is over), or after
    ``timeout`` seconds, whichever comes first.  The caller reads the game afterwards."""
    deadline = time.monotonic() + max(0.0, timeout)
    client = _redis()
    if client is not None:
        try:
            _wait_subscribed(client, game_id, after, deadline)
            return
        except REDIS_ERRORS as error:
            log.warning("Redis failed while waiting for game %s, polling: %s", game_id, error)
    _poll(game_id, after, deadline)


def _poll(game_id: int, after: int, deadline: float) -> None:
    """Read the game's row every :data:`POLL_SECONDS` until it moved or the deadline."""
    while not moved(game_id, after):
        left = deadline - time.monotonic()
        if left <= 0:
            return
        time.sleep(min(POLL_SECONDS, left))


def _wait_subscribed(client: redis.Redis, game_id: int, after: int, deadline: float) -> None:
    """Wait on the game's channel, reading its row first and every :data:`RECHECK_SECONDS`."""
    pubsub = client.pubsub()
    try:
        pubsub.subscribe(channel(game_id))
        _confirm(pubsub, deadline)
        # Subscribed: from now on every publish reaches us, so a move not yet in
        # the row below will be announced.
        while not moved(game_id, after):
            recheck = min(deadline, time.monotonic() + RECHECK_SECONDS)
            while (left := recheck - time.monotonic()) > 0:
                message = pubsub.get_message(timeout=left)
                if message is not None and _announces_past(message, after):
                    return
            if time.monotonic() >= deadline:
                return
    finally:
        pubsub.close()  # gives the connection back; its subscription ends with it


def _confirm(pubsub: PubSub, deadline: float) -> None:
    """Wait for Redis to confirm the subscription (SUBSCRIBE is only sent, not awaited)."""
    until = min(deadline, time.monotonic() + REDIS_SECONDS)
    while (left := until - time.monotonic()) > 0:
        message = pubsub.get_message(timeout=left)
        if message is not None and message.get("type") == "subscribe":
            return
    if time.monotonic() < deadline:
        raise redis.TimeoutError("Redis did not confirm the subscription")


def _announces_past(message: dict[str, Any], after: int) -> bool:
    """Whether a message on the game's channel names a sequence beyond ``after``."""
    if message.get("type") != "message":
        return False
    try:
        return int(message["data"]) > after
    except (TypeError, ValueError):
        return False  # not ours to understand: the next read of the row decides
