"""Request rates, per client address and per token (or logged-in user).

Three throttles, all counted in the default cache (Redis in production, so
every web process shares the counts):

* ``address``: every request, by client address (``PARLOUR_API_RATE_ADDRESS``);
* ``anon``: requests without authentication, by address (``PARLOUR_API_RATE_ANON``);
* ``token``: authenticated requests, by token, or by user for a browser
  session (``PARLOUR_API_RATE_TOKEN``).

A request over a rate gets a 429 problem with ``Retry-After``.  Behind a
proxy set ``PARLOUR_NUM_PROXIES`` so the address is the client's, not the proxy's.
"""

from __future__ import annotations

import logging
from typing import Any

from rest_framework.request import Request
from rest_framework.settings import api_settings
from rest_framework.throttling import SimpleRateThrottle

from tournaments.models import ApiToken

log = logging.getLogger(__name__)


class _Throttle(SimpleRateThrottle):
    def allow_request(self, request: Request, view: Any) -> bool:
        # The counts live in the cache (Redis in production).  A cache outage
        # must not become an API outage: nothing else a request does needs the
        # cache, so while it is down the throttles let requests through.
        try:
            return bool(super().allow_request(request, view))
        except Exception:  # the cache backend's own errors (redis.ConnectionError, …)
            log.warning("throttle %s: the cache does not answer; request allowed", self.scope)
            return True

    def get_rate(self) -> str | None:
        # Read the settings now, not at import, so a changed setting takes effect.
        rates: dict[str, str | None] = api_settings.DEFAULT_THROTTLE_RATES
        return rates.get(str(self.scope))


class AddressThrottle(_Throttle):
    scope = "address"

    def get_cache_key(self, request: Request, view: Any) -> str | None:
        return self.cache_format % {"scope": self.scope, "ident": self.get_ident(request)}


class AnonymousThrottle(_Throttle):
    scope = "anon"

    def get_cache_key(self, request: Request, view: Any) -> str | None:
        if request.user and request.user.is_authenticated:
            return None
        return self.cache_format % {"scope": self.scope, "ident": self.get_ident(request)}


class TokenThrottle(_Throttle):
    scope = "token"

    def get_cache_key(self, request: Request, view: Any) -> str | None:
        if not (request.user and request.user.is_authenticated):
            return None
        auth = request.auth
        ident = f"t{auth.pk}" if isinstance(auth, ApiToken) else f"u{request.user.pk}"
        return self.cache_format % {"scope": self.scope, "ident": ident}
