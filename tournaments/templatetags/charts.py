"""Charts as inline SVG drawn on the server: the standings over the rounds, a rating's history.

``{% load charts %}`` gives ``{% standings_chart rows rounds %}``,
``{% rating_chart values %}`` and the ``points`` filter (``1``, ``0.5``, ``1.67``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from decimal import ROUND_HALF_UP, Decimal
from fractions import Fraction
from typing import Any

from django import template
from django.utils.formats import number_format
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext, pgettext

register = template.Library()

WIDTH, HEIGHT = 640, 280
LEFT, RIGHT, TOP, BOTTOM = 40, 130, 14, 30
#: A name's label at the end of its line: 11 px text, about 6.5 px a character.
LABEL_GAP, LABEL_CHARS = 13, 18
#: Lines that share a point are drawn this far apart (px) at it, so that none hides another.
TIE_SPACING, TIE_SPREAD = 4.0, 28.0


@register.filter
def points(value: Fraction | float | int | None) -> str:
    """Points as people read them: ``1``, ``0.5``, ``1.67`` (``0,5`` in Russian: the
    locale's decimal separator)."""
    if value is None:
        return ""
    # Rounded half up from the exact value, as people round: 5/8 is 0.63 (a float's
    # format rounds 0.625 to even, 0.62, beside a standings CSV that said 0.625).
    exact = (
        Decimal(value.numerator) / Decimal(value.denominator)
        if isinstance(value, Fraction)
        else Decimal(str(value))
    )
    text = str(exact.quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)).rstrip("0").rstrip(".")
    if text in ("", "-0"):
        return "0"
    return number_format(text, decimal_pos=len(text.partition(".")[2]) or None)


def _nice_top(highest: float, step: float) -> float:
    return max(step, math.ceil(highest / step) * step)


def _short(name: str) -> str:
    """A name that fits the labels' column (whole in the label's title)."""
    return name if len(name) <= LABEL_CHARS else name[: LABEL_CHARS - 1].rstrip() + "…"


def _tie_offsets(rows: Sequence[Any], columns: int) -> list[list[float]]:
    """Each row's vertical offset (px) at each column: the rows with equal points there are
    spread round the point, in a fixed order (the player's colour order), so tied lines run
    side by side instead of on top of one another."""
    offsets = [[0.0] * (columns + 1) for _ in rows]
    for i in range(columns + 1):
        groups: dict[float, list[int]] = {}
        for k, row in enumerate(rows):
            groups.setdefault(row.cumulative[i], []).append(k)
        for members in groups.values():
            if len(members) < 2:
                continue
            gap = min(TIE_SPACING, TIE_SPREAD / (len(members) - 1))
            members.sort(key=lambda k: (rows[k].colour_order, k))
            middle = (len(members) - 1) / 2
            for j, k in enumerate(members):
                offsets[k][i] = (j - middle) * gap
    return offsets


@register.simple_tag
def standings_chart(rows: Sequence[Any], rounds: Sequence[int]) -> SafeString:
    """Each player's total points after each round (round 0: nothing yet), one line each.

    ``rows`` are the standings (with ``player``, ``colour``, ``colour_order``, ``dash`` and
    ``cumulative``).  A player keeps their colour whatever their rank (it is theirs:
    :func:`tournaments.services.queries.standings_rows`); every line ends with its
    player's name (names pushed apart, with a tick to their line when moved), and its
    ``<title>`` names it on hover; lines tied at a point are drawn side by side.
    """
    if not rows or not rounds:
        return mark_safe("")
    rows = list(rows)
    highest = max(max(r.cumulative) for r in rows)
    step = 0.5 if highest <= 4 else 1.0 if highest <= 10 else 2.0
    top = _nice_top(highest, step)
    columns = len(rounds)
    offsets = _tie_offsets(rows, columns)
    # Room for the ties' spread above the top and below zero, and for every name.
    spread = max((abs(o) for line in offsets for o in line), default=0.0)
    top_margin = TOP + spread
    height = max(HEIGHT, int(top_margin + LABEL_GAP * len(rows) + BOTTOM + spread + 8))
    plot_w = WIDTH - LEFT - RIGHT
    plot_h = height - top_margin - BOTTOM - spread

    def x(i: int) -> str:
        return f"{LEFT + plot_w * i / columns:.1f}"

    def y(v: float, offset: float = 0.0) -> str:
        return f"{top_margin + plot_h * (1 - v / top) + offset:.1f}"

    parts: list[SafeString] = []
    ticks = int(round(top / step))
    for k in range(ticks + 1):
        value = k * step
        parts.append(
            format_html(
                '<line class="grid" x1="{}" y1="{}" x2="{}" y2="{}"/>'
                '<text class="axis" x="{}" y="{}" text-anchor="end">{}</text>',
                LEFT,
                y(value),
                LEFT + plot_w,
                y(value),
                LEFT - 6,
                f"{float(y(value)) + 4:.1f}",
                points(value),
            )
        )
    labels = [
        (pgettext("chart axis", "start"), gettext("before round 1")),
        *[
            (
                gettext("R%(number)s") % {"number": n},
                gettext("after round %(number)s") % {"number": n},
            )
            for n in rounds
        ],
    ]
    for i, (label, meaning) in enumerate(labels):
        parts.append(
            format_html(
                '<text class="axis" x="{}" y="{}" text-anchor="middle"><title>{}</title>{}</text>',
                x(i),
                height - BOTTOM + 18,
                meaning,
                label,
            )
        )
    # Names at the end of the lines, in the order of their last point, pushed apart.
    ends = sorted(
        ((float(y(r.cumulative[-1], offsets[k][-1])), k) for k, r in enumerate(rows)),
        key=lambda e: (e[0], e[1]),
    )
    spots: list[float] = []
    for want, _ in ends:
        spots.append(max(want + 4, spots[-1] + LABEL_GAP) if spots else want + 4)
    overflow = (spots[-1] - (height - BOTTOM + 4)) if spots else 0
    if overflow > 0:
        spots = [s - overflow for s in spots]
    label_of = {k: (spot, want) for spot, (want, k) in zip(spots, ends, strict=True)}
    # Leaders last, so their lines are drawn on top.
    for k in reversed(range(len(rows))):
        row = rows[k]
        shown = [(x(i), y(v, offsets[k][i])) for i, v in enumerate(row.cumulative)]
        coords = " ".join(f"{px},{py}" for px, py in shown)
        dots = format_html_join(
            "",
            '<circle cx="{}" cy="{}" r="3" fill="{}"/>',
            ((px, py, row.colour) for px, py in shown),
        )
        spot, want = label_of[k]
        end_x = float(x(columns))
        name = row.player.name
        summary = gettext("%(name)s: %(points)s in all after round %(number)s (%(rounds)s)") % {
            "name": name,
            "points": points(row.cumulative[-1]),
            "number": rounds[-1],
            "rounds": ", ".join(
                gettext("R%(number)s") % {"number": n} + f" {points(v)}"
                for n, v in zip(rounds, row.cumulative[1:], strict=True)
            ),
        }
        parts.append(
            format_html(
                '<g class="line" tabindex="0" data-player="{}"><title>{}</title>'
                '<polyline points="{}" fill="none" stroke="{}" stroke-width="{}"{}/>{}'
                '<line class="tick" x1="{}" y1="{}" x2="{}" y2="{}" stroke="{}"/>'
                '<text class="name" x="{}" y="{}" fill="{}">{}</text></g>',
                row.player.pk,
                summary,
                coords,
                row.colour,
                2.5 if row.rank <= 3 else 1.75,
                format_html(' stroke-dasharray="{}"', row.dash) if row.dash else "",
                dots,
                f"{end_x + 3:.1f}",
                f"{want:.1f}",
                f"{end_x + 7:.1f}",
                f"{spot - 4:.1f}",
                row.colour,
                f"{end_x + 9:.1f}",
                f"{spot:.1f}",
                row.colour,
                _short(name),
            )
        )
    return format_html(
        '<svg class="chart" viewBox="0 0 {} {}" role="img" aria-labelledby="chart-title">'
        '<title id="chart-title">{}</title>{}</svg>',
        WIDTH,
        height,
        gettext("Standings over the rounds: total points of each player after each round"),
        mark_safe("".join(parts)),
    )


@register.simple_tag
def rating_chart(values: Sequence[int], title: str = "") -> SafeString:
    """A rating after each finished table (the first value: the starting 1000)."""
    title = title or gettext("Rating history")
    if len(values) < 2:
        return mark_safe("")
    width, height, left, right, top, bottom = 480, 160, 44, 12, 10, 24
    low, high = min(values), max(values)
    low, high = math.floor((low - 10) / 50) * 50, math.ceil((high + 10) / 50) * 50
    span = max(high - low, 1)

    def x(i: int) -> str:
        return f"{left + (width - left - right) * i / (len(values) - 1):.1f}"

    def y(v: float) -> str:
        return f"{top + (height - top - bottom) * (1 - (v - low) / span):.1f}"

    parts = [
        format_html(
            '<line class="grid" x1="{}" y1="{}" x2="{}" y2="{}"/>'
            '<text class="axis" x="{}" y="{}" text-anchor="end">{}</text>',
            left,
            y(v),
            width - right,
            y(v),
            left - 6,
            f"{float(y(v)) + 4:.1f}",
            v,
        )
        for v in (low, (low + high) // 2, high)
    ]
    coords = " ".join(f"{x(i)},{y(v)}" for i, v in enumerate(values))
    parts.append(
        format_html('<polyline points="{}" fill="none" stroke="#0f5132" stroke-width="2"/>', coords)
    )
    parts.append(
        format_html_join(
            "",
            '<circle cx="{}" cy="{}" r="3" fill="#0f5132"><title>{}</title></circle>',
            ((x(i), y(v), v) for i, v in enumerate(values)),
        )
    )
    parts.append(
        format_html(
            '<text class="axis" x="{}" y="{}">{} →</text>',
            left,
            height - 6,
            gettext("tables played"),
        )
    )
    return format_html(
        '<svg class="chart rating" viewBox="0 0 {} {}" role="img" aria-label="{}: {}">{}</svg>',
        width,
        height,
        title,
        ", ".join(str(v) for v in values),
        mark_safe("".join(parts)),
    )
