"""Give Away (:mod:`engine.games.give_away`) in words and buttons."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from django.utils.html import format_html
from django.utils.safestring import SafeString
from django.utils.translation import gettext, ngettext, pgettext

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
                return gettext("blocked, a draw (cards left: {counts})").format(counts=counts)
            return gettext("blocked: {winner} wins with the fewest cards ({counts})").format(
                winner=player_name(players, winner), counts=counts
            )
        return gettext("{winner} wins").format(winner=player_name(players, winner))

    def seat_results(self, result: Mapping[str, Any], seats: int) -> dict[int, str]:
        winner = result.get("winner")
        won, draw = pgettext("seat label", "won"), pgettext("seat label", "draw")
        return {s: won if s == winner else (draw if winner is None else "") for s in range(seats)}

    def fill_table(self, table: Table, view: Mapping[str, Any], me: int | None) -> None:
        stacks = (view.get("hidden") or {}).get("stacks")
        for seat in table["seats"]:
            s = seat["seat"]
            seat["stack"] = (view.get("stack_sizes") or [0] * (s + 1))[s]
            seat["face_up"] = (view.get("face_up") or [None] * (s + 1))[s]
            seat["stack_cards"] = list(stacks[s]) if stacks else None
            if view.get("turn") == s:
                seat["status"] = pgettext("seat status", "to play")
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
                gettext("{who} plays {card} on foundation {number}"),
                who=who,
                card=small_card(action.get("card")),
                number=action["foundation"] + 1,
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
            winner = player_name(players, outcome.get("winner"))
            return [
                format_html(
                    gettext(
                        "{winner} has played every card of their stack:"
                        " the game is over and {winner} wins."
                    ),
                    winner=winner,
                )
            ]
        said = [
            format_html(
                "{}",
                gettext(
                    "Every player passed in turn: the game is blocked and the cards left decide."
                ),
            )
        ]
        said.extend(
            format_html(
                ngettext("{who} has {n} card left.", "{who} has {n} cards left.", count),
                who=player_name(players, s),
                n=count,
            )
            for s, count in enumerate(outcome.get("counts") or [])
        )
        said.append(
            format_html(
                gettext("The game is over: {result}."), result=self.result_text(outcome, players)
            )
        )
        return said

    def action_choice(
        self, action: Mapping[str, Any], view: Mapping[str, Any], players: Sequence[str]
    ) -> dict[str, Any] | None:
        if action.get("type") != "play":
            return None
        foundation = (view.get("foundations") or [])[action["foundation"]]
        number = action["foundation"] + 1
        card = card_html(action["card"], "small")
        if foundation.get("top"):
            label = format_html(
                gettext("Play {card} on foundation {number} (on {top})"),
                card=card,
                number=number,
                top=card_html(foundation["top"], "small"),
            )
        else:
            label = format_html(
                gettext("Play {card} on foundation {number} (on an empty place)"),
                card=card,
                number=number,
            )
        return choice(
            action,
            label,
            aria=gettext("Play {card} on foundation {number}").format(
                card=card_name(action["card"], "accusative"), number=number
            ),
        )


register(GiveAwayPresenter())
