"""Who may see and do what through the API.

* **The public** reads clubs, players, tournaments, rounds, tables, standings,
  ratings and finished games, and watches a running *tournament* game as a
  spectator (no hidden card of any seat).
* **A seated player** sees their own seat's view of a running game (their
  hidden cards, no one else's) and acts for that seat only.  Which seat is a
  caller's: ``Game.context["seats"][i]["player"]`` is a player id, and that
  player's ``user`` is the login; a login holds at most one seat per game.
* **Organisers** (``Club.organisers``, or a superuser) manage their club's
  tournaments and players; in a running game they see what a spectator sees.

Something a caller may not see answers 404, exactly as if it did not exist
(a running game outside any tournament is seen only by its seated players
and superusers; another user's token by nobody else).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.contrib.auth.models import AnonymousUser, User
from django.db import connection
from rest_framework.exceptions import NotAuthenticated, NotFound
from rest_framework.request import Request

from tournaments.api.problems import Forbidden
from tournaments.games import Viewer, game_row
from tournaments.models import Club, Game, Player, Tournament
from tournaments.services import is_organiser


def signed_in(request: Request) -> User:
    """The caller's login; 401 (not authenticated) without one."""
    user = request.user
    if user is None or not user.is_authenticated:
        raise NotAuthenticated("sign in: send 'Authorization: Bearer <key>' with your token")
    assert isinstance(user, User)
    return user


def organised_club_ids(user: User | AnonymousUser) -> set[int] | None:
    """The clubs ``user`` organises (``None``: every club, for a superuser)."""
    if not user.is_authenticated or not user.is_active:
        return set()
    if getattr(user, "is_superuser", False):
        return None
    return set(Club.objects.filter(organisers=user).values_list("pk", flat=True))


def require_organiser(request: Request, club: Club) -> User:
    """The caller, who must organise ``club`` (403 otherwise, 401 if anonymous)."""
    user = signed_in(request)
    if not is_organiser(user, club):
        raise Forbidden(f"only the organisers of {club.name} may do this")
    return user


def require_self_or_organiser(request: Request, player: Player) -> User:
    """The caller, who must be ``player``'s login or organise ``player``'s club."""
    user = signed_in(request)
    if player.user_id == user.pk or is_organiser(user, player.club):
        return user
    raise Forbidden(
        f"you may do this for your own player only, not for {player.name}"
        f" (or ask an organiser of {player.club.name})",
        "player",
    )


def seat_player_ids(game: Game) -> list[Any]:
    """The player id of each seat, from the game's context (``None`` where unknown)."""
    seats = (game.context or {}).get("seats") if isinstance(game.context, dict) else None
    if not isinstance(seats, list):
        return []
    return [entry.get("player") if isinstance(entry, dict) else None for entry in seats]


def seat_of(user: User | AnonymousUser, game: Game) -> int | None:
    """The seat ``user`` holds in ``game`` (the lowest, should the data name two), or ``None``."""
    if not user.is_authenticated:
        return None
    ids = seat_player_ids(game)
    wanted = [pid for pid in ids if isinstance(pid, int) and not isinstance(pid, bool)]
    if not wanted:
        return None
    # Hand-written, as games.game_row: every seated request asks this.
    marks = ", ".join(["%s"] * len(wanted))
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT id FROM {Player._meta.db_table} WHERE user_id = %s AND id IN ({marks})",
            [user.pk, *wanted],
        )
        mine = {pid for (pid,) in cursor.fetchall()}
    for seat, pid in enumerate(ids):
        if pid in mine and seat < game.seats:
            return seat
    return None


def game_club_id(game: Game) -> int | None:
    """The club of the tournament ``game`` belongs to (``None``: a standalone game)."""
    context = game.context if isinstance(game.context, dict) else {}
    tournament = context.get("tournament")
    if not isinstance(tournament, int) or isinstance(tournament, bool):
        return None
    club: int | None = (
        Tournament.objects.filter(pk=tournament).values_list("club_id", flat=True).first()
    )
    return club


@dataclass(frozen=True)
class GameAccess:
    """What the caller is to a game: their seat (if any) and, without one, whether they
    organise it (``organiser`` is ``False`` for a seated caller: their seat's view wins)."""

    game: Game
    seat: int | None
    organiser: bool

    @property
    def viewer(self) -> Viewer:
        """Who the game service shows the game to."""
        if self.seat is not None:
            return self.seat
        return "organiser" if self.organiser else None

    @property
    def role(self) -> str:
        if self.seat is not None:
            return "seat"
        return "organiser" if self.organiser else "spectator"


def game_access(request: Request, game_id: int) -> GameAccess:
    """The caller's access to game ``game_id``; 404 if there is none or they may not see it.

    Every action and most reads of a seated player come through here, so a
    seated caller costs two queries (the game, their seat): a seat sees its own
    view whether or not the caller also organises the club, so the club is
    looked up only for callers without a seat.
    """
    game = game_row(game_id)
    if game is None:
        raise NotFound(f"there is no game {game_id}")
    user = request.user
    seat = seat_of(user, game)
    if seat is not None:
        return GameAccess(game, seat, organiser=False)
    club = game_club_id(game)
    clubs = organised_club_ids(user)
    organiser = clubs is None or (club is not None and club in clubs)
    visible = game.is_over or club is not None or organiser
    if not visible:
        raise NotFound(f"there is no game {game_id}")
    return GameAccess(game, seat, organiser)
