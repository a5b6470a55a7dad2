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

from django.contrib.auth.models import User
from django.utils.translation import gettext
from rest_framework.exceptions import NotAuthenticated, NotFound
from rest_framework.request import Request

from tournaments.api.problems import Forbidden
from tournaments.models import Club, Player
from tournaments.play import game_row
from tournaments.services.access import (
    GameAccess,
    game_club_id,
    hidden_twin,
    is_organiser,
    organised_club_ids,
    seat_of,
    seat_player_ids,
)
from tournaments.services.access import game_access as access_to

# The access rules themselves are tournaments.services.access' (one for the pages, the
# API and the workers): re-exported here for the API's modules.
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
        raise NotAuthenticated(
            gettext("sign in: send 'Authorization: Bearer <key>' with your token")
        )
    assert isinstance(user, User)
    return user


def require_organiser(request: Request, club: Club) -> User:
    """The caller, who must organise ``club`` (403 otherwise, 401 if anonymous)."""
    user = signed_in(request)
    if not is_organiser(user, club):
        raise Forbidden(
            gettext("only the organisers of %(club)s may do this") % {"club": club.name}
        )
    return user


def require_self_or_organiser(request: Request, player: Player) -> User:
    """The caller, who must be ``player``'s login or organise ``player``'s club."""
    user = signed_in(request)
    if player.user_id == user.pk or is_organiser(user, player.club):
        return user
    raise Forbidden(
        gettext(
            "you may do this for your own player only, not for %(player)s"
            " (or ask an organiser of %(club)s)"
        )
        % {"player": player.name, "club": player.club.name},
        "player",
    )


def game_access(request: Request, game_id: int) -> GameAccess:
    """The caller's access to game ``game_id``; 404 if there is none or they may not see it
    (the rule: :func:`tournaments.services.access.game_access`).

    Every action and most reads of a seated player come through here, so a
    seated caller costs two queries (the game, their seat).
    """
    game = game_row(game_id)
    if game is None:
        raise NotFound(gettext("there is no game %(id)s") % {"id": game_id})
    access = access_to(request.user, game)
    if access is None:
        hidden = hidden_twin(game)
        if hidden is not None:
            raise Forbidden(hidden)
        raise NotFound(gettext("there is no game %(id)s") % {"id": game_id})
    return access
