"""A game's table as a person sees it, for every game, from the game service's view.

One shape for the four games: :func:`present` turns a view (a seat's, a spectator's,
or a replay's full view with the hidden cards) into the seats around the table and
the middle of it, and ``templates/games/table_<game>.html`` draws them.  Also here:
:func:`describe` (an event in words, for logs and the replay's list of moves) and
:func:`action_choices` (the legal actions of a seat as buttons).

``{% load tables %}`` gives ``{% game_table table %}`` (the table drawn),
``{{ event|describe_event:game }}`` is done in the views with :func:`describe`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from django import template
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString, mark_safe

from tournaments.templatetags.cards import (
    SUIT_NAMES,
    SUIT_SYMBOLS,
    card_html,
    card_name,
    card_text,
)

register = template.Library()

SUFFIXES = {1: "st", 2: "nd", 3: "rd"}


def ordinal(n: int) -> str:
    """``1`` → ``1st``, ``12`` → ``12th``, ``22`` → ``22nd``."""
    suffix = "th" if 10 <= n % 100 <= 20 else SUFFIXES.get(n % 10, "th")
    return f"{n}{suffix}"


def _name(players: Sequence[str], seat: int | None) -> str:
    if seat is None:
        return "nobody"
    return players[seat] if 0 <= seat < len(players) else f"Seat {seat}"


def _groups_rank(groups: Sequence[Sequence[int]]) -> dict[int, int]:
    """The place (1 first) of each seat from groups of seats, best first."""
    place, found = 1, {}
    for group in groups:
        for seat in group:
            found[seat] = place
        place += len(group)
    return found


# -- results ------------------------------------------------------------------------------


def result_text(kind: str, result: Mapping[str, Any] | None, players: Sequence[str]) -> str:
    """A game's result in one sentence."""
    if not result:
        return "still being played"
    if kind == "give_away":
        winner = result.get("winner")
        if result.get("deadlock"):
            counts = ", ".join(
                f"{_name(players, s)} {c}" for s, c in enumerate(result.get("counts") or [])
            )
            if winner is None:
                return f"blocked, a draw (cards left: {counts})"
            return f"blocked: {_name(players, winner)} wins with the fewest cards ({counts})"
        return f"{_name(players, winner)} wins"
    if kind in ("old_maid", "bhabhi"):
        what = "is left with the odd queen" if kind == "old_maid" else "is the Bhabhi"
        return f"{_name(players, result.get('loser'))} loses ({what})"
    if kind == "give_and_take":
        places = result.get("places") or []
        parts = []
        rank = _groups_rank(places)
        for group in places:
            names = " and ".join(_name(players, s) for s in group)
            parts.append(f"{ordinal(rank[group[0]])} {names}")
        return "; ".join(parts)
    return json.dumps(result)


def seat_results(kind: str, result: Mapping[str, Any] | None, seats: int) -> dict[int, str]:
    """A short result label per seat (``won``, ``lost``, ``1st``…) once the game is over."""
    if not result:
        return {}
    labels: dict[int, str] = {}
    if kind == "give_away":
        winner = result.get("winner")
        for s in range(seats):
            labels[s] = "won" if s == winner else ("draw" if winner is None else "")
    elif kind in ("old_maid", "bhabhi"):
        ranks = _groups_rank(result.get("out") or [])
        for s in range(seats):
            if s == result.get("loser"):
                labels[s] = "lost"
            elif s in ranks:
                labels[s] = f"out {ordinal(ranks[s])}"
    elif kind == "give_and_take":
        ranks = _groups_rank(result.get("places") or [])
        for s, place in ranks.items():
            labels[s] = ordinal(place)
    return labels


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
        "name": _name(players, s),
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


def _known(view: Mapping[str, Any], s: int, me: int | None) -> list[str] | None:
    """The cards of seat ``s``'s hand if the viewer may see them (own hand, or the end)."""
    hidden = view.get("hidden") or {}
    if f"seat:{s}" in hidden and isinstance(hidden[f"seat:{s}"], list):
        return list(hidden[f"seat:{s}"])
    if me == s and isinstance(view.get("hand"), list):
        return list(view["hand"])
    return None


def _out_seats(view: Mapping[str, Any]) -> dict[int, int]:
    return _groups_rank(view.get("out") or [])


def _give_away(table: dict[str, Any], view: Mapping[str, Any]) -> None:
    stacks = (view.get("hidden") or {}).get("stacks")
    for seat in table["seats"]:
        s = seat["seat"]
        seat["stack"] = (view.get("stack_sizes") or [0] * (s + 1))[s]
        seat["face_up"] = (view.get("face_up") or [None] * (s + 1))[s]
        seat["stack_cards"] = list(stacks[s]) if stacks else None
        if view.get("turn") == s:
            seat["status"] = "to play"
    table["foundations"] = [
        {"number": k + 1, "top": f.get("top"), "size": f.get("size", 0)}
        for k, f in enumerate(view.get("foundations") or [])
    ]
    table["passes"] = view.get("passes", 0)


def _old_maid(table: dict[str, Any], view: Mapping[str, Any], me: int | None) -> None:
    out = _out_seats(view)
    sizes = view.get("fan_sizes") or []
    for seat in table["seats"]:
        s = seat["seat"]
        seat["fan"] = sizes[s] if s < len(sizes) else 0
        seat["backs"] = range(min(seat["fan"], 16))
        seat["cards"] = _known(view, s, me)
        seat["out"] = s in out
        if s in out and not seat["result"]:
            seat["result"] = f"out {ordinal(out[s])}"
        if view.get("offerer") == s:
            seat["status"] = f"offers to {_name(table['players'], view.get('drawer'))}"
        elif view.get("drawer") == s:
            seat["status"] = "draws"
    discards = view.get("discards") or []
    table["pairs"] = len(discards)
    table["discarded_pairs"] = [
        {"name": _name(table["players"], d.get("seat")), "cards": d.get("cards") or []}
        for d in discards
    ]
    table["offerer"] = view.get("offerer")
    table["drawer"] = view.get("drawer")
    table["offered"] = view.get("offered")
    table["offer_text"] = (
        f"{_name(table['players'], view.get('offerer'))} offers their fan of"
        f" {view.get('offered')} to {_name(table['players'], view.get('drawer'))}"
        if view.get("offerer") is not None and view.get("drawer") is not None
        else ""
    )


def _bhabhi(table: dict[str, Any], view: Mapping[str, Any], me: int | None) -> None:
    out = _out_seats(view)
    sizes = view.get("hand_sizes") or []
    players = table["players"]
    for seat in table["seats"]:
        s = seat["seat"]
        seat["hand_size"] = sizes[s] if s < len(sizes) else 0
        seat["cards"] = _known(view, s, me)
        seat["out"] = s in out
        if s in out and not seat["result"]:
            seat["result"] = f"out {ordinal(out[s])}"
        if view.get("phase") == "lead" and view.get("leader") == s:
            seat["status"] = "to lead"
        elif view.get("phase") == "trick" and view.get("turn") == s:
            seat["status"] = "to play"
    table["trick"] = [
        {"name": _name(players, t.get("seat")), "seat": t.get("seat"), "card": t.get("card")}
        for t in view.get("trick") or []
    ]
    table["trick_number"] = view.get("trick_number")
    led = view.get("led_suit")
    table["led_suit"] = led
    table["led"] = f"{SUIT_SYMBOLS[led]} {SUIT_NAMES[led]}" if led in SUIT_SYMBOLS else ""
    table["discard_size"] = view.get("discard_size", 0)
    table["discard_cards"] = (view.get("hidden") or {}).get("discard")
    table["phase"] = view.get("phase")
    table["leader_name"] = _name(players, view.get("leader"))
    table["must_lead"] = view.get("must_lead")
    table["first_trick"] = view.get("first_trick")


def _give_and_take(table: dict[str, Any], view: Mapping[str, Any], me: int | None) -> None:
    piles = view.get("piles") or []
    hidden_piles = (view.get("hidden") or {}).get("piles")
    out = _out_seats(view)
    players = table["players"]
    for seat in table["seats"]:
        s = seat["seat"]
        entry = piles[s] if s < len(piles) else {}
        seat["out"] = not entry.get("active", True)
        if s in out and not seat["result"]:
            seat["result"] = f"out {ordinal(out[s])}"
        seat["held"] = entry.get("cards", 0)
        seat["piles"] = []
        for side in ("left", "right"):
            pile = entry.get(side) or {}
            up = list(pile.get("up") or [])
            seat["piles"].append(
                {
                    "side": side,
                    "down": pile.get("down", 0),
                    "up": up,
                    "top": up[-1] if up else None,
                    "top_hidden": bool(up) and up[-1] is None,
                    "under": up[:-1][-4:],
                    "declared": pile.get("declared"),
                    "down_cards": hidden_piles[s][side] if hidden_piles else None,
                }
            )
        if s in (view.get("pending") or []):
            seat["status"] = "declares an ace"
        if view.get("capturer") == s and view.get("phase") == "place":
            seat["status"] = "places the capture"
    table["round"] = view.get("round")
    table["phase"] = view.get("phase")
    table["reserve"] = view.get("reserve", 0)
    table["reserve_cards"] = (view.get("hidden") or {}).get("reserve")
    table["duets"] = [
        {
            "names": f"{_name(players, d.get('seat'))} – {_name(players, d.get('neighbour'))}",
            "cards": d.get("cards") or [],
            "values": d.get("values") or [],
            "difference": d.get("difference"),
        }
        for d in view.get("duets") or []
    ]
    table["capturer_name"] = (
        _name(players, view.get("capturer")) if view.get("capturer") is not None else None
    )
    table["captured"] = view.get("captured") or []


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
    if kind == "give_away":
        _give_away(table, view)
    elif kind == "old_maid":
        _old_maid(table, view, me)
    elif kind == "bhabhi":
        _bhabhi(table, view, me)
    elif kind == "give_and_take":
        _give_and_take(table, view, me)
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


def _c(code: object) -> SafeString:
    return card_html(code, "small") if code else format_html("{}", "a card")


def describe(
    kind: str,
    payload: Mapping[str, Any],
    players: Sequence[str],
    cause: Mapping[str, Any] | None = None,
) -> SafeString:
    """One event (the game service's payload) as a sentence with card pictures."""
    if payload.get("type") == "dealt":
        return format_html(
            "{} deals {} cards to {} players",
            _name(players, payload.get("dealer")),
            len(payload.get("deck") or []) or "the",
            payload.get("seats"),
        )
    seat = payload.get("seat")
    who = _name(players, seat)
    action = payload.get("action") or {}
    kind_of = action.get("type")
    chance = bool(payload.get("chance"))
    text: SafeString
    if kind == "give_away" and kind_of == "play":
        text = format_html(
            "{} plays {} on foundation {}", who, _c(action.get("card")), action["foundation"] + 1
        )
    elif kind_of == "pass":
        text = format_html("{} passes", who)
    elif kind == "old_maid" and kind_of == "draw":
        drawn = action.get("card")
        text = format_html(
            "{} draws card {} of the offered fan{}",
            who,
            int(action.get("index", 0)) + 1,
            format_html(": {}", _c(drawn)) if drawn else "",
        )
    elif kind == "old_maid" and kind_of == "arrange":
        text = (
            format_html("{}'s fan is shuffled", who)
            if chance
            else format_html("{} rearranges their fan", who)
        )
    elif kind == "bhabhi" and kind_of == "play":
        text = format_html("{} plays {}", who, _c(action.get("card")))
    elif kind == "bhabhi" and kind_of == "take_left":
        text = format_html("{} takes the hand of the player on their left", who)
    elif kind == "bhabhi" and kind_of == "draw_discard":
        drawn = action.get("card")
        text = format_html(
            "{} draws blind from the discard pile{}",
            who,
            format_html(": {}", _c(drawn)) if drawn else "",
        )
    elif kind == "give_and_take" and kind_of == "declare_ace":
        text = format_html(
            "{} counts the ace on their {} pile as {}",
            who,
            action.get("pile"),
            action.get("value"),
        )
    elif kind == "give_and_take" and kind_of == "place_capture":
        text = format_html(
            "{} puts the captured cards under their {} pile", who, action.get("pile")
        )
    else:
        text = format_html("{}: {}", who, json.dumps(action, sort_keys=True))
    how = (cause or {}).get("kind")
    if how == "timeout":
        text = format_html('{} <span class="tag warn">time ran out</span>', text)
    elif how == "bot":
        text = format_html('{} <span class="tag">bot</span>', text)
    elif how == "seat" and (cause or {}).get("id") == "forced":
        text = format_html('{} <span class="tag">automatic: a forced move</span>', text)
    return text


# -- the legal actions as buttons --------------------------------------------------------------


def _choice(
    action: Mapping[str, Any],
    label: SafeString | str,
    *,
    card: str | None = None,
    optional: bool = False,
    aria: str = "",
) -> dict[str, Any]:
    return {
        "json": json.dumps(dict(action), sort_keys=True, separators=(",", ":")),
        "label": label,
        "card": card,
        "optional": optional,
        "aria": aria or (label if isinstance(label, str) else ""),
    }


def action_choices(kind: str, view: Mapping[str, Any], players: Sequence[str]) -> dict[str, Any]:
    """The seat's legal actions grouped as the play page shows them.

    ``cards``: actions that play a card of the hand (buttons drawn as cards);
    ``buttons``: the other actions; each with the action's JSON, a label, and
    whether it is optional (the game is not waiting for it).
    """
    me = view.get("viewer")
    waiting = me in (view.get("waiting_for") or [])
    cards: list[dict[str, Any]] = []
    buttons: list[dict[str, Any]] = []
    for action in view.get("legal_actions") or []:
        kind_of = action.get("type")
        if kind == "give_away" and kind_of == "play":
            foundation = (view.get("foundations") or [])[action["foundation"]]
            onto = (
                format_html("on {}", card_html(foundation["top"], "small"))
                if foundation.get("top")
                else "on an empty place"
            )
            buttons.append(
                _choice(
                    action,
                    format_html(
                        "Play {} on foundation {} ({})",
                        card_html(action["card"], "small"),
                        action["foundation"] + 1,
                        onto,
                    ),
                    aria=f"Play {card_name(action['card'])} on foundation"
                    f" {action['foundation'] + 1}",
                )
            )
        elif kind_of == "pass":
            buttons.append(_choice(action, "Pass"))
        elif kind == "old_maid" and kind_of == "draw":
            index = int(action["index"])
            buttons.append(
                _choice(
                    action,
                    format_html(
                        '<span class="card back small" aria-hidden="true"></span> {}', index + 1
                    ),
                    aria=f"Draw card {index + 1} of {_name(players, view.get('offerer'))}'s fan",
                )
            )
        elif kind == "old_maid" and kind_of == "arrange":
            # The one listed order stands for every order: offer a shuffle instead.
            buttons.append(_choice({"type": "shuffle"}, "Shuffle my fan", optional=not waiting))
        elif kind == "bhabhi" and kind_of == "play":
            cards.append(
                _choice(
                    action,
                    card_html(action["card"]),
                    card=action["card"],
                    aria=f"Play {card_name(action['card'])}",
                )
            )
        elif kind == "bhabhi" and kind_of == "take_left":
            left = _next_active_left(view)
            buttons.append(
                _choice(
                    action,
                    f"Take {_name(players, left)}'s hand" if left is not None else "Take left hand",
                    optional=True,
                )
            )
        elif kind == "give_and_take" and kind_of == "declare_ace":
            buttons.append(
                _choice(
                    action,
                    f"Ace on my {action['pile']} pile counts {action['value']}",
                )
            )
        elif kind == "give_and_take" and kind_of == "place_capture":
            buttons.append(
                _choice(
                    action,
                    f"Put the {len(view.get('captured') or [])} captured cards"
                    f" under my {action['pile']} pile",
                )
            )
        else:
            buttons.append(_choice(action, json.dumps(action, sort_keys=True)))
    return {"cards": cards, "buttons": buttons, "waiting": waiting}


def _next_active_left(view: Mapping[str, Any]) -> int | None:
    me = view.get("viewer")
    active = view.get("active") or []
    seats = int(view.get("seats") or 0)
    if me is None or not seats:
        return None
    for step in range(1, seats):
        s = (me + step) % seats
        if s in active:
            return int(s)
    return None


@register.simple_tag
def cards_row(codes: Sequence[object] | None, size: str = "small") -> SafeString:
    """``{% cards_row cards "small" %}``: face-up cards side by side."""
    if not codes:
        return mark_safe("")
    return format_html_join("", "{}", ((card_html(c, size),) for c in codes))


@register.filter
def text_of_card(code: object) -> str:
    return card_text(code)
