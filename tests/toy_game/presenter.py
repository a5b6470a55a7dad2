"""Last Card in words and buttons: the presenter part of a game."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from django.utils.html import format_html
from django.utils.safestring import SafeString

from tournaments.presenters import Presenter
from tournaments.presenters.common import Table, choice, known_cards, player_name


class LastCardPresenter(Presenter):
    game_id = "last_card"

    def result_text(self, result: Mapping[str, Any], players: Sequence[str]) -> str:
        return f"{player_name(players, result.get('loser'))} loses (took the last card)"

    def seat_results(self, result: Mapping[str, Any], seats: int) -> dict[int, str]:
        return {result["loser"]: "lost"}

    def fill_table(self, table: Table, view: Mapping[str, Any], me: int | None) -> None:
        sizes = view.get("hand_sizes") or []
        for seat in table["seats"]:
            s = seat["seat"]
            seat["taken"] = sizes[s] if s < len(sizes) else 0
            seat["cards"] = known_cards(view, s, me)
            if view.get("turn") == s and not table["over"]:
                seat["status"] = "to take"
        table["pile"] = view.get("pile_size", 0)

    def describe_action(
        self, action: Mapping[str, Any], who: str, players: Sequence[str], *, chance: bool
    ) -> SafeString | None:
        if action.get("type") != "take":
            return None
        count = action.get("count")
        return format_html("{} takes {} card{}", who, count, "" if count == 1 else "s")

    def action_choice(
        self, action: Mapping[str, Any], view: Mapping[str, Any], players: Sequence[str]
    ) -> dict[str, Any] | None:
        if action.get("type") != "take":
            return None
        count = action["count"]
        return choice(action, f"Take {count} card{'' if count == 1 else 's'}")


#: A built-in game's presenter module would end ``register(LastCardPresenter())``.
PRESENTER = LastCardPresenter()
