"""The push channel: one WebSocket per client, ``/api/v1/ws`` (docs/api.md, "The push channel").

A client follows games over one connection and the server pushes each game's view,
as that client may see it, every time the game moves; the client may send its moves
over the same connection.  Nothing here is a second API: a pushed view is
:func:`~tournaments.api.views.games.view_of`'s, a move goes through
:func:`~tournaments.api.views.games.act` (the same checks, idempotency keys and
expected sequences as ``POST /games/{id}/actions``), a refusal is the same problem
document, and every message counts against the same request rates.

Messages are JSON objects with a ``type``.  The client sends::

    {"type": "follow", "game": 12, "after": 40}     # views of game 12 past sequence 40
    {"type": "unfollow", "game": 12}
    {"type": "act", "game": 12, "key": "k-1", "expected_sequence": 41, "action": {...}}

and receives ``{"type": "hello", "user": ...}`` once, then ``{"type": "view", "game",
"sequence", "view"}`` frames, ``{"type": "acted", "game", "key", "replayed",
"sequence", "view"}`` for each of its moves, and ``{"type": "problem", "game", "key",
"problem"}`` with the REST API's problem document for anything refused (its ``instance`` the
REST request's the message stands for: :func:`instance_of`).  A client that
reconnects follows with the last sequence it saw and is sent the view at once if the
game moved meanwhile: it misses nothing.

Who the client is: ``Authorization: Bearer <key>`` (a bot; a bad key is refused with
code 4401), else the browser's session cookie, but only when the page that opened
the socket is of this site (``Origin``: a page elsewhere cannot act with a visitor's
session), else anonymous (a spectator).  A connection takes one of the caller's open
streams slots (:mod:`tournaments.api.capacity`) for its whole life, and each game it
follows beyond the first one more: a follow is a stream (a page following one game holds
one slot, as its Server-Sent Events stream did).  The sign-in is checked again before every
move and at least every :data:`AUTH_RECHECK_SECONDS` while views are pushed: a revoked
token or a logged-out session gets a 401 problem and the socket is closed (4401).  A
handshake for a host not in ``ALLOWED_HOSTS`` is refused, as Django refuses such an
HTTP request.

What it costs: a follow waits like a long-poll (:mod:`tournaments.api.waiting`): one
waiter on the process's single Redis subscription, woken only by its own game's
messages, reading the database in a shared thread only when woken (or every few
seconds while Redis is away).  An idle connection holds no thread and no database
connection, and a push costs the same however many other connections are idle.

A change made in this process is pushed to this process's follows of its game from the
change's own fold (:func:`on_game_changed`): the view is built in the thread that made
the change, from the row and the state it committed, with the access the follow last
read, and handed to the follow, which sends it with no read of its own (issue 24).  A
follow reads as before where that does not serve: its first view, a game over, a
sign-in due for its check (at most :data:`AUTH_RECHECK_SECONDS` after the last, which
also bounds how long an organiser's access read once is trusted), and a change made in
another process (heard of through Redis).
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import logging
import threading
import time
from http.cookies import SimpleCookie
from typing import Any
from urllib.parse import urlsplit

import orjson
from channels.auth import get_user
from channels.consumer import get_handler_name
from channels.generic.websocket import AsyncWebsocketConsumer
from channels.routing import URLRouter
from django.conf import settings
from django.contrib.auth.models import AnonymousUser
from django.http.request import split_domain_port, validate_host
from django.urls import path
from django.utils import timezone, translation
from django.utils.translation import gettext, gettext_noop
from rest_framework import exceptions
from uvicorn.protocols.utils import ClientDisconnected

from engine.contract import said
from tournaments import sql
from tournaments.api import capacity, waiting
from tournaments.api.authentication import hash_key
from tournaments.api.handler import refusal_delay, refusals
from tournaments.api.pagination import MOST
from tournaments.api.parsers import load_json
from tournaments.api.problems import (
    UNAVAILABLE_RETRY_SECONDS,
    Forbidden,
    exception_handler,
    problem_body,
    unavailable_detail,
    unavailable_reason,
)
from tournaments.api.throttling import RateLimits
from tournaments.api.views.games import act, view_of
from tournaments.converters import MAX_ID
from tournaments.languages import API_DEFAULT, accepted_in
from tournaments.models import ApiToken, Game
from tournaments.play import keep_tail, kept_sequence
from tournaments.services.access import GameAccess, game_access, hidden_twin
from tournaments.workers import autoplay, notify

log = logging.getLogger("parlour.api")

#: The channel's path: the ``instance`` of a problem whose message names no game.
PATH = "/api/v1/ws"
#: The largest message a client may send (an action is a few hundred bytes).
MAX_MESSAGE_BYTES = 16_384
#: The most games one connection follows at once.
MAX_FOLLOWED = 16
#: Seconds a connection's sign-in is trusted before it is checked again (a revoked token,
#: a session logged out): always before a move, at most this late for what is pushed.
AUTH_RECHECK_SECONDS = 5.0
#: Close codes (RFC 6455 leaves 4000-4999 to applications): refused credentials, too many.
CLOSE_UNAUTHENTICATED = 4401
CLOSE_TOO_MANY = 4429


#: The keys of a follow's and an unfollow's messages (an act's body is checked as the
#: REST API's: :class:`~tournaments.api.serializers.ActionSerializer`).
_MESSAGE_KEYS = {"follow": ("after", "game", "type"), "unfollow": ("game", "type")}


class Caller:
    """What the throttle and the open-streams slots read of a request, for a connection."""

    def __init__(self, user: Any, auth: ApiToken | None, meta: dict[str, str]) -> None:
        self.user = user
        self.auth = auth
        self.META = meta
        #: DRF reads ``X-Forwarded-For`` from here (in lower case).
        self.headers = (
            {"x-forwarded-for": meta["HTTP_X_FORWARDED_FOR"]}
            if "HTTP_X_FORWARDED_FOR" in meta
            else {}
        )
        self._request = self  # the throttle keeps its counts on the Django request


def _headers(scope: dict[str, Any]) -> dict[bytes, bytes]:
    return {bytes(k).lower(): bytes(v) for k, v in scope.get("headers", ())}


def _meta(scope: dict[str, Any]) -> dict[str, str]:
    """The handshake as the ``META`` DRF reads a client's address from."""
    headers = _headers(scope)
    client = scope.get("client") or ("", 0)
    meta = {"REMOTE_ADDR": str(client[0])}
    forwarded = headers.get(b"x-forwarded-for")
    if forwarded is not None:
        meta["HTTP_X_FORWARDED_FOR"] = forwarded.decode("latin-1")
    return meta


def _language(scope: dict[str, Any]) -> str:
    """The language of the answers: the handshake's ``Accept-Language``, as the API's."""
    return (
        accepted_in(_headers(scope).get(b"accept-language", b"").decode("latin-1")) or API_DEFAULT
    )


def _same_site(scope: dict[str, Any]) -> bool:
    """Whether the page that opened the socket is of this site: its ``Origin`` is the
    ``Host`` it connected to, or one of ``CSRF_TRUSTED_ORIGINS`` (as Django's CSRF check)."""
    headers = _headers(scope)
    origin = headers.get(b"origin")
    if origin is None:
        return False
    text = origin.decode("latin-1")
    host = headers.get(b"host", b"").decode("latin-1")
    return urlsplit(text).netloc == host or text in getattr(settings, "CSRF_TRUSTED_ORIGINS", [])


def _allowed_host(scope: dict[str, Any]) -> bool:
    """Whether the handshake's ``Host`` is one of ``ALLOWED_HOSTS`` (Django's own check)."""
    host = _headers(scope).get(b"host", b"").decode("latin-1")
    allowed = list(settings.ALLOWED_HOSTS)
    if settings.DEBUG and not allowed:
        allowed = [".localhost", "127.0.0.1", "[::1]"]  # as HttpRequest.get_host
    domain, _port = split_domain_port(host)
    return bool(domain) and validate_host(domain, allowed)


def _token_owner(key: str) -> tuple[Any, ApiToken] | None:
    from tournaments import sql
    from tournaments.api.authentication import TOUCH_EVERY

    now = timezone.now()
    found = sql.token_owner(hash_key(key), now - TOUCH_EVERY)
    if found is None:
        return None
    user, token, stale = found
    if stale:
        ApiToken.objects.filter(pk=token.pk).update(last_used_at=now)
    return user, token


class Authentication:
    """ASGI middleware: ``scope["user"]`` and ``scope["auth"]`` from a bearer token or the
    session (same-site pages only); ``scope["refusal"]`` for a bad token."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> Any:
        again = refusals.again_for(scope)
        if again is not None:  # refused a moment ago: the same refusal, without asking again
            await refuse_again(again[2], receive, send)
            return None
        scope = dict(scope, user=AnonymousUser(), auth=None, refusal=None)
        header = _headers(scope).get(b"authorization")
        if header is not None:
            parts = header.split()
            if len(parts) != 2 or parts[0].lower() != b"bearer":
                scope["refusal"] = gettext_noop("write the header as 'Authorization: Bearer <key>'")
            else:
                found = await waiting.run_sync(_token_owner, parts[1].decode("latin-1"))
                if found is None:
                    scope["refusal"] = gettext_noop(
                        "this token is unknown or revoked: create a new one (POST /api/v1/tokens)"
                    )
                else:
                    scope["user"], scope["auth"] = found
        elif _same_site(scope):
            cookie = SimpleCookie(_headers(scope).get(b"cookie", b"").decode("latin-1"))
            morsel = cookie.get(settings.SESSION_COOKIE_NAME)
            if morsel is not None:
                from importlib import import_module

                store = import_module(settings.SESSION_ENGINE).SessionStore
                scope["session"] = store(morsel.value)
                scope["user"] = await get_user(scope)  # type: ignore[arg-type]
        return await self.inner(scope, receive, send)


async def refuse_again(problem: bytes, receive: Any, send: Any) -> None:
    """Refuse a handshake as its caller was refused a moment ago (a 429 beyond the open
    streams: tournaments/api/handler.py, ``Refusals``): accepted, told, closed."""
    if (await receive()).get("type") != "websocket.connect":
        return
    document = json.loads(problem)
    await refusal_delay(document.get("retry_after"))
    await send({"type": "websocket.accept"})
    text = frame_text({"type": "problem", "problem": document})
    await send({"type": "websocket.send", "text": text})
    await send({"type": "websocket.close", "code": CLOSE_TOO_MANY})


def frame_text(content: dict[str, Any]) -> str:
    """A frame's JSON text: compact, its non-ASCII characters as UTF-8 (the frame is).

    orjson, not the standard library's ``json``: every move encodes two views, in the
    event loop's thread, and ``json`` took 4 % of the web processes' CPU doing it at 32
    players (issue 24; orjson is about ten times faster).  Keys that are not strings are
    written as ``json`` writes them (a view keys nothing by number; a bug should not
    become a refused frame).
    """
    return orjson.dumps(content, option=orjson.OPT_NON_STR_KEYS).decode()


def view_frame(game_id: int, view: dict[str, Any]) -> dict[str, Any]:
    """The frame that pushes game ``game_id``'s ``view`` (a follow's read, or a move's fold)."""
    return {"type": "view", "game": game_id, "sequence": view["sequence"], "view": view}


class SignedOut(exceptions.NotAuthenticated):
    """The connection's token was revoked, or its session ended, since it connected."""


def problem_of(error: Exception) -> dict[str, Any] | None:
    """The problem document the REST API answers ``error`` with (``None``: not one it knows),
    without its ``instance`` (there is no request: :meth:`PushConsumer.problem` adds it)."""
    response = exception_handler(error, {})
    if response is None:
        return None
    found: dict[str, Any] = json.loads(response.content)
    return found


def instance_of(message: dict[str, Any] | None) -> str:
    """The path of the REST request a message stands for, the ``instance`` of its problems:
    an act's is ``POST /api/v1/games/{id}/actions``, a follow's (and an unfollow's)
    ``GET /api/v1/games/{id}``; a message that names no game (not JSON, no such type) has
    the channel's own."""
    game = message.get("game") if message is not None else None
    if not isinstance(game, int) or isinstance(game, bool) or game < 1:
        return PATH
    kind = message.get("type") if message is not None else None
    if kind == "act":
        return f"/api/v1/games/{game}/actions"
    if kind in ("follow", "unfollow"):
        return f"/api/v1/games/{game}"
    return PATH


class PushConsumer(AsyncWebsocketConsumer):
    """One client's connection: its follows and its moves."""

    def begin(self, who: dict[str, Any]) -> None:
        """The connection's state, from its handshake ``who`` as :class:`Authentication`
        left it (bench/push_move.py and the tests drive a consumer begun so, unconnected)."""
        self.who: dict[str, Any] = who
        self.user: Any = who["user"]
        self.follows: dict[int, asyncio.Task[None]] = {}
        #: The open-stream slots: the connection's own, and one for each game followed.
        self.slots: capacity.Slots | None = None
        #: The slots of the follows beyond the first (which the connection's own carries).
        self.extra: list[capacity.Slots] = []
        #: Per game: the last sequence whose view this client was sent with its own move's
        #: answer, the games it is making a move in now, and its follow's waiter.  A follow
        #: does not push the view the move's answer carries (it would be built twice).
        self.told: dict[int, int] = {}
        self.acting: set[int] = set()
        self.waiters: dict[int, waiting.Waiter] = {}
        #: Per game: the caller's access as the follow last read it (what a view from a
        #: change's fold is built for: :meth:`frame_from_fold`), and the newest such view
        #: handed to the follow and not sent yet.
        self.accesses: dict[int, GameAccess] = {}
        self.pushed: dict[int, dict[str, Any]] = {}
        #: The event loop the connection is served in (set once connected).
        self.loop: asyncio.AbstractEventLoop | None = None
        self.language = _language(who)
        self.auth_checked = time.monotonic()
        self.caller = Caller(self.user, who["auth"], _meta(who))

    async def connect(self) -> None:
        self.begin(dict(self.scope))
        self.loop = asyncio.get_running_loop()
        if not _allowed_host(self.who):  # as Django answers an HTTP request for another host
            await self.close()
            return
        await self.accept()
        refusal = self.who["refusal"]
        if refusal:
            with translation.override(self.language):  # marked where it was found
                failed = exceptions.AuthenticationFailed(gettext(str(refusal)))
            await self.problem(failed, instance=PATH)
            await self.close(CLOSE_UNAUTHENTICATED)
            return
        try:
            self.slots = await waiting.run_sync(capacity.take, self.caller)
        except capacity.TooManyOpen as error:
            found = await self.problem(error, instance=PATH)
            if found is not None:
                refusals.refused(self.who, found, float(found.get("retry_after", 1)))
            await self.close(CLOSE_TOO_MANY)
            return
        user = self.user
        await self.send_json(
            {"type": "hello", "user": user.get_username() if user.is_authenticated else None}
        )

    async def dispatch(self, message: dict[str, Any]) -> None:
        """Channels' own dispatch, without its hand-off before every message to the
        thread it runs database code in, to close that thread's old connections.

        This consumer touches the database only in :class:`waiting.DatabaseThreads`,
        which tend their own connections (and ``channels.auth.get_user`` closes its
        thread's around its call): there is nothing there to close, and the hop there and
        back cost 4 % of the web processes' CPU at 32 players (issue 24).
        """
        handler = getattr(self, get_handler_name(message), None)
        if handler is None:
            raise ValueError(f"No handler for message type {message['type']}")
        await handler(message)

    async def disconnect(self, code: int) -> None:
        for game in list(getattr(self, "follows", {})):
            self.unfollowed(game)
        ending = [*getattr(self, "extra", []), getattr(self, "slots", None)]
        self.extra, self.slots = [], None
        for slots in ending:
            if slots is not None:
                await waiting.run_sync(slots.release)

    def unfollowed(self, game: int) -> capacity.Slots | None:
        """Stop following ``game``: the slot to give back, if it held one."""
        task = self.follows.pop(game, None)
        if task is None:
            return None
        task.cancel()
        return self.spare_slot()

    def spare_slot(self) -> capacity.Slots | None:
        """A slot no follow needs any more: one for each follow beyond the first."""
        if len(self.extra) > max(0, len(self.follows) - 1):
            return self.extra.pop()
        return None

    async def send_json(self, content: dict[str, Any]) -> None:
        try:
            await self.send(text_data=frame_text(content))
        except ClientDisconnected:
            # The client has gone, and its disconnect comes next: it gives the slots back.
            # Raised on, a send to a closed socket (a move's answer, a refusal) ended the
            # consumer before its disconnect, and the caller's open-stream slots were held
            # until they expired, locking a bot out after a few reconnects (found by trying).
            return

    async def problem(self, error: Exception, *, instance: str, **about: Any) -> dict[str, Any]:
        """Send the problem frame of ``error`` (``about``: the game and key it answers), its
        document the REST API's for the request at ``instance`` (:func:`instance_of`)."""
        with translation.override(self.language):
            found = problem_of(error)
            if found is None:
                reason = unavailable_reason(error)
                if reason is None:  # a bug: logged, the client told what the API would say
                    log.error("push channel: %r", error, exc_info=error)
                    found = problem_body(
                        "server-error",
                        gettext("the server failed to answer this request; it has been logged"),
                        instance=instance,
                    )
                else:
                    log.warning("push channel: %s (%r)", reason, error)
                    found = problem_body(
                        "unavailable",
                        unavailable_detail(),
                        instance=instance,
                        extra={"retry_after": UNAVAILABLE_RETRY_SECONDS},
                    )
            else:
                found["instance"] = instance
        if found.get("status") == 429:  # held back, as the HTTP side holds its 429s
            await refusal_delay(found.get("retry_after"))
        # The problem document apart: its own "type" is the problem's URI (RFC 9457).
        await self.send_json({"type": "problem", **about, "problem": found})
        return found

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        about: dict[str, Any] = {}
        instance = PATH
        try:
            # Every refusal in the client's language, those worded here too (a context
            # variable: the shared threads the handling runs in inherit it).
            with translation.override(self.language):
                message = self.parse(text_data)
                instance = instance_of(message)
                # A refusal names the game and key it answers, so that a client can match it.
                # (Not an id beyond any row's: a frame cannot carry an integer past 64 bits.)
                about = {
                    k: message[k]
                    for k in ("game", "key")
                    if isinstance(message.get(k), str)
                    or (isinstance(message.get(k), int) and abs(message[k]) <= MAX_ID)
                }
                await self.handle(message)
        except SignedOut as error:
            await self.signed_out(error, instance=instance, **about)
        except Exception as error:
            await self.problem(error, instance=instance, **about)

    async def signed_out(self, error: SignedOut, *, instance: str, **about: Any) -> None:
        """Tell the client its sign-in ended, and close: nothing more is pushed or taken."""
        await self.problem(error, instance=instance, **about)
        await self.close(CLOSE_UNAUTHENTICATED)

    def parse(self, text: str | None) -> dict[str, Any]:
        if text is None:  # a binary frame, of any size: refused for what it is
            raise exceptions.ParseError(
                gettext("send each message as a text frame of JSON: a binary frame is not read")
            )
        if len(text) > MAX_MESSAGE_BYTES:
            raise exceptions.ParseError(
                gettext("send each message as one JSON object of at most %(most)s bytes")
                % {"most": MAX_MESSAGE_BYTES}
            )
        try:
            message = load_json(text)
        except ValueError as error:  # in the words of a body that is not JSON
            raise exceptions.ParseError(
                gettext("the body is not valid JSON: %(error)s") % {"error": error}
            ) from None
        if not isinstance(message, dict):
            raise exceptions.ParseError(gettext("a message is a JSON object with a type"))
        return message

    async def handle(self, message: dict[str, Any]) -> None:
        kind = message.get("type")
        game = message.get("game")
        if kind not in ("follow", "unfollow", "act"):
            raise exceptions.ValidationError(
                {"type": [gettext("one of follow, unfollow, act, not %(v)s") % {"v": said(kind)}]}
            )
        if not isinstance(game, int) or isinstance(game, bool) or game < 1:
            raise exceptions.ValidationError({"game": [gettext("a game's id, a whole number")]})
        if game > MAX_ID:  # no row has it: as the API answers such an id (a 500 was)
            raise exceptions.NotFound(gettext("there is no game %(id)s") % {"id": game})
        # A key a message does not take is refused, as a request body's is ("afterr" was
        # left out, and the view sent at once): an act's body is its serializer's to check.
        taken = _MESSAGE_KEYS.get(kind, ())
        unknown = [key for key in message if key not in taken] if taken else []
        if unknown:
            words = gettext("no such field: this takes %(taken)s") % {"taken": ", ".join(taken)}
            raise exceptions.ValidationError({str(key): [words] for key in unknown})
        if kind == "unfollow":
            await waiting.run_sync(self.count)
            slots = self.unfollowed(game)
            if slots is not None:
                await waiting.run_sync(slots.release)
            return
        if kind == "follow":
            after = message.get("after", -1)
            # Counted, checked and (a 404 now, before anything is followed, when there is no
            # such game to see) its access read in one hop to a thread, not two.
            following = len(self.follows) if game not in self.follows else None
            told = False  # of the database failing
            try:
                await waiting.run_sync(self.may_follow, game, after, following)
            except Exception as error:
                if unavailable_reason(error) is None:
                    raise
                # The database away while the access was read: followed all the same, and
                # told (503). The follow reads, its access checked, once the database answers
                # (a 404 then ends it), as a follow whose read fails is retried by the server:
                # a client is never left following nothing after a 503 (a fault run's stuck
                # table: a follow of a table's next game refused while PostgreSQL restarted).
                await self.problem(error, instance=instance_of(message), game=game)
                told = True
            previous = self.follows.pop(game, None)
            if previous is not None:  # followed again (from another sequence): its slot stays
                previous.cancel()
            elif self.follows:
                # A follow is a stream: each beyond the first (which the connection's own slot
                # carries, so that a page of one game holds one slot, as its SSE stream did)
                # counts against the caller's open streams (429).
                self.extra.append(await waiting.run_sync(capacity.take, self.caller))
            following_now = self.follow(game, after, told=told)
            self.follows[game] = asyncio.get_running_loop().create_task(following_now)
            return
        self.acting.add(game)
        answer: dict[str, Any] | None = None
        try:
            answer = await waiting.run_sync(self.act, game, message)
            self.told[game] = max(self.told.get(game, -1), int(answer["sequence"]))
        finally:
            self.acting.discard(game)
            waiter = self.waiters.get(game)
            if waiter is not None:  # a move that came meanwhile is pushed now
                if answer is not None and answer["view"].get("status") == Game.Status.OVER:
                    waiter.wake(None)  # read once more: the follow of a game ended ends
                else:
                    waiter.wake_again()
        await self.send_json({"type": "acted", "game": game, "key": message.get("key"), **answer})

    # -- in a shared thread ---------------------------------------------------------------

    def check_signed_in(self, *, now: bool = False) -> None:
        """Raise :class:`SignedOut` if the token was revoked or the session ended since the
        connection began (checked ``now``, or when the last check is old enough)."""
        if not self.recheck_due(now=now):
            return
        auth = self.who["auth"]
        if isinstance(auth, ApiToken):
            live = sql.token_is_live(auth.pk)
        else:
            session = self.who.get("session")
            live = session is not None and session.exists(session.session_key)
        self.signed_in(live)

    def signed_in(self, live: bool) -> None:
        """Note a check of the sign-in just made: raise :class:`SignedOut` if it ended."""
        self.auth_checked = time.monotonic()
        if not live:
            with translation.override(self.language):
                raise SignedOut(
                    gettext("your token was revoked or your session ended: sign in again")
                )

    def recheck_due(self, *, now: bool = False) -> bool:
        """Whether the sign-in is to be checked: ``now``, or the last check is old enough
        (never for an anonymous connection)."""
        return bool(self.user.is_authenticated) and (
            now or time.monotonic() - self.auth_checked >= AUTH_RECHECK_SECONDS
        )

    def read(
        self, game_id: int, *, now: bool = False, seats: bool = False
    ) -> sql.CallerGame | None:
        """Game ``game_id``'s row with the caller's players (``seats``: and its table's
        seats, and the events since the fold this process keeps, which it is moved on by),
        or ``None`` without such a game; the sign-in checked first, ``now`` or when the
        last check is old enough (:meth:`check_signed_in`), for a token in the same
        statement (issue 24: one round trip where there were up to five)."""
        auth = self.who["auth"]
        due = self.recheck_due(now=now)
        token = auth.pk if due and isinstance(auth, ApiToken) else None
        if due and token is None:
            self.check_signed_in(now=True)  # a session's
        user = self.user.pk if self.user.is_authenticated else None
        tail_from = kept_sequence(game_id) if seats else None
        found = sql.game_for_caller(game_id, user, token_id=token, seats=seats, tail_from=tail_from)
        if token is not None:
            self.signed_in(sql.token_is_live(token) if found is None else bool(found.live))
        if found is not None and found.tail:
            keep_tail(found.game, found.tail)
        return found

    def count(self) -> None:
        """Count the message against the caller's request rates, as a request to the API."""
        limits = RateLimits()
        if not limits.allow_request(self.caller, None):  # type: ignore[arg-type]
            raise exceptions.Throttled(limits.wait())

    def may_follow(self, game_id: int, after: Any, following: int | None) -> None:
        """Count a follow of game ``game_id`` past sequence ``after`` and refuse it if it
        may not be (a bad sequence, too many games, no such game to see); ``following``:
        how many other games the connection follows (``None``: it follows this one)."""
        self.count()
        # As ``?after=`` is read over HTTP (pagination.whole_number), with -1 for "at once",
        # which a follow without ``after`` means and the pages send.
        if not isinstance(after, int) or isinstance(after, bool) or not -1 <= after <= MOST:
            bounds = gettext("from %(least)s to %(most)s") % {"least": -1, "most": MOST}
            refusal = gettext("%(kind)s (%(bounds)s), not %(raw)s")
            raise exceptions.ValidationError(
                {
                    "after": [
                        refusal
                        % {"kind": gettext("a sequence"), "bounds": bounds, "raw": said(after)}
                    ]
                }
            )
        if following is not None and following >= MAX_FOLLOWED:
            most = {"most": MAX_FOLLOWED}
            raise exceptions.ValidationError(
                {"game": [gettext("follow at most %(most)s games at once") % most]}
            )
        user = self.user.pk if self.user.is_authenticated else None
        self.access(game_id, sql.game_for_caller(game_id, user))

    def access(self, game_id: int, found: sql.CallerGame | None) -> Any:
        """The caller's access to the game from its row ``found`` just read (``None``: there
        is no such game), else a 404: never read again."""
        access = None if found is None else game_access(self.user, found.game, found.players)
        if access is None:
            with translation.override(self.language):
                hidden = None if found is None else hidden_twin(found.game)
                if hidden is not None:
                    raise Forbidden(hidden)
                raise exceptions.NotFound(gettext("there is no game %(id)s") % {"id": game_id})
        return access

    def act(self, game_id: int, message: dict[str, Any]) -> dict[str, Any]:
        self.count()
        user = self.user
        with translation.override(self.language):
            if not user.is_authenticated:
                raise exceptions.NotAuthenticated(
                    gettext("sign in (a bearer token) to act: spectators only follow")
                )
            found = self.read(game_id, now=True)
            key = message.get("key")
            body = {k: v for k, v in message.items() if k not in ("type", "game", "key")}
            access = self.access(game_id, found)
            return act(access, user, key if isinstance(key, str) else "", body, key_field="key")

    def view(
        self, game_id: int, after: int
    ) -> tuple[dict[str, Any] | None, bool, GameAccess | None]:
        """Game ``game_id``'s view frame if it moved past ``after`` (else ``None``), whether
        the game is over (nothing more will come), and the caller's access read for it."""
        found = self.read(game_id, seats=True)
        after = max(after, self.told.get(game_id, -1))  # this client's own move's view: sent
        if found is not None and found.game.sequence <= after:
            return None, found.game.is_over, None
        access = self.access(game_id, found)
        with translation.override(self.language), autoplay.seats_read_once():
            table = access.game.table_id
            if found is not None and found.seats is not None and table is not None:
                autoplay.note_seats(table, found.game.sequence, found.seats)
            view = view_of(access, at_row=True)  # the row read just now
        # The view's own sequence: where the fold this process kept did not serve, the
        # stream was read to its end, which a commit since the row may have moved on.
        return view_frame(game_id, view), access.game.is_over, access

    # -- views from a change's fold ----------------------------------------------------------

    def frame_from_fold(
        self,
        game_id: int,
        sequence: int,
        game: Game | None,
        state: Any,
        built: dict[tuple[Any, ...], dict[str, Any]],
    ) -> dict[str, Any] | None:
        """In the thread that made a change of game ``game_id`` (:func:`on_game_changed`):
        its view frame for this client, built from the row ``game`` and the ``state`` the
        change committed, or ``None`` where the follow is to read instead: while this client
        makes a move of its own in the game (its answer carries the view), once the game is
        over, when the sign-in is due for its check, or before the follow has read its
        access.  ``built``: the frames built for this change so far, by what a view depends
        on (the seat, organiser or not, the language): followers who see the game alike
        share one."""
        access = self.accesses.get(game_id)
        if (
            access is None
            or game is None
            or state is None
            or game.is_over
            or game_id in self.acting
            or sequence <= self.told.get(game_id, -1)
            or self.recheck_due()
        ):
            return None
        alike = (access.seat, access.organiser, self.language)
        if alike not in built:
            with translation.override(self.language):
                view = view_of(dataclasses.replace(access, game=game), state)
            built[alike] = view_frame(game_id, view)
        return built[alike]

    def hand_over(self, game_id: int, sequence: int, frame: dict[str, Any] | None) -> None:
        """In the event loop: wake the follow of game ``game_id`` as the change's message
        would, with the change's view ``frame`` to send (``None``: the follow reads)."""
        waiter = self.waiters.get(game_id)
        if waiter is None:
            return
        if frame is not None:
            kept = self.pushed.get(game_id)
            if kept is None or kept["sequence"] < frame["sequence"]:
                self.pushed[game_id] = frame
        waiter.wake(str(sequence).encode())

    # -- following -------------------------------------------------------------------------

    async def follow(self, game_id: int, after: int, *, told: bool = False) -> None:
        """Push game ``game_id``'s view each time it moves, until it is over or unfollowed
        (``told``: the client was told already that the database is away)."""
        mine: waiting.Waiter | None = None
        followed = instance_of({"type": "follow", "game": game_id})
        try:
            with waiting.listening([notify.channel(game_id)]) as (waiter, found):
                # Registered first: a move committed from now on wakes the waiter.
                self.waiters[game_id] = mine = waiter
                _follows.add(game_id, self)
                # Of the database failing, once until it answers again.
                # The highest sequence heard of since the last read (None: read, something
                # may have been missed): a move this client has been sent already, its own
                # answered one above all, needs no read of the database.
                heard: int | None = None
                while True:
                    if game_id in self.acting:  # woken again once the move is answered
                        await waiter.wait(waiting.recheck_seconds(found, notify.POLL_SECONDS))
                        heard = _highest(heard, waiter.heard)
                        continue
                    # A change made in this process: its view, built from its fold.
                    pushed = self.pushed.pop(game_id, None)
                    if pushed is not None and pushed["sequence"] > max(
                        after, self.told.get(game_id, -1)
                    ):
                        await self.send_json(pushed)
                        after = pushed["sequence"]
                    if heard is not None and heard <= max(after, self.told.get(game_id, -1)):
                        await waiter.wait(waiting.recheck_seconds(found, notify.POLL_SECONDS))
                        heard = waiter.heard
                        continue
                    try:
                        frame, over, access = await waiting.run_sync(self.view, game_id, after)
                    except Exception as error:
                        if unavailable_reason(error) is None:
                            raise
                        # The database restarting: the follow goes on once it answers
                        # (a long-poll answers the same way), the client told once.
                        if not told:
                            await self.problem(error, instance=followed, game=game_id)
                            told = True
                        await asyncio.sleep(waiting.RECONNECT_SECONDS)
                        continue
                    told = False
                    if access is not None and not over:
                        # Kept by the follow itself, in the event loop: an unfollow meanwhile
                        # (the read cancelled) leaves none behind for a later follow.
                        self.accesses[game_id] = access
                    if frame is not None:
                        await self.send_json(frame)
                        after = frame["sequence"]
                    if over:
                        return
                    await waiter.wait(waiting.recheck_seconds(found, notify.POLL_SECONDS))
                    heard = waiter.heard
        except asyncio.CancelledError:
            raise
        except SignedOut as error:
            await self.signed_out(error, instance=followed, game=game_id)
        except Exception as error:  # the game gone from view, a bug
            await self.problem(error, instance=followed, game=game_id)
        finally:
            if mine is not None and self.waiters.get(game_id) is mine:
                del self.waiters[game_id]
                _follows.remove(game_id, self)
                self.accesses.pop(game_id, None)
                self.pushed.pop(game_id, None)
            if self.follows.get(game_id) is asyncio.current_task():  # ended by itself
                del self.follows[game_id]
                slots = self.spare_slot()
                if slots is not None:
                    await waiting.run_sync(slots.release)


class _Follows:
    """This process's follows, by game: whom :func:`on_game_changed` hands a change's view
    (it runs in the thread that made the change, the follows in the event loop)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.games: dict[int, set[PushConsumer]] = {}

    def add(self, game_id: int, consumer: PushConsumer) -> None:
        with self.lock:
            self.games.setdefault(game_id, set()).add(consumer)

    def remove(self, game_id: int, consumer: PushConsumer) -> None:
        with self.lock:
            found = self.games.get(game_id)
            if found is not None:
                found.discard(consumer)
                if not found:
                    del self.games[game_id]

    def of(self, game_id: int) -> tuple[PushConsumer, ...]:
        with self.lock:
            return tuple(self.games.get(game_id, ()))


_follows = _Follows()


def on_game_changed(
    sender: Any, game_id: int, sequence: int, game: Game | None = None, state: Any = None, **kw: Any
) -> None:
    """Receiver of :data:`tournaments.play.game_changed`, after the commit, in the thread
    that made the change: hand each of this process's follows of the game the change's
    view, built from the row and the state it committed (:meth:`PushConsumer.frame_from_fold`),
    or a wake to read.  A follow in another process hears of it through Redis and reads.
    Never raises: the change is committed, and a follow not handed it reads it.
    """
    followers = _follows.of(game_id)
    if not followers:
        return
    built: dict[tuple[Any, ...], dict[str, Any]] = {}
    failed = False
    # The table's seats (who plays by bot, which every view shows) read once for them all,
    # and by the tasks' receiver after them (the block of the move's answer, if in one).
    with autoplay.seats_read_once():
        for consumer in followers:
            loop = consumer.loop
            if loop is None or loop.is_closed():  # its connection is gone
                _follows.remove(game_id, consumer)
                continue
            frame = None
            if not failed:  # after a failure (the database away), every follow reads
                try:
                    frame = consumer.frame_from_fold(game_id, sequence, game, state, built)
                except Exception:
                    log.exception(
                        "push channel: game %s at %s: its follows read it", game_id, sequence
                    )
                    failed = True
            try:
                loop.call_soon_threadsafe(consumer.hand_over, game_id, sequence, frame)
            except RuntimeError:  # its event loop closed meanwhile, and so did the connection
                _follows.remove(game_id, consumer)


def _highest(heard: int | None, more: int | None) -> int | None:
    """What was heard over two waits: the higher sequence, or ``None`` if either missed."""
    return None if heard is None or more is None else max(heard, more)


def application() -> Any:
    """The WebSocket side of ``parlour.asgi``."""
    routes: list[Any] = [path(PATH.lstrip("/"), PushConsumer.as_asgi())]  # type: ignore[arg-type]
    return Authentication(URLRouter(routes))


__all__ = ["PushConsumer", "application", "on_game_changed", "problem_of"]
