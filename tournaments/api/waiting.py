"""Waiting without holding anything: one notification hub per process, for ASGI.

Just over ~400 lines: the hub, the ASGI handler that lets a request's thread go and
the long-poll response it answers are one mechanism, and read best together.

Under ASGI (uvicorn workers, production) a waiting long-poll
(``GET /games/{id}?after=N&wait=S``) or Server-Sent Events stream holds no thread,
no database connection and no Redis connection of its own while it waits:

* **One hub per process** (:class:`Hub`, made on first use in the event loop): a
  single Redis connection ``SUBSCRIBE``\\ d to the channels this process's clients wait
  on (each game's ``parlour:<db>:game:<id>`` and each login's account feed
  ``parlour:<db>:user:<id>``, published by :mod:`tournaments.workers.notify` after
  each commit), and to no other: a process reads only the messages of its own
  clients.  A message wakes the :class:`Waiter`\\ s registered on its channel, and
  only them: a dictionary look-up, whatever the number of waiters on other games.
  A waiter is an :class:`asyncio.Event` (a future), not a thread.  A tournament's
  stream registers on the channels of the games it knows (a table's next game is
  dealt with its last one's last move, so it is known in time; a new round's first
  deals are found at the next recheck); an account stream on its login's channel.
* **Reads in a shared thread** (:func:`run_sync`): a waiter reads the database only
  when woken (or every :data:`RECHECK_SECONDS`, in case a message was lost), in one
  of the process's few :class:`DatabaseThreads`, which keep their connections while
  there is work and give them back when idle.
* **The request's own thread goes** before the wait (:class:`ASGIHandler`): Django
  keeps a thread for each ASGI request until the request ends, idle while a
  streamed body is sent; it is let go once the middleware and the view are done.
* **A long-poll answers through** :class:`LongPollResponse`: the DRF view
  authenticates, checks permissions, throttles and takes the caller's slots
  (:mod:`tournaments.api.capacity`) as always, then returns this placeholder; the
  handler awaits the move and only then runs the view's final answer (the game as
  the caller may see it, the same code and the same answer as under WSGI) in a
  shared thread.

The database stays the truth: a message only says "read now".  A waiter registers
on its channel *before* it reads, so a move committed in between wakes it: by its
message once Redis has confirmed the channel's subscription, else by that
confirmation itself, which wakes the channel's waiters to read again.  While the
hub is not subscribed (Redis down, starting, or no ``REDIS_URL``) waiters read every
:data:`tournaments.workers.notify.POLL_SECONDS` (long-polls) or ``PARLOUR_STREAM_POLL_SECONDS``
(streams) instead, still without a thread of their own.

Under WSGI (``runserver``, the embedded SQLite default) none of this runs: a
long-poll or a stream keeps its request's thread, as a WSGI server must
(:mod:`tournaments.workers.notify`, :mod:`tournaments.api.streams`).
"""

from __future__ import annotations

import asyncio
import logging
import queue
import threading
import time
import weakref
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Executor, Future, ThreadPoolExecutor
from contextlib import contextmanager
from typing import Any, TypeVar, cast

import redis
import redis.asyncio
from asgiref.sync import SyncToAsync, sync_to_async
from django.core.handlers.asgi import ASGIHandler as DjangoASGIHandler
from django.db import connections
from django.http import HttpRequest, HttpResponse, HttpResponseBase, StreamingHttpResponse
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from parlour import db
from parlour.db import close_thread_connections
from tournaments.api.capacity import Slots
from tournaments.play import game_row
from tournaments.workers import notify

log = logging.getLogger(__name__)

#: Seconds between a subscribed waiter's reads of the database when nothing wakes it: the
#: safety net for a message lost (pub/sub delivers at most once).
RECHECK_SECONDS = 3.0
#: Seconds the hub waits before subscribing again after Redis failed.
RECONNECT_SECONDS = 1.0
#: Seconds a channel nobody waits on any more stays subscribed (a long-poll's next poll).
LINGER_SECONDS = 5.0
#: Seconds of quiet after which the hub pings Redis; three times as long without an answer
#: and the connection is taken for dead and made again.
PING_SECONDS = 10.0

_T = TypeVar("_T")


# -- the hub ---------------------------------------------------------------------------------


class Waiter:
    """One request's wait on some channels: set by the hub when a message comes."""

    def __init__(self) -> None:
        self._woken = asyncio.Event()
        self._heard: int | None = -1
        #: After :meth:`wait`, for a waiter on one game's channel (whose messages are the
        #: game's new sequences): the highest sequence the wait was woken with; ``None``
        #: when it may have missed one (it timed out, or a wake named none), so that the
        #: database must be read.
        self.heard: int | None = None
        #: The channels it is registered on.
        self.channels: set[str] = set()

    def wake(self, data: bytes | None) -> None:
        """Wake the waiter with a message's ``data`` (``None``: read again, whatever came)."""
        # Not ours (another program publishing on the channel): a wake that names nothing.
        text = data.decode(errors="replace") if isinstance(data, bytes) else data
        sequence = int(text) if isinstance(text, str) and text.isdecimal() else None
        if self._heard is not None:
            self._heard = None if sequence is None else max(self._heard, sequence)
        self._woken.set()

    def wake_again(self) -> None:
        """Wake the waiter with nothing heard: it looks at what it heard so far again."""
        self._woken.set()

    async def wait(self, timeout: float) -> bool:
        """Until woken or ``timeout`` seconds; whether it was woken.  A wake that came
        since the last wait returns at once (nothing is lost between reads)."""
        if timeout > 0 and not self._woken.is_set():
            try:
                async with asyncio.timeout(timeout):
                    await self._woken.wait()
            except TimeoutError:
                pass
        woken = self._woken.is_set()
        self._woken.clear()
        self.heard = self._heard if woken else None
        self._heard = -1
        return woken


def _cancel_requested() -> bool:
    """Whether the running task has been asked to stop (a cancel not yet taken back)."""
    task = asyncio.current_task()
    return task is not None and task.cancelling() > 0


def _stop_if_cancelled() -> None:
    """End the running task if it was cancelled and the cancel got lost below it.

    redis-py's calls have swallowed a cancel (its read once, its ping at a new
    connection since): the hub's task then went on, and a closing ``asyncio.run``, which
    cancels every task and waits for them, waited for ever (two CI hangs).  Each of the
    hub's awaits on redis-py is followed by this."""
    if _cancel_requested():
        raise asyncio.CancelledError


class Hub:
    """This event loop's one Redis subscription, fanning messages out to waiters.

    It subscribes to the channels its waiters wait on, and only those: a process hears
    the moves of the games its own clients follow, not every move of the site (with a
    pattern subscription each of N web processes read every message, N times the work,
    a tenth of their CPU at 32 players: docs/benchmarks.md).  Redis confirms each
    channel's subscription; a message published before that is not heard, so the
    confirmation wakes the channel's waiters to read once more.  A channel left without
    waiters is kept for :data:`LINGER_SECONDS` or a little more (a long-polling client's
    next poll comes at once) before it is unsubscribed.
    """

    def __init__(self, url: str) -> None:
        self.url = url
        self.waiters: dict[str, set[Waiter]] = {}
        #: Whether the connection to Redis is up and read (else waiters poll).
        self.subscribed = False
        #: The channels Redis has confirmed: their messages reach this hub.
        self.confirmed: set[str] = set()
        #: The channels subscribed (asked for, perhaps not yet confirmed) on the connection.
        self._asked: set[str] = set()
        #: Channels without waiters: when they were left (unsubscribed after a while).
        self._left: dict[str, float] = {}
        self._changed = asyncio.Event()
        self._heard_at = 0.0
        self._task = asyncio.get_running_loop().create_task(self._listen())

    def register(self, waiter: Waiter, channels: Iterable[str]) -> None:
        """Wake ``waiter`` on messages of ``channels`` too."""
        for name in channels:
            found = self.waiters.get(name)
            if found is None:
                found = self.waiters[name] = set()
                self._left.pop(name, None)
                if name not in self._asked:
                    self._changed.set()
            found.add(waiter)
            waiter.channels.add(name)

    def unregister(self, waiter: Waiter) -> None:
        for name in waiter.channels:
            found = self.waiters.get(name)
            if found is not None:
                found.discard(waiter)
                if not found:
                    del self.waiters[name]
                    self._left[name] = time.monotonic()
        waiter.channels.clear()

    def hears(self, channels: Iterable[str]) -> bool:
        """Whether every message on ``channels`` reaches this hub now (Redis confirmed
        them and the connection is up)."""
        return self.subscribed and all(name in self.confirmed for name in channels)

    @contextmanager
    def listening(self, channels: Iterable[str]) -> Iterator[Waiter]:
        """A waiter woken by any message on ``channels`` (and those registered later) while
        the block runs."""
        waiter = Waiter()
        self.register(waiter, channels)
        try:
            yield waiter
        finally:
            self.unregister(waiter)

    def _wake(self, name: str) -> None:
        """The waiters of channel ``name`` read again (a message may have been missed)."""
        for waiter in list(self.waiters.get(name, ())):
            waiter.wake(None)

    def _wake_everyone(self) -> None:
        """Every waiter reads again (the connection began or ended: messages may be lost)."""
        for found in list(self.waiters.values()):
            for waiter in list(found):
                waiter.wake(None)

    async def _listen(self) -> None:
        while True:
            # Also here: a cancel lost in a call that then failed (Redis away) would
            # otherwise go round this loop for as long as Redis stays away.
            _stop_if_cancelled()
            client = redis.asyncio.Redis.from_url(
                self.url,
                socket_connect_timeout=notify.REDIS_SECONDS,
                # No retries of redis-py's own: it would reconnect and subscribe again behind
                # the hub's back, with the reader and the subscriber both driving the new
                # connection.  Any failure ends this connection; the loop makes a new one.
                retry=Retry(NoBackoff(), 0),
            )
            pubsub = client.pubsub()
            self._asked = set()
            tasks: list[asyncio.Task[None]] = []
            try:
                # The first answer (to this PING) says the connection is read.
                self._heard_at = time.monotonic()
                await pubsub.ping()
                _stop_if_cancelled()
                loop = asyncio.get_running_loop()
                tasks = [loop.create_task(self._read(pubsub)), loop.create_task(self._ask(pubsub))]
                done, _ = await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
                for task in done:
                    task.result()  # its error, if it failed
                raise ConnectionError("the subscription's connection ended")
            except asyncio.CancelledError:
                raise
            except Exception as error:  # Redis's errors, and any other: the hub must go on
                log.warning("notification hub: Redis failed (%r); waiters poll meanwhile", error)
            finally:
                for task in tasks:
                    task.cancel()
                if tasks:  # before the connection closes under them
                    await asyncio.wait(tasks, timeout=RECONNECT_SECONDS)
                was = self.subscribed
                self.subscribed = False
                self.confirmed.clear()
                if was:
                    self._wake_everyone()
                try:
                    await pubsub.aclose()
                    await client.aclose()
                except Exception as error:  # closing a broken connection: nothing to do
                    log.debug("notification hub: closing failed (%r)", error)
            await asyncio.sleep(RECONNECT_SECONDS)

    async def _read(self, pubsub: Any) -> None:
        """Read the subscription's messages, each as it comes (no timeout: a read with one
        cost twice the CPU a message; :meth:`_ask` pings the connection instead)."""
        while True:
            message = await pubsub.get_message(timeout=None)
            _stop_if_cancelled()
            self._heard_at = time.monotonic()
            if not self.subscribed:
                self.subscribed = True
                self._wake_everyone()
            if message is None:
                continue
            kind = message.get("type")
            channel = message.get("channel")
            name = channel.decode() if isinstance(channel, bytes) else str(channel)
            if kind == "message":
                for waiter in list(self.waiters.get(name, ())):
                    waiter.wake(message.get("data"))
            elif kind == "subscribe":
                if name in self._asked:
                    self.confirmed.add(name)
                # Subscribed now (or again, after redis-py reconnected on its own): what
                # was published before it was not heard.
                self._wake(name)
            elif kind == "unsubscribe":
                self.confirmed.discard(name)  # until its next subscription's confirmation

    async def _ask(self, pubsub: Any) -> None:
        """Subscribe to the channels waited on, unsubscribe those left a while ago, and
        ping the connection when it has been quiet (a dead one is found and replaced).

        It sends on the connection :meth:`_read` reads: safe while redis-py sends nothing
        that it reads the answer of itself (no ``health_check_interval``, no retries)."""
        while True:
            # Cleared before the channels are read: a waiter registered while the commands
            # below are sent sets it again, and is subscribed at once, not 5 s later.
            self._changed.clear()
            now = time.monotonic()
            wanted = set(self.waiters)
            lingering = {n for n, at in self._left.items() if now - at < LINGER_SECONDS}
            for name in [n for n in self._left if n not in lingering]:
                del self._left[name]
            more = sorted(wanted - self._asked)
            fewer = sorted(self._asked - wanted - lingering)
            # Both changes noted before either is sent: a waiter that comes back to a channel
            # being let go while the SUBSCRIBE is sent finds it not asked for, and wakes this
            # loop to ask for it again (Redis answers in order: its last word stands).
            self._asked.update(more)
            self._asked.difference_update(fewer)
            if more:
                await pubsub.subscribe(*more)
                _stop_if_cancelled()
            if fewer:
                await pubsub.unsubscribe(*fewer)
                _stop_if_cancelled()
            quiet = now - self._heard_at
            if quiet > 3 * PING_SECONDS:
                raise ConnectionError(f"no answer from Redis for {quiet:.0f} s")
            if quiet > PING_SECONDS:
                await pubsub.ping()
                _stop_if_cancelled()
            try:
                async with asyncio.timeout(min(PING_SECONDS, LINGER_SECONDS)):
                    await self._changed.wait()
            except TimeoutError:
                pass

    def stop(self) -> None:
        self._task.cancel()


_hubs: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, Hub] = weakref.WeakKeyDictionary()


def hub() -> Hub | None:
    """The running event loop's hub (made on first use), or ``None`` without Redis."""
    from django.conf import settings

    url = str(getattr(settings, "REDIS_URL", "") or "")
    if not url:
        return None
    loop = asyncio.get_running_loop()
    found = _hubs.get(loop)
    if found is None or found.url != url:  # another URL: only tests change it
        if found is not None:
            found.stop()
        found = _hubs[loop] = Hub(url)
    return found


@contextmanager
def listening(channels: Iterable[str]) -> Iterator[tuple[Waiter, Hub | None]]:
    """A waiter on ``channels`` (one nobody wakes without a hub) and the hub."""
    found = hub()
    if found is None:
        yield Waiter(), None
        return
    with found.listening(channels) as waiter:
        yield waiter, found


def recheck_seconds(found: Hub | None, polling: float) -> float:
    """Seconds until a waiter reads again unwoken: long while subscribed, ``polling`` else."""
    return RECHECK_SECONDS if found is not None and found.subscribed else polling


# -- reading in a shared thread ---------------------------------------------------------------


#: Seconds a database thread keeps its connection with no work (then gives it back).
IDLE_SECONDS = 5.0
#: Seconds without work after which a kept connection is checked before its next use
#: (one round trip): PostgreSQL may have restarted meanwhile.
CHECK_AFTER_SECONDS = 1.0
#: Seconds :meth:`DatabaseThreads.stop` waits for each thread to end.
STOP_SECONDS = 30.0


class DatabaseThreads(Executor):
    """A few threads, each keeping its database connection while there is work.

    The event loop's default executor gave each call a thread that took a connection
    and gave it back: with the pool, a checked connection (one empty round trip) and
    Django's connect and close around every read and every move (issue 24: a fifth of
    the moves a second at 32 players).  Here each thread (``keep``) keeps its connection
    from one call to the next and gives it back after :data:`IDLE_SECONDS` without work,
    so that idle waiters still hold none.  A connection a call met a database error with
    is checked and closed if it is broken (whether or not the call raised), and one kept
    through a pause of :data:`CHECK_AFTER_SECONDS` is checked before its next use, as
    Django checks a request's.  How many threads, and whether they keep connections, is
    :func:`parlour.db.database_threads`'s: never more than the pool can spare.
    asgiref's ``sync_to_async`` still hands each call over (with its context: the
    language, and every ``Local`` of Django's), with this as its executor: neither it nor
    :class:`concurrent.futures.ThreadPoolExecutor` gives a thread a time-out of its own to
    give its connection back when idle.
    """

    def __init__(self, size: int, *, keep: bool = True) -> None:
        self.size = size
        self.keep = keep
        self._work: queue.SimpleQueue[
            tuple[Future[Any], Callable[..., Any], tuple[Any, ...], dict[str, Any]] | None
        ] = queue.SimpleQueue()
        self._threads: list[threading.Thread] = []
        self._lock = threading.Lock()

    def submit(self, fn: Callable[..., _T], /, *args: Any, **kwargs: Any) -> Future[_T]:
        """``fn(*args, **kwargs)`` in one of the threads."""
        future: Future[_T] = Future()
        with self._lock:  # never queued behind a stop's end markers
            if not self._threads:
                self._start()
            self._work.put((future, fn, args, kwargs))
        return future

    def _start(self) -> None:
        for number in range(self.size):
            name = f"parlour-database-{number}"
            thread = threading.Thread(target=self._serve, name=name, daemon=True)
            thread.start()
            self._threads.append(thread)

    def stop(self) -> None:
        """Let every thread give its connection back and end (a test's database is about
        to be emptied or dropped); the next :meth:`submit` starts them again."""
        with self._lock:
            for _ in self._threads:
                self._work.put(None)  # each thread ends at the first it takes
            for thread in self._threads:
                thread.join(STOP_SECONDS)
            self._threads = []

    def _serve(self) -> None:
        last = time.monotonic()
        while True:
            try:
                item = self._work.get(timeout=IDLE_SECONDS)
            except queue.Empty:
                _tidy(close_thread_connections)
                item = self._work.get()
            if item is None:
                _tidy(close_thread_connections)
                return
            future, fn, args, kwargs = item
            del item
            if time.monotonic() - last >= CHECK_AFTER_SECONDS:
                _tidy(_drop_broken_connections)
            if future.set_running_or_notify_cancel():
                try:
                    result = fn(*args, **kwargs)
                except BaseException as error:  # the caller's to handle
                    future.set_exception(error)
                else:
                    future.set_result(result)
                    del result
            del future, fn, args, kwargs  # nothing of a call outlives it
            _tidy(_drop_failed_connections if self.keep else close_thread_connections)
            last = time.monotonic()


def _tidy(step: Callable[[], None]) -> None:
    """Run a connection's clean-up; a failure of it must not end the thread (its callers
    would wait for ever)."""
    try:
        step()
    except Exception:
        log.exception("a database thread's clean-up failed")


def _drop_failed_connections() -> None:
    """Check each connection a call met a database error with (the call may have caught
    it): keep it if it answers, else close it (PostgreSQL restarting, a broken socket)."""
    for connection in connections.all(initialized_only=True):
        if connection.connection is None or not connection.errors_occurred:
            continue
        if not connection.in_atomic_block and connection.is_usable():
            connection.errors_occurred = False
        else:
            connection.close()


def _drop_broken_connections() -> None:
    """Close each kept connection that no longer answers (one round trip each)."""
    for connection in connections.all(initialized_only=True):
        if connection.connection is None or connection.in_atomic_block:
            continue
        if not connection.is_usable():
            connection.close()


_threads: DatabaseThreads | None = None
_threads_made = threading.Lock()


def database_threads() -> DatabaseThreads:
    """This process's :class:`DatabaseThreads` (made on first use)."""
    global _threads
    with _threads_made:
        if _threads is None:
            size, keep = db.database_threads()
            _threads = DatabaseThreads(size, keep=keep)
        return _threads


async def run_sync(function: Callable[..., _T], *args: Any) -> _T:
    """``function(*args)`` in one of the process's few :class:`DatabaseThreads` (shared by
    every waiter and every push-channel client), whose connections are kept while they
    work and given back when they are idle."""
    # asgiref's hint says ThreadPoolExecutor; it only hands it to run_in_executor, which
    # takes any Executor.
    threads = cast(ThreadPoolExecutor, database_threads())
    return await sync_to_async(function, thread_sensitive=False, executor=threads)(*args)


async def let_the_request_thread_go() -> None:
    """End the thread Django keeps for this ASGI request (its thread-sensitive code ran
    there: middleware and view), after giving back its database connections.

    Django would keep it, idle, until the response is sent, which for a stream or a
    long-poll is minutes.  A thread-sensitive call after this (the response's
    ``close()``) gets a new thread, for as long as it runs.
    """
    await sync_to_async(close_thread_connections)()
    context = SyncToAsync.thread_sensitive_context.get(None)
    if context is None:
        return
    executor = SyncToAsync.context_to_thread_executor.pop(context, None)
    if executor is not None:
        executor.shutdown(wait=False)


# -- the long-poll -----------------------------------------------------------------------------


#: Set on the requests :class:`ASGIHandler` serves: it answers a :class:`LongPollResponse`.
_DEFERRABLE = "parlour_long_poll_in_loop"


def deferrable(request: HttpRequest) -> bool:
    """Whether a long-poll of this request may wait in the event loop: it came through
    :class:`ASGIHandler` (not WSGI, nor another ASGI handler such as the test client's)."""
    return getattr(request, _DEFERRABLE, False) is True


async def wait_for_move(game_id: int, after: int, timeout: float) -> None:
    """Return once game ``game_id``'s sequence exceeds ``after`` (or it is over or gone),
    or after ``timeout`` seconds, holding nothing meanwhile.  The caller reads the game."""
    deadline = time.monotonic() + max(0.0, timeout)
    with listening([notify.channel(game_id)]) as (waiter, found):
        # Registered first: a move committed from now on wakes the waiter.
        while not await run_sync(_moved, game_id, after):
            left = deadline - time.monotonic()
            if left <= 0:
                return
            # Woken or not, the row decides: a message is a hint (another site sharing the
            # Redis server has games of the same ids: pub/sub ignores Redis's databases).
            await waiter.wait(min(recheck_seconds(found, notify.POLL_SECONDS), left))


def _moved(game_id: int, after: int) -> bool:
    game = game_row(game_id)
    return game is None or game.sequence > after or game.is_over


class LongPollResponse(StreamingHttpResponse):
    """A long-poll that waits in the event loop; :class:`ASGIHandler` answers it.

    The middleware see a streaming response (they leave its body alone and add their
    headers); the answer sent is :meth:`resolve`'s, with those headers.
    """

    def __init__(
        self,
        view: APIView,
        request: Request,
        slots: Slots,
        game_id: int,
        after: int,
        wait: float,
        answer: Callable[[], Response],
    ) -> None:
        super().__init__(_nothing(), content_type="application/json")
        self.view = view
        self.drf_request = request
        self.game_id = game_id
        self.after = after
        self.wait = wait
        self.answer = answer
        self.slots = slots

    def close(self) -> None:
        """The caller's slots go back when the response is closed (answered, or the client
        went away), whatever happened."""
        try:
            super().close()
        finally:
            self.slots.release()

    async def resolve(self) -> HttpResponseBase:
        try:
            await wait_for_move(self.game_id, self.after, self.wait)
        except Exception as error:  # the database failing meanwhile: the answer says so
            log.warning("long-poll of game %s: waiting failed (%r)", self.game_id, error)
        final = await run_sync(self._final)
        for header, value in self.items():
            if header.lower() not in ("content-type", "content-length") and header not in final:
                final[header] = value
        for name, cookie in self.cookies.items():
            final.cookies[name] = cookie
        if isinstance(final, HttpResponse):  # as CommonMiddleware sets it on an answer at once
            final["Content-Length"] = str(len(final.content))
        return final

    def _final(self) -> HttpResponseBase:
        """The view's answer after the wait, as DRF's dispatch would finish it."""
        request = self.drf_request
        try:
            try:
                response: HttpResponseBase = self.answer()
            except Exception as error:
                response = self.view.handle_exception(error)
            # DRF's stubs say Response; it finishes any HttpResponse (a problem too).
            response = self.view.finalize_response(request, response)  # type: ignore[arg-type]
            render = getattr(response, "render", None)  # a DRF Response renders late
            if callable(render):
                response = render()
            return response
        except Exception as error:  # a bug: what the middleware makes of an escaping error
            from tournaments.api.problems import exception_response

            log.exception("API request %s failed", request._request.get_full_path())
            return exception_response(request._request, error)


async def _nothing() -> Any:
    return
    yield  # an empty async iterator: the body is resolve()'s


class ASGIHandler(DjangoASGIHandler):
    """Django's ASGI handler, which lets a request's thread go before a streamed body or a
    long-poll's wait, and answers a :class:`LongPollResponse` once its game moved."""

    def create_request(self, scope: Any, body_file: Any) -> tuple[Any, Any]:
        request, error = super().create_request(scope, body_file)
        if request is not None:
            setattr(request, _DEFERRABLE, True)
        return request, error

    async def send_response(self, response: HttpResponseBase, send: Any) -> None:
        if getattr(response, "is_async", False):
            await let_the_request_thread_go()
        if isinstance(response, LongPollResponse):
            response = await response.resolve()
        await super().send_response(response, send)


__all__ = [
    "ASGIHandler",
    "Hub",
    "LongPollResponse",
    "Waiter",
    "deferrable",
    "hub",
    "let_the_request_thread_go",
    "listening",
    "recheck_seconds",
    "run_sync",
    "wait_for_move",
]
