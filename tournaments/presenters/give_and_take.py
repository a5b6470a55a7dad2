"""Give & Take (:mod:`engine.games.give_and_take`) in words and buttons."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from django.utils.html import format_html
from django.utils.safestring import SafeString
from django.utils.translation import gettext, ngettext, pgettext

from tournaments.presenters import Presenter, register
from tournaments.presenters.common import (
    Table,
    choice,
    groups_rank,
    names_text,
    ordinal,
    out_label,
    out_places,
    place_label,
    player_name,
)


class GiveAndTakePresenter(Presenter):
    game_id = "give_and_take"

    def result_text(self, result: Mapping[str, Any], players: Sequence[str]) -> str:
        places = result.get("places") or []
        rank = groups_rank(places)
        parts = []
        for group in places:
            names = names_text([player_name(players, s) for s in group])
            parts.append(
                pgettext("a place and who holds it", "{place} {names}").format(
                    place=ordinal(rank[group[0]]), names=names
                )
            )
        return "; ".join(parts)

    def seat_results(self, result: Mapping[str, Any], seats: int) -> dict[int, str]:
        ranks = groups_rank(result.get("places") or [])
        return {s: place_label(place) for s, place in ranks.items()}

    def fill_table(self, table: Table, view: Mapping[str, Any], me: int | None) -> None:
        piles = view.get("piles") or []
        hidden_piles = (view.get("hidden") or {}).get("piles")
        out = out_places(view)
        players = table["players"]
        for seat in table["seats"]:
            s = seat["seat"]
            entry = piles[s] if s < len(piles) else {}
            # Out is the pile's own flag here: a seat with no cards left is inactive.
            seat["out"] = not entry.get("active", True)
            if s in out and not seat["result"]:
                seat["result"] = out_label(out[s])
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
                seat["status"] = pgettext("seat status", "declares an ace")
            if view.get("capturer") == s and view.get("phase") == "place":
                seat["status"] = pgettext("seat status", "places the capture")
        table["round"] = view.get("round")
        table["phase"] = view.get("phase")
        table["reserve"] = view.get("reserve", 0)
        table["reserve_cards"] = (view.get("hidden") or {}).get("reserve")
        table["duets"] = [
            {
                "names": f"{player_name(players, d.get('seat'))}"
                f" – {player_name(players, d.get('neighbour'))}",
                "cards": d.get("cards") or [],
                "values": d.get("values") or [],
                "difference": d.get("difference"),
            }
            for d in view.get("duets") or []
        ]
        table["capturer_name"] = (
            player_name(players, view.get("capturer")) if view.get("capturer") is not None else None
        )
        table["captured"] = view.get("captured") or []

    def describe_action(
        self, action: Mapping[str, Any], who: str, players: Sequence[str], *, chance: bool
    ) -> SafeString | None:
        kind = action.get("type")
        # One sentence per pile: a translation declines "left" and "right" with the pile.
        left = action.get("pile") == "left"
        if kind == "declare_ace" and action.get("pile") is None:
            # The declaration stays secret until the round is revealed.
            return format_html(gettext("{who} declares an ace"), who=who)
        if kind == "declare_ace" and action.get("value") is None:
            return format_html(
                gettext("{who} declares the ace on their left pile")
                if left
                else gettext("{who} declares the ace on their right pile"),
                who=who,
            )
        if kind == "declare_ace":
            return format_html(
                gettext("{who} counts the ace on their left pile as {value}")
                if left
                else gettext("{who} counts the ace on their right pile as {value}"),
                who=who,
                value=action.get("value"),
            )
        if kind == "place_capture":
            return format_html(
                gettext("{who} puts the captured cards under their left pile")
                if left
                else gettext("{who} puts the captured cards under their right pile"),
                who=who,
            )
        return None

    def table_consequences(
        self,
        payload: Mapping[str, Any],
        before: Mapping[str, Any],
        after: Mapping[str, Any],
        players: Sequence[str],
    ) -> list[SafeString]:
        duets = after.get("duets") or []
        if not duets or after.get("duets_round") == before.get("duets_round"):
            return []
        # Every declaration is in: the round's duets are revealed and decide the capture.
        said = [
            format_html(
                gettext(
                    "The duet of {first} and {second}: {one} and {other}, a difference of {d}."
                ),
                first=player_name(players, d.get("seat")),
                second=player_name(players, d.get("neighbour")),
                one=(d.get("values") or [None, None])[0],
                other=(d.get("values") or [None, None])[1],
                d=d.get("difference"),
            )
            for d in duets
        ]
        smallest = min(int(d.get("difference") or 0) for d in duets)
        capturer = after.get("capturer")
        if capturer is not None and after.get("phase") == "place":
            captured = len(after.get("captured") or [])
            said.append(
                format_html(
                    ngettext(
                        "{who} has the only smallest difference, {d}, and captures {n} card.",
                        "{who} has the only smallest difference, {d}, and captures {n} cards.",
                        captured,
                    ),
                    who=player_name(players, capturer),
                    d=smallest,
                    n=captured,
                )
            )
        else:
            said.append(
                format_html(
                    gettext(
                        "The smallest difference, {d}, is shared: no capture,"
                        " the cards stay face up."
                    ),
                    d=smallest,
                )
            )
        return said

    def action_choice(
        self, action: Mapping[str, Any], view: Mapping[str, Any], players: Sequence[str]
    ) -> dict[str, Any] | None:
        kind = action.get("type")
        left = action.get("pile") == "left"
        if kind == "declare_ace":
            label = (
                gettext("Ace on my left pile counts {value}")
                if left
                else gettext("Ace on my right pile counts {value}")
            )
            return choice(action, label.format(value=action["value"]))
        if kind == "place_capture":
            count = len(view.get("captured") or [])
            label = (
                ngettext(
                    "Put the {n} captured card under my left pile",
                    "Put the {n} captured cards under my left pile",
                    count,
                )
                if left
                else ngettext(
                    "Put the {n} captured card under my right pile",
                    "Put the {n} captured cards under my right pile",
                    count,
                )
            )
            return choice(action, label.format(n=count))
        return None


register(GiveAndTakePresenter())
