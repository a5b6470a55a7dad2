"""What people see of a game: a seat's, a spectator's or the organiser's view, the events
as each may see them, and the rule that reveals a finished game's secrets."""

from __future__ import annotations

import copy
from collections.abc import Mapping
from datetime import datetime
from typing import Any

from django.utils import timezone

from engine.contract import Game as Engine
from engine.registry import get_game
from events import store
from tournaments import sql
from tournaments.models import Game, Round
from tournaments.play.projection import _initial_projection, _project, _seed_of
from tournaments.play.state import STREAM_PREFIX, Viewer, _game, _load, deal_of, game_row


def _seat_of(viewer: Viewer, seats: int) -> int | None:
    if viewer is None or viewer == "organiser":
        return None
    if isinstance(viewer, int) and not isinstance(viewer, bool) and 0 <= viewer < seats:
        return viewer
    raise ValueError(f"a viewer is a seat 0..{seats - 1}, None or 'organiser', not {viewer!r}")


def game_view(
    game: Game | int, viewer: Viewer, *, state: Any = None, at_row: bool = False
) -> dict[str, Any]:
    """The game as ``viewer`` may see it: the engine's view plus the service's facts.

    While the game runs a seat sees its own view, a spectator and the
    organiser the spectator's view; once it is revealed (:func:`is_revealed`)
    everyone also sees the hidden cards, the deck and the shuffle's seed.  A
    finished game not yet revealed says so (``"revealed": false``).  ``state``: the game's state
    at ``game.sequence`` when the caller has it (a command's
    :attr:`ActionResult.state` with the row it updated, or :func:`load_state`):
    the view is built from it without reading the stream again.  ``at_row``: the view as
    of the row ``game``, which the caller read just now (``_load``'s ``at_row``).
    """
    game = _game(game)
    seat = _seat_of(viewer, game.seats)
    if state is not None:
        engine, sequence = get_game(game.kind), game.sequence
    else:
        engine, state, sequence, _ = _load(game, at_row=at_row)
        if game.sequence != sequence:
            game.refresh_from_db()
    view = engine.view(state, seat)
    over = engine.is_over(state)
    revealed = over and is_revealed(game)
    deal = deal_of(game) if revealed else None
    view.update(
        {
            "game_id": game.pk,
            "role": "organiser"
            if viewer == "organiser"
            else ("spectator" if seat is None else "seat"),
            "status": Game.Status.OVER if over else Game.Status.RUNNING,
            "sequence": sequence,
            "players": list(game.players),
            "turn_seconds": game.turn_seconds,
            "deadlines": dict(game.deadlines) if not over else {},
            "commitment": game.commitment,
            "revealed": revealed,
        }
    )
    if deal is not None:
        view["hidden"] = engine.hidden(state)
        view["deck"] = list(deal["deck"])
        view["seed"] = _seed_of(deal)
    return view


def game_view_at(game: Game | int, viewer: Viewer, sequence: int) -> dict[str, Any]:
    """The game as ``viewer`` saw it right after its event ``sequence``: the answer an
    idempotent replay of a command repeats, however far the game has moved on since.

    The row's changing facts (sequence, status, who acts, the deadlines, the result)
    are projected again over the events up to ``sequence``; what is revealed is
    what may be shown now (a finished game's secrets are never less public later).
    """
    game = _game(game)
    engine = get_game(game.kind)
    events = store.read_stream(game.stream, limit=sequence)
    states: list[Any] = []
    state: Any = None
    for event in events:
        state = engine.evolve(state, event.payload)
        states.append(state)
    fields = _project(
        _initial_projection(events[0]), engine, zip(events, states, strict=True), game.seed
    )
    then = copy.copy(game)
    for name in ("sequence", "status", "to_act", "waiting_for", "deadlines", "result", "seed"):
        setattr(then, name, fields[name])
    return game_view(then, viewer, state=state)


def game_clock(deadlines: Mapping[str, str], now: datetime | None = None) -> dict[str, Any]:
    """The clocks of a view (``deadlines`` as :func:`game_view` gives them) as the server
    reads them now: ``server_time``, and per waited-for seat the milliseconds left
    (``remaining_ms``, keyed as ``deadlines``; 0 once a deadline has passed).

    A client whose own clock is off counts down from these, not from the absolute
    deadlines.  Not part of :func:`game_view` itself: a view stays the same as long as
    its game does (the bots and the pages compare them), a clock does not.
    """
    now = now or timezone.now()
    return {
        "server_time": now.isoformat(),
        "remaining_ms": {
            seat: max(0, int((datetime.fromisoformat(at) - now).total_seconds() * 1000))
            for seat, at in deadlines.items()
        },
    }


def is_revealed(game: Game) -> bool:
    """Whether a finished game's secrets are public: its deck, hidden cards, seed, whole log
    and record.

    At the end, except for a duplicate deal: the other tables of its round play the
    same decks, so it waits until the round has finished (every table's series
    over, so no twin is still running or still to be dealt).
    """
    if game.status != Game.Status.OVER:
        return False
    return game.table_id is None or not twin_hidden(sql.table_round(game.table_id))


def twin_hidden(row: sql.TableRound | None) -> bool:
    """Whether the games of the table whose round is ``row`` are duplicate deals whose
    twins may still be played: the round deals the same decks at every table and has not
    finished.  Such a game is not revealed at its end (:func:`is_revealed`), and only its
    players and the organisers who play in no table of the round see it at all
    (:func:`tournaments.services.access.game_access`): a spectator who watched one table
    would know the hidden cards of its twins, and a player of the round could watch as a
    spectator."""
    return row is not None and row.duplicate_deals and row.round_status != Round.Status.FINISHED


def shown_event(
    engine: Engine[Any], payload: dict[str, Any], before: Any, now: Any, seat: int | None
) -> dict[str, Any]:
    """What ``seat`` (``None``: a spectator or the organiser) may see of ``payload`` while the
    game is not revealed: the game's own rule, and the deal without its shuffle's seed."""
    shown = engine.event_view(payload, before, now, seat)
    shuffle = shown.get("shuffle")
    if payload.get("type") == "dealt" and isinstance(shuffle, Mapping):
        shown["shuffle"] = {k: v for k, v in shuffle.items() if k != "seed"}
    return shown


def game_events(
    game: Game | int, viewer: Viewer, *, from_sequence: int = 1
) -> list[dict[str, Any]]:
    """The game's events from ``from_sequence`` as ``viewer`` may see them.

    Until the game is revealed (:func:`is_revealed`) each event goes through
    :func:`shown_event` with the state it was made in and the state now (the
    organiser sees what a spectator sees); afterwards every event is shown whole.
    """
    return [shown for shown, _, _ in _shown_events(game, viewer, from_sequence, views=False)]


def game_story(game: Game | int, viewer: Viewer, *, from_sequence: int = 1) -> list[dict[str, Any]]:
    """The events of :func:`game_events`, each with ``before`` and ``after``: the engine's
    view for ``viewer`` of the state the event was made in (``None`` for the deal) and of
    the state it made.

    A log tells an event's consequences (a trick picked up, a hand taken, a seat out)
    from these two views: they are what that viewer saw of the table at the time, never
    more, so the words built from them reveal nothing hidden from the viewer.
    """
    return [
        shown | {"before": before, "after": after}
        for shown, before, after in _shown_events(game, viewer, from_sequence, views=True)
    ]


def seat_story(game: Game | int, seat: int) -> list[dict[str, Any]]:
    """The whole game as ``seat`` saw it while it was played, for a replay from that seat's
    point of view: the events of :func:`game_story` for ``seat``, each redacted by the
    game's own rule (:func:`shown_event`) with the state it made -- what the seat knew at
    that move -- even once the game is revealed.  Nothing in it shows what the seat could
    not see then (tests/fuzz/test_seat_replay_leaks.py searches every byte)."""
    game = _game(game)
    if _seat_of(seat, game.seats) is None:
        raise ValueError(f"a seat is 0..{game.seats - 1}, not {seat!r}")
    return [
        shown | {"before": before, "after": after}
        for shown, before, after in _shown_events(game, seat, 1, views=True, as_then=True)
    ]


def _shown_events(
    game: Game | int, viewer: Viewer, from_sequence: int, *, views: bool, as_then: bool = False
) -> list[tuple[dict[str, Any], dict[str, Any] | None, dict[str, Any] | None]]:
    """Each event from ``from_sequence`` as ``viewer`` may see it, with (``views``) the
    viewer's engine views before and after it.  ``as_then``: as the viewer saw it when it
    was made (redacted with the state it made, whether or not the game is revealed)."""
    game = _game(game)
    seat = _seat_of(viewer, game.seats)
    engine = get_game(game.kind)
    events = store.read_stream(game.stream)
    states: list[Any] = []
    state: Any = None
    for event in events:
        state = engine.evolve(state, event.payload)
        states.append(state)
    revealed = bool(events) and engine.is_over(state) and is_revealed(game)
    shown: list[tuple[dict[str, Any], dict[str, Any] | None, dict[str, Any] | None]] = []
    for index, event in enumerate(events):
        if event.sequence < from_sequence:
            continue
        before = states[index - 1] if index else None
        if as_then:
            payload = shown_event(engine, event.payload, before, states[index], seat)
        elif revealed:
            payload = event.payload
        else:
            payload = shown_event(engine, event.payload, before, state, seat)
        item = {
            "game": game.kind,
            "sequence": event.sequence,
            "type": event.type,
            "version": event.version,
            "payload": payload,
            # No id is null, not "" (the API's one rule for a missing value).
            "cause": {"kind": event.cause_kind, "id": event.cause_id or None},
            "recorded_at": event.recorded_at.isoformat(),
        }
        if views:
            seen_before = engine.view(before, seat) if before is not None else None
            shown.append((item, seen_before, engine.view(states[index], seat)))
        else:
            shown.append((item, None, None))
    return shown


def stored_payload_as_spectator(stream: str, sequence: int, payload: Any) -> Any:
    """An event of the store as a spectator may see it now (the admin's event page).

    A game's event goes through :func:`game_events`.  Another stream's event that
    holds a secret seed (a round's duplicate-deal seed, a table's committed seed of
    its next deal) shows it only once what it deals is revealed: the round finished,
    that game revealed.  A seed of any other kind is never shown here.
    """
    if stream.startswith(STREAM_PREFIX) and stream[len(STREAM_PREFIX) :].isdecimal():
        game = game_row(int(stream[len(STREAM_PREFIX) :]))
        if game is None:
            return payload
        shown = game_events(game, None, from_sequence=sequence)
        return shown[0]["payload"] if shown else payload
    if not isinstance(payload, Mapping) or "seed" not in payload:
        return payload
    if payload.get("type") == "round_seed":
        # A seed event without its round names no round: none is finished.
        tournament_id, number = payload.get("tournament"), payload.get("round")
        public = (
            tournament_id is not None
            and number is not None
            and Round.objects.filter(
                tournament_id=tournament_id, number=number, status=Round.Status.FINISHED
            ).exists()
        )
    elif payload.get("type") == "table_seed" and stream.split("-", 1)[-1].isdecimal():
        dealt = Game.objects.filter(
            table_id=int(stream.split("-", 1)[1]), number_in_series=payload.get("game_number")
        ).first()
        public = dealt is not None and is_revealed(dealt)
    else:
        public = False
    if public:
        return payload
    return {k: v for k, v in payload.items() if k != "seed"} | {"redacted": ["seed"]}
