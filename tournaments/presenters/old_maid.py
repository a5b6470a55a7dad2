"""Old Maid (:mod:`engine.games.old_maid`) in words and buttons."""

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


class OldMaidPresenter(OneLoser, Presenter):
    game_id = "old_maid"

    loses = gettext_noop("{loser} loses (is left with the odd queen)")
    last_one_left = gettext_noop(
        "Only {loser} still holds a card, the odd queen: the game is over and {loser} loses."
    )

    def fill_table(self, table: Table, view: Mapping[str, Any], me: int | None) -> None:
        fill_hand_seats(table, view, me, sizes="fan_sizes", size_field="fan")
        players = table["players"]
        for seat in table["seats"]:
            s = seat["seat"]
            seat["backs"] = range(min(seat["fan"], 16))
            if view.get("offerer") == s:
                seat["status"] = pgettext("seat status", "offers to {name}").format(
                    name=player_name(players, view.get("drawer"))
                )
            elif view.get("drawer") == s:
                seat["status"] = pgettext("seat status", "draws")
        discards = view.get("discards") or []
        table["pairs"] = len(discards)
        table["discarded_pairs"] = [
            {"name": player_name(players, d.get("seat")), "cards": d.get("cards") or []}
            for d in discards
        ]
        table["offerer"] = view.get("offerer")
        table["drawer"] = view.get("drawer")
        table["offered"] = view.get("offered")
        offered = int(view.get("offered") or 0)
        table["offer_text"] = (
            ngettext(
                "{offerer} offers their fan of {n} card to {drawer}",
                "{offerer} offers their fan of {n} cards to {drawer}",
                offered,
            ).format(
                offerer=player_name(players, view.get("offerer")),
                drawer=player_name(players, view.get("drawer")),
                n=offered,
            )
            if view.get("offerer") is not None and view.get("drawer") is not None
            else ""
        )

    def describe_action(
        self, action: Mapping[str, Any], who: str, players: Sequence[str], *, chance: bool
    ) -> SafeString | None:
        kind = action.get("type")
        if kind == "draw":
            return format_html(
                gettext("{who} draws card {number} of the offered fan{card}"),
                who=who,
                number=int(action.get("index", 0)) + 1,
                card=drawn_card(action.get("card")),
            )
        if kind == "arrange":
            if chance:
                return format_html(gettext("{who}'s fan is shuffled"), who=who)
            return format_html(gettext("{who} rearranges their fan"), who=who)
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
        if action.get("type") == "draw" and before and before.get("offerer") is not None:
            return format_html(
                gettext("{who} draws card {number} of {offerer}'s fan{card}"),
                who=who,
                number=int(action.get("index", 0)) + 1,
                offerer=player_name(players, before.get("offerer")),
                card=drawn_card(action.get("card")),
            )
        return self.describe_action(action, who, players, chance=chance)

    def table_consequences(
        self,
        payload: Mapping[str, Any],
        before: Mapping[str, Any],
        after: Mapping[str, Any],
        players: Sequence[str],
    ) -> list[SafeString]:
        said = []
        # A pair the draw made goes face up to the discards at once (public).
        for pair in (after.get("discards") or [])[len(before.get("discards") or []) :]:
            cards = pair.get("cards") or []
            said.append(
                format_html(
                    gettext("{who} discards the pair {first} {second}."),
                    who=player_name(players, pair.get("seat")),
                    first=small_card(cards[0] if cards else None),
                    second=small_card(cards[1] if len(cards) > 1 else None),
                )
            )
        return said

    def action_choice(
        self, action: Mapping[str, Any], view: Mapping[str, Any], players: Sequence[str]
    ) -> dict[str, Any] | None:
        kind = action.get("type")
        if kind == "draw":
            index = int(action["index"])
            return choice(
                action,
                format_html(
                    '<span class="card back small" aria-hidden="true"></span> {}', index + 1
                ),
                aria=gettext("Draw card {number} of {offerer}'s fan").format(
                    number=index + 1, offerer=player_name(players, view.get("offerer"))
                ),
            )
        if kind == "arrange":
            # The one listed order stands for every order: offer a shuffle instead.
            waiting = view.get("viewer") in (view.get("waiting_for") or [])
            return choice({"type": "shuffle"}, gettext("Shuffle my fan"), optional=not waiting)
        return None


register(OldMaidPresenter())
