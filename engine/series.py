"""A series of deals at one table: dealer rotation, when it is over, the table's placings.

Three formats cover the four games:

``first_to``      Give Away: deals until a player has ``target`` round wins; a
                  draw (``winner`` null) advances nobody.  There is no limit on
                  the number of deals unless the organiser sets ``deal_limit``:
                  a series that reaches it ends and is placed by round wins.
``losses``        Old Maid and Bhabhi: exactly ``target`` deals, one loss to each
                  deal's loser; fewer losses rank higher.
``place_points``  Give & Take: exactly ``target`` games, each giving place points
                  from ``points`` (default ``n-1`` for first place down to 0).

Ties always share a place.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from engine.words import PhrasedError, gettext_noop, said

#: The largest place points a series may give (their sums must stay finite numbers).
MAX_POINTS = 1_000_000
#: The most deals (or round wins) a table's series may be set to, and the most deals a
#: first_to series may be bounded by: the organiser's form and the API alike (the API took
#: a series of 100,000 deals a table, its bots playing for days; the form stopped at 100).
#: A thousand: the load benchmarks' tables play a series that long, never to its end.
MAX_TARGET = 1000
MAX_DEAL_LIMIT = 1000

SeriesKind = Literal["first_to", "losses", "place_points"]


class SeriesError(PhrasedError):
    """A series format an organiser may not set (its words a phrase)."""


@dataclass(frozen=True)
class SeriesFormat:
    """How a table's series is played and scored."""

    #: ``first_to``, ``losses`` or ``place_points``.
    kind: SeriesKind
    #: Round wins needed (``first_to``) or the number of deals (the others).
    target: int
    #: Place points for ``place_points``, first place first; ``None``: ``n-1`` … 0.
    points: tuple[float, ...] | None = None
    #: ``first_to`` only: the organiser's explicit bound on the number of deals
    #: (``None``: none, the seed's rule).  A series reaching it is placed by round wins.
    deal_limit: int | None = None

    def __post_init__(self) -> None:
        if self.kind not in ("first_to", "losses", "place_points"):
            raise SeriesError(gettext_noop("unknown series kind %(kind)s"), kind=said(self.kind))
        if not isinstance(self.target, int) or self.target < 1:
            raise SeriesError(gettext_noop("a series needs a target of at least 1"))
        if self.points is not None and any(
            not math.isfinite(p) or abs(p) > MAX_POINTS for p in self.points
        ):
            # The running totals are stored as JSON, which has no infinity: a table's
            # deal would end in a refusal at every try.
            raise SeriesError(
                gettext_noop("place points are numbers from -%(most)s to %(most)s"),
                most=MAX_POINTS,
            )
        if self.deal_limit is not None:
            if self.kind != "first_to":
                raise SeriesError(
                    gettext_noop(
                        "a deal limit is for a first_to series: the others have a fixed"
                        " number of deals"
                    )
                )
            if (
                not isinstance(self.deal_limit, int)
                or isinstance(self.deal_limit, bool)
                or self.deal_limit < self.target
            ):
                raise SeriesError(
                    gettext_noop(
                        "the deal limit is a whole number of at least the target %(target)s,"
                        " not %(sent)s"
                    ),
                    target=self.target,
                    sent=said(self.deal_limit),
                )

    def bounded(self) -> SeriesFormat:
        """This series, if an organiser may set it (:data:`MAX_TARGET`,
        :data:`MAX_DEAL_LIMIT`), else ``ValueError``.  Asked when a tournament is made,
        not of a series read back: one stored before the bounds still reads."""
        if self.target > MAX_TARGET:
            raise SeriesError(
                gettext_noop("a series needs a target from 1 to %(most)s"), most=MAX_TARGET
            )
        if self.deal_limit is not None and self.deal_limit > MAX_DEAL_LIMIT:
            raise SeriesError(
                gettext_noop(
                    "the deal limit is a whole number from the target %(target)s"
                    " to %(most)s, not %(sent)s"
                ),
                target=self.target,
                most=MAX_DEAL_LIMIT,
                sent=said(self.deal_limit),
            )
        return self

    def to_json(self) -> dict[str, Any]:
        """JSON-ready form."""
        data: dict[str, Any] = {"kind": self.kind, "target": self.target}
        if self.points is not None:
            data["points"] = list(self.points)
        if self.deal_limit is not None:
            data["deal_limit"] = self.deal_limit
        return data

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> SeriesFormat:
        """The format from :meth:`to_json`'s shape; ``ValueError`` on a bad one."""
        points = data.get("points")
        return cls(
            kind=data["kind"],
            target=data["target"],
            points=None if points is None else tuple(float(p) for p in points),
            deal_limit=data.get("deal_limit"),
        )

    def place_points(self, seats: int) -> tuple[float, ...]:
        """The points table for ``seats`` players."""
        if self.points is None:
            return tuple(float(seats - 1 - i) for i in range(seats))
        if len(self.points) < seats:
            raise ValueError(f"the points table has {len(self.points)} places for {seats} seats")
        return self.points[:seats]


def next_dealer(dealer: int, seats: int) -> int:
    """The dealer of the next deal: the left neighbour of the previous dealer."""
    return (dealer + 1) % seats


def scored(
    fmt: SeriesFormat, totals: Sequence[float], result: Mapping[str, Any], seats: int
) -> list[float]:
    """Each seat's score after one more deal's ``result``, from its ``totals`` before it.

    A table keeps its running totals so that a deal's end costs the same at the
    thousandth deal as at the first (:func:`scores` is this, folded over the results)."""
    after = [float(t) for t in totals] if totals else [0.0] * seats
    if fmt.kind == "first_to":
        winner = result.get("winner")
        if winner is not None:
            after[winner] += 1
    elif fmt.kind == "losses":
        after[result["loser"]] -= 1
    else:
        table = fmt.place_points(seats)
        place = 0
        for group in result["places"]:
            shared = sum(table[place : place + len(group)]) / len(group)
            for seat in group:
                after[seat] += shared
            place += len(group)
    return after


def scores(fmt: SeriesFormat, results: Sequence[Mapping[str, Any]], seats: int) -> list[float]:
    """Each seat's score so far, higher is better (wins, minus losses, or place points)."""
    totals = [0.0] * seats
    for result in results:
        totals = scored(fmt, totals, result, seats)
    return totals


def finished(fmt: SeriesFormat, deals: int, totals: Sequence[float]) -> bool:
    """Whether a series of ``deals`` deals so far, with these ``totals``, needs no more."""
    if fmt.kind == "first_to":
        if fmt.deal_limit is not None and deals >= fmt.deal_limit:
            return True
        return max(totals) >= fmt.target
    return deals >= fmt.target


def is_over(fmt: SeriesFormat, results: Sequence[Mapping[str, Any]], seats: int) -> bool:
    """Whether the series needs no more deals."""
    return finished(fmt, len(results), scores(fmt, results, seats))


def ranked(totals: Sequence[float]) -> list[list[int]]:
    """Seats by their ``totals``, best first; seats with equal totals share a place."""
    groups: list[list[int]] = []
    for seat in sorted(range(len(totals)), key=lambda s: (-totals[s], s)):
        if groups and totals[groups[-1][0]] == totals[seat]:
            groups[-1].append(seat)
        else:
            groups.append([seat])
    return groups


def placings(
    fmt: SeriesFormat, results: Sequence[Mapping[str, Any]], seats: int
) -> list[list[int]]:
    """The table's placings, best first; seats with equal scores share a place."""
    return ranked(scores(fmt, results, seats))
