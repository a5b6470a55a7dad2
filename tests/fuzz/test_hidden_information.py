"""No response, stream or page shows a caller anything hidden from them, in any of the four games.

Random games of every game at every seat count are played through the API, and
every viewer (each seat, an anonymous caller, a club player without a seat, the
organiser) reads surfaces about the game in turn, every other step here: the game
view, its long-poll, events, record (refused while the game runs) and stream (also
with ``?view=true``), the table, the tournament and its stream, a seat's account
stream, and the pages (game, replay, table, tournament, the seat's play page, and
their fragments); at a step with a secret
that lasts only a step or two, everyone reads every surface that shows the moves.
The acting seat's answer to its move is checked too: every other move is sent over
the push channel (its ``acted`` frame), the rest as ``POST .../actions``.  And every viewer
holds a follow of the game on the push channel while it is played: every frame it is
pushed, each move's view built from that move's own fold, is searched.

What a viewer may not see is computed from the engine and the stored events alone,
never from the service's redaction (tests/fuzz/leaks.py says how): cards hidden
from the viewer and never known to it, the deck and the seed, other seats' Old Maid
fans in their order (and the orders they arranged), other seats' draws showing their
card, and other seats' Give & Take declarations of the round not yet revealed.
Every byte received is searched for them: zero hits.  After the end the record, the
seed and the deck are public (which shows the checks look in the right places).
bench/leaks.py runs the same checks over hundreds of games.
"""

from __future__ import annotations

import pytest

from tests.fuzz.leaks import SEAT_COUNTS, play_game

GAMES = [(kind, seats) for kind, counts in SEAT_COUNTS.items() for seats in counts]
#: In Russian, each game once: the pages' sentences and card names in the other language.
GAMES_IN_RUSSIAN = [("give_away", 3), ("old_maid", 3), ("bhabhi", 4), ("give_and_take", 3)]


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("kind,seats", GAMES)
def test_no_response_stream_or_page_shows_a_viewer_anything_hidden_from_them(
    kind: str, seats: int
) -> None:
    tally = play_game(kind, seats, seed=0, stride=2)
    assert not tally.hits, f"{len(tally.hits)} leaks, the first: {tally.hits[:5]}"
    # Each viewer read a surface every other step.
    assert tally.responses >= (seats + 3) * (tally.steps // 2)
    # The check is not empty: something was hidden from someone at several steps.
    assert tally.guarded >= min(tally.steps, 3), (tally.guarded, tally.steps)
    print(
        f"{kind} at {seats}: {tally.steps} steps, {tally.responses} responses, {tally.bytes} bytes,"
        f" {tally.fleeting} steps with a fleeting secret"
    )


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("kind,seats", GAMES_IN_RUSSIAN)
def test_no_page_in_russian_shows_a_viewer_anything_hidden_from_them(kind: str, seats: int) -> None:
    # Every viewer's browser asks for Russian: the pages' card names («даму червей») and
    # sentences («тянет карту № 2 из веера…») are searched in Russian, in any case.
    tally = play_game(kind, seats, seed=1, stride=2, language="ru")
    assert not tally.hits, f"{len(tally.hits)} leaks, the first: {tally.hits[:5]}"
    assert tally.guarded >= min(tally.steps, 3), (tally.guarded, tally.steps)
    # The Russian patterns find what they look for where it may be shown.
    if kind == "old_maid" or (kind == "bhabhi" and tally.fleeting):
        assert tally.draws_told, "no Russian sentence of a draw was found"
    if kind == "give_and_take":
        assert tally.declarations_told, "no Russian sentence of a declaration was found"
