"""Give Away (:mod:`engine.games.give_away`) in words and buttons."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from django.utils.html import format_html
from django.utils.safestring import SafeString, mark_safe

from tournaments.presenters import Presenter, register
from tournaments.presenters.common import Table, choice, player_name, small_card
from tournaments.templatetags.cards import card_html, card_name


class GiveAwayPresenter(Presenter):
    game_id = "give_away"

    def result_text(self, result: Mapping[str, Any], players: Sequence[str]) -> str:
        winner = result.get("winner")
        if result.get("deadlock"):
            counts = ", ".join(
                f"{player_name(players, s)} {c}" for s, c in enumerate(result.get("counts") or [])
            )
            if winner is None:
                return f"blocked, a draw (cards left: {counts})"
            return f"blocked: {player_name(players, winner)} wins with the fewest cards ({counts})"
        return f"{player_name(players, winner)} wins"

    def seat_results(self, result: Mapping[str, Any], seats: int) -> dict[int, str]:
        winner = result.get("winner")
        return {
            s: "won" if s == winner else ("draw" if winner is None else "") for s in range(seats)
        }

    def fill_table(self, table: Table, view: Mapping[str, Any], me: int | None) -> None:
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

    def describe_action(
        self, action: Mapping[str, Any], who: str, players: Sequence[str], *, chance: bool
    ) -> SafeString | None:
        if action.get("type") == "play":
            return format_html(
                "{} plays {} on foundation {}",
                who,
                small_card(action.get("card")),
                action["foundation"] + 1,
            )
        return None

    def end_sentences(
        self,
        outcome: Mapping[str, Any],
        before: Mapping[str, Any],
        after: Mapping[str, Any],
        players: Sequence[str],
    ) -> list[SafeString]:
        if not outcome.get("deadlock"):
            return [
                format_html(
                    "{} has played every card of their stack: the game is over and {} wins.",
                    player_name(players, outcome.get("winner")),
                    player_name(players, outcome.get("winner")),
                )
            ]
        said = [
            mark_safe("Every player passed in turn: the game is blocked and the cards left decide.")
        ]
        said.extend(
            format_html("{} has {} cards left.", player_name(players, s), count)
            for s, count in enumerate(outcome.get("counts") or [])
        )
        said.append(format_html("The game is over: {}.", self.result_text(outcome, players)))
        return said

    def action_choice(
        self, action: Mapping[str, Any], view: Mapping[str, Any], players: Sequence[str]
    ) -> dict[str, Any] | None:
        if action.get("type") != "play":
            return None
        foundation = (view.get("foundations") or [])[action["foundation"]]
        onto = (
            format_html("on {}", card_html(foundation["top"], "small"))
            if foundation.get("top")
            else "on an empty place"
        )
        return choice(
            action,
            format_html(
                "Play {} on foundation {} ({})",
                card_html(action["card"], "small"),
                action["foundation"] + 1,
                onto,
            ),
            aria=f"Play {card_name(action['card'])} on foundation {action['foundation'] + 1}",
        )


register(GiveAwayPresenter())
