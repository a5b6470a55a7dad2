"""Who may run a club and who may see a game: the one organiser check and the one
visibility rule, which the web pages, the API and the workers all ask.

* An **organiser** of a club is one of its ``Club.organisers``, or a superuser;
  an anonymous or inactive login organises nothing.
* A **game** is seen by anyone once it is over or when it belongs to a
  tournament (a spectator sees no hidden card); a running game outside any
  tournament is seen only by its seated players and superusers.
* A game of a **duplicate round** is seen, until every table of its round has finished,
  only by its seated players and the club's organisers who play in no table of the
  round: the other tables play the same
  decks, so what is public at one table (a card played, a pair put down) is a hidden card
  at its twin (:func:`twin_hidden`).
* A login's **seat** in a game: ``GameContext.seats[i].player`` is a player id,
  and that player's ``user`` is the login; a login holds at most one seat.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from typing import Any

from django.db.models import Q, QuerySet
from django.utils.translation import gettext

from tournaments import sql
from tournaments.models import Club, Game, Round, TableSeat, Tournament
from tournaments.play.context import GameContext
from tournaments.play.state import Viewer
from tournaments.play.views import twin_hidden

#: "Not looked up yet", for :func:`may_see_game`'s ``club_id``.
_UNKNOWN: Any = object()


def _signed_in(user: Any) -> bool:
    return bool(user is not None and user.is_authenticated and user.is_active)


def _superuser(user: Any) -> bool:
    return _signed_in(user) and bool(getattr(user, "is_superuser", False))


def is_organiser(user: Any, club: Club) -> bool:
    """Whether ``user`` may run ``club``'s tournaments: one of its organisers, or a superuser."""
    if not _signed_in(user):
        return False
    if _superuser(user):
        return True
    return club.organisers.filter(pk=user.pk).exists()


def organised_clubs(user: Any) -> QuerySet[Club]:
    """The clubs ``user`` organises (every club for a superuser, none for a stranger)."""
    if not _signed_in(user):
        return Club.objects.none()
    if _superuser(user):
        return Club.objects.all()
    return Club.objects.filter(organisers=user.pk)


def organised_club_ids(user: Any) -> set[int] | None:
    """The ids of the clubs ``user`` organises (``None``: every club, for a superuser)."""
    if _superuser(user):
        return None
    return set(organised_clubs(user).values_list("pk", flat=True))


def organises(clubs: set[int] | None, club_id: int | None) -> bool:
    """Whether ``club_id`` is among ``clubs``, what :func:`organised_club_ids` gave
    (``None``: every club)."""
    return clubs is None or (club_id is not None and club_id in clubs)


def seat_player_ids(game: Game) -> list[int | None]:
    """The player id of each seat, from the game's context (``None`` where unknown)."""
    return GameContext.of(game).seat_player_ids()


def seat_of(user: Any, game: Game, players: Collection[int] | None = None) -> int | None:
    """The seat ``user`` holds in ``game`` (the lowest, should the data name two), or ``None``.

    ``players``: the user's players, if the caller has just read them (with the game's row,
    :func:`tournaments.sql.game_for_caller`); else those of the game's are read here."""
    if user is None or not user.is_authenticated:
        return None
    ids = seat_player_ids(game)
    wanted = [pid for pid in ids if pid is not None]
    if not wanted:
        return None
    mine = sql.players_of_user(user.pk, wanted) if players is None else players
    for seat, pid in enumerate(ids):
        if pid in mine and seat < game.seats:
            return seat
    return None


def game_club_id(game: Game) -> int | None:
    """The club of the tournament ``game`` belongs to (``None``: a standalone game)."""
    tournament = GameContext.of(game).tournament
    if tournament is None:
        return None
    club: int | None = (
        Tournament.objects.filter(pk=tournament).values_list("club_id", flat=True).first()
    )
    return club


def visible_games(user: Any, games: QuerySet[Game]) -> QuerySet[Game]:
    """The visibility rule as a filter, for lists: the finished games and the
    tournaments' (every game for a superuser).  A running game outside tournaments is
    reached by its id only, by its players (:func:`may_see_game`); a duplicate round's
    game, while the round runs, by its table's players and the organisers who play in
    no table of the round (:func:`twin_hidden`: a summary's turn order, move by move,
    would tell the twin table who took each trick)."""
    if _superuser(user):
        return games
    seen = games.filter(Q(status=Game.Status.OVER) | Q(table__isnull=False))
    twin = Q(table__round__tournament__duplicate_deals=True) & ~Q(
        table__round__status=Round.Status.FINISHED
    )
    if not _signed_in(user):
        return seen.exclude(twin)
    mine = TableSeat.objects.filter(player__user=user.pk)
    allowed = Q(table_id__in=mine.values("table_id")) | (
        Q(table__round__tournament__club_id__in=organised_clubs(user).values("pk"))
        & ~Q(table__round_id__in=mine.values("table__round_id"))
    )
    return seen.exclude(twin & ~allowed)


def hidden_tables(user: Any, tournament: Tournament) -> set[int]:
    """The tables of ``tournament`` whose games ``user`` may not see: the rule of
    :func:`visible_games` for a round's tables (an organiser who plays in a duplicate round
    sees only their own table of it until it ends).  The organiser's desk leaves out their
    clocks, timeouts and seats in trouble: each change of a twin table's clock told who was
    waited for there, and when (found by trying)."""
    if _superuser(user) or not tournament.duplicate_deals:
        return set()
    running = Game.objects.filter(table__round__tournament=tournament).exclude(
        table__round__status=Round.Status.FINISHED
    )
    seen = visible_games(user, running).values("table_id")
    return {t for t in running.exclude(table_id__in=seen).values_list("table_id", flat=True) if t}


def may_see_game(
    user: Any, game: Game, *, seated: bool | None = None, club_id: int | None = _UNKNOWN
) -> bool:
    """The visibility rule: whether ``user`` may see ``game`` at all.

    Anyone sees a finished game and a tournament's game; a running game outside any
    tournament only its seated players and superusers.  ``seated`` and ``club_id``
    are what the caller has already looked up (each is looked up here only if needed).
    """
    if game.is_over:
        return True
    if club_id is _UNKNOWN:
        club_id = game_club_id(game)
    if club_id is not None or _superuser(user):
        return True
    if seated is None:
        seated = seat_of(user, game) is not None
    return seated


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


def game_access(user: Any, game: Game, players: Collection[int] | None = None) -> GameAccess | None:
    """The caller's access to ``game`` (``None``: they may not see it), by the rule of
    :func:`may_see_game`.

    A seated caller costs one query (their seat): a seat sees its own view whether or
    not the caller also organises the club, so the club is looked up only for callers
    without a seat (``players``: as :func:`seat_of`'s).
    """
    seat = seat_of(user, game, players)
    if seat is not None:
        return GameAccess(game, seat, organiser=False)
    # A table's game: its club and its round in one read (whether it is a hidden twin).
    row = sql.table_round(game.table_id) if game.table_id is not None else None
    club = row.club if row is not None else game_club_id(game)
    # A standalone game has no club: only a superuser organises it.
    organiser = is_organiser(user, Club(pk=club)) if club is not None else _superuser(user)
    if not may_see_game(user, game, seated=False, club_id=club):
        return None
    if twin_hidden(row) and not (organiser and not plays_in_round(user, row)):
        return None
    return GameAccess(game, seat, organiser)


def plays_in_round(user: Any, row: sql.TableRound | None) -> bool:
    """Whether ``user`` holds a seat at any table of the round ``row`` names: an organiser
    who plays is a player of a duplicate round, and sees no other table of it."""
    return (
        row is not None
        and _signed_in(user)
        and TableSeat.objects.filter(table__round_id=row.round, player__user=user.pk).exists()
    )


def hidden_twin(game: Game) -> str | None:
    """Why ``game`` is refused, if it is a duplicate deal hidden by :func:`twin_hidden`
    (``None``: it is not): a refusal says it exists and when it will be shown (a 403, where
    a game nobody may see is a 404)."""
    if game.table_id is None or not twin_hidden(sql.table_round(game.table_id)):
        return None
    return gettext(
        "game %(id)s is a duplicate deal: until every table of its round has finished,"
        " only its players and the organisers who play in no table of the round see it"
    ) % {"id": game.pk}
