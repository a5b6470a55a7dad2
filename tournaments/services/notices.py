"""What a logged-in person is told on every page: their games that have started and those
waiting for them ("Your game has started", "Your move").

:func:`running_games_of` is the read side of that feed, for the pages' notices
(``/me/notices``, polled by ``static/parlour/notices.js``) and for any other client
of the same facts (the API's account-wide stream may reuse it).  Its cost is a few
queries bounded by the person's own tables still being played: it starts from their
players' seats at unfinished tables, never from the games or the events of the store,
so it does not grow with the store.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tournaments.models import Game, Player, Table, TableSeat
from tournaments.play.context import GameContext
from tournaments.services import queries


@dataclass(frozen=True)
class RunningGame:
    """One running game where the person holds a seat."""

    game_id: int
    kind: str
    game_name: str
    #: The person's seat (0-based, as the game service counts).
    seat: int
    #: Whether the game waits for this seat now.
    my_turn: bool
    #: The game's last event: a notice of "your move" is about this position.
    sequence: int
    #: The seat's clock (an ISO time), when it runs.
    deadline: str | None
    tournament_id: int | None
    tournament_name: str

    def as_dict(self) -> dict[str, Any]:
        return {
            "game_id": self.game_id,
            "kind": self.kind,
            "game_name": self.game_name,
            "seat": self.seat,
            "my_turn": self.my_turn,
            "sequence": self.sequence,
            "deadline": self.deadline,
            "tournament_id": self.tournament_id,
            "tournament_name": self.tournament_name,
        }


def running_games_of(user: Any) -> list[RunningGame]:
    """The running games where ``user`` holds a seat, oldest first (none for a stranger).

    Three queries whatever the store holds: the person's players, the unfinished tables
    they sit at, and those tables' running games (with their tournaments).
    """
    if user is None or not user.is_authenticated or not user.is_active:
        return []
    players = set(Player.objects.filter(user=user).values_list("pk", flat=True))
    if not players:
        return []
    tables = set(
        TableSeat.objects.filter(player__in=players)
        .exclude(table__status=Table.Status.FINISHED)
        .values_list("table_id", flat=True)
    )
    if not tables:
        return []
    found: list[RunningGame] = []
    for game in (
        Game.objects.filter(table_id__in=tables, status=Game.Status.RUNNING)
        .select_related("table__round__tournament")
        .order_by("id")
    ):
        # The seat is the game's own (its context names each seat's player), as seat_of
        # reads it, without a query per game.
        ids = GameContext.of(game).seat_player_ids()
        seat = next((s for s, pid in enumerate(ids) if pid in players and s < game.seats), None)
        if seat is None:
            continue
        tournament = game.table.round.tournament if game.table is not None else None
        found.append(
            RunningGame(
                game_id=game.pk,
                kind=game.kind,
                game_name=queries.game_name(game.kind),
                seat=seat,
                my_turn=seat in (game.waiting_for or []),
                sequence=game.sequence,
                deadline=(game.deadlines or {}).get(str(seat)),
                tournament_id=tournament.pk if tournament else None,
                tournament_name=tournament.name if tournament else "",
            )
        )
    return found
