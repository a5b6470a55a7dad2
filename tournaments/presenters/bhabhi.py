"""Bhabhi (:mod:`engine.games.bhabhi`) in words and buttons."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from django.utils.html import format_html
from django.utils.safestring import SafeString

from tournaments.presenters import Presenter, register
from tournaments.presenters.common import (
    Table,
    choice,
    known_cards,
    loser_labels,
    mark_out,
    out_places,
    player_name,
    small_card,
)
from tournaments.templatetags.cards import SUIT_NAMES, SUIT_SYMBOLS, card_html, card_name


class BhabhiPresenter(Presenter):
    game_id = "bhabhi"

    def result_text(self, result: Mapping[str, Any], players: Sequence[str]) -> str:
        return f"{player_name(players, result.get('loser'))} loses (is the Bhabhi)"

    def seat_results(self, result: Mapping[str, Any], seats: int) -> dict[int, str]:
        return loser_labels(result, seats)

    def fill_table(self, table: Table, view: Mapping[str, Any], me: int | None) -> None:
        out = out_places(view)
        sizes = view.get("hand_sizes") or []
        players = table["players"]
        for seat in table["seats"]:
            s = seat["seat"]
            seat["hand_size"] = sizes[s] if s < len(sizes) else 0
            seat["cards"] = known_cards(view, s, me)
            mark_out(seat, out)
            if view.get("phase") == "lead" and view.get("leader") == s:
                seat["status"] = "to lead"
            elif view.get("phase") == "trick" and view.get("turn") == s:
                seat["status"] = "to play"
        table["trick"] = [
            {
                "name": player_name(players, t.get("seat")),
                "seat": t.get("seat"),
                "card": t.get("card"),
            }
            for t in view.get("trick") or []
        ]
        table["trick_number"] = view.get("trick_number")
        led = view.get("led_suit")
        table["led_suit"] = led
        table["led"] = f"{SUIT_SYMBOLS[led]} {SUIT_NAMES[led]}" if led in SUIT_SYMBOLS else ""
        table["discard_size"] = view.get("discard_size", 0)
        table["discard_cards"] = (view.get("hidden") or {}).get("discard")
        table["phase"] = view.get("phase")
        table["leader_name"] = player_name(players, view.get("leader"))
        table["must_lead"] = view.get("must_lead")
        table["first_trick"] = view.get("first_trick")

    def describe_action(
        self, action: Mapping[str, Any], who: str, players: Sequence[str], *, chance: bool
    ) -> SafeString | None:
        kind = action.get("type")
        if kind == "play":
            return format_html("{} plays {}", who, small_card(action.get("card")))
        if kind == "take_left":
            return format_html("{} takes the hand of the player on their left", who)
        if kind == "draw_discard":
            drawn = action.get("card")
            return format_html(
                "{} draws blind from the discard pile{}",
                who,
                format_html(": {}", small_card(drawn)) if drawn else "",
            )
        return None

    def action_choice(
        self, action: Mapping[str, Any], view: Mapping[str, Any], players: Sequence[str]
    ) -> dict[str, Any] | None:
        kind = action.get("type")
        if kind == "play":
            return choice(
                action,
                card_html(action["card"]),
                card=action["card"],
                aria=f"Play {card_name(action['card'])}",
            )
        if kind == "take_left":
            left = _next_active_left(view)
            return choice(
                action,
                f"Take {player_name(players, left)}'s hand"
                if left is not None
                else "Take left hand",
                optional=True,
            )
        return None


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


register(BhabhiPresenter())
