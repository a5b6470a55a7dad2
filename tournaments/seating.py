"""Seating one tournament round: table sizes, byes, who sits with whom, seat order.

Pure Python, no Django: the tournament app feeds these functions from its
models and events and stores the :class:`Seating` they return (``to_json``).
(Over 400 lines, on purpose: one algorithm — sizes, byes, mixing, seat order and
the organiser's constraints — whose parts check each other's invariants.)
docs/tournaments.md explains the rules to an organiser; in short:

* **Table sizes** (:func:`table_sizes`): the fewest players sit out, then the
  number of tables whose average size is closest to the preferred size (no
  preference: the fewest tables), sizes differing by at most one, larger first.
* **Byes**: only when no legal split exists for everyone.  The players with the
  fewest byes so far sit out, lowest in the standings first (round 1: at
  random); players the organiser fixed to a table sit out last.
* **Who sits with whom** (:func:`seat_round`): a simulated-annealing search over
  swaps of two players at different tables, bounded by iterations and time,
  minimising

  ``cost = Σ over pairs sharing a table  REPEAT_WEIGHT·c² + APART_WEIGHT·[kept apart]``
  ``       + (swiss only) Σ over players  SWISS_WEIGHT·(table − standings table)²``

  where ``c`` is how often the two already shared a table.  ``mixing`` uses the
  repeat and apart terms, ``swiss`` adds the standings term (table 0 is the top
  table), ``random`` uses only the apart term.
* **Seat order** (:func:`order_table`): the member who has dealt first least often
  takes seat 0 and deals first; the others fill seats 1, 2, … so that each sits
  where they have sat least often (seat numbers count left from the first dealer).
"""

from __future__ import annotations

import hashlib
import hmac
import math
import random
import time
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Literal

from engine.words import Phrase, gettext_noop

Mode = Literal["random", "swiss", "mixing"]
MODES: tuple[Mode, ...] = ("random", "swiss", "mixing")

#: Cost of two players sharing a table who already shared one ``c`` times: ``REPEAT_WEIGHT·c²``.
REPEAT_WEIGHT = 20
#: Cost of two players sharing a table whom the organiser keeps apart.
APART_WEIGHT = 1_000_000
#: Swiss only: cost per player of sitting ``d`` tables away from their standings table: ``d²``.
SWISS_WEIGHT = 1
#: The search stops after ``ITERATIONS_PER_PLAYER · players`` swap attempts (at least
#: ``MIN_ITERATIONS``) or ``time_limit`` seconds, whichever comes first.
ITERATIONS_PER_PLAYER = 100
MIN_ITERATIONS = 50_000
#: Default wall-clock bound of one search, in seconds.
DEFAULT_TIME_LIMIT = 1.0


class SeatingError(ValueError):
    """The round cannot be seated as asked (too few players, impossible constraints).

    ``phrases``: why, one :class:`~engine.words.Phrase` per problem (its message marked
    for the catalog, docs/i18n.md), so that the app says them in the reader's language;
    ``str`` is the English.  The places in :data:`PLAYER_PLACES` hold player ids, which
    the app replaces with the players' names (:meth:`named`).
    """

    #: The places of a phrase that hold a player id.
    PLAYER_PLACES = frozenset({"player", "first", "second"})

    def __init__(self, *phrases: Phrase) -> None:
        super().__init__("; ".join(str(p) for p in phrases))
        self.phrases = phrases

    def named(self, names: Mapping[str, str]) -> tuple[Phrase, ...]:
        """The phrases with each player id replaced by the player's name."""
        return tuple(
            Phrase(
                phrase.message,
                **{
                    place: names.get(str(value), value) if place in self.PLAYER_PLACES else value
                    for place, value in phrase.params.items()
                },
            )
            for phrase in self.phrases
        )


# -- table sizes ----------------------------------------------------------------


def table_sizes(
    players: int, game_min: int, game_max: int, preferred: int | None = None
) -> tuple[list[int], int]:
    """The table sizes (largest first) and the number of byes for ``players`` players.

    The fewest byes come first: ``b`` is the smallest number for which ``m =
    players − b`` splits into ``t`` tables of ``⌊m/t⌋`` or ``⌈m/t⌉`` players, all
    within ``[game_min, game_max]`` (possible exactly when ``⌈m/game_max⌉ ≤ t ≤
    ⌊m/game_min⌋``).  Among the possible ``t``: with ``preferred``, the one whose
    average size ``m/t`` is closest to ``preferred`` (a tie: fewer tables); without,
    the fewest tables.  Seven players for Bhabhi (3–8): one table of 7; with a
    preferred size of 4: tables of 4 and 3.  ``SeatingError`` below ``game_min``.
    """
    if not 1 <= game_min <= game_max:
        raise ValueError(f"bad seat range {game_min}–{game_max}")
    if preferred is not None and not game_min <= preferred <= game_max:
        raise ValueError(f"preferred table size {preferred} is outside {game_min}–{game_max}")
    if players < game_min:
        raise SeatingError(
            Phrase(
                gettext_noop(
                    "too few players to seat: %(players)s, a table needs at least %(least)s"
                ),
                players=players,
                least=game_min,
            )
        )
    for byes in range(players - game_min + 1):
        m = players - byes
        fewest, most = -(-m // game_max), m // game_min
        if fewest > most:
            continue
        if preferred is None:
            tables = fewest
        else:
            target = preferred
            tables = min(range(fewest, most + 1), key=lambda t: (abs(Fraction(m, t) - target), t))
        size, bigger = divmod(m, tables)
        return [size + 1] * bigger + [size] * (tables - bigger), byes
    raise AssertionError("unreachable: m = game_min always fits one table")


# -- the seating and its history -----------------------------------------------


@dataclass(frozen=True)
class Seating:
    """One round's seating: the tables in seat order, each table's first dealer, the byes."""

    #: Player ids per table, seat 0 first; table 0 is the top table in Swiss rounds.
    tables: tuple[tuple[str, ...], ...]
    #: The seat (index into the table) that deals the first deal, per table.
    dealers: tuple[int, ...]
    #: Players sitting this round out; each scores the bye points.
    byes: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if len(self.dealers) != len(self.tables):
            raise ValueError("one dealer per table")
        for table, dealer in zip(self.tables, self.dealers, strict=True):
            if not 0 <= dealer < len(table):
                raise ValueError(f"dealer seat {dealer} is not at a table of {len(table)}")
        everyone = [p for table in self.tables for p in table] + list(self.byes)
        if len(set(everyone)) != len(everyone):
            raise ValueError("a player appears twice in the seating")

    def seated(self) -> list[str]:
        """Every seated player, table by table."""
        return [p for table in self.tables for p in table]

    def table_of(self, player: str) -> int | None:
        """The index of ``player``'s table, ``None`` for a bye or a player not in the round."""
        for index, table in enumerate(self.tables):
            if player in table:
                return index
        return None

    def to_json(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {
            "tables": [list(t) for t in self.tables],
            "dealers": list(self.dealers),
            "byes": list(self.byes),
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Seating:
        """The seating from :meth:`to_json`'s shape."""
        return cls(
            tables=tuple(tuple(str(p) for p in t) for t in data["tables"]),
            dealers=tuple(int(d) for d in data["dealers"]),
            byes=tuple(str(p) for p in data.get("byes", ())),
        )


def _pair(a: str, b: str) -> tuple[str, str]:
    return (a, b) if a < b else (b, a)


@dataclass
class History:
    """What earlier rounds of the tournament did: shared tables, seats, byes."""

    #: How often two players (key sorted) shared a table.
    pairs: dict[tuple[str, str], int] = field(default_factory=dict)
    #: Per player, how often they sat at each seat counted left from the first dealer
    #: (seat 0 dealt first).
    seats: dict[str, Counter[int]] = field(default_factory=dict)
    #: How many byes each player had.
    byes: Counter[str] = field(default_factory=Counter)

    @classmethod
    def from_seatings(cls, seatings: Iterable[Seating]) -> History:
        """The history of the rounds seated as ``seatings``."""
        history = cls()
        for seating in seatings:
            history.record(seating)
        return history

    def record(self, seating: Seating) -> None:
        """Add one round's seating."""
        for table, dealer in zip(seating.tables, seating.dealers, strict=True):
            size = len(table)
            for seat, player in enumerate(table):
                self.seats.setdefault(player, Counter())[(seat - dealer) % size] += 1
                for other in table[seat + 1 :]:
                    key = _pair(player, other)
                    self.pairs[key] = self.pairs.get(key, 0) + 1
        self.byes.update(seating.byes)

    def met(self, a: str, b: str) -> int:
        """How often ``a`` and ``b`` shared a table."""
        return self.pairs.get(_pair(a, b), 0)

    def dealt(self, player: str) -> int:
        """How often ``player`` dealt first at their table."""
        return self.seats.get(player, Counter())[0]

    def repeats(self) -> int:
        """Repeated meetings: ``Σ over pairs max(0, times shared − 1)``."""
        return sum(c - 1 for c in self.pairs.values() if c > 1)


def repeats_in(seating: Seating, history: History) -> int:
    """How many pairs at ``seating``'s tables had already shared a table in ``history``."""
    return sum(
        1
        for table in seating.tables
        for i, a in enumerate(table)
        for b in table[i + 1 :]
        if history.met(a, b)
    )


# -- the organiser's constraints --------------------------------------------------


@dataclass(frozen=True)
class Constraints:
    """What the organiser fixed by hand for a round.

    Constraints naming a player who is not in the round are ignored.
    """

    #: Player → index of the table they must sit at (0 is the first table).
    fixed: Mapping[str, int] = field(default_factory=dict)
    #: Pairs of players who must not share a table.
    apart: tuple[tuple[str, str], ...] = ()

    def __post_init__(self) -> None:
        for player, table in self.fixed.items():
            if table < 0:
                raise ValueError(f"{player} is fixed to a negative table index {table}")
        for a, b in self.apart:
            if a == b:
                raise ValueError(f"{a} cannot be kept apart from themselves")

    def violations(self, seating: Seating) -> list[Phrase]:
        """What in ``seating`` breaks these constraints, in words; empty when nothing does."""
        problems: list[Phrase] = []
        where = {p: i for i, table in enumerate(seating.tables) for p in table}
        for player, table in sorted(self.fixed.items()):
            if player in where and where[player] != table:
                problems.append(
                    Phrase(
                        gettext_noop("%(player)s is fixed to table %(table)s, not %(actual)s"),
                        player=player,
                        table=table + 1,
                        actual=where[player] + 1,
                    )
                )
            elif player in seating.byes:
                problems.append(
                    Phrase(
                        gettext_noop("%(player)s is fixed to table %(table)s but has a bye"),
                        player=player,
                        table=table + 1,
                    )
                )
        for a, b in self.apart:
            if a in where and b in where and where[a] == where[b]:
                problems.append(
                    Phrase(
                        gettext_noop(
                            "%(first)s and %(second)s are kept apart but share table %(table)s"
                        ),
                        first=a,
                        second=b,
                        table=where[a] + 1,
                    )
                )
        return problems

    def swap(self, seating: Seating, a: str, b: str) -> Seating:
        """``seating`` with ``a`` and ``b`` exchanged (seat for seat, or seat for bye).

        The dealer seats stay as they are.  ``SeatingError`` if either player is
        not in the round, both have byes, or the swap breaks a constraint that
        held before it.
        """
        if a == b:
            raise SeatingError(Phrase(gettext_noop("a swap needs two different players")))
        for player in (a, b):
            if player not in seating.byes and seating.table_of(player) is None:
                raise SeatingError(
                    Phrase(gettext_noop("%(player)s is not in this round"), player=player)
                )
        if a in seating.byes and b in seating.byes:
            raise SeatingError(
                Phrase(gettext_noop("%(first)s and %(second)s both have byes"), first=a, second=b)
            )

        def exchange(player: str) -> str:
            return b if player == a else a if player == b else player

        swapped = Seating(
            tables=tuple(tuple(exchange(p) for p in table) for table in seating.tables),
            dealers=seating.dealers,
            byes=tuple(exchange(p) for p in seating.byes),
        )
        before = {str(p) for p in self.violations(seating)}
        new = sorted((p for p in self.violations(swapped) if str(p) not in before), key=str)
        if new:
            raise SeatingError(*new)
        return swapped


# -- duplicate deals --------------------------------------------------------------


def duplicate_seed(round_seed: bytes, seats: int, game_number: int) -> bytes:
    """The deck seed of game ``game_number`` (0-based) at every ``seats``-seat table of a round.

    ``HMAC-SHA256(key=round_seed, message=f"{seats}:{game_number}")``: with duplicate
    deals on, every table of the round with the same number of seats gets the same
    sequence of seeds, hence (through ``engine.fairness.derive_deck``) the same decks.
    """
    if seats < 1 or game_number < 0:
        raise ValueError("seats must be positive and game_number non-negative")
    return hmac.new(round_seed, f"{seats}:{game_number}".encode(), hashlib.sha256).digest()


# -- seat order at one table ----------------------------------------------------------


def order_table(
    members: Sequence[str], history: History, rng: random.Random
) -> tuple[tuple[str, ...], int]:
    """``members`` in seat order and the first dealer's seat (always 0).

    The member who has dealt first least often deals (a tie: at random); the
    others take seats 1, 2, … minimising ``Σ times the player already sat at that
    seat``, by pairwise exchanges from a random order until none helps.
    """
    if not members:
        raise ValueError("an empty table")

    def sat(player: str, seat: int) -> int:
        counts = history.seats.get(player)
        return counts[seat] if counts is not None else 0

    keyed = [(sat(p, 0), rng.random(), p) for p in members]
    dealer = min(keyed)[2]
    rest = [p for p in members if p != dealer]
    rng.shuffle(rest)
    improved = True
    while improved:
        improved = False
        for i in range(len(rest)):
            for j in range(i + 1, len(rest)):
                now = sat(rest[i], i + 1) + sat(rest[j], j + 1)
                then = sat(rest[j], i + 1) + sat(rest[i], j + 1)
                if then < now:
                    rest[i], rest[j] = rest[j], rest[i]
                    improved = True
    return (dealer, *rest), 0


# -- seating a round ----------------------------------------------------------------


def choose_byes(
    players: Sequence[str],
    count: int,
    history: History,
    standings: Sequence[str] | None,
    constraints: Constraints,
    rng: random.Random,
) -> list[str]:
    """The ``count`` players who sit out.

    Order of choice: not fixed to a table before fixed; fewest byes so far; then
    lowest in ``standings`` (players missing from it count as lowest, last-listed
    first); without standings, at random.
    """
    if count <= 0:
        return []
    position = {p: i for i, p in enumerate(_ranking(players, standings))}

    def key(player: str) -> tuple[bool, int, float]:
        lowness = float(position[player]) if standings is not None else rng.random()
        return (player in constraints.fixed, history.byes[player], -lowness)

    return sorted(players, key=key)[:count]


def _ranking(players: Sequence[str], standings: Sequence[str] | None) -> list[str]:
    """``players`` best first: in ``standings`` order, then the unlisted in ``players`` order."""
    if standings is None:
        return list(players)
    present = set(players)
    listed = [p for p in standings if p in present]
    seen = set(listed)
    return listed + [p for p in players if p not in seen]


def seat_round(
    players: Sequence[str],
    game_min: int,
    game_max: int,
    *,
    preferred: int | None = None,
    history: History | None = None,
    standings: Sequence[str] | None = None,
    mode: Mode = "mixing",
    constraints: Constraints | None = None,
    rng: random.Random | None = None,
    time_limit: float = DEFAULT_TIME_LIMIT,
    max_iterations: int | None = None,
) -> Seating:
    """Seat the checked-in ``players`` for one round.

    ``history`` is what earlier rounds did (empty in round 1), ``standings`` the
    current standings best first (used by ``swiss`` and for byes).  The search
    stops at a cost of 0, after ``max_iterations`` swap attempts (default
    ``max(MIN_ITERATIONS, ITERATIONS_PER_PLAYER·players)``) or after
    ``time_limit`` seconds.  ``SeatingError`` when the players cannot fill one
    table, a fixed table does not exist or is over-full, or players kept apart
    could not be separated.
    """
    if mode not in MODES:
        raise ValueError(f"unknown seating mode {mode!r}")
    if len(set(players)) != len(players):
        raise ValueError("a player is listed twice")
    history = history if history is not None else History()
    constraints = constraints if constraints is not None else Constraints()
    rng = rng if rng is not None else random.Random()
    if mode == "swiss" and standings is None:
        raise ValueError("a Swiss round needs the standings")

    sizes, bye_count = table_sizes(len(players), game_min, game_max, preferred)
    byes = choose_byes(players, bye_count, history, standings, constraints, rng)
    out = set(byes)
    seated = [p for p in _ranking(players, standings) if p not in out]
    tables = _search(
        seated,
        sizes,
        history,
        mode,
        constraints,
        rng,
        time_limit,
        max_iterations
        if max_iterations is not None
        else max(MIN_ITERATIONS, ITERATIONS_PER_PLAYER * len(seated)),
    )
    ordered = [order_table(table, history, rng) for table in tables]
    seating = Seating(
        tables=tuple(t for t, _ in ordered),
        dealers=tuple(d for _, d in ordered),
        byes=tuple(byes),
    )
    problems = constraints.violations(seating)
    if problems:
        raise SeatingError(*problems)
    return seating


def _search(
    seated: list[str],
    sizes: list[int],
    history: History,
    mode: Mode,
    constraints: Constraints,
    rng: random.Random,
    time_limit: float,
    max_iterations: int,
) -> list[list[str]]:
    """Players per table after the annealing search (``seated`` is in ranking order)."""
    n, t = len(seated), len(sizes)
    index = {p: i for i, p in enumerate(seated)}

    # Pair weights, only the non-zero ones: weights[i][j] = weights[j][i].
    weights: list[dict[int, int]] = [{} for _ in range(n)]
    if mode != "random":
        for (first, second), count in history.pairs.items():
            i, j = index.get(first), index.get(second)
            if i is not None and j is not None:
                weights[i][j] = weights[j][i] = REPEAT_WEIGHT * count * count
    for first, second in constraints.apart:
        i, j = index.get(first), index.get(second)
        if i is not None and j is not None:
            weights[i][j] = weights[j][i] = weights[i].get(j, 0) + APART_WEIGHT

    # The standings table of each player (Swiss): chunks of the ranking by table size.
    ideal = [0] * n
    start = 0
    for table, size in enumerate(sizes):
        for i in range(start, start + size):
            ideal[i] = table
        start += size
    swiss = SWISS_WEIGHT if mode == "swiss" else 0

    # Initial assignment: fixed players first, then the ranking (Swiss) or a shuffle.
    members: list[list[int]] = [[] for _ in range(t)]
    movable: list[int] = []
    for i, player in enumerate(seated):
        fixed = constraints.fixed.get(player)
        if fixed is None:
            movable.append(i)
            continue
        if fixed >= t:
            raise SeatingError(
                Phrase(
                    gettext_noop(
                        "%(player)s is fixed to table %(table)s;"
                        " this round's last table is %(last)s"
                    ),
                    player=player,
                    table=fixed + 1,
                    last=t,
                )
            )
        if len(members[fixed]) >= sizes[fixed]:
            raise SeatingError(
                Phrase(
                    gettext_noop("more players are fixed to table %(table)s than it seats"),
                    table=fixed + 1,
                )
            )
        members[fixed].append(i)
    order = list(movable)
    if mode != "swiss":
        rng.shuffle(order)
    cursor = 0
    for table, size in enumerate(sizes):
        while len(members[table]) < size:
            members[table].append(order[cursor])
            cursor += 1
    table_of = [0] * n
    for table, group in enumerate(members):
        for i in group:
            table_of[i] = table

    def table_cost(group: list[int]) -> int:
        total = 0
        for x, i in enumerate(group):
            w = weights[i]
            if w:
                total += sum(w.get(j, 0) for j in group[x + 1 :])
        return total

    cost = sum(table_cost(g) for g in members)
    cost += swiss * sum((table_of[i] - ideal[i]) ** 2 for i in range(n))
    if cost == 0 or t < 2 or len(movable) < 2:
        return [[seated[i] for i in g] for g in members]

    best_cost, best = cost, list(table_of)
    is_movable = [False] * n
    for i in movable:
        is_movable[i] = True
    hot, cold = float(REPEAT_WEIGHT), 0.05
    temperature = hot
    started = time.perf_counter()
    randrange, random_ = rng.randrange, rng.random
    for step in range(max_iterations):
        if step & 255 == 0:
            elapsed = time.perf_counter() - started
            progress = max(step / max_iterations, elapsed / time_limit if time_limit > 0 else 1.0)
            if progress >= 1.0:
                break
            temperature = hot * (cold / hot) ** progress
        # Pick a player, preferring one with something to fix at their table.
        a = movable[randrange(len(movable))]
        for _ in range(3):
            wa = weights[a]
            if wa and any(j in wa for j in members[table_of[a]]):
                break
            if swiss and table_of[a] != ideal[a]:
                break
            a = movable[randrange(len(movable))]
        ta = table_of[a]
        # A partner at another table: near by in Swiss rounds, anywhere otherwise.
        if swiss and random_() < 0.8:
            tb = ta + (randrange(1, 3) if random_() < 0.5 else -randrange(1, 3))
            if not 0 <= tb < t:
                continue
            group_b = members[tb]
            b = group_b[randrange(len(group_b))]
        else:
            b = movable[randrange(len(movable))]
        tb = table_of[b]
        if tb == ta or not is_movable[b]:
            continue
        wa, wb = weights[a], weights[b]
        delta = 0
        if wa or wb:
            for x in members[ta]:
                if x != a:
                    delta += wb.get(x, 0) - wa.get(x, 0)
            for y in members[tb]:
                if y != b:
                    delta += wa.get(y, 0) - wb.get(y, 0)
        if swiss:
            ia, ib = ideal[a], ideal[b]
            delta += swiss * ((ta - ib) ** 2 + (tb - ia) ** 2 - (ta - ia) ** 2 - (tb - ib) ** 2)
        if delta > 0 and random_() >= math.exp(-delta / temperature):
            continue
        group_a, group_b = members[ta], members[tb]
        group_a[group_a.index(a)] = b
        group_b[group_b.index(b)] = a
        table_of[a], table_of[b] = tb, ta
        cost += delta
        if cost < best_cost:
            best_cost, best = cost, list(table_of)
            if cost == 0:
                break

    result: list[list[str]] = [[] for _ in range(t)]
    for i, table in enumerate(best):
        result[table].append(seated[i])
    return result
