"""Tournaments: create, change and find them; their settings checked against the game."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.db import transaction
from django.utils.translation import gettext, gettext_lazy

from engine.contract import said
from engine.registry import all_games, get_game
from engine.series import SeriesError, SeriesFormat
from tournaments.models import Club, Player, Round, Tournament
from tournaments.services.base import ServiceError, _lock, _positive, written_name
from tournaments.words import say

#: A tournament's bounds, asked here and offered by the page's form and the API alike
#: (the form took 50 rounds and an hour a turn where the API took 100 and a day).
MOST_ROUNDS = 100
#: A day a turn: a tournament played by correspondence, a move a day.
MOST_TURN_SECONDS = 86_400
MOST_FIRST_TURN_GRACE = 600
MOST_TIMEOUTS_TO_BOT = 100

#: The series kinds (:mod:`engine.series`) in the organiser's words; the form's choices
#: (:mod:`tournaments.forms`) and the refusals say them alike.
SERIES_KIND_WORDS = {
    "first_to": gettext_lazy("first to N round wins"),
    "losses": gettext_lazy("N deals, fewest losses"),
    "place_points": gettext_lazy("N games, place points"),
}


def series_kinds(game: str) -> tuple[str, ...]:
    """The series kinds ``game`` may be played as: the one its results are made for.

    From the engine's declared ``default_series`` (each game's results have one shape,
    RECORD.md: a winner, a loser or places), so the form, its script and the refusals
    below never hold a list of their own.  ``KeyError`` for an unknown game.
    """
    return (get_game(game).default_series.kind,)


def series_refusal(game: str, kind: str) -> str:
    """Why ``game`` cannot be played as a series of ``kind``, in the organiser's words."""
    allowed = gettext(" or ").join(str(SERIES_KIND_WORDS.get(k, k)) for k in series_kinds(game))
    return gettext("%(game)s is played as %(allowed)s, not %(kind)s: choose that series") % {
        "game": gettext(get_game(game).name),
        "allowed": allowed,
        "kind": SERIES_KIND_WORDS.get(kind, kind),
    }


def _as_sent(value: Mapping[str, Any]) -> dict[str, Any]:
    """A series as the client wrote it: whole place points without the ``.0`` the
    serializer and the format give them (a refusal quoted [5, 3] as [5.0, 3.0])."""
    found = dict(value)
    points = found.get("points")
    if isinstance(points, list):
        found["points"] = [int(p) if isinstance(p, float) and p.is_integer() else p for p in points]
    return found


def _series_format(
    value: SeriesFormat | Mapping[str, Any] | None, game: str, table_max: int
) -> SeriesFormat:
    if value is None:
        fmt = get_game(game).default_series
    elif isinstance(value, SeriesFormat):
        fmt = value
    else:
        try:
            fmt = SeriesFormat.from_json(value).bounded()
        except (KeyError, TypeError, ValueError) as error:
            # The rules' own words in the reader's language; a missing key by its name.
            reason = (
                say(error.phrase)
                if isinstance(error, SeriesError)
                else gettext("%(key)s is missing") % {"key": said(error.args[0])}
                if isinstance(error, KeyError)
                else str(error)
            )
            raise ServiceError(
                gettext(
                    'bad series format %(value)s (%(error)s); write it as {"kind": '
                    '"first_to" | "losses" | "place_points", "target": N} (a '
                    'first_to series may add "deal_limit": M)'
                )
                % {"value": said(_as_sent(value)), "error": reason},
                "series",
            ) from error
    (expected,) = series_kinds(game)
    if fmt.kind not in series_kinds(game):
        # Each game's results have one shape (RECORD.md): a winner, a loser or
        # places; only the series kind made for that shape can score them.  The
        # words first, the API's code after (scored as …) for those who send JSON.
        raise ServiceError(
            gettext(
                '%(value)s (scored as "%(expected)s"; in the API give {"kind": '
                '"%(expected)s", "target": N})'
            )
            % {"value": series_refusal(game, fmt.kind), "expected": expected},
            "series",
        )
    if fmt.kind == "place_points" and fmt.points is not None and len(fmt.points) < table_max:
        raise ServiceError(
            gettext("the place points %(value)s have fewer places than a table of %(table_max)s")
            % {
                "value": said(_as_sent(fmt.to_json())["points"]),
                "table_max": table_max,
            },
            "series",
        )
    return fmt


def _checked_settings(
    name: str,
    game: str,
    rounds: int,
    series: SeriesFormat | Mapping[str, Any] | None,
    table_min: int | None,
    table_max: int | None,
    table_preferred: int | None,
    seating_mode: str,
    turn_seconds: int | None,
    timeouts_to_bot: int,
    duplicate_deals: bool,
    timeout_forfeits: bool = True,
    first_turn_grace: int = 0,
) -> dict[str, Any]:
    """A tournament's settings checked and completed with the game's defaults."""
    _positive(first_turn_grace, "first_turn_grace", least=0, most=MOST_FIRST_TURN_GRACE)
    name = written_name(name)
    if not name:
        raise ServiceError(gettext("a tournament needs a name"), "name")
    try:
        engine = get_game(game)
    except KeyError:
        known = ", ".join(sorted(g.id for g in all_games()))
        raise ServiceError(
            gettext("there is no game %(game)s; known: %(known)s")
            % {"game": said(game), "known": known},
            "game",
        ) from None
    _positive(rounds, "rounds", most=MOST_ROUNDS)
    low = engine.min_seats if table_min is None else table_min
    high = engine.max_seats if table_max is None else table_max
    _positive(low, "table_min")
    _positive(high, "table_max")
    if low > high:
        raise ServiceError(
            gettext(
                "tables of %(low)s–%(high)s players: the smallest table cannot "
                "be larger than the largest"
            )
            % {"low": low, "high": high},
            "table_min",
        )
    for value, field in ((low, "table_min"), (high, "table_max")):
        if not engine.min_seats <= value <= engine.max_seats:
            raise ServiceError(
                gettext(
                    "tables of %(low)s–%(high)s players: %(engine)s is played by "
                    "%(min_seats)s to %(max_seats)s players"
                )
                % {
                    "low": low,
                    "high": high,
                    "engine": gettext(engine.name),
                    "min_seats": engine.min_seats,
                    "max_seats": engine.max_seats,
                },
                field,
            )
    if table_preferred is not None:
        _positive(table_preferred, "table_preferred")
        if not low <= table_preferred <= high:
            raise ServiceError(
                gettext("the preferred table size %(table_preferred)s is outside %(low)s–%(high)s")
                % {"table_preferred": table_preferred, "low": low, "high": high},
                "table_preferred",
            )
    if seating_mode not in Tournament.SeatingMode.values:
        raise ServiceError(
            gettext("seating mode is one of %(value)s, not %(seating_mode)s")
            % {
                "value": ", ".join(Tournament.SeatingMode.values),
                "seating_mode": said(seating_mode),
            },
            "seating_mode",
        )
    _positive(turn_seconds, "turn_seconds", allow_none=True, most=MOST_TURN_SECONDS)
    _positive(timeouts_to_bot, "timeouts_to_bot", least=0, most=MOST_TIMEOUTS_TO_BOT)
    fmt = _series_format(series, game, high)
    return {
        "name": name,
        "game": game,
        "rounds": rounds,
        "series": fmt.to_json(),
        "table_min": low,
        "table_max": high,
        "table_preferred": table_preferred,
        "seating_mode": seating_mode,
        "turn_seconds": turn_seconds,
        "timeouts_to_bot": timeouts_to_bot,
        "duplicate_deals": bool(duplicate_deals),
        "timeout_forfeits": bool(timeout_forfeits),
        "first_turn_grace": first_turn_grace,
    }


def create_tournament(
    club: Club,
    name: str,
    game: str,
    rounds: int,
    *,
    series: SeriesFormat | Mapping[str, Any] | None = None,
    table_min: int | None = None,
    table_max: int | None = None,
    table_preferred: int | None = None,
    seating_mode: str = Tournament.SeatingMode.MIXING,
    turn_seconds: int | None = None,
    timeouts_to_bot: int = 0,
    duplicate_deals: bool = False,
    timeout_forfeits: bool = True,
    first_turn_grace: int = 0,
) -> Tournament:
    """A new tournament of ``club`` (status ``registration``).

    ``first_turn_grace``: seconds added to each game's first turn on the clock.  None
    unless asked, so the API's tournaments keep their clocks as they were; the organiser's
    form proposes 20 seconds (the model's default).

    ``series`` defaults to the game's ``default_series``, the table range to the
    game's player range; ``table_preferred`` must lie inside the range.
    ``timeout_forfeits``: a seat handed to a bot after ``timeouts_to_bot``
    timeouts forfeits its series (last place, marked in the standings).
    """
    settings = _checked_settings(
        name,
        game,
        rounds,
        series,
        table_min,
        table_max,
        table_preferred,
        seating_mode,
        turn_seconds,
        timeouts_to_bot,
        duplicate_deals,
        timeout_forfeits,
        first_turn_grace,
    )
    with transaction.atomic():
        return Tournament.objects.create(club=club, **settings)


#: What :func:`update_tournament` may change.
SETTINGS = (
    "name",
    "game",
    "rounds",
    "series",
    "table_min",
    "table_max",
    "table_preferred",
    "seating_mode",
    "turn_seconds",
    "timeouts_to_bot",
    "duplicate_deals",
    "timeout_forfeits",
    "first_turn_grace",
)


def update_tournament(tournament: Tournament, **changes: Any) -> Tournament:
    """Change settings (names as in :data:`SETTINGS`) while no round has been seated.

    Once a round is seated only the name may change.
    """
    unknown = sorted(set(changes) - set(SETTINGS))
    if unknown:
        raise ServiceError(
            gettext("no such tournament setting: %(value)s") % {"value": ", ".join(unknown)},
            unknown[0],
        )
    with transaction.atomic():
        tournament = _lock(tournament)
        if set(changes) <= {"name"}:
            # A rename checks the name alone: the stored settings may predate today's
            # bounds, which refused renaming such a tournament (found by review).
            name = written_name(changes.get("name", tournament.name))
            if not name:
                raise ServiceError(gettext("a tournament needs a name"), "name")
            tournament.name = name
            tournament.save(update_fields=["name"])
            return tournament
        current = {key: getattr(tournament, key) for key in SETTINGS}
        if changes.get("game", current["game"]) != current["game"]:
            # Another game: the sizes and series not sent are the new game's own, not the
            # old game's kept as if chosen (they were refused: found by review).
            for key in ("table_min", "table_max", "table_preferred", "series"):
                current[key] = None
        settings = _checked_settings(**(current | changes))
        changed = sorted(k for k in SETTINGS if settings[k] != current[k] and k != "name")
        if changed and Round.objects.filter(tournament=tournament).exists():
            raise ServiceError(
                gettext("%(tournament)s has seated rounds: only its name can change now")
                % {"tournament": tournament.name},
                changed[0],
            )
        for key, value in settings.items():
            setattr(tournament, key, value)
        tournament.save(update_fields=list(SETTINGS))
        return tournament


def delete_tournament(tournament: Tournament) -> None:
    """Delete a tournament that has not started: no round of it has been seated.

    Its registrations and check-ins go with it; once a round is seated games may
    exist, and a tournament with a record is kept.
    """
    with transaction.atomic():
        tournament = _lock(tournament)
        check_deletable(tournament)
        tournament.delete()


def check_deletable(tournament: Tournament) -> None:
    """Refuse (:class:`ServiceError`) to delete a tournament that has started: what
    :func:`delete_tournament` asks, and the page's confirmation before it."""
    if Round.objects.filter(tournament=tournament).exists():
        raise ServiceError(
            gettext(
                "%(tournament)s has seated rounds: a tournament that has started cannot be deleted"
            )
            % {"tournament": tournament.name}
        )


def find_tournament(ref: str | int) -> Tournament:
    """A tournament by id, or by its exact name when only one has it."""
    text = str(ref).strip()
    if text.isdecimal():
        found = Tournament.objects.filter(pk=int(text)).first()
        if found is None:
            raise ServiceError(
                gettext("there is no tournament %(text)s") % {"text": text}, "tournament"
            )
        return found
    named = list(Tournament.objects.filter(name=text)[:2])
    if len(named) != 1:
        raise ServiceError(
            (
                gettext("no tournament is called %(text)s: give its id")
                if not named
                else gettext("more than one tournament is called %(text)s: give its id")
            )
            % {"text": said(text)},
            "tournament",
        )
    return named[0]


def find_player(club: Club, ref: str | int) -> Player:
    """A player of ``club`` by id or by name (case does not matter)."""
    text = str(ref).strip()
    found = Player.objects.filter(club=club, name__iexact=text).first()
    if found is None and text.isdecimal():
        found = Player.objects.filter(club=club, pk=int(text)).first()
    if found is None:
        raise ServiceError(
            gettext("%(club)s has no player %(text)s") % {"club": club, "text": said(text)},
            "player",
        )
    return found
