"""Helpers every presenter uses: names, places, known cards, buttons.

Every word here is in the request's language (Django's gettext; the Russian catalog,
docs/i18n.md): a sentence is one msgid with named places (``{who}``), so a translation
may put the names where its grammar wants them, and every count is an ``ngettext``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from django.utils.html import format_html
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext, gettext_noop, pgettext

from tournaments.templatetags.cards import card_html

#: A table being filled for ``templates/games/table_<game>.html``: what every game has
#: (``players``, ``seats``…, see :func:`tournaments.templatetags.tables.present`) and the
#: game's own parts.
Table = dict[str, Any]


def ordinal(n: int) -> str:
    """``1`` → ``1st``, ``12`` → ``12th``, ``22`` → ``22nd`` (Russian «1-е»: a place)."""
    if 10 <= n % 100 <= 20 or n % 10 not in (1, 2, 3):
        return pgettext("ordinal place", "{n}th").format(n=n)
    if n % 10 == 1:
        return pgettext("ordinal place", "{n}st").format(n=n)
    if n % 10 == 2:
        return pgettext("ordinal place", "{n}nd").format(n=n)
    return pgettext("ordinal place", "{n}rd").format(n=n)


def place_label(n: int) -> str:
    """A seat's place as a short label: ``1st`` (Russian «1-е место»)."""
    return pgettext("seat label", "{place}").format(place=ordinal(n))


def out_label(n: int) -> str:
    """The label of a seat out of the game in place ``n``: ``out 1st``."""
    return pgettext("seat label", "out {place}").format(place=ordinal(n))


def player_name(players: Sequence[str], seat: int | None) -> str:
    """The name at ``seat``; ``nobody`` for no seat, ``Seat n`` past the names (numbered from 1
    for people, as everywhere on the pages)."""
    if seat is None:
        return gettext("nobody")
    if 0 <= seat < len(players):
        return players[seat]
    return gettext("Seat {number}").format(number=seat + 1)


def names_text(names: Sequence[str]) -> str:
    """``Ann``, ``Ann and Bob``, ``Ann, Bob and Cid``."""
    if len(names) < 2:
        return "".join(names)
    return gettext("{names} and {last}").format(names=", ".join(names[:-1]), last=names[-1])


def groups_rank(groups: Sequence[Sequence[int]]) -> dict[int, int]:
    """The place (1 first) of each seat from groups of seats, best first."""
    place, found = 1, {}
    for group in groups:
        for seat in group:
            found[seat] = place
        place += len(group)
    return found


def known_cards(view: Mapping[str, Any], s: int, me: int | None) -> list[str] | None:
    """The cards of seat ``s``'s hand if the viewer may see them (own hand, or the end)."""
    hidden = view.get("hidden") or {}
    if f"seat:{s}" in hidden and isinstance(hidden[f"seat:{s}"], list):
        return list(hidden[f"seat:{s}"])
    if me == s and isinstance(view.get("hand"), list):
        return list(view["hand"])
    return None


def out_places(view: Mapping[str, Any]) -> dict[int, int]:
    """The place of each seat already out (the view's ``out``: groups, first out first)."""
    return groups_rank(view.get("out") or [])


def mark_out(seat: dict[str, Any], out: Mapping[int, int]) -> None:
    """Mark a table seat that is out, with its place unless it has a result already."""
    s = seat["seat"]
    seat["out"] = s in out
    if s in out and not seat["result"]:
        seat["result"] = out_label(out[s])


def loser_labels(result: Mapping[str, Any], seats: int) -> dict[int, str]:
    """Seat labels of a ``{"loser": s, "out": [[…], …]}`` result: ``lost``, ``out 1st``…"""
    ranks = groups_rank(result.get("out") or [])
    labels: dict[int, str] = {}
    for s in range(seats):
        if s == result.get("loser"):
            labels[s] = pgettext("seat label", "lost")
        elif s in ranks:
            labels[s] = out_label(ranks[s])
    return labels


def small_card(code: object) -> SafeString:
    """A small face-up card in a sentence, or ``a card`` when the viewer may not see it."""
    return card_html(code, "small") if code else format_html("{}", gettext("a card"))


def drawn_card(code: object) -> SafeString:
    """``: 7♥`` after a draw's words when the viewer may see the card drawn, else nothing."""
    return format_html(": {}", small_card(code)) if code else mark_safe("")


# -- games of hands emptied to go out, one loser left holding cards (Old Maid, Bhabhi) ------


def fill_hand_seats(
    table: Table, view: Mapping[str, Any], me: int | None, *, sizes: str, size_field: str
) -> None:
    """Each seat's hand size (``view[sizes]`` into ``seat[size_field]``), its cards when the
    viewer may see them (:func:`known_cards`), and whether it is out, with its place."""
    out = out_places(view)
    counts = view.get(sizes) or []
    for seat in table["seats"]:
        s = seat["seat"]
        seat[size_field] = counts[s] if s < len(counts) else 0
        seat["cards"] = known_cards(view, s, me)
        mark_out(seat, out)


class OneLoser:
    """What the presenters of a game with one loser share (Old Maid, Bhabhi: a result
    ``{"loser": s, "out": [...]}``): mixed in before :class:`~tournaments.presenters.Presenter`.

    ``loses`` is the result's sentence and ``last_one_left`` the end's, each naming the
    loser where it says ``{loser}``: English source strings, marked with ``gettext_noop``
    and translated when said.
    """

    loses: ClassVar[str] = gettext_noop("{loser} loses")
    last_one_left: ClassVar[str] = gettext_noop(
        "Only {loser} is left in the game: the game is over."
    )

    def result_text(self, result: Mapping[str, Any], players: Sequence[str]) -> str:
        return gettext(self.loses).format(loser=player_name(players, result.get("loser")))

    def seat_results(self, result: Mapping[str, Any], seats: int) -> dict[int, str]:
        return loser_labels(result, seats)

    def end_sentences(
        self,
        outcome: Mapping[str, Any],
        before: Mapping[str, Any],
        after: Mapping[str, Any],
        players: Sequence[str],
    ) -> list[SafeString]:
        loser = player_name(players, outcome.get("loser"))
        return [format_html(gettext(self.last_one_left), loser=loser)]


def choice(
    action: Mapping[str, Any],
    label: SafeString | str,
    *,
    card: str | None = None,
    optional: bool = False,
    aria: str = "",
) -> dict[str, Any]:
    """A button sending ``action``; with ``card`` it is drawn as that card of the hand."""
    return {
        "json": json.dumps(dict(action), sort_keys=True, separators=(",", ":")),
        "label": label,
        "card": card,
        "optional": optional,
        "aria": aria or (label if isinstance(label, str) else ""),
    }
