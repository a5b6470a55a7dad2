"""Who may see and do what through the API.

* **The public** reads clubs, players, tournaments, rounds, tables, standings,
  ratings and finished games, and watches a running *tournament* game as a
  spectator (no hidden card of any seat).
* **A seated player** sees their own seat's view of a running game (their
  hidden cards, no one else's) and acts for that seat only.  Which seat is a
  caller's: the game's context names each seat's player, and that player's
  ``user`` is the login; a login holds at most one seat per game.
* **Organisers** (``Club.organisers``, or a superuser) manage their club's
  tournaments and players; in a running game they see what a spectator sees.

The organiser check and the visibility rule are those of every caller
(:mod:`tournaments.services.access`); this module says them in DRF's words.
Something a caller may not see answers 404, exactly as if it did not exist
(a running game outside any tournament is seen only by its seated players
and superusers; another user's token by nobody else).
"""

from __future__ import annotations

from dataclasses import dataclass

from django.contrib.auth.models import User
from rest_framework.exceptions import NotAuthenticated, NotFound
from rest_framework.request import Request

from tournaments.api.problems import Forbidden
from tournaments.models import Club, Game, Player
from tournaments.play import Viewer, game_row
from tournaments.services.access import (
    game_club_id,
    is_organiser,
    may_see_game,
    organised_club_ids,
    organises,
    seat_of,
    seat_player_ids,
)

__all__ = [
    "GameAccess",
    "game_access",
    "game_club_id",
    "organised_club_ids",
    "require_organiser",
    "require_self_or_organiser",
    "seat_of",
    "seat_player_ids",
    "signed_in",
]


def signed_in(request: Request) -> User:
    """The caller's login; 401 (not authenticated) without one."""
    user = request.user
    if user is None or not user.is_authenticated:
        raise NotAuthenticated("sign in: send 'Authorization: Bearer <key>' with your token")
    assert isinstance(user, User)
    return user


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
    organiser = organises(organised_club_ids(user), club)
    if not may_see_game(user, game, seated=False, club_id=club):
        raise NotFound(f"there is no game {game_id}")
    return GameAccess(game, seat, organiser)
