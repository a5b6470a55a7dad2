"""Request rates, per client address and per token (or logged-in user).

Limits, each a rate from ``REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]``:

* ``address``: every request, by client address (``PARLOUR_API_RATE_ADDRESS``);
* ``anon``: requests without authentication, by address (``PARLOUR_API_RATE_ANON``);
* ``token``: authenticated requests, by token, or by user for a browser
  session (``PARLOUR_API_RATE_TOKEN``);
* a costly view's own ``throttle_scope`` (``records``: verify and import,
  ``PARLOUR_API_RATE_RECORDS``), by address, for everyone.

One throttle, :class:`RateLimits`, counts every limit that applies to a request
in the default cache (Redis in production, so every web process shares the
counts).  Each limit is a *fixed-window counter*: time is cut into windows as
long as the rate's period (a minute for ``600/min``), and a request adds one to
its window's counter, key ``throttle:<scope>:<ident>:<window index>``, which
expires with its window.  That is O(1) work, and on Redis one round trip for all
the limits of a request: one script that runs ``INCR`` + ``EXPIRE … NX`` per counter
(``EXPIRE NX`` needs Redis 7).  Other cache backends (development, tests) count
with ``add`` + ``incr``: correct, but a round trip per call.

What fixed windows give up: a client may send a whole rate at the end of one
window and another whole rate at the start of the next, so up to **twice a
rate** within one period across a window boundary.  A refused request counts
too (counting is one step, before the verdict); it delays nothing beyond the
end of its window.

A request over a rate gets a 429 problem with ``Retry-After``: the seconds left
in the window of the limit exceeded (the longest, if several are); its ``detail``
names the limit and when it resets.

Every answer of the API says where the caller stands, in the IETF headers of
draft-ietf-httpapi-ratelimit-headers (structured fields): ``RateLimit-Policy``
lists each limit that applies, its quota ``q`` and window ``w`` in seconds
(``"token";q=600;w=60``), and ``RateLimit`` each one's remaining requests ``r``
and seconds until its window resets ``t`` (``"token";r=598;t=37``), from the
counts this request made (:class:`RateState`).  An answer given before the
throttle counted (an unknown URL, a bad token, an oversized body) reads the
address's counts without adding to them (:func:`peek_state`).  A rate of
``None`` is no limit.  Behind a proxy set ``PARLOUR_NUM_PROXIES`` so the address
is the client's, not the proxy's.  While the cache does not answer, requests are
let through (logged): the cache holds nothing else a request needs.

(Over 400 lines: the API's rates, the password logins' limits and the rate headers
are one mechanism -- the fixed-window counters above, their keys and their one round
trip -- and each reads the others' counts; split, each would repeat the window
arithmetic.  The login limits are the obvious room to move out if it grows.)
"""

from __future__ import annotations

import hashlib
import logging
import math
import time
from dataclasses import dataclass
from typing import Any, cast

from django.core.cache import BaseCache, caches
from django.core.cache.backends.redis import RedisCache
from django.utils.translation import gettext, gettext_noop, ngettext, pgettext
from rest_framework.request import Request
from rest_framework.settings import api_settings
from rest_framework.throttling import BaseThrottle

from engine.contract import said
from parlour.cache import LuaScript
from tournaments.models import ApiToken

log = logging.getLogger(__name__)

#: Seconds of each period a rate may name, by its first letter (as DRF parses rates).
PERIODS = {"s": 1, "m": 60, "h": 3600, "d": 86400}


def configured_rates() -> dict[str, str | None]:
    """``DEFAULT_THROTTLE_RATES`` as it is now: a scope's ``N/period``, or ``None``."""
    # The DRF stubs type the rates as numbers; DRF's own reading (and ours) is strings.
    return cast("dict[str, str | None]", api_settings.DEFAULT_THROTTLE_RATES)


def parse_rate(rate: str) -> tuple[int, int]:
    """``"600/min"`` → ``(600, 60)``: requests allowed, and the period in seconds.

    The same reading as DRF's ``SimpleRateThrottle.parse_rate`` (``N/s``,
    ``N/sec``, ``N/min``, ``N/hour``, ``N/day``; only the period's first letter
    counts), so a rate means what it meant with DRF's throttles.
    """
    number, period = rate.split("/")
    return int(number), PERIODS[period[0]]


@dataclass(frozen=True)
class Limit:
    """One counter a request adds to: ``requests`` per ``period`` seconds for ``ident``."""

    scope: str
    ident: str
    requests: int
    period: int

    def window(self, now: float) -> int:
        """The index of the window ``now`` falls in (windows start at the epoch)."""
        return int(now // self.period)

    def key(self, now: float) -> str:
        """The cache key of this limit's counter for the window of ``now``."""
        return f"throttle:{self.scope}:{self.ident}:{self.window(now)}"

    def seconds_left(self, now: float) -> int:
        """Whole seconds until the window of ``now`` ends (at least 1)."""
        end = (self.window(now) + 1) * self.period
        return max(1, math.ceil(end - now))


@dataclass(frozen=True)
class RateState:
    """Where a request left its limits: each limit with its count after it, at ``now``."""

    limits: tuple[Limit, ...]
    counts: tuple[int, ...]
    now: float

    def policy_header(self) -> str:
        """``RateLimit-Policy``: every limit's quota and window."""
        return ", ".join(f'"{lim.scope}";q={lim.requests};w={lim.period}' for lim in self.limits)

    def header(self) -> str:
        """``RateLimit``: every limit's remaining requests and seconds until it resets."""
        return ", ".join(
            f'"{lim.scope}";r={max(lim.requests - n, 0)};t={lim.seconds_left(self.now)}'
            for lim, n in zip(self.limits, self.counts, strict=True)
        )

    def exceeded(self) -> list[str]:
        """The scopes of the limits this request went over, the last to reset first."""
        over = [lim for lim, n in zip(self.limits, self.counts, strict=True) if n > lim.requests]
        over.sort(key=lambda lim: -lim.seconds_left(self.now))
        return [lim.scope for lim in over]

    def refusal(self) -> str:
        """What a 429 says: the limits exceeded and when each resets."""
        over = [
            ngettext(
                "the %(scope)s limit %(name)s of %(requests)s request per %(period)s was used"
                " up; it resets in %(seconds)s s",
                "the %(scope)s limit %(name)s of %(requests)s requests per %(period)s was used"
                " up; it resets in %(seconds)s s",
                lim.requests,
            )
            % {
                "scope": gettext(_SCOPE_WORDS[lim.scope])
                if lim.scope in _SCOPE_WORDS
                else lim.scope,
                "name": said(lim.scope),  # as the RateLimit header names it
                "requests": lim.requests,
                "period": _period_words(lim.period),
                "seconds": lim.seconds_left(self.now),
            }
            for lim, n in zip(self.limits, self.counts, strict=True)
            if n > lim.requests
        ]
        return gettext("too many requests: %(limits)s (RateLimit headers: where you stand)") % {
            "limits": "; ".join(over)
        }


#: How a 429 names each limit (English, translated when said).
_SCOPE_WORDS = {
    "address": gettext_noop("per-address"),
    "anon": gettext_noop("anonymous per-address"),
    "token": gettext_noop("per-token"),
    "records": gettext_noop("records (verify and import) per-address"),
    "anon_streams": gettext_noop("anonymous streams opened per-address"),
    "anon_tournament_streams": gettext_noop("anonymous tournament streams opened per-address"),
}


def _period_words(seconds: int) -> str:
    """A limit's period after "per" (Russian «в минуту»)."""
    words = {
        1: pgettext("per", "second"),
        60: pgettext("per", "minute"),
        3600: pgettext("per", "hour"),
        86400: pgettext("per", "day"),
    }
    return words.get(seconds, f"{seconds} s")


#: Where the throttle leaves a request's :class:`RateState` (on Django's request, so
#: that the middleware that writes the headers finds it).
STATE_ATTRIBUTE = "parlour_rate_state"


class RateLimits(BaseThrottle):
    """DRF's throttle (``DEFAULT_THROTTLE_CLASSES``): every limit of a request, counted at once.

    DRF makes one instance per request; :meth:`wait` answers for the
    :meth:`allow_request` that refused.
    """

    def __init__(self) -> None:
        self.retry_after: int | None = None

    def timer(self) -> float:
        """Now, in seconds since the epoch (a method, so that tests can move time)."""
        return time.time()

    def limits(self, request: Request) -> list[Limit]:
        """The limits that apply to ``request``, at the rates configured now."""
        # Read the settings per request, not at import, so a changed setting takes effect.
        rates = configured_rates()
        address = str(self.get_ident(request))
        user = request.user
        if user is not None and user.is_authenticated:
            auth = request.auth
            # Per token, so that each of a user's scripts has its own rate;
            # a browser session has no token: per user.
            ident = f"t{auth.pk}" if isinstance(auth, ApiToken) else f"u{user.pk}"
            wanted = [("address", address), ("token", ident)]
        else:
            wanted = [("address", address), ("anon", address)]
        found = []
        for scope, who in wanted:
            rate = rates.get(scope)
            if rate is None:  # no rate: no limit
                continue
            requests, period = parse_rate(rate)
            found.append(Limit(scope, who, requests, period))
        return found

    def view_limits(self, request: Request, view: Any) -> list[Limit]:
        """The limits of ``view``'s own ``throttle_scope`` (costly views), per address, and
        of its ``anonymous_throttle_scopes`` for callers not signed in (streams)."""
        scopes = [getattr(view, "throttle_scope", None)]
        user = request.user
        if user is None or not user.is_authenticated:
            scopes.extend(getattr(view, "anonymous_throttle_scopes", ()))
        rates = configured_rates()
        found = []
        for scope in scopes:
            rate = rates.get(scope) if scope else None
            if rate is not None:
                requests, period = parse_rate(rate)
                found.append(Limit(str(scope), str(self.get_ident(request)), requests, period))
        return found

    def allow_request(self, request: Request, view: Any) -> bool:
        limits = self.limits(request) + self.view_limits(request, view)
        if not limits:
            return True
        now = self.timer()
        counters = [(limit.key(now), limit.period) for limit in limits]
        try:
            counts = count(caches["default"], counters)
        except Exception as error:  # the cache backend's own (redis.ConnectionError, …)
            # A cache outage must not become an API outage: nothing else a
            # request does needs the cache, so while it is down requests pass.
            log.warning("throttle: the cache does not answer; request allowed (%r)", error)
            setattr(request._request, STATE_ATTRIBUTE, None)  # no headers, no second try
            return True
        state = RateState(tuple(limits), tuple(counts), now)
        setattr(request._request, STATE_ATTRIBUTE, state)
        over = [limit for limit, n in zip(limits, counts, strict=True) if n > limit.requests]
        if not over:
            return True
        # Every exceeded limit must have a new window before a retry can pass.
        self.retry_after = max(limit.seconds_left(now) for limit in over)
        return False

    def wait(self) -> int | None:
        """Seconds until the refused request would pass (DRF's ``Retry-After``)."""
        return self.retry_after


def peek_state(request: Any) -> RateState | None:
    """The address's limits as they stand, counting nothing: for an answer given before the
    throttle ran (an unknown URL, a bad token).  ``None`` when no limit applies or the cache
    does not answer."""
    throttle = RateLimits()
    rates = configured_rates()
    address = str(throttle.get_ident(request))
    limits = []
    for scope in ("address", "anon"):
        rate = rates.get(scope)
        if rate is not None:
            requests, period = parse_rate(rate)
            limits.append(Limit(scope, address, requests, period))
    if not limits:
        return None
    now = throttle.timer()
    try:
        found = caches["default"].get_many([limit.key(now) for limit in limits])
    except Exception as error:  # the cache backend's own, as in RateLimits
        log.warning("rate headers: the cache does not answer (%r)", error)
        return None
    counts = tuple(int(found.get(limit.key(now)) or 0) for limit in limits)
    return RateState(tuple(limits), counts, now)


def add_headers(request: Any, response: Any) -> None:
    """Write ``RateLimit-Policy`` and ``RateLimit`` on ``response`` (an API answer)."""
    # Counted by the throttle (None: the cache failed it), or answered before it ran.
    state = getattr(request, STATE_ATTRIBUTE) if hasattr(request, STATE_ATTRIBUTE) else None
    if not hasattr(request, STATE_ATTRIBUTE):
        state = peek_state(request)
    if state is None:
        return
    response["RateLimit-Policy"] = state.policy_header()
    response["RateLimit"] = state.header()


def count(cache: BaseCache, counters: list[tuple[str, int]]) -> list[int]:
    """Add one to each counter ``(key, seconds to live)``; return the new counts, in order.

    A new counter starts at 1 and lives for its seconds; adding to it does not
    extend its life.
    """
    if isinstance(cache, RedisCache):
        return _count_in_redis(cache, counters)
    # Any other backend: correct (add never overwrites a count; incr is atomic
    # where the backend's is), but a round trip per call.
    counts = []
    for key, seconds in counters:
        cache.add(key, 0, seconds)
        counts.append(cache.incr(key))
    return counts


#: :func:`count` on Redis, as one command: each key's ``INCR``, and its ``EXPIRE … NX`` so
#: that the first count of a window sets its expiry and later ones keep it.
_COUNT = LuaScript("""
local counts = {}
for i, key in ipairs(KEYS) do
  counts[i] = redis.call('INCR', key)
  redis.call('EXPIRE', key, ARGV[i], 'NX')
end
return counts
""")


def _count_in_redis(cache: RedisCache, counters: list[tuple[str, int]]) -> list[int]:
    """:func:`count` in one round trip and one command (:data:`_COUNT`, run by its digest).

    One command, not a pipeline of two for each counter: every message of the push
    channel is counted, and redis-py's writing and reading of four commands took 4 % of
    the web processes' CPU at 32 players (issue 24).
    """
    keys = [cache.make_key(key) for key, _ in counters]
    # Django's RedisCache offers no scripts: take the client its own methods
    # use (``_cache.get_client``, the hook Django keeps for custom clients), so
    # that the cache's location, options and connection pool apply.  All the
    # keys go to the server written first, as Django's own writes do.
    client = cache._cache.get_client(keys[0], write=True)
    replies = _COUNT(client, keys=keys, args=[seconds for _, seconds in counters])
    return [int(n) for n in replies]


# -- failed logins ------------------------------------------------------------------------------
#
# Every way in with a password (HTTP Basic on POST /api/v1/tokens, /accounts/login/,
# the admin's login) goes through django.contrib.auth.authenticate, hence through
# tournaments.logins.ThrottledModelBackend, which calls login_attempt *before* the
# password is hashed: an attempt over a limit costs a cache round trip, not a hash.
# Successful attempts are taken back (LoginAttempt.forgive), so only failures
# spend the limits.  The counters are the fixed windows above.
#
# The limits bound how many hashes an hour a guesser gets; what bounds how many at
# once is the "being checked" mark: one password at a time per account and per
# address (a cache key taken with add before hashing, given back after).  Without
# it 32 guessers from one address hashed 32 passwords at once, within the hourly
# limits, and took both cores of a small server from everyone else (bench/abuse.py,
# docs/benchmarks.md): one at a time, an address costs at most one core.


#: Seconds a "being checked" mark lasts if its process dies before giving it back.
CHECKING_SECONDS = 30


class LoginLockedOut(Exception):
    """Too many failed logins for this account or from this address: wait ``retry_after`` s.

    ``limit`` says which: ``login_address`` (every login from the address is refused) or
    ``login_account`` (every login of the account, from anywhere).
    """

    def __init__(
        self, retry_after: int, message: str | None = None, limit: str = "login_account"
    ) -> None:
        minutes = math.ceil(retry_after / 60)
        self.retry_after = retry_after
        self.limit = limit
        self.message = message or (
            "Too many failed logins for this account or from this address: logins are"
            f" refused for {minutes} more minute{'s' if minutes != 1 else ''}, even with the"
            " right password. Wait, then try again."
        )
        super().__init__(self.message)


class LoginBusy(LoginLockedOut):
    """Another password for this account or from this address is being checked right now
    (``limit``: which of the two)."""

    def __init__(self, limit: str = "login_account") -> None:
        super().__init__(
            1,
            "Another login for this account or from this address is being checked right"
            " now: try again in a moment.",
            limit,
        )


def login_timer() -> float:
    """Now, for the login limits (a function, so that tests can move time)."""
    return time.time()


@dataclass(frozen=True)
class LoginAttempt:
    """An attempt counted by :func:`login_attempt`: its counters' keys and the
    "being checked" marks it holds until :meth:`done`."""

    keys: tuple[str, ...]
    marks: tuple[str, ...] = ()

    def done(self) -> None:
        """The password has been checked: give the marks back (another attempt may go)."""
        _release(self.marks)

    def forgive(self) -> None:
        """The attempt succeeded: take it back from its counters."""
        cache = caches["default"]
        for key in self.keys:
            try:
                cache.decr(key)
            except ValueError:  # its window has ended meanwhile: nothing to take back
                pass
            except Exception as error:  # the cache backend's own, as in RateLimits
                log.warning("login limits: the cache does not answer (%r)", error)
                return


def _release(marks: tuple[str, ...]) -> None:
    if not marks:
        return
    try:
        caches["default"].delete_many(list(marks))
    except Exception as error:  # the cache backend's own; the marks expire by themselves
        log.warning("login limits: the cache does not answer (%r)", error)


def _mark_checking(wanted: list[tuple[str, str, str]]) -> tuple[str, ...]:
    """Take the "being checked" mark of the account and of the address, or raise
    :class:`LoginBusy` (taking none) when another attempt holds one of them."""
    cache = caches["default"]
    taken: list[str] = []
    for _, rate_name, who in wanted:
        key = f"login-checking:{rate_name}:{who}"
        try:
            added = cache.add(key, 1, CHECKING_SECONDS)
        except Exception as error:  # the cache backend's own, as in RateLimits
            log.warning("login limits: the cache does not answer; attempt allowed (%r)", error)
            _release(tuple(taken))
            return ()
        if not added:
            _release(tuple(taken))
            raise LoginBusy(f"login_{rate_name}")
        taken.append(key)
    return tuple(taken)


def login_attempt(request: Any, username: str) -> LoginAttempt:
    """Count one password attempt for ``username`` from ``request``'s address.

    Raises :class:`LoginBusy` while another password for the account, or from the
    address, is being checked (one hash at a time for each), and
    :class:`LoginLockedOut` when a limit of ``PARLOUR_LOGIN_RATES`` is exceeded;
    a busy attempt is counted like any other.  The caller calls :meth:`LoginAttempt.done` once
    the password is checked.  The account is counted whether or not it exists (the
    answer must not tell), by a digest of its case-folded name; ``request`` may be
    ``None`` (a call from a shell): then only the account counts.
    """
    from django.conf import settings

    rates: dict[str, str | None] = settings.PARLOUR_LOGIN_RATES
    account = hashlib.sha256(username.strip().casefold().encode("utf-8")).hexdigest()[:32]
    wanted = [("login-account", "account", account)]
    if request is not None and getattr(request, "META", None) is not None:
        wanted.append(("login-address", "address", str(BaseThrottle().get_ident(request))))
    attempt = _count_attempt(wanted, rates)
    # Counted first: a guess refused as busy spends the limits like any other.
    return LoginAttempt(attempt.keys, _mark_checking(wanted))


def _count_attempt(
    wanted: list[tuple[str, str, str]], rates: dict[str, str | None]
) -> LoginAttempt:
    limits = []
    for scope, rate_name, who in wanted:
        rate = rates.get(rate_name)
        if rate is not None:
            requests, period = parse_rate(rate)
            limits.append(Limit(scope, who, requests, period))
    if not limits:
        return LoginAttempt(())
    now = login_timer()
    counters = [(limit.key(now), limit.period) for limit in limits]
    try:
        counts = count(caches["default"], counters)
    except Exception as error:  # the cache backend's own (redis.ConnectionError, …)
        # As for the request rates: a cache outage must not stop every login.
        log.warning("login limits: the cache does not answer; attempt allowed (%r)", error)
        return LoginAttempt(())
    over = [limit for limit, n in zip(limits, counts, strict=True) if n > limit.requests]
    if over:
        # The address's lockout is the wider one (every account from it): named first.
        which = min(over, key=lambda limit: limit.scope != "login-address")
        raise LoginLockedOut(
            max(limit.seconds_left(now) for limit in over),
            limit=which.scope.replace("-", "_"),
        )
    return LoginAttempt(tuple(key for key, _ in counters))
