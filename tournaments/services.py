"""The tournament use cases: clubs, players, registration, check-in, rounds, the series hook.

Each public function is one use case in one transaction (pretix style): it
checks its input, raises :class:`ServiceError` (a ``ValueError`` saying what is
wrong and how to fix it) and changes nothing, or does the whole thing.  Rows
are locked in one order everywhere — tournament, round, table — so concurrent
organisers and game workers serialise instead of deadlocking.

A round goes through three steps (docs/tournaments.md, "A club night"):

1. :func:`start_round` seats the checked-in players (:mod:`tournaments.seating`):
   the round is ``SEATED``, its tables and seats exist, no game is dealt yet;
2. the organiser may adjust the seating: :func:`swap_players`, :func:`reseat`
   with tables fixed or players kept apart;
3. :func:`begin_round` deals each table's first game (round ``PLAYING``).

From then on each table plays its series through the game service: when a game
of a table ends, :mod:`tournaments.games` calls :func:`game_over` inside the
transaction that ended it, which deals the table's next game (the deal passing
to the left) or, once the series is over, records the table's placings,
finishes the round when its last table finishes and the tournament after its
last round.

Duplicate deals: a round's secret seed is the one event of the stream
``round-<id>`` (like a game's shuffle seed, it is in the event store and shown
only after the end); the round shows its SHA-256 commitment while it runs and
``Round.seed`` is filled when it finishes.
"""

from __future__ import annotations

import random
import secrets
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser, User
from django.db import transaction
from django.utils import timezone
from django.utils.text import slugify

from engine import series as series_rules
from engine.bots import bot_levels
from engine.contract import IllegalAction
from engine.fairness import (
    FairnessError,
    canonical_order,
    check_client_seed,
    commitment,
    derive_deck,
    mix_seed,
    new_seed,
)
from engine.registry import all_games, get_game
from engine.series import SeriesFormat
from events import store
from events.store import NewEvent
from tournaments import games as game_service
from tournaments.models import (
    CheckIn,
    ClientSeed,
    Club,
    Game,
    LoginLinkChange,
    Player,
    Registration,
    Round,
    Table,
    TableSeat,
    Tournament,
)
from tournaments.seating import (
    Constraints,
    History,
    Seating,
    SeatingError,
    duplicate_seed,
    seat_round,
)
from tournaments.standings import live_standings

__all__ = [
    "ServiceError",
    "add_player",
    "begin_round",
    "check_in",
    "create_club",
    "create_tournament",
    "drop",
    "find_player",
    "find_tournament",
    "game_over",
    "is_organiser",
    "known_bot_levels",
    "next_round_number",
    "register",
    "reseat",
    "round_seed",
    "seating_of",
    "start_round",
    "swap_players",
    "update_tournament",
]

#: The event stream holding a round's secret duplicate-deal seed.
ROUND_STREAM_PREFIX = "round-"
#: The event stream holding a table's server seeds, each committed before its deal.
TABLE_STREAM_PREFIX = "table-"

PlayerRef = Player | int


class ServiceError(ValueError):
    """A use case refused: ``message`` says what is wrong and how to fix it; nothing changed.

    ``field`` names the input at fault when there is one (``"rounds"``, ``"player"``).
    """

    def __init__(self, message: str, field: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.field = field


# -- clubs and players ------------------------------------------------------------------------


def is_organiser(user: AbstractBaseUser | AnonymousUser | None, club: Club) -> bool:
    """Whether ``user`` may run ``club``'s tournaments: one of its organisers, or a superuser."""
    if user is None or not user.is_authenticated or not user.is_active:
        return False
    if getattr(user, "is_superuser", False):
        return True
    return club.organisers.filter(pk=user.pk).exists()


def create_club(name: str, *, slug: str | None = None, organisers: Iterable[User] = ()) -> Club:
    """A new club; ``slug`` defaults to the name slugified."""
    name = (name or "").strip()
    if not name:
        raise ServiceError("a club needs a name", "name")
    slug = slugify(slug if slug is not None else name)[:60]
    if not slug:
        raise ServiceError(f"cannot make a slug of {name!r}: give one with letters", "slug")
    with transaction.atomic():
        if Club.objects.filter(slug=slug).exists():
            raise ServiceError(f"a club with the slug {slug!r} exists already", "slug")
        club = Club.objects.create(name=name, slug=slug)
        club.organisers.add(*organisers)
    return club


def known_bot_levels() -> set[str]:
    """Every bot level some game has."""
    return {level for game in all_games() for level in bot_levels(game.id)}


def add_player(
    club: Club,
    name: str,
    *,
    user: User | None = None,
    bot_level: str = "",
    by: User | None = None,
) -> Player:
    """A new player of ``club``: a person (optionally with a login) or a bot of ``bot_level``.

    A login given is the first entry of :class:`LoginLinkChange` (``by`` who asked).
    """
    name = (name or "").strip()
    if not name:
        raise ServiceError("a player needs a name", "name")
    if bot_level and bot_level not in known_bot_levels():
        raise ServiceError(
            f"there is no bot level {bot_level!r}; known: {', '.join(sorted(known_bot_levels()))}",
            "bot_level",
        )
    if bot_level and user is not None:
        raise ServiceError("a bot cannot be linked to a login", "user")
    with transaction.atomic():
        if Player.objects.filter(club=club, name=name).exists():
            raise ServiceError(f"{club} already has a player called {name!r}", "name")
        if user is not None and Player.objects.filter(club=club, user=user).exists():
            raise ServiceError(f"the login {user.get_username()!r} already plays in {club}", "user")
        player = Player.objects.create(club=club, name=name, user=user, bot_level=bot_level)
        if user is not None:
            _log_login_change(player, None, user, by)
        return player


def link_login(player: Player, user: User | None, *, by: User | None = None) -> Player:
    """Make ``user`` (``None``: no login) the login that plays as ``player``; logged.

    The one way a player's login changes (the admin and the API call it).  Refused
    while the player holds a seat at a table in play: whoever the login is would
    see that seat's hand and act for it (an organiser relinking a seated player to
    themselves, issue 17).  ``by`` is who asks, kept in :class:`LoginLinkChange`.
    """
    with transaction.atomic():
        locked = Player.objects.select_for_update().get(pk=player.pk)
        old_user = locked.user
        if (old_user.pk if old_user else None) == (user.pk if user else None):
            return locked
        if user is not None and locked.is_bot:
            raise ServiceError("a bot cannot be linked to a login", "user")
        if (
            user is not None
            and Player.objects.filter(club_id=locked.club_id, user=user)
            .exclude(pk=locked.pk)
            .exists()
        ):
            raise ServiceError(
                f"the login {user.get_username()!r} already plays in {locked.club}", "user"
            )
        table = locked.table_in_play()
        if table is not None:
            raise ServiceError(
                f"{locked.name} holds a seat at {table}: their login can change once that"
                " table has finished",
                "user",
            )
        locked.user = user
        locked.save(update_fields=["user"])
        _log_login_change(locked, old_user, user, by)
    player.user = user
    return locked


def _log_login_change(
    player: Player, old_user: User | None, new_user: User | None, by: User | None
) -> None:
    LoginLinkChange.objects.create(
        club_id=player.club_id,
        player=player,
        old_user=old_user,
        new_user=new_user,
        old_username=old_user.get_username() if old_user else "",
        new_username=new_user.get_username() if new_user else "",
        changed_by=by,
        changed_by_username=by.get_username() if by else "",
    )


def plays_forced_moves(user: User) -> bool:
    """Whether the server plays ``user``'s forced moves (on unless they turned it off)."""
    return not Player.objects.filter(user=user, play_forced_moves=False).exists()


def set_play_forced_moves(user: User, on: bool) -> bool:
    """Turn on or off, for every player of ``user``, the server playing their forced moves.

    Forced moves are the ones that cannot change the game (every Give Away
    move; a seat with one legal action).  Takes effect from the next move.
    """
    if not isinstance(on, bool):
        raise ServiceError(f"play_forced_moves is true or false, not {on!r}", "play_forced_moves")
    with transaction.atomic():
        if not Player.objects.filter(user=user).exists():
            raise ServiceError(
                "your login plays for no club yet: there are no moves to play for you",
                "play_forced_moves",
            )
        Player.objects.filter(user=user).update(play_forced_moves=on)
    return on


# -- tournaments --------------------------------------------------------------------------------


def _series_format(
    value: SeriesFormat | Mapping[str, Any] | None, game: str, table_max: int
) -> SeriesFormat:
    if value is None:
        fmt = get_game(game).default_series
    elif isinstance(value, SeriesFormat):
        fmt = value
    else:
        try:
            fmt = SeriesFormat.from_json(value)
        except (KeyError, TypeError, ValueError) as error:
            raise ServiceError(
                f"bad series format {dict(value)!r} ({error}); write it as"
                ' {"kind": "first_to" | "losses" | "place_points", "target": N}'
                ' (a first_to series may add "deal_limit": M)',
                "series",
            ) from error
    expected = get_game(game).default_series.kind
    if fmt.kind != expected:
        # Each game's results have one shape (RECORD.md): a winner, a loser or
        # places; only the series kind made for that shape can score them.
        raise ServiceError(
            f"a {game} series is scored as {expected!r}, not {fmt.kind!r}: give"
            f' {{"kind": "{expected}", "target": N}}',
            "series",
        )
    if fmt.kind == "place_points" and fmt.points is not None and len(fmt.points) < table_max:
        raise ServiceError(
            f"the place points {list(fmt.points)} have fewer places than a table of {table_max}",
            "series",
        )
    return fmt


def _positive(value: int | None, name: str, *, allow_none: bool = False, least: int = 1) -> None:
    if value is None and allow_none:
        return
    if not isinstance(value, int) or isinstance(value, bool) or value < least:
        raise ServiceError(f"{name} is a whole number of at least {least}, not {value!r}", name)


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
) -> dict[str, Any]:
    """A tournament's settings checked and completed with the game's defaults."""
    name = (name or "").strip()
    if not name:
        raise ServiceError("a tournament needs a name", "name")
    try:
        engine = get_game(game)
    except KeyError:
        known = ", ".join(sorted(g.id for g in all_games()))
        raise ServiceError(f"there is no game {game!r}; known: {known}", "game") from None
    _positive(rounds, "rounds")
    low = engine.min_seats if table_min is None else table_min
    high = engine.max_seats if table_max is None else table_max
    _positive(low, "table_min")
    _positive(high, "table_max")
    if low > high:
        raise ServiceError(
            f"tables of {low}–{high} players: the smallest table cannot be larger than the largest",
            "table_min",
        )
    for value, field in ((low, "table_min"), (high, "table_max")):
        if not engine.min_seats <= value <= engine.max_seats:
            raise ServiceError(
                f"tables of {low}–{high} players: {engine.name} is played by"
                f" {engine.min_seats} to {engine.max_seats} players",
                field,
            )
    if table_preferred is not None:
        _positive(table_preferred, "table_preferred")
        if not low <= table_preferred <= high:
            raise ServiceError(
                f"the preferred table size {table_preferred} is outside {low}–{high}",
                "table_preferred",
            )
    if seating_mode not in Tournament.SeatingMode.values:
        raise ServiceError(
            f"seating mode is one of {', '.join(Tournament.SeatingMode.values)},"
            f" not {seating_mode!r}",
            "seating_mode",
        )
    _positive(turn_seconds, "turn_seconds", allow_none=True)
    _positive(timeouts_to_bot, "timeouts_to_bot", least=0)
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
) -> Tournament:
    """A new tournament of ``club`` (status ``registration``).

    ``series`` defaults to the game's ``default_series``, the table range to the
    game's player range; ``table_preferred`` must lie inside the range.
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
)


def update_tournament(tournament: Tournament, **changes: Any) -> Tournament:
    """Change settings (names as in :data:`SETTINGS`) while no round has been seated.

    Once a round is seated only the name may change.
    """
    unknown = sorted(set(changes) - set(SETTINGS))
    if unknown:
        raise ServiceError(f"no such tournament setting: {', '.join(unknown)}", unknown[0])
    with transaction.atomic():
        tournament = _lock(tournament)
        current = {key: getattr(tournament, key) for key in SETTINGS}
        settings = _checked_settings(**(current | changes))
        changed = sorted(k for k in SETTINGS if settings[k] != current[k] and k != "name")
        if changed and Round.objects.filter(tournament=tournament).exists():
            raise ServiceError(
                f"{tournament.name} has seated rounds: only its name can change now",
                changed[0],
            )
        for key, value in settings.items():
            setattr(tournament, key, value)
        tournament.save(update_fields=list(SETTINGS))
        return tournament


def find_tournament(ref: str | int) -> Tournament:
    """A tournament by id, or by its exact name when only one has it."""
    text = str(ref).strip()
    if text.isdecimal():
        found = Tournament.objects.filter(pk=int(text)).first()
        if found is None:
            raise ServiceError(f"there is no tournament {text}", "tournament")
        return found
    named = list(Tournament.objects.filter(name=text)[:2])
    if len(named) != 1:
        raise ServiceError(
            f"{'no' if not named else 'more than one'} tournament is called {text!r}: give its id",
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
        raise ServiceError(f"{club} has no player {text!r}", "player")
    return found


def _lock(tournament: Tournament) -> Tournament:
    """The tournament row, locked for the rest of the transaction, fresh from the database."""
    return Tournament.objects.select_for_update().get(pk=tournament.pk)


def _rounds(tournament: Tournament) -> list[Round]:
    return list(Round.objects.filter(tournament=tournament).order_by("number"))


def _begun(round_: Round) -> bool:
    return round_.status in (Round.Status.PLAYING, Round.Status.FINISHED)


def next_round_number(tournament: Tournament) -> int:
    """The first round that has not begun (a ``SEATED`` round has not): where entries go."""
    begun = [r.number for r in _rounds(tournament) if _begun(r)]
    return max(begun, default=0) + 1


def _player(tournament: Tournament, player: PlayerRef) -> Player:
    if isinstance(player, Player):
        found = player
    else:
        found_or_none = Player.objects.filter(pk=player).first()
        if found_or_none is None:
            raise ServiceError(f"there is no player {player!r}", "player")
        found = found_or_none
    if found.club_id != tournament.club_id:
        raise ServiceError(f"{found.name} is not a player of {tournament.club}", "player")
    return found


def _registration(tournament: Tournament, player: Player) -> Registration:
    found = Registration.objects.filter(tournament=tournament, player=player).first()
    if found is None:
        raise ServiceError(
            f"{player.name} is not registered in {tournament.name}: register them first",
            "player",
        )
    return found


def register(
    tournament: Tournament, player: PlayerRef, *, from_round: int | None = None
) -> Registration:
    """Enter ``player`` in ``tournament``; a late entry while rounds remain.

    ``from_round`` (default: the next round that has not begun) is the first
    round the player can be seated in; the rounds before it score nothing.
    """
    with transaction.atomic():
        tournament = _lock(tournament)
        who = _player(tournament, player)
        if tournament.status == Tournament.Status.FINISHED:
            raise ServiceError(f"{tournament.name} is finished: nobody can enter it now")
        if who.is_bot and who.bot_level not in bot_levels(tournament.game):
            raise ServiceError(
                f"{who.name} is a {who.bot_level!r} bot, which does not play"
                f" {tournament.game}; levels: {', '.join(bot_levels(tournament.game))}",
                "player",
            )
        if Registration.objects.filter(tournament=tournament, player=who).exists():
            raise ServiceError(f"{who.name} is already registered in {tournament.name}", "player")
        first_open = next_round_number(tournament)
        if first_open > tournament.rounds:
            raise ServiceError(
                f"{tournament.name} has no rounds left to enter (all {tournament.rounds} begun)"
            )
        start = first_open if from_round is None else from_round
        _positive(start, "from_round")
        if not first_open <= start <= tournament.rounds:
            raise ServiceError(
                f"from_round must be between {first_open} (the next round) and"
                f" {tournament.rounds}, not {start}",
                "from_round",
            )
        return Registration.objects.create(tournament=tournament, player=who, from_round=start)


def _active(registration: Registration, round_number: int) -> bool:
    return registration.dropped_after is None and registration.from_round <= round_number


def check_in(tournament: Tournament, player: PlayerRef, round_number: int | None = None) -> CheckIn:
    """Mark ``player`` present for a round (default: the next round that has not begun).

    Checking in twice is harmless (the first check-in is returned).  A player
    checked in for a round already seated is seated only when the organiser
    re-seats it (:func:`reseat`).
    """
    with transaction.atomic():
        tournament = _lock(tournament)
        who = _player(tournament, player)
        registration = _registration(tournament, who)
        first_open = next_round_number(tournament)
        number = first_open if round_number is None else round_number
        _positive(number, "round_number")
        if tournament.status == Tournament.Status.FINISHED or first_open > tournament.rounds:
            raise ServiceError(f"{tournament.name} has no rounds left to check in for")
        if not first_open <= number <= tournament.rounds:
            raise ServiceError(
                f"round {number} cannot take check-ins: the next round is {first_open}"
                f" (of {tournament.rounds})",
                "round_number",
            )
        if registration.dropped_after is not None:
            raise ServiceError(f"{who.name} dropped out of {tournament.name}", "player")
        if registration.from_round > number:
            raise ServiceError(
                f"{who.name} entered from round {registration.from_round}, not round {number}",
                "round_number",
            )
        found, _ = CheckIn.objects.get_or_create(
            tournament=tournament, player=who, round_number=number
        )
        return found


def drop(tournament: Tournament, player: PlayerRef) -> Registration:
    """Drop ``player`` out of ``tournament`` between rounds.

    They keep their results (and stay in the standings, marked dropped) and are
    never seated again.  Refused while a round is being played.  If the next
    round is already seated with them in it, it is seated again without them
    (earlier swaps and constraints of that round must be made again).
    """
    with transaction.atomic():
        tournament = _lock(tournament)
        who = _player(tournament, player)
        registration = _registration(tournament, who)
        if registration.dropped_after is not None:
            raise ServiceError(
                f"{who.name} already dropped out after round {registration.dropped_after}",
                "player",
            )
        if tournament.status == Tournament.Status.FINISHED:
            raise ServiceError(f"{tournament.name} is finished: nobody can drop out now")
        rounds = _rounds(tournament)
        playing = [r for r in rounds if r.status == Round.Status.PLAYING]
        if playing:
            raise ServiceError(
                f"round {playing[0].number} is being played: drop {who.name} after it finishes",
                "player",
            )
        finished = [r.number for r in rounds if r.status == Round.Status.FINISHED]
        registration.dropped_after = max(finished, default=0)
        registration.save(update_fields=["dropped_after"])
        seated = [r for r in rounds if r.status == Round.Status.SEATED]
        if seated and _in_round(seated[0], who):
            _reseat(tournament, seated[0], Constraints(), random.Random(secrets.randbits(64)))
        return registration


def _in_round(round_: Round, player: Player) -> bool:
    return (
        player.pk in round_.byes
        or TableSeat.objects.filter(table__round=round_, player=player).exists()
    )


# -- seating --------------------------------------------------------------------------------


def seating_of(round_: Round) -> Seating:
    """The round's seating as :mod:`tournaments.seating` sees it (player ids as strings)."""
    tables: list[tuple[str, ...]] = []
    dealers: list[int] = []
    for table in Table.objects.filter(round=round_).order_by("number"):
        seats = TableSeat.objects.filter(table=table).order_by("seat")
        tables.append(tuple(str(s.player_id) for s in seats))
        dealers.append(table.first_dealer)
    return Seating(
        tables=tuple(tables), dealers=tuple(dealers), byes=tuple(str(p) for p in round_.byes)
    )


def _participants(tournament: Tournament, number: int, auto_check_in: bool) -> list[Player]:
    """The players to seat in round ``number``: active, and checked in (bots always are).

    Bots and, with ``auto_check_in``, everyone seated get a check-in row for the record.
    """
    registrations = Registration.objects.filter(tournament=tournament).select_related("player")
    checked = set(
        CheckIn.objects.filter(tournament=tournament, round_number=number).values_list(
            "player_id", flat=True
        )
    )
    players: list[Player] = []
    for registration in registrations.order_by("id"):
        if not _active(registration, number):
            continue
        who = registration.player
        if who.pk in checked or who.is_bot or auto_check_in:
            players.append(who)
            if who.pk not in checked:
                CheckIn.objects.create(tournament=tournament, player=who, round_number=number)
    return players


def _constraints(
    tournament: Tournament,
    fixed: Mapping[PlayerRef, int] | None,
    apart: Iterable[tuple[PlayerRef, PlayerRef]],
) -> Constraints:
    """Seating constraints from players and table numbers (1 is the first table)."""
    pinned: dict[str, int] = {}
    for player, number in (fixed or {}).items():
        who = _player(tournament, player)
        if not isinstance(number, int) or isinstance(number, bool) or number < 1:
            raise ServiceError(f"{who.name} is fixed to table {number!r}: tables count from 1")
        pinned[str(who.pk)] = number - 1
    pairs: list[tuple[str, str]] = []
    for a, b in apart:
        first, second = _player(tournament, a), _player(tournament, b)
        if first.pk == second.pk:
            raise ServiceError(f"{first.name} cannot be kept apart from themselves", "apart")
        pairs.append((str(first.pk), str(second.pk)))
    return Constraints(fixed=pinned, apart=tuple(pairs))


def _history(tournament: Tournament, before: int) -> History:
    rounds = Round.objects.filter(tournament=tournament, number__lt=before).order_by("number")
    return History.from_seatings(seating_of(r) for r in rounds)


def _seat(
    tournament: Tournament,
    round_: Round,
    players: Sequence[Player],
    constraints: Constraints,
    rng: random.Random,
) -> None:
    """Seat ``players`` in ``round_`` (which has no tables yet) and store the seating."""
    history = _history(tournament, round_.number)
    mode: Any = "random" if round_.number == 1 else tournament.seating_mode
    ranking = [s.player for s in live_standings(tournament)] if round_.number > 1 else None
    ids = [str(p.pk) for p in players]
    if len(ids) < tournament.table_min:
        raise ServiceError(
            f"round {round_.number} cannot start: {len(ids)} player(s) checked in, a table"
            f" needs at least {tournament.table_min} (check players in, or use auto check-in)"
        )
    try:
        seating = seat_round(
            ids,
            tournament.table_min,
            tournament.table_max,
            preferred=tournament.table_preferred,
            history=history,
            standings=ranking,
            mode=mode,
            constraints=constraints,
            rng=rng,
        )
    except SeatingError as error:
        raise ServiceError(f"round {round_.number} cannot be seated: {error}") from error
    _store_seating(round_, seating)


def _store_seating(round_: Round, seating: Seating) -> None:
    """Write ``seating`` as the round's tables and seats (table rows are kept where they exist)."""
    wanted = [int(x) for x in seating.seated()]
    players = {str(p.pk): p for p in Player.objects.filter(pk__in=wanted)}
    tables = {t.number: t for t in Table.objects.filter(round=round_)}
    TableSeat.objects.filter(table__round=round_).delete()
    for index, (members, dealer) in enumerate(zip(seating.tables, seating.dealers, strict=True)):
        table = tables.pop(index + 1, None)
        if table is None:
            table = Table.objects.create(round=round_, number=index + 1, first_dealer=dealer)
            _commit_table_seed(table, 1)
        elif table.first_dealer != dealer:
            table.first_dealer = dealer
            table.save(update_fields=["first_dealer"])
        TableSeat.objects.bulk_create(
            TableSeat(table=table, seat=seat, player=players[pid])
            for seat, pid in enumerate(members)
        )
    Table.objects.filter(pk__in=[t.pk for t in tables.values()]).delete()
    round_.byes = [int(p) for p in seating.byes]
    round_.save(update_fields=["byes"])


def start_round(
    tournament: Tournament,
    *,
    fixed: Mapping[PlayerRef, int] | None = None,
    apart: Iterable[tuple[PlayerRef, PlayerRef]] = (),
    auto_check_in: bool = False,
    rng: random.Random | None = None,
) -> Round:
    """Seat the next round: status ``SEATED``, tables and seats stored, no game dealt yet.

    Seated are the active registered players checked in for the round; bots
    always count as checked in, and ``auto_check_in`` checks in every active
    registered player.  ``fixed`` maps players to table numbers (1 first),
    ``apart`` lists pairs who must not share a table.  Then the organiser may
    :func:`swap_players` or :func:`reseat`, and :func:`begin_round` deals.
    """
    rng = rng if rng is not None else random.Random(secrets.randbits(64))
    with transaction.atomic():
        tournament = _lock(tournament)
        rounds = _rounds(tournament)
        number = len(rounds) + 1
        if tournament.status == Tournament.Status.FINISHED or number > tournament.rounds:
            raise ServiceError(
                f"{tournament.name} has had all its {tournament.rounds} rounds", "tournament"
            )
        if rounds:
            last = rounds[-1]
            if last.status == Round.Status.SEATED:
                raise ServiceError(
                    f"round {last.number} is seated and has not begun: adjust it"
                    " (swap, reseat) or begin it",
                    "tournament",
                )
            if last.status == Round.Status.PLAYING:
                busy = Table.objects.filter(round=last).exclude(status=Table.Status.FINISHED)
                raise ServiceError(
                    f"round {number} cannot start: round {last.number} still has"
                    f" {busy.count()} table(s) playing",
                    "tournament",
                )
        constraints = _constraints(tournament, fixed, apart)
        players = _participants(tournament, number, auto_check_in)
        round_ = Round.objects.create(tournament=tournament, number=number)
        _seat(tournament, round_, players, constraints, rng)
        if tournament.duplicate_deals:
            seed = new_seed()
            round_.commitment = commitment(seed)
            round_.save(update_fields=["commitment"])
            store.append(
                f"{ROUND_STREAM_PREFIX}{round_.pk}",
                [
                    NewEvent(
                        "round_seed",
                        {
                            "type": "round_seed",
                            "v": 1,
                            "tournament": tournament.pk,
                            "round": number,
                            "seed": seed.hex(),
                            "commitment": round_.commitment,
                        },
                        "organiser",
                    )
                ],
                expected_sequence=0,
            )
        return round_


def _seated_round(round_: Round) -> tuple[Tournament, Round]:
    tournament = _lock(round_.tournament)
    fresh = Round.objects.select_for_update().get(pk=round_.pk)
    if fresh.status != Round.Status.SEATED:
        raise ServiceError(
            f"round {fresh.number} has begun ({fresh.status}): its seating cannot change", "round"
        )
    return tournament, fresh


def swap_players(round_: Round, a: PlayerRef, b: PlayerRef) -> Round:
    """Exchange two players of a seated round: seat for seat, or a seat for a bye.

    The first dealer's seat stays where it is (a player swapped into it deals first).
    """
    with transaction.atomic():
        tournament, round_ = _seated_round(round_)
        first, second = _player(tournament, a), _player(tournament, b)
        seating = seating_of(round_)
        if first.pk == second.pk:
            raise ServiceError("a swap needs two different players", "player")
        for who in (first, second):
            if not _in_round(round_, who):
                raise ServiceError(
                    f"{who.name} is not in round {round_.number}: check them in and reseat",
                    "player",
                )
        if first.pk in round_.byes and second.pk in round_.byes:
            raise ServiceError(f"{first.name} and {second.name} both have byes", "player")
        try:
            swapped = Constraints().swap(seating, str(first.pk), str(second.pk))
        except SeatingError as error:  # pragma: no cover - every refusal is checked above
            raise ServiceError(f"cannot swap: {error}", "player") from error
        _store_seating(round_, swapped)
        return round_


def _reseat(
    tournament: Tournament, round_: Round, constraints: Constraints, rng: random.Random
) -> None:
    players = _participants(tournament, round_.number, auto_check_in=False)
    _seat(tournament, round_, players, constraints, rng)


def reseat(
    round_: Round,
    *,
    fixed: Mapping[PlayerRef, int] | None = None,
    apart: Iterable[tuple[PlayerRef, PlayerRef]] = (),
    rng: random.Random | None = None,
) -> Round:
    """Seat a seated round again, with tables ``fixed`` and pairs kept ``apart``.

    The players are those checked in now (a late check-in is seated, a drop is not).
    """
    rng = rng if rng is not None else random.Random(secrets.randbits(64))
    with transaction.atomic():
        tournament, round_ = _seated_round(round_)
        _reseat(tournament, round_, _constraints(tournament, fixed, apart), rng)
        return round_


# -- playing ----------------------------------------------------------------------------------


def round_seed(round_: Round) -> bytes | None:
    """The round's secret duplicate-deal seed from the event store, ``None`` without one."""
    events = store.read_stream(f"{ROUND_STREAM_PREFIX}{round_.pk}", limit=1)
    return bytes.fromhex(events[0].payload["seed"]) if events else None


def round_contributions(round_: Round) -> list[str] | None:
    """The client seeds of every player of a duplicate round, frozen when it began."""
    events = store.read_stream(f"{ROUND_STREAM_PREFIX}{round_.pk}", from_sequence=2, limit=1)
    return list(events[0].payload["client_seeds"]) if events else None


def _freeze_round_contributions(round_: Round) -> None:
    """Duplicate deals: every seated player's client seed (by player id) as the round begins."""
    players = list(
        Player.objects.filter(table_seats__table__round=round_).distinct().order_by("pk")
    )
    store.append(
        f"{ROUND_STREAM_PREFIX}{round_.pk}",
        [
            NewEvent(
                "round_contributions",
                {
                    "type": "round_contributions",
                    "v": 1,
                    "players": [p.pk for p in players],
                    "client_seeds": client_seeds_of(players),
                },
                "system",
            )
        ],
        expected_sequence=1,
    )


def _commit_table_seed(table: Table, number: int) -> None:
    """Draw the server seed of ``table``'s deal ``number`` and show its commitment now.

    The seed goes to the table's event stream (secret until that game is over); the
    commitment is the table's ``next_commitment`` until the deal, so that players can
    see it, and change their client seeds, before the deck is fixed (docs/fairness.md).
    """
    seed = new_seed()
    table.next_commitment = commitment(seed)
    table.save(update_fields=["next_commitment"])
    store.append(
        f"{TABLE_STREAM_PREFIX}{table.pk}",
        [
            NewEvent(
                "table_seed",
                {
                    "type": "table_seed",
                    "v": 1,
                    "game_number": number,
                    "seed": seed.hex(),
                    "commitment": table.next_commitment,
                },
                "system",
            )
        ],
        expected_sequence=number - 1,
    )


def _table_seed(table: Table, number: int) -> bytes | None:
    """The committed server seed of ``table``'s deal ``number`` (``None``: none was)."""
    events = store.read_stream(f"{TABLE_STREAM_PREFIX}{table.pk}", from_sequence=number, limit=1)
    if not events or events[0].payload.get("game_number") != number:
        return None
    return bytes.fromhex(events[0].payload["seed"])


def client_seeds_of(players: Sequence[Player]) -> list[str]:
    """Each player's client seed, in order (``""``: a bot, no login, or none set)."""
    users = [p.user_id for p in players if p.user_id is not None]
    seeds = dict(ClientSeed.objects.filter(user_id__in=users).values_list("user_id", "seed"))
    return [seeds.get(p.user_id, "") if p.user_id is not None else "" for p in players]


def set_client_seed(user: User, seed: str) -> ClientSeed:
    """``user``'s client seed from now on: the decks dealt to them after this mix it in."""
    try:
        check_client_seed(seed)
    except FairnessError as error:
        raise ServiceError(str(error), "seed") from None
    with transaction.atomic():
        found, _ = ClientSeed.objects.update_or_create(user=user, defaults={"seed": seed})
    return found


def _deal_table_game(
    tournament: Tournament,
    round_: Round,
    table: Table,
    number: int,
    dealer: int,
    cause_kind: str,
) -> Game:
    """Deal game ``number`` (1 first) of ``table``'s series, ``dealer`` dealing.

    Without duplicate deals the deck derives from the table's server seed committed
    before this deal, mixed with the seated players' client seeds and ``number``; the
    next deal's seed is committed at once.  With duplicate deals it derives from the
    round's seed mixed with the contributions of every player of the round, frozen
    when the round began (so every table of a size gets the same decks).
    """
    seats = list(TableSeat.objects.filter(table=table).select_related("player").order_by("seat"))
    deck: list[str] | None = None
    server_seed: bytes | None = None
    if tournament.duplicate_deals:
        seed = round_seed(round_)
        if seed is None:
            raise ServiceError(f"round {round_.number} has no duplicate-deal seed", "round")
        engine = get_game(tournament.game)
        deal_seed = duplicate_seed(seed, len(seats), number - 1)
        frozen = round_contributions(round_)
        if frozen is not None:
            deal_seed = mix_seed(deal_seed, frozen, number)
        deck = derive_deck(deal_seed, canonical_order(engine.deck))
    else:
        server_seed = _table_seed(table, number)
        # A table seated before client seeds existed has none: a fresh seed, as before.
        if server_seed is not None:
            _commit_table_seed(table, number + 1)
    context = {
        "tournament": tournament.pk,
        "round": round_.number,
        "table": table.pk,
        "game_number": number,
        "seats": [
            {"player": s.player_id, "name": s.player.name, "bot": s.player.bot_level or None}
            for s in seats
        ],
    }
    try:
        return game_service.create_game(
            tournament.game,
            len(seats),
            dealer=dealer,
            players=[s.player.name for s in seats],
            deck=deck,
            turn_seconds=tournament.turn_seconds,
            context=context,
            cause_kind=cause_kind,
            server_seed=server_seed,
            client_seeds=client_seeds_of([s.player for s in seats]) if server_seed else (),
            nonce=number,
        )
    except IllegalAction as error:
        raise ServiceError(f"table {table.number} cannot be dealt: {error.reason}") from error


def begin_round(round_: Round) -> Round:
    """Deal the first game of every table of a seated round; the round is ``PLAYING``."""
    with transaction.atomic():
        tournament, round_ = _seated_round(round_)
        tables = list(Table.objects.filter(round=round_).order_by("number"))
        if not tables:
            raise ServiceError(f"round {round_.number} has no tables: reseat it", "round")
        if tournament.duplicate_deals:
            _freeze_round_contributions(round_)
        for table in tables:
            _deal_table_game(tournament, round_, table, 1, table.first_dealer, "organiser")
            table.status = Table.Status.PLAYING
            table.save(update_fields=["status"])
        round_.status = Round.Status.PLAYING
        round_.started_at = timezone.now()
        round_.save(update_fields=["status", "started_at"])
        if tournament.status == Tournament.Status.REGISTRATION:
            tournament.status = Tournament.Status.RUNNING
            tournament.save(update_fields=["status"])
        return round_


def _table_games(table_id: int) -> list[Game]:
    return list(Game.objects.filter(table_id=table_id).order_by("number_in_series", "id"))


def game_over(game: Game) -> None:
    """The series hook: a game of a tournament table has just ended (same transaction).

    Deals the table's next game (the deal passes to the left) unless the
    series is over; then stores the table's placings, finishes the round
    when every table has finished (revealing the duplicate-deal seed) and
    the tournament after its last round.  Called again for the same game it
    does nothing.
    """
    context = game.context or {}
    table_id = context.get("table")
    if table_id is None:
        return
    with transaction.atomic():
        table = Table.objects.select_related("round").get(pk=table_id)
        tournament = Tournament.objects.select_for_update().get(pk=table.round.tournament_id)
        round_ = Round.objects.select_for_update().get(pk=table.round_id)
        table = Table.objects.select_for_update().get(pk=table_id)
        if table.status == Table.Status.FINISHED:
            return
        games = _table_games(table.pk)
        if not games or games[-1].pk != game.pk:
            return  # a stale call: a later game of the series exists already
        if any(not g.is_over for g in games if g.pk != game.pk):
            return
        seats = game.seats
        fmt = SeriesFormat.from_json(tournament.series)
        found = [g.result for g in games[:-1]] + [game.result]
        results: list[dict[str, Any]] = [r for r in found if r is not None]
        if len(results) != len(found):
            return
        if not series_rules.is_over(fmt, results, seats):
            _deal_table_game(
                tournament,
                round_,
                table,
                len(games) + 1,
                series_rules.next_dealer(game.dealer, seats),
                "system",
            )
            return
        table.placings = series_rules.placings(fmt, results, seats)
        table.status = Table.Status.FINISHED
        table.save(update_fields=["placings", "status"])
        if Table.objects.filter(round=round_).exclude(status=Table.Status.FINISHED).exists():
            return
        round_.status = Round.Status.FINISHED
        round_.finished_at = timezone.now()
        seed = round_seed(round_)
        round_.seed = seed.hex() if seed is not None else ""
        round_.save(update_fields=["status", "finished_at", "seed"])
        if round_.number >= tournament.rounds:
            tournament.status = Tournament.Status.FINISHED
            tournament.save(update_fields=["status"])
