"""Old Maid (:mod:`engine.games.old_maid`) in words and buttons."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from django.utils.html import format_html
from django.utils.safestring import SafeString

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

    loses = "{loser} loses (is left with the odd queen)"
    last_one_left = (
        "Only {loser} still holds a card, the odd queen: the game is over and {loser} loses."
    )

    def fill_table(self, table: Table, view: Mapping[str, Any], me: int | None) -> None:
        fill_hand_seats(table, view, me, sizes="fan_sizes", size_field="fan")
        players = table["players"]
        for seat in table["seats"]:
            s = seat["seat"]
            seat["backs"] = range(min(seat["fan"], 16))
            if view.get("offerer") == s:
                seat["status"] = f"offers to {player_name(players, view.get('drawer'))}"
            elif view.get("drawer") == s:
                seat["status"] = "draws"
        discards = view.get("discards") or []
        table["pairs"] = len(discards)
        table["discarded_pairs"] = [
            {"name": player_name(players, d.get("seat")), "cards": d.get("cards") or []}
            for d in discards
        ]
        table["offerer"] = view.get("offerer")
        table["drawer"] = view.get("drawer")
        table["offered"] = view.get("offered")
        table["offer_text"] = (
            f"{player_name(players, view.get('offerer'))} offers their fan of"
            f" {view.get('offered')} to {player_name(players, view.get('drawer'))}"
            if view.get("offerer") is not None and view.get("drawer") is not None
            else ""
        )

    def describe_action(
        self, action: Mapping[str, Any], who: str, players: Sequence[str], *, chance: bool
    ) -> SafeString | None:
        kind = action.get("type")
        if kind == "draw":
            return format_html(
                "{} draws card {} of the offered fan{}",
                who,
                int(action.get("index", 0)) + 1,
                drawn_card(action.get("card")),
            )
        if kind == "arrange":
            if chance:
                return format_html("{}'s fan is shuffled", who)
            return format_html("{} rearranges their fan", who)
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
                "{} draws card {} of {}'s fan{}",
                who,
                int(action.get("index", 0)) + 1,
                player_name(players, before.get("offerer")),
                drawn_card(action.get("card")),
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
                    "{} discards the pair {} {}.",
                    player_name(players, pair.get("seat")),
                    small_card(cards[0] if cards else None),
                    small_card(cards[1] if len(cards) > 1 else None),
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
                aria=f"Draw card {index + 1} of {player_name(players, view.get('offerer'))}'s fan",
            )
        if kind == "arrange":
            # The one listed order stands for every order: offer a shuffle instead.
            waiting = view.get("viewer") in (view.get("waiting_for") or [])
            return choice({"type": "shuffle"}, "Shuffle my fan", optional=not waiting)
        return None


register(OldMaidPresenter())
