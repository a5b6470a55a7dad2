"""What the pages share: fragments, series in words, a live table ready to draw."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest
from django.shortcuts import get_object_or_404
from django.urls import reverse
from django.utils.translation import gettext, ngettext

from engine.registry import all_games
from tournaments.models import Game, Tournament
from tournaments.play import GameContext, game_story, game_view, table_id_of
from tournaments.services import queries
from tournaments.services.access import GameAccess, game_access, hidden_twin
from tournaments.templatetags.tables import present, story

#: Events shown in a live table's log.
LOG_EVENTS = 8


def wants_fragment(request: HttpRequest) -> bool:
    return request.GET.get("fragment") == "1"


def is_fetch(request: HttpRequest) -> bool:
    return request.headers.get("X-Requested-With") == "fetch"


def series_text(series: Mapping[str, Any] | None) -> str:
    """A series format in words."""
    if not series:
        return ""
    kind, target = series.get("kind"), series.get("target")
    n = target if isinstance(target, int) else 0
    if kind == "first_to":
        limit = series.get("deal_limit")
        if limit is None:
            return ngettext(
                "first to %(n)s round win, no limit on deals",
                "first to %(n)s round wins, no limit on deals",
                n,
            ) % {"n": target}
        # The limit's noun agrees with the limit, the wins' with the target: two phrases.
        wins = ngettext("first to %(n)s round win", "first to %(n)s round wins", n) % {"n": target}
        return ngettext(
            "%(wins)s, at most %(limit)s deal (then placed by round wins, equal wins share)",
            "%(wins)s, at most %(limit)s deals (then placed by round wins, equal wins share)",
            limit if isinstance(limit, int) else 0,
        ) % {"wins": wins, "limit": limit}
    if kind == "losses":
        return ngettext("%(n)s deal, fewest losses", "%(n)s deals, fewest losses", n) % {
            "n": target
        }
    if kind == "place_points":
        return ngettext("%(n)s game, place points", "%(n)s games, place points", n) % {"n": target}
    return json.dumps(series)


def game_defaults() -> list[str]:
    """Each game's own table sizes and series, in words, from the engine (the one source)."""
    return [
        gettext("%(game)s: tables of %(least)s–%(most)s, %(series)s")
        % {
            "game": queries.game_name(g.id),
            "least": g.min_seats,
            "most": g.max_seats,
            "series": series_text(g.default_series.to_json()),
        }
        for g in all_games()
    ]


def game_stream_url(game: Game) -> str:
    return reverse("api:game-stream", args=[game.pk]) + f"?last_event_id={game.sequence}"


def tournament_stream_url(tournament: Tournament) -> str:
    """The tournament's stream, starting after its games' last event (no replay of the past)."""
    url = reverse("api:tournament-stream", args=[tournament.pk])
    last = queries.tournament_stream_position(tournament)
    return url if last is None else f"{url}?last_event_id={last}"


def seat_info(game: Game) -> list[dict[str, Any]]:
    return [seat.as_dict() for seat in GameContext.of(game).seats]


def visible_game(request: HttpRequest, game_id: int) -> tuple[Game, GameAccess]:
    """The game and the caller's access to it; 404 for a game they may not see (as the API)."""
    game = get_object_or_404(Game, pk=game_id)
    access = game_access(request.user, game)
    if access is None:
        hidden = hidden_twin(game)
        if hidden is not None:
            raise PermissionDenied(hidden)
        raise Http404(f"there is no game {game_id}")
    return game, access


def log(game: Game, viewer: Any, count: int = LOG_EVENTS) -> list[dict[str, Any]]:
    """The last ``count`` events of ``game`` in words with their consequences, as ``viewer``
    saw them, newest first."""
    start = max(1, game.sequence - count + 1)
    players = list(game.players)
    return [
        {
            "sequence": e["sequence"],
            "text": story(game.kind, e, players),
            "at": e["recorded_at"],
        }
        for e in reversed(game_story(game, viewer, from_sequence=start))
    ]


def live_table(game: Game, *, viewer: Any = None, compact: bool = False) -> dict[str, Any]:
    """A running or finished game's table as ``viewer`` sees it, ready to draw."""
    view = game_view(game, viewer)
    me = viewer if isinstance(viewer, int) and not isinstance(viewer, bool) else None
    table = present(
        game.kind,
        view,
        list(game.players),
        me=me,
        seat_info=seat_info(game),
        compact=compact,
    )
    table["game"] = game
    table["view"] = view
    table["stream_url"] = game_stream_url(game)
    table["stream_key"] = reverse("api:game-stream", args=[game.pk])
    return table


def context_numbers(game: Game) -> dict[str, Any]:
    context = GameContext.of(game)
    return {
        "round": context.round,
        "game_number": context.game_number,
        "table_id": table_id_of(game),
    }
