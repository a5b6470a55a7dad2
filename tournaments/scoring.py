"""Tournament points and standings, computed from the rounds' table results.

Pure Python, no Django: standings are a projection of the tournament's events;
the app turns its events into :class:`RoundResult` values and calls
:func:`standings`.  All arithmetic is exact (:class:`fractions.Fraction`), so
ties are real ties.  docs/tournaments.md explains the rules to an organiser.

**Points of one table** (:func:`table_points`): at a table of ``n`` players a
player whose placing group covers places ``p … p+g−1`` (1 is first; ``g``
players share it) has the average place ``r = p + (g−1)/2`` and scores

    ``points = (n − r) / (n − 1)``

so first scores 1, last 0, the places between are evenly spaced, shared places
share the average, and every table hands out ``n/2`` points — an average of ½ per
player whatever the table size.  A **bye** scores ``BYE_POINTS`` = ½, the average.

**Standings order** (:func:`standings`), best first:

1. points, the sum over rounds (byes included);
2. opponents' points: the average, over every opponent met at a table (counted
   once per meeting), of that opponent's current points;
3. head-to-head among the players still tied: per player, the number of tied
   rivals finished ahead of minus behind, over the tables they shared;
4. fewer last places (the last placing group at a table that had more than one);
5. the player id, ascending (only to make the order total; such players share a rank).
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

#: What a bye scores: the average points of a table, ½.
BYE_POINTS = Fraction(1, 2)


@dataclass(frozen=True)
class TableResult:
    """The placings of one table's series: groups of player ids, best first; a group shares."""

    placings: tuple[tuple[str, ...], ...]

    def __post_init__(self) -> None:
        players = [p for group in self.placings for p in group]
        if len(players) < 2:
            raise ValueError("a table result needs at least two players")
        if any(not group for group in self.placings):
            raise ValueError("an empty placing group")
        if len(set(players)) != len(players):
            raise ValueError("a player is placed twice at one table")

    @classmethod
    def from_seats(cls, table: Sequence[str], placings: Sequence[Sequence[int]]) -> TableResult:
        """From ``engine.series.placings`` (seat numbers) and the table's players in seat order."""
        return cls(tuple(tuple(table[seat] for seat in group) for group in placings))

    @property
    def players(self) -> tuple[str, ...]:
        """Every player at the table, best placing first."""
        return tuple(p for group in self.placings for p in group)


@dataclass(frozen=True)
class RoundResult:
    """One round: its finished tables and the players who had a bye."""

    tables: tuple[TableResult, ...]
    byes: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        players = [p for t in self.tables for p in t.players] + list(self.byes)
        if len(set(players)) != len(players):
            raise ValueError("a player appears twice in one round")


@dataclass(frozen=True)
class Standing:
    """One player's line in the standings."""

    #: 1 is best; players equal on every tiebreak but the id share a rank.
    rank: int
    player: str
    points: Fraction
    #: Average current points of the opponents met (0 with none).
    opponents_points: Fraction
    #: Tied rivals finished ahead of minus behind (0 when not tied on points and opponents).
    head_to_head: int
    last_places: int
    #: Tables played (byes not counted).
    played: int
    byes: int
    dropped: bool
    #: Series forfeited (each counted as last place at its table).
    forfeits: int = 0

    def to_json(self) -> dict[str, Any]:
        """JSON-ready form (points as floats)."""
        return {
            "rank": self.rank,
            "player": self.player,
            "points": float(self.points),
            "opponents_points": float(self.opponents_points),
            "head_to_head": self.head_to_head,
            "last_places": self.last_places,
            "played": self.played,
            "byes": self.byes,
            "dropped": self.dropped,
            "forfeits": self.forfeits,
        }


def forfeited(table: TableResult, players: Collection[str]) -> TableResult:
    """``table`` with ``players`` moved to a shared last place (a forfeited series).

    The others keep their order; when everyone at the table forfeited, they all
    share one place.
    """
    gone = [p for p in table.players if p in players]
    if not gone:
        return table
    kept = tuple(
        g for g in (tuple(p for p in grp if p not in players) for grp in table.placings) if g
    )
    return TableResult(kept + (tuple(gone),))


def table_points(placings: Sequence[Sequence[str]]) -> dict[str, Fraction]:
    """Each player's points for one table: ``(n − average place) / (n − 1)``."""
    n = sum(len(group) for group in placings)
    if n < 2:
        raise ValueError("a table needs at least two players")
    points: dict[str, Fraction] = {}
    place = 1
    for group in placings:
        average = Fraction(2 * place + len(group) - 1, 2)
        for player in group:
            points[player] = (n - average) / (n - 1)
        place += len(group)
    return points


def standings(
    rounds: Iterable[RoundResult],
    players: Iterable[str] = (),
    dropped: Collection[str] = (),
    forfeits: Mapping[str, int] | None = None,
) -> list[Standing]:
    """The standings after ``rounds``, best first.

    ``players`` adds registered players who have no result yet (they stand on 0);
    ``dropped`` marks players who left: they keep their results and their place in
    the order, and their points keep counting for their opponents.  ``forfeits``
    counts each player's forfeited series, for the mark (the tables given must
    already place them last: :func:`forfeited`).
    """
    rounds = list(rounds)
    # Exact and fast: every table's points are whole multiples of 1/(2(n−1)), so all
    # sums are kept as integers in units of 1/scale, scale the lcm of those denominators.
    scale = 2
    for round_ in rounds:
        for table in round_.tables:
            scale = math.lcm(scale, 2 * (len(table.players) - 1))
    units: dict[str, int] = defaultdict(int)
    opponents: dict[str, list[str]] = defaultdict(list)
    last: dict[str, int] = defaultdict(int)
    played: dict[str, int] = defaultdict(int)
    byes: dict[str, int] = defaultdict(int)
    #: Per player, their tables as (player → placing-group index) maps.
    tables_of: dict[str, list[Mapping[str, int]]] = defaultdict(list)
    for player in players:
        units[player] += 0
    for round_ in rounds:
        for table in round_.tables:
            everyone = table.players
            n = len(everyone)
            step = scale // (2 * (n - 1))
            group_of: dict[str, int] = {}
            place = 1
            for g, group in enumerate(table.placings):
                # (n − average place) / (n − 1) = (2n − 2·place − size + 1) / (2(n − 1))
                score = (2 * n - 2 * place - len(group) + 1) * step
                for player in group:
                    group_of[player] = g
                    units[player] += score
                    played[player] += 1
                place += len(group)
            for player in everyone:
                opponents[player].extend(p for p in everyone if p != player)
                tables_of[player].append(group_of)
            if len(table.placings) > 1:
                for player in table.placings[-1]:
                    last[player] += 1
        for player in round_.byes:
            units[player] += scale // 2
            byes[player] += 1

    points = {p: Fraction(u, scale) for p, u in units.items()}
    opp: dict[str, Fraction] = {}
    for player in points:
        met = opponents.get(player)
        opp[player] = Fraction(sum(units[o] for o in met), scale * len(met)) if met else Fraction(0)

    # Head-to-head within each group tied on points and opponents' points.
    h2h: dict[str, int] = {p: 0 for p in points}
    tied: dict[tuple[Fraction, Fraction], list[str]] = defaultdict(list)
    for player in points:
        tied[(points[player], opp[player])].append(player)
    for level in tied.values():
        if len(level) < 2:
            continue
        rivals = set(level)
        for player in level:
            balance = 0
            for places in tables_of.get(player, ()):
                mine = places[player]
                for other, theirs in places.items():
                    if other != player and other in rivals:
                        balance += (theirs > mine) - (theirs < mine)
            h2h[player] = balance

    def key(player: str) -> tuple[Fraction, Fraction, int, int]:
        return (-points[player], -opp[player], -h2h[player], last[player])

    ordered = sorted(points, key=lambda p: (key(p), p))
    gone = set(dropped)
    result: list[Standing] = []
    for position, player in enumerate(ordered):
        same = bool(result) and key(result[-1].player) == key(player)
        rank = result[-1].rank if same else position + 1
        result.append(
            Standing(
                rank=rank,
                player=player,
                points=points[player],
                opponents_points=opp[player],
                head_to_head=h2h[player],
                last_places=last[player],
                played=played[player],
                byes=byes[player],
                dropped=player in gone,
                forfeits=(forfeits or {}).get(player, 0),
            )
        )
    return result
