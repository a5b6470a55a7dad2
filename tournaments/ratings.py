"""Club ratings per game: openskill's Plackett-Luce model, updated from table placings.

Pure Python, no Django.  The app keeps one rating per player and game and, when
a table's series ends, calls :func:`update` with that table's placings (groups of
player ids, best first; a group shares its place).  Byes and unfinished tables
change nothing.

Every player starts at ``μ = 25``, ``σ = 25/3`` (openskill's defaults, as are
``β = 25/6`` and ``τ = 25/300``).  The ordinal ``μ − 3σ`` is a cautious estimate
that rises as a player both wins and becomes better known; the number shown to
players is ``display = round(1000 + 20 · ordinal)`` (1000 for a newcomer).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from openskill.models import PlackettLuce

#: Starting skill and uncertainty (openskill's defaults).
MU = 25.0
SIGMA = 25.0 / 3.0
#: ``display = round(DISPLAY_BASE + DISPLAY_SCALE · ordinal)``.
DISPLAY_BASE = 1000
DISPLAY_SCALE = 20

_MODEL = PlackettLuce(mu=MU, sigma=SIGMA)


@dataclass(frozen=True)
class Rating:
    """A player's rating in one game."""

    mu: float = MU
    sigma: float = SIGMA

    @property
    def ordinal(self) -> float:
        """``μ − 3σ``: the skill the player has with about 99.7 % confidence."""
        return self.mu - 3.0 * self.sigma

    @property
    def display(self) -> int:
        """The number shown: ``round(1000 + 20 · ordinal)``."""
        return round(DISPLAY_BASE + DISPLAY_SCALE * self.ordinal)


def update(
    ratings_by_player: Mapping[str, Rating], placings: Sequence[Sequence[str]]
) -> dict[str, Rating]:
    """The ratings after one table: ``ratings_by_player`` with the table's players updated.

    ``placings`` are groups of player ids, best first; a group is a tie.  Players
    without a rating start at :class:`Rating`'s defaults.  The input is not changed.
    """
    players = [p for group in placings for p in group]
    if any(not group for group in placings):
        raise ValueError("an empty placing group")
    if len(players) < 2:
        raise ValueError("a rated table needs at least two players")
    if len(set(players)) != len(players):
        raise ValueError("a player is placed twice at one table")
    teams = []
    ranks: list[float] = []
    for place, group in enumerate(placings):
        for player in group:
            old = ratings_by_player.get(player, Rating())
            teams.append([_MODEL.rating(mu=old.mu, sigma=old.sigma)])
            ranks.append(float(place))
    rated = _MODEL.rate(teams, ranks=ranks)
    result = dict(ratings_by_player)
    for player, (new,) in zip(players, rated, strict=True):
        result[player] = Rating(mu=float(new.mu), sigma=float(new.sigma))
    return result


def update_round(
    ratings_by_player: Mapping[str, Rating], tables: Iterable[Sequence[Sequence[str]]]
) -> dict[str, Rating]:
    """The ratings after several tables (of one round: each player at one table at most)."""
    result = dict(ratings_by_player)
    for placings in tables:
        result = update(result, placings)
    return result


def leaderboard(ratings_by_player: Mapping[str, Rating]) -> list[tuple[str, Rating]]:
    """Players by ordinal, best first (ties by id)."""
    return sorted(ratings_by_player.items(), key=lambda item: (-item[1].ordinal, item[0]))
