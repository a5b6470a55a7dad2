"""Clubs and their players; the link of a player to a login, and its audit trail."""

from __future__ import annotations

import secrets
from collections.abc import Iterable

from django.conf import settings
from django.contrib.auth.models import User
from django.contrib.auth.password_validation import validate_password
from django.contrib.auth.validators import UnicodeUsernameValidator
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.utils.text import slugify
from django.utils.translation import gettext

from engine.bots import bot_levels
from engine.contract import said
from engine.registry import all_games
from tournaments import sql
from tournaments.models import AccountLanguage, Club, LoginLinkChange, Player
from tournaments.services.base import (
    ServiceError,
    refuse_mixed_scripts,
    refuse_taken_name,
    same_name_taken,
    written_name,
)


def create_club(name: str, *, slug: str | None = None, organisers: Iterable[User] = ()) -> Club:
    """A new club; ``slug`` defaults to the name slugified."""
    name = written_name(name)
    if not name:
        raise ServiceError(gettext("a club needs a name"), "name")
    slug = slugify(slug if slug is not None else name)[:60]
    if not slug:
        raise ServiceError(
            gettext("cannot make a slug of %(name)s: give one with letters") % {"name": said(name)},
            "slug",
        )
    with transaction.atomic():
        sql.lock_club_creation()  # after a first run deciding the install was empty
        if Club.objects.filter(slug=slug).exists():
            raise ServiceError(
                gettext("a club with the slug %(slug)s exists already") % {"slug": said(slug)},
                "slug",
            )
        club = Club.objects.create(name=name, slug=slug)
        club.organisers.add(*organisers)
    return club


def known_bot_levels() -> set[str]:
    """Every bot level some game has."""
    return {level for game in all_games() for level in bot_levels(game.id)}


def add_player(
    club: Club,
    name: str,
    *,
    user: User | None = None,
    bot_level: str = "",
    by: User | None = None,
) -> Player:
    """A new player of ``club``: a person (optionally with a login) or a bot of ``bot_level``.

    A login given is the first entry of :class:`LoginLinkChange` (``by`` who asked).
    """
    name = written_name(name)
    if not name:
        raise ServiceError(gettext("a player needs a name"), "name")
    refuse_mixed_scripts(name)
    if bot_level and bot_level not in known_bot_levels():
        raise ServiceError(
            gettext("there is no bot level %(bot_level)s; known: %(value)s")
            % {"bot_level": said(bot_level), "value": ", ".join(sorted(known_bot_levels()))},
            "bot",
        )
    if bot_level and user is not None:
        raise ServiceError(gettext("a bot cannot be linked to a login"), "user")
    with transaction.atomic():
        sql.lock_player_names(club.pk)  # first of the transaction's locks: see its docstring
        refuse_taken_name(club, name)
        if user is not None and Player.objects.filter(club=club, user=user).exists():
            raise ServiceError(
                gettext("the login %(user)s already plays in %(club)s")
                % {"user": said(user.get_username()), "club": club},
                "user",
            )
        player = Player.objects.create(club=club, name=name, user=user, bot_level=bot_level)
        if user is not None:
            _log_login_change(player, None, user, by)
        return player


def link_login(player: Player, user: User | None, *, by: User | None = None) -> Player:
    """Make ``user`` (``None``: no login) the login that plays as ``player``; logged.

    The one way a player's login changes (the admin and the API call it).  Refused
    while the player holds a seat at a table in play: whoever the login is would
    see that seat's hand and act for it (an organiser relinking a seated player to
    themselves, issue 17).  ``by`` is who asks, kept in :class:`LoginLinkChange`.
    """
    with transaction.atomic():
        locked = Player.objects.select_for_update().get(pk=player.pk)
        old_user = locked.user
        if (old_user.pk if old_user else None) == (user.pk if user else None):
            return locked
        if user is not None and locked.is_bot:
            raise ServiceError(gettext("a bot cannot be linked to a login"), "user")
        if (
            user is not None
            and Player.objects.filter(club_id=locked.club_id, user=user)
            .exclude(pk=locked.pk)
            .exists()
        ):
            raise ServiceError(
                gettext("the login %(user)s already plays in %(club)s")
                % {"user": said(user.get_username()), "club": locked.club},
                "user",
            )
        table = locked.table_in_play()
        if table is not None:
            raise ServiceError(
                gettext(
                    "%(locked)s holds a seat at %(table)s: their login can change "
                    "once that table has finished"
                )
                % {"locked": locked.name, "table": table},
                "user",
            )
        locked.user = user
        locked.save(update_fields=["user"])
        _log_login_change(locked, old_user, user, by)
    player.user = user
    return locked


def _log_login_change(
    player: Player, old_user: User | None, new_user: User | None, by: User | None
) -> None:
    LoginLinkChange.objects.create(
        club_id=player.club_id,
        player=player,
        old_user=old_user,
        new_user=new_user,
        old_username=old_user.get_username() if old_user else "",
        new_username=new_user.get_username() if new_user else "",
        changed_by=by,
        changed_by_username=by.get_username() if by else "",
    )


def plays_forced_moves(user: User) -> bool:
    """Whether the server plays ``user``'s forced moves (on unless they turned it off)."""
    return not Player.objects.filter(user=user, play_forced_moves=False).exists()


def set_play_forced_moves(user: User, on: bool) -> bool:
    """Turn on or off, for every player of ``user``, the server playing their forced moves.

    Forced moves are the ones that cannot change the game (every Give Away
    move; a seat with one legal action).  Takes effect from the next move.
    """
    if not isinstance(on, bool):
        raise ServiceError(
            gettext("play_forced_moves is true or false, not %(on)s") % {"on": said(on)},
            "play_forced_moves",
        )
    with transaction.atomic():
        if not Player.objects.filter(user=user).exists():
            raise ServiceError(
                gettext("your login plays for no club yet: there are no moves to play for you"),
                "play_forced_moves",
            )
        Player.objects.filter(user=user).update(play_forced_moves=on)
    return on


# -- from nothing to a club (issue 20) -------------------------------------------------------

#: Length in bytes of a generated password and of a sign-up link's secret.
_SECRET_BYTES = 9


def needs_first_run() -> bool:
    """Whether the install is empty: no club, and no superuser or organiser to make one."""
    return (
        not Club.objects.exists()
        and not User.objects.filter(is_superuser=True).exists()
        and not User.objects.filter(organised_clubs__isnull=False).exists()
    )


def _check_password(password: str, user: User | None = None) -> None:
    try:
        validate_password(password, user)
    except ValidationError as error:
        raise ServiceError(" ".join(error.messages), "password") from error


def _new_login(username: str, password: str, email: str = "") -> User:
    """A new login (in the caller's transaction); the password must pass the validators."""
    username = (username or "").strip()
    if not username:
        raise ServiceError(gettext("a login needs a user name"), "username")
    try:
        UnicodeUsernameValidator()(username)
    except ValidationError:
        raise ServiceError(
            gettext("%(username)s cannot be a user name: use letters, digits and @ . + - _ only")
            % {"username": said(username)},
            "username",
        ) from None
    if len(username) > 150:
        raise ServiceError(gettext("a user name has at most 150 characters"), "username")
    if User.objects.filter(username__iexact=username).exists():
        raise ServiceError(
            gettext("the user name %(username)s is taken: choose another")
            % {"username": said(username)},
            "username",
        )
    _check_password(password, User(username=username, email=email))
    try:
        with transaction.atomic():  # a savepoint: the caller's transaction goes on
            return User.objects.create_user(username, email=email, password=password)
    except IntegrityError:
        # Made at the same moment by another transaction (in another club: the names'
        # lock is per club), which the look-up above could not see yet (found by review:
        # it was a 500).
        raise ServiceError(
            gettext("the user name %(username)s is taken: choose another")
            % {"username": said(username)},
            "username",
        ) from None


def create_club_with_organiser(
    name: str, username: str, password: str, *, email: str = ""
) -> tuple[Club, User]:
    """A new club and its first organiser: a new login, or an existing one made organiser.

    An existing login keeps its password (``password`` is then not used).
    """
    with transaction.atomic():
        user = User.objects.filter(username=username).first()
        if user is None:
            user = _new_login(username, password, email)
        club = create_club(name, organisers=[user])
    return club, user


def first_run(name: str, username: str, password: str, *, email: str = "") -> tuple[Club, User]:
    """The first-run page: the install's first club and its first organiser login.

    Refused once the install has a club, a superuser or an organiser (they set up the rest).
    Serialised with every other creation of a club (:func:`tournaments.sql.lock_club_creation`):
    of two first runs at once, or a first run and ``manage.py create_club``, the one that
    comes second sees the club of the first and, if it is a first run, is refused.
    """
    with transaction.atomic():
        sql.lock_club_creation()
        if not needs_first_run():
            raise ServiceError(
                gettext("this install is set up already: log in, or ask an organiser for a login")
            )
        if User.objects.filter(username__iexact=(username or "").strip()).exists():
            raise ServiceError(
                gettext("the user name %(username)s is taken: choose another")
                % {"username": said(username)},
                "username",
            )
        return create_club_with_organiser(name, username, password, email=email)


def generate_password() -> str:
    """A password to hand out on paper: URL-safe letters and digits, 12 characters."""
    return secrets.token_urlsafe(_SECRET_BYTES)


def add_player_with_login(
    club: Club, name: str, username: str, *, password: str = "", by: User | None = None
) -> tuple[Player, str]:
    """A new person of ``club`` with a new login; returns the player and the password.

    Without ``password`` one is generated, to be shown once and handed to the player.
    """
    chosen = password or generate_password()
    with transaction.atomic():
        # The names' lock before the new login's row, as the sign-up takes them: a login
        # inserted first waited for the lock while the sign-up, holding it, waited to
        # insert the same username (a deadlock, where one should be told it is taken).
        sql.lock_player_names(club.pk)
        user = _new_login(username, chosen)
        player = add_player(club, name, user=user, by=by)
    return player, chosen


def renew_signup_link(club: Club) -> str:
    """Turn on the club's sign-up link with a new secret (the old link stops working)."""
    token = secrets.token_urlsafe(_SECRET_BYTES * 2)
    with transaction.atomic():
        Club.objects.filter(pk=club.pk).update(signup_token=token)
    club.signup_token = token
    return token


def close_signup_link(club: Club) -> None:
    """Turn off the club's sign-up link."""
    with transaction.atomic():
        Club.objects.filter(pk=club.pk).update(signup_token="")
    club.signup_token = ""


def _language(code: str, *, blank: bool) -> str:
    codes = dict(settings.LANGUAGES)
    if code in codes or (blank and code == ""):
        return code
    raise ServiceError(
        gettext("there is no language %(code)s: choose one of %(codes)s")
        % {"code": said(code), "codes": ", ".join(codes)},
        "language",
    )


def set_club_language(club: Club, language: str) -> None:
    """The language of the club's pages and members when nobody chose one and the browser
    asks for none we have (docs/i18n.md); ``""``: no default of the club's."""
    language = _language(language, blank=True)
    with transaction.atomic():
        Club.objects.filter(pk=club.pk).update(language=language)
    club.language = language


def remember_language(user: User, language: str) -> None:
    """Keep the language a login chose with the switcher, for their other devices."""
    language = _language(language, blank=False)
    with transaction.atomic():
        AccountLanguage.objects.update_or_create(user=user, defaults={"language": language})


def club_of_signup_link(token: str) -> Club | None:
    """The club whose sign-up link has the secret ``token``; ``None`` if the link is off."""
    if not token:
        return None
    return Club.objects.filter(signup_token=token).first()


def sign_up(token: str, name: str, username: str, password: str) -> Player:
    """A person opening a club's sign-up link makes their own login and player in the club."""
    with transaction.atomic():
        club = Club.objects.filter(signup_token=token).first() if token else None
        if club is not None:
            # The names' lock before the club's row, in the order add_player takes them
            # (its insert waits for the row): the other order deadlocked with it.
            sql.lock_player_names(club.pk)
            club = Club.objects.select_for_update().filter(pk=club.pk, signup_token=token).first()
        if club is None:
            raise ServiceError(
                gettext(
                    "this sign-up link is off or has been renewed: ask the "
                    "organiser for the new one"
                )
            )
        taken = same_name_taken(club, written_name(name)) if written_name(name) else None
        if taken is not None:
            raise ServiceError(
                gettext("%(club)s already has a player called %(strip)s: add your surname")
                % {"club": club, "strip": said(taken)},
                "name",
            )
        user = _new_login(username, password)
        return add_player(club, name, user=user, by=user)


def add_organiser(club: Club, user: User, *, by: User | None = None) -> User:
    """Make ``user`` — a login that plays in ``club`` — one of its organisers."""
    with transaction.atomic():
        if not Player.objects.filter(club=club, user=user).exists():
            raise ServiceError(
                gettext(
                    "the login %(user)s plays for no one in %(club)s: add them as "
                    "a player of the club first"
                )
                % {"user": said(user.get_username()), "club": club},
                "user",
            )
        club.organisers.add(user)
    return user


def remove_organiser(club: Club, user: User, *, by: User | None = None) -> User:
    """``user`` no longer organises ``club``; the club keeps at least one organiser."""
    with transaction.atomic():
        locked = Club.objects.select_for_update().get(pk=club.pk)
        check_removal(locked, user)
        locked.organisers.remove(user)
    return user


def check_removal(club: Club, user: User) -> None:
    """Refuse (:class:`ServiceError`) to remove ``user`` from ``club``'s organisers when
    they are not one or the only one: what :func:`remove_organiser` asks, and the page's
    confirmation before it."""
    organisers = set(club.organisers.values_list("pk", flat=True))
    if user.pk not in organisers:
        raise ServiceError(
            gettext("%(user)s does not organise %(club)s")
            % {"user": user.get_username(), "club": club},
            "user",
        )
    if organisers == {user.pk}:
        raise ServiceError(
            gettext("%(user)s is the only organiser of %(club)s: add another first")
            % {"user": user.get_username(), "club": club},
            "user",
        )
