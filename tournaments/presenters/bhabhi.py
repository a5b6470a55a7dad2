"""Bhabhi (:mod:`engine.games.bhabhi`) in words and buttons."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from django.utils.html import format_html
from django.utils.safestring import SafeString
from django.utils.translation import gettext, gettext_noop, ngettext, pgettext

from tournaments.presenters import Presenter, register
from tournaments.presenters.common import (
    OneLoser,
    Table,
    choice,
    drawn_card,
    fill_hand_seats,
    player_name,
    small_card,
)
from tournaments.templatetags.cards import SUIT_SYMBOLS, card_html, card_name, suit_name


class BhabhiPresenter(OneLoser, Presenter):
    game_id = "bhabhi"

    loses = gettext_noop("{loser} loses (is the Bhabhi)")
    last_one_left = gettext_noop(
        "Only {loser} is left in the game: the game is over and {loser} is the Bhabhi."
    )

    def fill_table(self, table: Table, view: Mapping[str, Any], me: int | None) -> None:
        fill_hand_seats(table, view, me, sizes="hand_sizes", size_field="hand_size")
        players = table["players"]
        for seat in table["seats"]:
            s = seat["seat"]
            if view.get("phase") == "lead" and view.get("leader") == s:
                seat["status"] = pgettext("seat status", "to lead")
            elif view.get("phase") == "trick" and view.get("turn") == s:
                seat["status"] = pgettext("seat status", "to play")
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
        table["led"] = f"{SUIT_SYMBOLS[led]} {suit_name(led)}" if led in SUIT_SYMBOLS else ""
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
            return format_html(
                gettext("{who} plays {card}"), who=who, card=small_card(action.get("card"))
            )
        if kind == "take_left":
            return format_html(gettext("{who} takes the hand of the player on their left"), who=who)
        if kind == "draw_discard":
            return format_html(
                gettext("{who} draws blind from the discard pile{card}"),
                who=who,
                card=drawn_card(action.get("card")),
            )
        return None

    def describe_move(
        self,
        action: Mapping[str, Any],
        who: str,
        players: Sequence[str],
        *,
        chance: bool,
        before: Mapping[str, Any] | None,
        seat: int | None = None,
    ) -> SafeString | None:
        if action.get("type") == "take_left" and before is not None:
            victim = _left_of(before, seat)
            if victim is not None:
                sizes = before.get("hand_sizes") or []
                count = sizes[victim] if victim < len(sizes) else 0
                return format_html(
                    ngettext(
                        "{who} takes the hand of {victim}, the next player on their left: {n} card",
                        "{who} takes the hand of {victim}, the next player on their left:"
                        " {n} cards",
                        count,
                    ),
                    who=who,
                    victim=player_name(players, victim),
                    n=count,
                )
        return self.describe_action(action, who, players, chance=chance)

    def table_consequences(
        self,
        payload: Mapping[str, Any],
        before: Mapping[str, Any],
        after: Mapping[str, Any],
        players: Sequence[str],
    ) -> list[SafeString]:
        action = payload.get("action") or {}
        if action.get("type") != "play" or before.get("phase") != "trick":
            return []
        card = str(action.get("card") or "")
        leader = player_name(players, after.get("leader"))
        if (before.get("trick_number") or 0) > 1 and card[1:] != before.get("led_suit"):
            # A tochoo: the highest card of the led suit picks up the whole trick.
            count = len(before.get("trick") or []) + 1
            if after.get("phase") == "over":
                sentence = ngettext(
                    "{leader} picks up the trick: {n} card.",
                    "{leader} picks up the trick: {n} cards.",
                    count,
                )
            else:
                sentence = ngettext(
                    "{leader} picks up the trick: {n} card, and leads next.",
                    "{leader} picks up the trick: {n} cards, and leads next.",
                    count,
                )
            return [format_html(sentence, leader=leader, n=count)]
        if after.get("phase") == "draw":
            return [
                format_html(
                    gettext(
                        "{leader} won the trick with their last card and must draw a card"
                        " blindly from the discard pile."
                    ),
                    leader=leader,
                )
            ]
        if not after.get("trick") and after.get("phase") in ("lead", "over"):
            if after.get("phase") == "over":
                return [format_html("{}", gettext("The trick goes to the discard pile."))]
            return [
                format_html(
                    gettext("The trick goes to the discard pile; {leader} leads next."),
                    leader=leader,
                )
            ]
        return []

    def out_sentence(
        self,
        seat: int,
        payload: Mapping[str, Any],
        before: Mapping[str, Any],
        players: Sequence[str],
    ) -> SafeString:
        if (payload.get("action") or {}).get("type") == "take_left":
            return format_html(
                gettext("{who} is out of the game: their hand was taken."),
                who=player_name(players, seat),
            )
        return super().out_sentence(seat, payload, before, players)

    def action_choice(
        self, action: Mapping[str, Any], view: Mapping[str, Any], players: Sequence[str]
    ) -> dict[str, Any] | None:
        kind = action.get("type")
        if kind == "play":
            return choice(
                action,
                card_html(action["card"]),
                card=action["card"],
                aria=gettext("Play {card}").format(card=card_name(action["card"], "accusative")),
            )
        if kind == "take_left":
            left = _next_active_left(view)
            return choice(
                action,
                gettext("Take {name}'s hand").format(name=player_name(players, left))
                if left is not None
                else gettext("Take left hand"),
                optional=True,
            )
        return None


def _next_active_left(view: Mapping[str, Any]) -> int | None:
    return _left_of(view, view.get("viewer"))


def _left_of(view: Mapping[str, Any], me: int | None) -> int | None:
    """The next active seat on the left of ``me`` at the table of ``view``."""
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
