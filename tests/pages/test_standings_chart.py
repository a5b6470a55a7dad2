"""The standings chart: a colour that is the player's (not their rank's), every line labelled
and named on hover, tied lines side by side, no label cut off."""

from __future__ import annotations

import re
from types import SimpleNamespace
from typing import Any

import pytest

from tests.factories import PageWorld, begin_round, bot_tournament
from tournaments.management.commands.play_bots import run_all_bots
from tournaments.services.queries import standings_rows
from tournaments.templatetags.charts import LABEL_CHARS, WIDTH, standings_chart

#: About the width of a character of the labels' 11 px text, in the chart's units.
CHAR = 6.5


def _row(pk: int, name: str, cumulative: list[float], rank: int = 1, order: int = 0) -> Any:
    return SimpleNamespace(
        player=SimpleNamespace(pk=pk, name=name),
        colour=f"#00000{pk % 10}",
        colour_order=order,
        dash="",
        rank=rank,
        cumulative=cumulative,
    )


def _lines(svg: str) -> dict[str, list[tuple[float, float]]]:
    found = {}
    for player, points in re.findall(r'data-player="(\d+)".*?<polyline points="([^"]+)"', svg):
        found[player] = [tuple(map(float, p.split(","))) for p in points.split()]
    return found


@pytest.mark.django_db
def test_a_player_keeps_their_colour_from_round_to_round_whatever_their_rank(
    world: PageWorld,
) -> None:
    tournament = bot_tournament(world, "give_away", players=6, rounds=3)
    seen: dict[int, str] = {}
    for _ in range(2):
        _, _, rows = standings_rows(tournament)
        for row in rows:
            assert seen.setdefault(row.player.pk, row.colour) == row.colour
        begin_round(tournament)
        run_all_bots(tournament)
    _, _, rows = standings_rows(tournament)
    assert {row.player.pk: row.colour for row in rows} == seen
    # Six players, six colours: nobody shares one.
    assert len(set(seen.values())) == 6
    page = world.client().get(f"/tournaments/{tournament.pk}/").content.decode()
    for row in rows:  # the table's swatch and the chart's line are the same colour
        assert f'fill="{row.colour}"' in page and f'stroke="{row.colour}"' in page


def test_tied_lines_are_drawn_side_by_side_not_on_top_of_one_another() -> None:
    rows = [
        _row(1, "Ann", [0, 1, 2, 3], order=0),
        _row(2, "Bo", [0, 1, 2, 3], order=1),
        _row(3, "Cy", [0, 0, 1, 3], rank=3, order=2),
    ]
    lines = _lines(standings_chart(rows, [1, 2, 3]))
    assert set(lines) == {"1", "2", "3"}
    for i in range(4):
        assert lines["1"][i] != lines["2"][i]  # tied all along: apart at every point
    assert lines["1"][3] != lines["3"][3] != lines["2"][3]  # three tied at the end
    # Apart by a few pixels only: the lines still read as the same points.
    assert all(abs(a[1] - b[1]) <= 8 for a, b in zip(lines["1"], lines["2"], strict=True))


def test_every_line_is_labelled_and_named_on_hover_and_no_label_is_cut_off() -> None:
    long = "Ann " + "Longname" * 15
    rows = [_row(k, long if k == 0 else f"Player {k}", [0, 1, 1, 1], order=k) for k in range(14)]
    svg = standings_chart(rows, [1, 2, 3])
    labels = re.findall(r'<text class="name" x="([\d.]+)" y="([\d.-]+)"[^>]*>([^<]+)</text>', svg)
    assert len(labels) == 14  # every line, not only the leaders'
    height = float(re.search(r'viewBox="0 0 \d+ ([\d.]+)"', svg).group(1))  # type: ignore[union-attr]
    tops = sorted(float(y) for _, y, _ in labels)
    assert tops[0] >= 11 and tops[-1] <= height
    assert all(b - a >= 12 for a, b in zip(tops, tops[1:], strict=False))  # none overlaps
    for x, _, text in labels:
        assert len(text) <= LABEL_CHARS
        assert float(x) + CHAR * len(text) <= WIDTH, text
    # The whole name is on hover (the line's title), with the points after each round.
    assert f"<title>{long}: 1 in all after round 3 (R1 1, R2 1, R3 1)</title>" in svg
    assert "Ann Longname" in svg and "…" in svg


def test_points_are_rounded_half_up_as_people_round_them() -> None:
    # 5/8 showed as 0.62 (a float's format rounds to even) beside a CSV that said 0.625
    # (found by trying).
    from fractions import Fraction

    from tournaments.templatetags.charts import points

    shown = [points(v) for v in (Fraction(5, 8), Fraction(5, 3), Fraction(1, 2), 0.125, 2, None)]
    assert shown == ["0.63", "1.67", "0.5", "0.13", "2", ""]
