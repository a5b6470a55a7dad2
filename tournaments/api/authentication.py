"""Personal API tokens: ``Authorization: Bearer <key>``.

A token's key is shown once, when it is created; the database keeps only its
SHA-256 (:attr:`ApiToken.key_hash`) and its first characters (``prefix``) to
tell tokens apart.  A revoked token (``revoked_at`` set) no longer
authenticates.  Browsers use the session instead (DRF's
``SessionAuthentication``, CSRF checked); the token endpoint also takes HTTP
Basic authentication so that a script can get its first token with the
player's password.
"""

from __future__ import annotations

import hashlib
import secrets
from datetime import datetime, timedelta
from typing import Any

from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext
from drf_spectacular.extensions import OpenApiAuthenticationExtension
from rest_framework import exceptions
from rest_framework.authentication import (
    BaseAuthentication,
    BasicAuthentication,
    get_authorization_header,
)
from rest_framework.request import Request

from tournaments import sql
from tournaments.api.problems import TooManyLogins
from tournaments.api.throttling import LoginLockedOut
from tournaments.models import ApiToken

#: Every key starts with this, so a leaked key is easy to recognise (and to scan for).
KEY_PREFIX = "prl_"
#: Characters of the key kept in clear to tell tokens apart.
PREFIX_LENGTH = 12
#: ``last_used_at`` is written at most this often per token.
TOUCH_EVERY = timedelta(minutes=1)


def hash_key(key: str) -> str:
    """The SHA-256 (hex) of ``key``: what the database stores."""
    return hashlib.sha256(key.encode("utf-8")).hexdigest()


def create_token(user: User, name: str = "") -> tuple[ApiToken, str]:
    """A new token of ``user`` and its key (the only time the key is known)."""
    key = KEY_PREFIX + secrets.token_urlsafe(32)
    with transaction.atomic():
        token = ApiToken.objects.create(
            user=user, name=name, prefix=key[:PREFIX_LENGTH], key_hash=hash_key(key)
        )
    return token, key


def revoke_token(token: ApiToken) -> ApiToken:
    """Revoke ``token`` (again: nothing changes)."""
    if token.revoked_at is None:
        token.revoked_at = timezone.now()
        token.save(update_fields=["revoked_at"])
    return token


def _token_owner(key_hash: str, now: datetime) -> tuple[User, ApiToken, bool] | None:
    """The active user of the live token with ``key_hash``, the token, and whether its
    ``last_used_at`` is older than :data:`TOUCH_EVERY`; ``None`` if there is no such token.

    Every API request with a token comes through here, so it is one hand-written
    query: the ORM's compiling of the equivalent ``select_related`` query cost
    more CPU than the rest of the authentication (bench/floor.py, docs/benchmarks.md).
    The token comes back with only its id and user loaded (the rest is deferred).
    """
    return sql.token_owner(key_hash, now - TOUCH_EVERY)


class BearerTokenAuthentication(BaseAuthentication):
    """``Authorization: Bearer <key>`` with a personal token; ``request.auth`` is the token."""

    keyword = "bearer"

    def authenticate(self, request: Request) -> tuple[User, ApiToken] | None:
        parts = get_authorization_header(request).split()
        if not parts or parts[0].lower() != self.keyword.encode():
            return None
        if len(parts) != 2:
            raise exceptions.AuthenticationFailed(
                gettext("write the header as 'Authorization: Bearer <key>' (one key, no spaces)")
            )
        try:
            key = parts[1].decode("ascii")
        except UnicodeDecodeError:
            raise exceptions.AuthenticationFailed(gettext("a token key is plain ASCII")) from None
        now = timezone.now()
        found = _token_owner(hash_key(key), now)
        if found is None:
            raise exceptions.AuthenticationFailed(
                gettext("this token is unknown or revoked: create a new one (POST /api/v1/tokens)")
            )
        user, token, stale = found
        if stale:
            ApiToken.objects.filter(pk=token.pk).update(last_used_at=now)
        return user, token

    def authenticate_header(self, request: Request) -> str:
        return 'Bearer realm="api"'


class ThrottledBasicAuthentication(BasicAuthentication):
    """HTTP Basic (the token endpoint's), a 429 problem with ``Retry-After`` when locked out.

    The limits themselves are counted by the authentication backend
    (tournaments/logins.py) before the password is hashed.
    """

    def authenticate_credentials(
        self, userid: str, password: str, request: Request | None = None
    ) -> tuple[Any, None]:
        try:
            return super().authenticate_credentials(userid, password, request)
        except LoginLockedOut as locked:
            raise TooManyLogins(locked.retry_after, locked.message, locked.limit) from None


# drf-spectacular's extension classes are unannotated (here and below).
class BearerTokenScheme(OpenApiAuthenticationExtension):  # type: ignore[no-untyped-call]
    """The token scheme in the OpenAPI document."""

    target_class = "tournaments.api.authentication.BearerTokenAuthentication"
    name = "bearerAuth"

    def get_security_definition(self, auto_schema: Any) -> dict[str, str]:
        return {
            "type": "http",
            "scheme": "bearer",
            "description": "A personal token: POST /api/v1/tokens shows its key once.",
        }


class ThrottledBasicScheme(OpenApiAuthenticationExtension):  # type: ignore[no-untyped-call]
    """HTTP Basic in the OpenAPI document, as DRF's own BasicAuthentication is shown."""

    target_class = "tournaments.api.authentication.ThrottledBasicAuthentication"
    name = "basicAuth"

    def get_security_definition(self, auto_schema: Any) -> dict[str, str]:
        return {"type": "http", "scheme": "basic"}
