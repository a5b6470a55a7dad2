"""Which language a request gets (docs/i18n.md "Which language a request gets").

A page: the person's choice (the switcher's ``django_language`` cookie in this browser,
else the choice kept on their login, so that it follows them to another device), then
the browser's ``Accept-Language``, then the club's default (the club whose page it is,
else a signed-in member's club), then ``LANGUAGE_CODE``.  The API is for programs: only
``Accept-Language`` counts there, English when it names no language of ours — never a
cookie or a login's choice, which a program did not make.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.http import HttpRequest
from django.middleware.locale import LocaleMiddleware
from django.urls import Resolver404, resolve
from django.utils import translation
from django.utils.translation.trans_real import language_code_re, parse_accept_lang_header

from tournaments.api.problems import is_api
from tournaments.models import AccountLanguage, Club, Game, Player, Table, Tournament

#: The API's language when ``Accept-Language`` names none of ours (docs/api.md).
API_DEFAULT = "en"


def supported(code: str | None) -> str | None:
    """``code`` as one of ``settings.LANGUAGES`` (``ru-RU`` → ``ru``), or ``None``."""
    if not code or not language_code_re.search(code):
        return None
    try:
        return translation.get_supported_language_variant(code)
    except LookupError:
        return None


def accepted_language(request: HttpRequest) -> str | None:
    """The first language of ours the browser's ``Accept-Language`` asks for, if any."""
    return accepted_in(request.headers.get("Accept-Language", ""))


def accepted_in(header: str) -> str | None:
    """The first language of ours an ``Accept-Language`` header's value asks for, if any."""
    for code, _quality in parse_accept_lang_header(header):
        if code == "*":
            break
        if (found := supported(code)) is not None:
            return found
    return None


def chosen_language(request: HttpRequest) -> str | None:
    """The person's own choice: this browser's cookie, else the one kept on their login."""
    if (found := supported(request.COOKIES.get(settings.LANGUAGE_COOKIE_NAME))) is not None:
        return found
    user = getattr(request, "user", None)
    if user is not None and user.is_authenticated:
        kept = AccountLanguage.objects.filter(user=user).values_list("language", flat=True)
        return supported(kept.first())
    return None


#: A page's club, from its URL's arguments (tournaments/urls.py): the model the argument
#: names and the path from it to the club's language.
_CLUB_OF: dict[str, tuple[type[models.Model], str, str]] = {
    "slug": (Club, "slug", "language"),
    "token": (Club, "signup_token", "language"),
    "tournament_id": (Tournament, "pk", "club__language"),
    "table_id": (Table, "pk", "round__tournament__club__language"),
    "game_id": (Game, "pk", "table__round__tournament__club__language"),
    "player_id": (Player, "pk", "club__language"),
}


def _page_club_language(arguments: dict[str, object]) -> str | None:
    for argument, value in arguments.items():
        if argument in _CLUB_OF and value:
            model, key, path = _CLUB_OF[argument]
            rows = model._default_manager.filter(**{key: value}).values_list(path, flat=True)
            if (found := supported(rows.first())) is not None:
                return found
    return None


def club_language(request: HttpRequest) -> str | None:
    """The default of the club whose page this is, else of a signed-in member's club."""
    try:
        match = resolve(request.path_info)
    except Resolver404:
        match = None
    if match is not None and (found := _page_club_language(match.kwargs)) is not None:
        return found
    user = getattr(request, "user", None)
    if user is not None and user.is_authenticated:
        clubs = Player.objects.filter(user=user).exclude(club__language="").order_by("club__name")
        return supported(clubs.values_list("club__language", flat=True).first())
    return None


def language_of(request: HttpRequest) -> str:
    if is_api(request):
        return accepted_language(request) or API_DEFAULT
    return (
        chosen_language(request)
        or accepted_language(request)
        or club_language(request)
        or settings.LANGUAGE_CODE
    )


class LanguageMiddleware(LocaleMiddleware):
    """Django's ``LocaleMiddleware`` with Parlour's order (:func:`language_of`).

    After ``AuthenticationMiddleware``: a login's kept choice and club count.  Parlour
    has no language prefix in its URLs, so nothing of the parent's path handling is lost;
    its ``process_response`` still sets ``Content-Language`` and ``Vary``.
    """

    def process_request(self, request: HttpRequest) -> None:
        translation.activate(language_of(request))
        request.LANGUAGE_CODE = translation.get_language()
