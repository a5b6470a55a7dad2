"""Password logins, throttled per account and per address on every way in.

:class:`ThrottledModelBackend` is the one authentication backend
(``AUTHENTICATION_BACKENDS``): the API's HTTP Basic on ``POST /api/v1/tokens``,
``/accounts/login/`` and the admin's login all call
``django.contrib.auth.authenticate``, which comes here.  Each attempt is
counted (:func:`tournaments.api.throttling.login_attempt`) before the password
is hashed, so a guesser over the limits costs a cache round trip, not a hash;
a successful attempt is taken back.  One password at a time is hashed for each
account and each address (:class:`tournaments.api.throttling.LoginBusy`, a 429
with ``Retry-After: 1`` or the form's message, for an attempt while another is
being checked), so parallel guessers cannot take every core.  Over a limit, :class:`LoginLockedOut`
propagates out of ``authenticate``: the API answers a 429 problem with
``Retry-After`` (:class:`tournaments.api.authentication.ThrottledBasicAuthentication`),
the login forms here show its message.  The lockout ends with its window.
"""

from __future__ import annotations

import math
from typing import Any

from django import forms
from django.contrib.admin.forms import AdminAuthenticationForm
from django.contrib.auth import get_user_model
from django.contrib.auth.backends import ModelBackend
from django.contrib.auth.forms import AuthenticationForm
from django.contrib.auth.models import User
from django.http import HttpRequest
from django.utils.translation import gettext, ngettext

from tournaments.api.throttling import LoginBusy, LoginLockedOut, login_attempt


class ThrottledModelBackend(ModelBackend):
    """Django's username and password backend, with the login limits counted first."""

    def authenticate(
        self,
        request: HttpRequest | None,
        username: str | None = None,
        password: str | None = None,
        **kwargs: Any,
    ) -> User | None:
        if username is None:
            username = kwargs.get(get_user_model().USERNAME_FIELD)
        if username is None or password is None:
            return None
        attempt = login_attempt(request, str(username))
        try:
            user = super().authenticate(request, username, password, **kwargs)
        finally:
            attempt.done()
        if user is not None:
            attempt.forgive()
        return user


class _LockoutMessage:
    """A login form whose lockout is a form error (its message), not a crash."""

    def clean(self) -> dict[str, Any]:
        try:
            # A mixin: the form class it is mixed into has clean(); mypy sees object.
            return super().clean()  # type: ignore[misc, no-any-return]
        except LoginLockedOut as locked:
            raise forms.ValidationError(lockout_message(locked), code="locked_out") from None


def lockout_message(locked: LoginLockedOut) -> str:
    """The refusal in the reader's language (the exception's own message is the API's)."""
    if isinstance(locked, LoginBusy):
        return gettext(
            "Another login for this account or from this address is being checked right"
            " now: try again in a moment."
        )
    minutes = math.ceil(locked.retry_after / 60)
    return ngettext(
        "Too many failed logins for this account or from this address: logins are"
        " refused for %(minutes)d more minute, even with the right password. Wait, then"
        " try again.",
        "Too many failed logins for this account or from this address: logins are"
        " refused for %(minutes)d more minutes, even with the right password. Wait, then"
        " try again.",
        minutes,
    ) % {"minutes": minutes}


class ThrottledAuthenticationForm(_LockoutMessage, AuthenticationForm):
    """``/accounts/login/``'s form."""


class ThrottledAdminAuthenticationForm(_LockoutMessage, AdminAuthenticationForm):
    """The admin's login form (``admin.site.login_form``)."""
