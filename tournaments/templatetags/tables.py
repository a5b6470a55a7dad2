"""A game's table as a person sees it, for every game, from the game service's view.

Game-agnostic: what one game looks like, reads like and which buttons it has is its
presenter's (:mod:`tournaments.presenters`, ``tournaments/presenters/<game>.py``).
Here is what every game shares: :func:`present` turns a view (a seat's, a
spectator's, or a replay's full view with the hidden cards) into the seats around
the table, the presenter adds the game's parts and ``templates/games/table_<game>.html``
draws them; :func:`describe` (an event in words, for logs and the replay's list of
moves) and :func:`action_choices` (the legal actions of a seat as buttons) add the
common wording and grouping to the presenter's.

``{% load tables %}`` gives ``{% game_table table %}`` (the table drawn),
``{% cards_row cards "small" %}`` and ``{{ card|text_of_card }}``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from django import template
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext, npgettext, pgettext

from tournaments.presenters import pass_text, presenter_for
from tournaments.presenters.common import choice, ordinal, player_name
from tournaments.templatetags.cards import card_html, card_text

__all__ = [
    "action_choices",
    "describe",
    "story",
    "ordinal",
    "present",
    "result_text",
    "seat_results",
]

register = template.Library()


# -- results ------------------------------------------------------------------------------


def result_text(kind: str, result: Mapping[str, Any] | None, players: Sequence[str]) -> str:
    """A game's result in one sentence."""
    if not result:
        return gettext("still being played")
    return presenter_for(kind).result_text(result, players)


def seat_results(kind: str, result: Mapping[str, Any] | None, seats: int) -> dict[int, str]:
    """A short result label per seat (``won``, ``lost``, ``1st``…) once the game is over."""
    if not result:
        return {}
    return presenter_for(kind).seat_results(result, seats)


# -- the table ------------------------------------------------------------------------


def _seat(
    view: Mapping[str, Any],
    s: int,
    players: Sequence[str],
    me: int | None,
    seat_info: Sequence[Mapping[str, Any]],
    results: Mapping[int, str],
) -> dict[str, Any]:
    info = seat_info[s] if s < len(seat_info) and isinstance(seat_info[s], Mapping) else {}
    deadlines = view.get("deadlines") or {}
    return {
        "seat": s,
        "name": player_name(players, s),
        "player_id": info.get("player"),
        "bot": info.get("bot"),
        "dealer": view.get("dealer") == s,
        "to_act": s in (view.get("to_act") or []),
        "waiting": s in (view.get("waiting_for") or []),
        "me": me == s,
        "deadline": deadlines.get(str(s)),
        "out": False,
        "result": results.get(s, ""),
        "status": "",
    }


def present(
    kind: str,
    view: Mapping[str, Any],
    players: Sequence[str],
    *,
    me: int | None = None,
    seat_info: Sequence[Mapping[str, Any]] = (),
    compact: bool = False,
) -> dict[str, Any]:
    """The table of ``view`` (any game) ready for ``templates/games/table_<kind>.html``.

    ``me`` is the viewer's seat (their hand is shown), ``seat_info`` the game
    context's seats (player ids and bot levels), ``compact`` a small table for lists.
    """
    seats = int(view.get("seats") or len(players))
    outcome = view.get("outcome")
    results = seat_results(kind, outcome, seats)
    table: dict[str, Any] = {
        "kind": kind,
        "players": list(players),
        "compact": compact,
        "over": outcome is not None,
        "outcome": outcome,
        "result_text": result_text(kind, outcome, players) if outcome else "",
        "me": me,
        "seats": [_seat(view, s, players, me, seat_info, results) for s in range(seats)],
        "template": f"games/table_{kind}.html",
    }
    presenter_for(kind).fill_table(table, view, me)
    # Seats in the order round the table from the viewer (their own seat last, at the bottom).
    if me is not None and 0 <= me < seats:
        order = [(me + 1 + i) % seats for i in range(seats)]
        table["seats"] = [table["seats"][s] for s in order]
        table["top"], table["bottom"] = table["seats"][:-1], table["seats"][-1:]
    else:
        # Round the table clockwise: the first half along the top, the rest back along the bottom.
        half = (seats + 1) // 2
        table["top"], table["bottom"] = table["seats"][:half], table["seats"][half:][::-1]
    return table


@register.inclusion_tag("games/table.html")
def game_table(table: Mapping[str, Any]) -> dict[str, Any]:
    """``{% game_table table %}``: draw a table made by :func:`present`."""
    return {"table": table}


# -- events in words ----------------------------------------------------------------------


def describe(
    kind: str,
    payload: Mapping[str, Any],
    players: Sequence[str],
    cause: Mapping[str, Any] | None = None,
    *,
    before: Mapping[str, Any] | None = None,
    after: Mapping[str, Any] | None = None,
) -> SafeString:
    """One event (the game service's payload) as a sentence with card pictures.

    Given the viewer's views of the table before and after it (``before``, ``after``:
    :func:`tournaments.play.game_story`) the sentence names what the move alone does not
    say, and the event's consequences follow it, a sentence each in a
    ``<span class="consequence">`` (a trick picked up, a hand taken, a seat out, the end).
    """
    if payload.get("type") == "dealt":
        dealer = player_name(players, payload.get("dealer"))
        seats = int(payload.get("seats") or 0)
        to = npgettext("deals to", "{n} player", "{n} players", seats).format(n=seats)
        dealt = len(payload.get("deck") or [])
        if not dealt:
            return format_html(
                gettext("{dealer} deals the cards to {players}"), dealer=dealer, players=to
            )
        return format_html(
            gettext("{dealer} deals {cards} to {players}"),
            dealer=dealer,
            cards=npgettext("cards dealt", "{n} card", "{n} cards", dealt).format(n=dealt),
            players=to,
        )
    who = player_name(players, payload.get("seat"))
    action = payload.get("action") or {}
    presenter = presenter_for(kind)
    chance = bool(payload.get("chance"))
    if before is not None:
        text = presenter.describe_move(
            action, who, players, chance=chance, before=before, seat=payload.get("seat")
        )
    else:
        text = presenter.describe_action(action, who, players, chance=chance)
    if text is None:
        if action.get("type") == "pass":
            text = pass_text(who)
        else:
            text = format_html("{}: {}", who, json.dumps(action, sort_keys=True))
    how = (cause or {}).get("kind")
    if how == "timeout":
        text = format_html('{} <span class="tag warn">{}</span>', text, gettext("time ran out"))
    elif how == "bot":
        text = format_html('{} <span class="tag">{}</span>', text, pgettext("a move's tag", "bot"))
    elif how == "seat" and (cause or {}).get("id") == "forced":
        text = format_html(
            '{} <span class="tag">{}</span>', text, gettext("automatic: a forced move")
        )
    if after is not None:
        for sentence in presenter.consequences(payload, before, after, players):
            text = format_html('{} <span class="consequence">{}</span>', text, sentence)
    return text


def story(kind: str, event: Mapping[str, Any], players: Sequence[str]) -> SafeString:
    """An event of :func:`tournaments.play.game_story` in words, with its consequences."""
    return describe(
        kind,
        event["payload"],
        players,
        event.get("cause"),
        before=event.get("before"),
        after=event.get("after"),
    )


# -- the legal actions as buttons --------------------------------------------------------------


def action_choices(kind: str, view: Mapping[str, Any], players: Sequence[str]) -> dict[str, Any]:
    """The seat's legal actions grouped as the play page shows them.

    ``cards``: actions that play a card of the hand (buttons drawn as cards);
    ``buttons``: the other actions; each with the action's JSON, a label, and
    whether it is optional (the game is not waiting for it).
    """
    presenter = presenter_for(kind)
    waiting = view.get("viewer") in (view.get("waiting_for") or [])
    cards: list[dict[str, Any]] = []
    buttons: list[dict[str, Any]] = []
    for action in view.get("legal_actions") or []:
        shown = presenter.action_choice(action, view, players)
        if shown is None:
            if action.get("type") == "pass":
                shown = choice(action, pgettext("button", "Pass"))
            else:
                shown = choice(action, json.dumps(action, sort_keys=True))
        (cards if shown["card"] is not None else buttons).append(shown)
    # The playable cards in the order of the hand drawn beneath them (the engine's order,
    # suit then rank as people hold them), not in the legal actions' order of codes.
    hand = [c for c in view.get("hand") or [] if isinstance(c, str)]
    place = {card: i for i, card in enumerate(hand)}
    cards.sort(key=lambda shown: place.get(shown["card"], len(place)))
    return {"cards": cards, "buttons": buttons, "waiting": waiting}


@register.simple_tag
def cards_row(codes: Sequence[object] | None, size: str = "small") -> SafeString:
    """``{% cards_row cards "small" %}``: face-up cards side by side."""
    if not codes:
        return mark_safe("")
    return format_html_join("", "{}", ((card_html(c, size),) for c in codes))


@register.filter
def text_of_card(code: object) -> str:
    return card_text(code)
