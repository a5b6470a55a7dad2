"""Old Maid (:mod:`engine.games.old_maid`) in words and buttons."""

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


class OldMaidPresenter(Presenter):
    game_id = "old_maid"

    def result_text(self, result: Mapping[str, Any], players: Sequence[str]) -> str:
        return f"{player_name(players, result.get('loser'))} loses (is left with the odd queen)"

    def seat_results(self, result: Mapping[str, Any], seats: int) -> dict[int, str]:
        return loser_labels(result, seats)

    def fill_table(self, table: Table, view: Mapping[str, Any], me: int | None) -> None:
        out = out_places(view)
        sizes = view.get("fan_sizes") or []
        players = table["players"]
        for seat in table["seats"]:
            s = seat["seat"]
            seat["fan"] = sizes[s] if s < len(sizes) else 0
            seat["backs"] = range(min(seat["fan"], 16))
            seat["cards"] = known_cards(view, s, me)
            mark_out(seat, out)
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
            drawn = action.get("card")
            return format_html(
                "{} draws card {} of the offered fan{}",
                who,
                int(action.get("index", 0)) + 1,
                format_html(": {}", small_card(drawn)) if drawn else "",
            )
        if kind == "arrange":
            if chance:
                return format_html("{}'s fan is shuffled", who)
            return format_html("{} rearranges their fan", who)
        return None

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
