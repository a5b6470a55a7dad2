"""No bot's move depends on what is hidden from its seat: every game, every bot level.

A bot's moves are public (the table and the spectators see them), so a bot may
decide only from what its seat may see.  This test does not trust the redaction
code to say what that is.  From the full state of many seeded positions it builds
*hidden variants*: states that differ in what the seat's view does not show (the
other players' cards exchanged among them and reordered, the face-down stacks,
piles, discard and reserve dealt again, cards buried under a foundation's top) and
keep everything else.  Each variant is made from the game's own state by the rules
of the game (below, one function per game: which cards a seat knows to be where,
such as the A♠ before trick 1, stay), then

* the premise is checked: the seat's view (``game.view``, all a bot is given) is
  byte-equal (canonical JSON) in both states, and the cards are the deal's.  A view
  that shows something of what was exchanged fails here, before any bot is asked;
* every bot level of the game (``engine.bots.bot_levels``), each given a generator
  of the same seed, chooses the same action in both (a bot that randomises must
  draw the same from the same seed: the same distribution);
* the clock's move for an absent seat (``timeout_action``, which reads the full
  state) is the same in what a seat may say (``Game.requests``), and the server
  fills in the rest exactly as it would for that request (an Old Maid draw's card);
* the move the service may play for a person (``forced_action``) is the same.

A variant that changes nothing proves nothing: each case also asserts that most
variants did change the hidden cards.

The seat-level property would not have caught eaea36c's bug: the Old Maid bot
shuffled its own fan while it held a queen, which its seat may see.  In Old Maid
nothing a seat chooses can use its own fan (a draw names a blind position, an
arrange's order is secret), so there the stronger property is checked as well:
across variants that keep only what a *spectator* sees (every fan, the bot's own
too, exchanged), what a spectator sees of each bot's move (``event_view``, or no
move at all) is the same.  In Bhabhi a play shows a card of the hand and in
Give & Take an ace's value is revealed with the cards it was chosen from, so
there the stronger property does not hold by the rules; Give Away has no card a
seat sees that a spectator does not.

Deterministic: fixed seeds, no hypothesis.  About 5 s of tests on the project's machine.
"""

from __future__ import annotations

import dataclasses
import json
import random
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from engine.bots import bot_levels, make_bot
from engine.cards import Card
from engine.contract import Action, Game
from engine.games.bhabhi import BhabhiState
from engine.games.give_and_take import ACE_VALUES, GiveAndTakeState
from engine.games.give_away import GiveAwayState
from engine.games.old_maid import OldMaidState
from engine.play import new_deal, play_bots, play_random
from engine.registry import all_games, get_game

#: Games played per case (every other one by heuristic bots, the rest at random).
GAMES_PER_CASE = 6
#: Positions checked per game, spread evenly over it.
POSITIONS_PER_GAME = 12
#: Hidden variants per position and seat.
VARIANTS = 2
#: Generator seeds each bot and timeout is run with.
RNG_SEEDS = (0, 1, 2)

Variant = Callable[[Any, frozenset[int], random.Random], Any]


# -- hidden variants, one function per game ----------------------------------------------
#
# ``keep``: the seats whose own cards stay as they are (the viewer's; empty for a
# spectator).  Everything else hidden is exchanged, as far as the rules allow a state
# to look the same to the viewer.


def _old_maid(state: OldMaidState, keep: frozenset[int], rng: random.Random) -> OldMaidState:
    """Fans not kept: their cards exchanged among them (sizes kept) and their orders
    shuffled.  Every fan is hidden, order included; the discards are public.  A fan never
    holds two cards of one rank (a pair is discarded at once), so the exchange is a chain
    of swaps that never makes one: a random reassignment would nearly always break it."""
    hands = [list(h) for h in state.hands]
    movable = [s for s in range(state.seats) if s not in keep and hands[s]]
    places = [(s, i) for s in movable for i in range(len(hands[s]))]
    for _ in range(6 * len(places) if len(movable) > 1 else 0):
        (s1, i1), (s2, i2) = rng.sample(places, 2)
        a, b = hands[s1][i1], hands[s2][i2]
        if s1 == s2:
            continue
        if a[0] != b[0] and (
            any(c[0] == b[0] for c in hands[s1]) or any(c[0] == a[0] for c in hands[s2])
        ):
            continue  # it would put a pair in a fan
        hands[s1][i1], hands[s2][i2] = b, a
    for s in movable:
        rng.shuffle(hands[s])
    return dataclasses.replace(state, hands=tuple(tuple(h) for h in hands))


def _bhabhi(state: BhabhiState, keep: frozenset[int], rng: random.Random) -> BhabhiState:
    """The hands not kept and the face-down discard: their cards dealt among them again
    (sizes kept).  A card the leader must lead (A♠ before trick 1, a blind draw) stays in
    the leader's hand: the seats know it is there.  Every hand's order is shuffled too,
    the viewer's own included (it carries no meaning; views sort it)."""
    hands = [list(h) for h in state.hands]
    pinned = state.must_lead if state.leader not in keep else None
    groups = [hands[s] for s in range(state.seats) if s not in keep]
    discard = list(state.discard)
    groups.append(discard)
    pool = [c for g in groups for c in g if c != pinned]
    rng.shuffle(pool)
    for g in groups:
        held = pinned in g
        size = len(g) - held
        g[:] = [pool.pop() for _ in range(size)] + ([pinned] if held and pinned else [])
    for h in hands:
        rng.shuffle(h)
    return dataclasses.replace(state, hands=tuple(tuple(h) for h in hands), discard=tuple(discard))


def _give_away(state: GiveAwayState, keep: frozenset[int], rng: random.Random) -> GiveAwayState:
    """Every face-down stack (nobody sees into one, their own included): the cards of all
    of them dealt among them again (sizes kept).  A foundation shows its top and size
    only, so a card under a top may change places with a stack's card of its rank.
    Face-up cards and foundation tops stay."""
    tops = [max(t, 0) for t in state.top]
    stacks = [list(d[:t]) for d, t in zip(state.dealt, tops, strict=True)]
    pool = [c for stack in stacks for c in stack]
    rng.shuffle(pool)
    for stack in stacks:
        stack[:] = [pool.pop() for _ in stack]
    foundations = [list(f) for f in state.foundations]
    played: dict[Card, Card] = {}  # a card played onto a foundation: the one now there
    for f in foundations:
        for i in range(len(f) - 1):
            alike = [
                (s, j) for s, st in enumerate(stacks) for j, c in enumerate(st) if c[0] == f[i][0]
            ]
            if alike and rng.random() < 0.5:
                s, j = rng.choice(alike)
                played[f[i]] = stacks[s][j]
                f[i], stacks[s][j] = stacks[s][j], f[i]
    return dataclasses.replace(
        state,
        dealt=tuple(
            tuple(stack) + tuple(played.get(c, c) for c in d[t:])
            for stack, d, t in zip(stacks, state.dealt, tops, strict=True)
        ),
        foundations=tuple(tuple(f) for f in foundations),
    )


def _give_and_take(
    state: GiveAndTakeState, keep: frozenset[int], rng: random.Random
) -> GiveAndTakeState:
    """Every face-down pile (their owners do not see them either), the reserve and the
    cards of seats gone out: dealt among them again (sizes kept).  While aces are being
    declared, the cards the other seats just turned are hidden too: each of those seats
    may have its two turned cards (with an ace's pending or declared state) swapped
    between its piles, a declared value changed, and the turned cards exchanged with the
    hidden ones, an ace for an ace and another card for another (which seats have an
    ace to declare is public)."""
    down = [list(p) for p in state.down]
    up = [list(p) for p in state.up]
    gone = [list(g) for g in state.gone]
    reserve = list(state.reserve)
    pending = set(state.pending)
    declared = list(state.declared)
    turned: list[int] = []
    if state.phase == "declare":
        for s in state.active:
            if s in keep or not up[2 * s] or not up[2 * s + 1]:
                continue
            left, right = 2 * s, 2 * s + 1
            if rng.random() < 0.5:
                up[left][-1], up[right][-1] = up[right][-1], up[left][-1]
                declared[left], declared[right] = declared[right], declared[left]
                ace_left, ace_right = left in pending, right in pending
                pending -= {left, right}
                pending |= {p for p, was in ((left, ace_right), (right, ace_left)) if was}
            for i in (left, right):
                if declared[i] is not None:
                    declared[i] = rng.choice(ACE_VALUES)
            turned += [left, right]
    stacks: list[list[Card]] = [*down, reserve, *gone]
    tops = [up[i][-1] for i in turned]
    pool = [c for g in stacks for c in g] + tops
    aces = [c for c in pool if c[0] == "A"]
    others = [c for c in pool if c[0] != "A"]
    rng.shuffle(aces)
    rng.shuffle(others)
    for i, top in zip(turned, tops, strict=True):
        up[i][-1] = aces.pop() if top[0] == "A" else others.pop()
    rest = aces + others
    rng.shuffle(rest)
    for g in stacks:
        g[:] = [rest.pop() for _ in g]
    return dataclasses.replace(
        state,
        down=tuple(tuple(p) for p in down),
        up=tuple(tuple(p) for p in up),
        reserve=tuple(reserve),
        gone=tuple(tuple(g) for g in gone),
        pending=tuple(sorted(pending)),
        declared=tuple(declared),
    )


VARIANTS_OF: dict[str, Variant] = {
    "old_maid": _old_maid,
    "bhabhi": _bhabhi,
    "give_away": _give_away,
    "give_and_take": _give_and_take,
}

CASES = [(g.id, n) for g in all_games() for n in range(g.min_seats, g.max_seats + 1)]


def test_every_game_has_its_hidden_variants() -> None:
    assert sorted(VARIANTS_OF) == sorted(g.id for g in all_games())


# -- positions and comparisons ----------------------------------------------------------


def _positions(game: Game[Any], seats: int) -> Iterator[tuple[Any, random.Random]]:
    """Seeded positions where some seat may act, from random and heuristic games."""
    for k in range(GAMES_PER_CASE):
        rng = random.Random(f"{game.id}/{seats}/{k}")
        deal = new_deal(game, seats, rng)
        if k % 2 and "heuristic" in bot_levels(game.id):
            bots = [make_bot(game.id, "heuristic") for _ in range(seats)]
            events = play_bots(game, deal, bots, rng).events
        else:
            events = play_random(game, deal, rng).events
        states = []
        state = None
        for event in events:
            state = game.evolve(state, event)
            if game.to_act(state) and game.chance_draw(state, random.Random(0)) is None:
                states.append(state)
        step = max(1, len(states) // POSITIONS_PER_GAME)
        for state in states[::step][:POSITIONS_PER_GAME]:
            yield state, rng


def _json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


def _sayable(game: Game[Any], action: Action) -> Action:
    """The part of ``action`` a seat may say (``Game.requests``); the rest the server fills."""
    fields = game.requests.get(action["type"], frozenset())
    return {k: v for k, v in action.items() if k == "type" or k in fields}


def _premise(game: Game[Any], state: Any, other: Any, viewer: int | None) -> None:
    assert sorted(game.cards(other)) == sorted(game.cards(state))
    assert _json(game.view(other, viewer)) == _json(game.view(state, viewer)), (
        "the hidden variant must look the same to the viewer",
        viewer,
    )


# -- the properties -----------------------------------------------------------------------


@pytest.mark.parametrize(("game_id", "seats"), CASES)
def test_no_bot_timeout_or_forced_move_depends_on_what_its_seat_cannot_see(
    game_id: str, seats: int
) -> None:
    game = get_game(game_id)
    levels = bot_levels(game_id)
    variant = VARIANTS_OF[game_id]
    checked = changed = 0
    for state, rng in _positions(game, seats):
        for seat in game.to_act(state):
            mine = game.hidden(state).get(f"seat:{seat}")
            for _ in range(VARIANTS):
                other = variant(state, frozenset({seat}), rng)
                _premise(game, state, other, seat)
                assert game.hidden(other).get(f"seat:{seat}") == mine
                checked += 1
                changed += game.hidden(other) != game.hidden(state)
                for level in levels:
                    for seed in RNG_SEEDS:
                        here = make_bot(game_id, level).choose(
                            game.view(state, seat), random.Random(seed)
                        )
                        there = make_bot(game_id, level).choose(
                            game.view(other, seat), random.Random(seed)
                        )
                        assert here == there, (level, seat, seed, here, there)
                assert game.forced_action(other, seat) == game.forced_action(state, seat)
                if seat in game.waiting_for(state):
                    _same_timeout(game, state, other, seat)
    assert checked >= 20
    assert changed >= 0.5 * checked, (changed, checked)


def _same_timeout(game: Game[Any], state: Any, other: Any, seat: int) -> None:
    for seed in RNG_SEEDS:
        here = game.timeout_action(state, seat, random.Random(seed))
        there = game.timeout_action(other, seat, random.Random(seed))
        assert _sayable(game, here) == _sayable(game, there), (seat, seed, here, there)
        for st, action in ((state, here), (other, there)):
            request, chance = game.request(st, seat, _sayable(game, action), random.Random(seed))
            assert not chance
            assert game.decide(st, seat, action) == game.decide(st, seat, request)


def _public(game: Game[Any], state: Any, seat: int, action: Action | None) -> list[Any]:
    """What a spectator sees of a bot's move: its events as ``event_view`` shows them."""
    if action is None:
        return []
    request, chance = game.request(state, seat, action, random.Random(0))
    events = game.decide(state, seat, request, chance=chance)
    after = state
    for event in events:
        after = game.evolve(after, event)
    return [game.event_view(e, state, after, None) for e in events]


@pytest.mark.parametrize("seats", range(2, 7))
def test_an_old_maid_bots_public_move_does_not_depend_on_its_own_fan(seats: int) -> None:
    """What a spectator sees of a bot's move is the same whatever the fans hold: eaea36c's
    bot, which shuffled now and then while it held a queen, fails this."""
    game = get_game("old_maid")
    levels = bot_levels("old_maid")
    made = changed = checked = 0
    for state, rng in _positions(game, seats):
        for _ in range(VARIANTS):
            other = _old_maid(state, frozenset(), rng)
            _premise(game, state, other, None)
            made += 1
            changed += game.hidden(other) != game.hidden(state)
            for seat in game.to_act(state):
                checked += 1
                for level in levels:
                    for seed in RNG_SEEDS:
                        here = make_bot("old_maid", level).choose(
                            game.view(state, seat), random.Random(seed)
                        )
                        there = make_bot("old_maid", level).choose(
                            game.view(other, seat), random.Random(seed)
                        )
                        assert _public(game, state, seat, here) == _public(
                            game, other, seat, there
                        ), (level, seat, seed, here, there)
    assert checked >= 20
    assert changed >= 0.5 * made, (changed, made)
