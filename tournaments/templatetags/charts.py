"""Charts as inline SVG drawn on the server: the standings over the rounds, a rating's history.

``{% load charts %}`` gives ``{% standings_chart rows rounds %}``,
``{% rating_chart values %}`` and the ``points`` filter (``1``, ``0.5``, ``1.67``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction
from typing import Any

from django import template
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString, mark_safe

register = template.Library()

WIDTH, HEIGHT = 640, 280
LEFT, RIGHT, TOP, BOTTOM = 40, 120, 14, 30
#: Lines labelled with the player's name at their end (the leaders).
LABELLED = 6


@register.filter
def points(value: Fraction | float | int | None) -> str:
    """Points as people read them: ``1``, ``0.5``, ``1.67``."""
    if value is None:
        return ""
    text = f"{float(value):.2f}".rstrip("0").rstrip(".")
    return text or "0"


def _nice_top(highest: float, step: float) -> float:
    return max(step, math.ceil(highest / step) * step)


@register.simple_tag
def standings_chart(rows: Sequence[Any], rounds: Sequence[int]) -> SafeString:
    """Each player's total points after each round (round 0: nothing yet), one line each.

    ``rows`` are the standings (with ``player``, ``colour`` and ``cumulative``).
    """
    if not rows or not rounds:
        return mark_safe("")
    highest = max(max(r.cumulative) for r in rows)
    step = 0.5 if highest <= 4 else 1.0 if highest <= 10 else 2.0
    top = _nice_top(highest, step)
    plot_w = WIDTH - LEFT - RIGHT
    plot_h = HEIGHT - TOP - BOTTOM
    columns = len(rounds)

    def x(i: int) -> str:
        return f"{LEFT + plot_w * i / columns:.1f}"

    def y(v: float) -> str:
        return f"{TOP + plot_h * (1 - v / top):.1f}"

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
    labels = ["start", *[f"R{n}" for n in rounds]]
    for i, label in enumerate(labels):
        parts.append(
            format_html(
                '<text class="axis" x="{}" y="{}" text-anchor="middle">{}</text>',
                x(i),
                HEIGHT - BOTTOM + 18,
                label,
            )
        )
    # Leaders last, so their lines are drawn on top.
    for row in reversed(list(rows)):
        coords = " ".join(f"{x(i)},{y(v)}" for i, v in enumerate(row.cumulative))
        dots = format_html_join(
            "",
            '<circle cx="{}" cy="{}" r="3" fill="{}"/>',
            ((x(i), y(v), row.colour) for i, v in enumerate(row.cumulative)),
        )
        parts.append(
            format_html(
                '<g class="line"><title>{}: {}</title>'
                '<polyline points="{}" fill="none" stroke="{}" stroke-width="{}"/>{}</g>',
                row.player.name,
                ", ".join(points(v) for v in row.cumulative[1:]),
                coords,
                row.colour,
                2.5 if row.rank <= 3 else 1.5,
                dots,
            )
        )
    # Names at the end of the leaders' lines, pushed apart so they do not overlap.
    wanted = sorted(
        ((float(y(r.cumulative[-1])) + 4, r) for r in list(rows)[:LABELLED]), key=lambda w: w[0]
    )
    spots: list[float] = []
    for want, _ in wanted:
        spots.append(max(want, spots[-1] + 13) if spots else want)
    overflow = (spots[-1] - (HEIGHT - BOTTOM + 4)) if spots else 0
    if overflow > 0:
        spots = [max(TOP + 8, s - overflow) for s in spots]
    for spot, (_, row) in zip(spots, wanted, strict=True):
        parts.append(
            format_html(
                '<text class="name" x="{}" y="{}" fill="{}">{}</text>',
                f"{float(x(columns)) + 8:.1f}",
                f"{spot:.1f}",
                row.colour,
                row.player.name,
            )
        )
    return format_html(
        '<svg class="chart" viewBox="0 0 {} {}" role="img" aria-labelledby="chart-title">'
        '<title id="chart-title">Standings over the rounds: total points of each player'
        " after each round</title>{}</svg>",
        WIDTH,
        HEIGHT,
        mark_safe("".join(parts)),
    )


@register.simple_tag
def rating_chart(values: Sequence[int], title: str = "Rating history") -> SafeString:
    """A rating after each finished table (the first value: the starting 1000)."""
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
        format_html('<text class="axis" x="{}" y="{}">tables played →</text>', left, height - 6)
    )
    return format_html(
        '<svg class="chart rating" viewBox="0 0 {} {}" role="img" aria-label="{}: {}">{}</svg>',
        width,
        height,
        title,
        ", ".join(str(v) for v in values),
        mark_safe("".join(parts)),
    )
