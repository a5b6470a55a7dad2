"""What the API reads and writes: one serializer per shape, also the OpenAPI schema's source.

Input serializers check shapes and types only; the rules (a table range the
game allows, a round that may start) are the use cases' (:mod:`tournaments.services`),
whose refusals come back as 422 problems naming the field at fault.
"""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from engine.registry import game_ids
from tournaments import services
from tournaments.models import (
    ApiToken,
    CheckIn,
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
from tournaments.play.context import GameContext, table_id_of

#: The games registered when the API's schema is made (its enums); validation asks the
#: registry each time (:func:`engine.registry.game_ids`), so a game registered later counts.
GAME_IDS = game_ids()


# -- problems --------------------------------------------------------------------------------------


class FieldErrorSerializer(serializers.Serializer[Any]):
    field = serializers.CharField(help_text="The field at fault ('' for the whole body).")
    detail = serializers.CharField()


class ProblemSerializer(serializers.Serializer[Any]):
    """An RFC 9457 problem document (``application/problem+json``)."""

    type = serializers.CharField(help_text="The problem type: GET it for its description.")
    title = serializers.CharField()
    status = serializers.IntegerField()
    detail = serializers.CharField(help_text="What is wrong this time, and how to fix it.")
    field = serializers.CharField(
        allow_null=True, help_text="The input at fault (body field or header), or null."
    )
    instance = serializers.CharField(required=False, help_text="The request path.")
    current_sequence = serializers.IntegerField(
        required=False, help_text="conflict: the game's sequence now."
    )
    expected_sequence = serializers.IntegerField(
        required=False, help_text="conflict: the sequence the request expected."
    )
    retry_after = serializers.IntegerField(required=False, help_text="throttled: seconds to wait.")
    move_index = serializers.IntegerField(
        required=False, allow_null=True, help_text="invalid-record: the first bad move."
    )
    errors = FieldErrorSerializer(many=True, required=False)


class ProblemTypeSerializer(serializers.Serializer[Any]):
    type = serializers.CharField()
    title = serializers.CharField()
    status = serializers.IntegerField()
    description = serializers.CharField()


# -- tokens and the caller -------------------------------------------------------------------------


class TokenSerializer(serializers.ModelSerializer[ApiToken]):
    class Meta:
        model = ApiToken
        fields = ["id", "name", "prefix", "created_at", "last_used_at", "revoked_at"]
        read_only_fields = fields


class TokenCreateSerializer(serializers.Serializer[Any]):
    name = serializers.CharField(
        max_length=80, required=False, allow_blank=True, default="", help_text="A label."
    )


class TokenCreatedSerializer(TokenSerializer):
    key = serializers.CharField(
        read_only=True, help_text="The key: shown this once, keep it secret."
    )

    class Meta(TokenSerializer.Meta):
        fields = [*TokenSerializer.Meta.fields, "key"]
        read_only_fields = fields


# -- clubs and players -----------------------------------------------------------------------------


class ClubSerializer(serializers.ModelSerializer[Club]):
    class Meta:
        model = Club
        fields = ["id", "name", "slug", "created_at"]
        read_only_fields = fields


class PlayerSerializer(serializers.ModelSerializer[Player]):
    is_bot = serializers.BooleanField(read_only=True)
    online = serializers.SerializerMethodField(help_text="Whether a login plays as this player.")

    class Meta:
        model = Player
        fields = ["id", "club", "name", "is_bot", "bot_level", "online", "created_at"]
        read_only_fields = fields

    def get_online(self, player: Player) -> bool:
        return player.user_id is not None


class PlayerCreateSerializer(serializers.Serializer[Any]):
    club = serializers.IntegerField(min_value=1)
    name = serializers.CharField(max_length=80)
    bot_level = serializers.CharField(
        max_length=32, required=False, allow_blank=True, default="", help_text="'' for a person."
    )
    username = serializers.CharField(
        max_length=150,
        required=False,
        allow_null=True,
        default=None,
        help_text="The login that plays as this player (optional).",
    )


class PlayerLoginSerializer(serializers.Serializer[Any]):
    username = serializers.CharField(
        max_length=150,
        allow_null=True,
        help_text="The login that plays as this player from now on (null: none).",
    )


class LoginLinkChangeSerializer(serializers.ModelSerializer[LoginLinkChange]):
    player_name = serializers.CharField(source="player.name", read_only=True)

    class Meta:
        model = LoginLinkChange
        fields = [
            "id",
            "club",
            "player",
            "player_name",
            "old_username",
            "new_username",
            "changed_by_username",
            "at",
        ]
        read_only_fields = fields


class ClientSeedSerializer(serializers.Serializer[Any]):
    seed = serializers.CharField(
        max_length=64,
        allow_blank=True,
        trim_whitespace=False,
        help_text="Printable ASCII, at most 64 characters ('' : none).",
    )
    updated_at = serializers.DateTimeField(read_only=True, allow_null=True)


class MeSerializer(serializers.Serializer[Any]):
    id = serializers.IntegerField()
    username = serializers.CharField()
    players = PlayerSerializer(many=True)
    organiser_of = serializers.ListField(child=serializers.IntegerField())
    superuser = serializers.BooleanField()
    play_forced_moves = serializers.BooleanField(
        help_text="Whether the server plays your forced moves for you (moves that cannot change"
        " the game: every Give Away move, a seat with one legal action). Change it with PATCH."
    )


class PreferencesSerializer(serializers.Serializer[Any]):
    play_forced_moves = serializers.BooleanField()


# -- tournaments -----------------------------------------------------------------------------------


class SeriesSerializer(serializers.Serializer[Any]):
    kind = serializers.ChoiceField(choices=["first_to", "losses", "place_points"])
    target = serializers.IntegerField(min_value=1)
    points = serializers.ListField(
        child=serializers.FloatField(), required=False, allow_null=True, min_length=1
    )
    deal_limit = serializers.IntegerField(
        min_value=1,
        required=False,
        allow_null=True,
        help_text="first_to only, off (absent or null) by default: the most deals a table's"
        " series may last. A series that reaches it ends there and is placed by round wins"
        " so far, equal wins sharing a place.",
    )


class TournamentSerializer(serializers.ModelSerializer[Tournament]):
    series = SeriesSerializer(read_only=True)
    current_round = serializers.SerializerMethodField(
        help_text="The number of the last round seated or played (0 before round 1)."
    )

    class Meta:
        model = Tournament
        # The settings an organiser may change (one list, in the service), then the state.
        fields = ["id", "club", *services.SETTINGS, "status", "current_round", "created_at"]
        read_only_fields = fields

    def get_current_round(self, tournament: Tournament) -> int:
        numbers = [r.number for r in tournament.round_set.all()]
        return max(numbers, default=0)


class TournamentCreateSerializer(serializers.Serializer[Any]):
    club = serializers.IntegerField(min_value=1)
    name = serializers.CharField(max_length=120)
    game = serializers.ChoiceField(choices=GAME_IDS)
    rounds = serializers.IntegerField(min_value=1, max_value=100)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        game = self.fields["game"]
        assert isinstance(game, serializers.ChoiceField)
        game.choices = game_ids()

    series = SeriesSerializer(required=False, allow_null=True, default=None)
    table_min = serializers.IntegerField(min_value=1, required=False, allow_null=True, default=None)
    table_max = serializers.IntegerField(min_value=1, required=False, allow_null=True, default=None)
    table_preferred = serializers.IntegerField(
        min_value=1, required=False, allow_null=True, default=None
    )
    seating_mode = serializers.ChoiceField(
        choices=Tournament.SeatingMode.choices, default=Tournament.SeatingMode.MIXING
    )
    turn_seconds = serializers.IntegerField(
        min_value=1, max_value=86_400, required=False, allow_null=True, default=None
    )
    timeouts_to_bot = serializers.IntegerField(min_value=0, max_value=100, default=0)
    duplicate_deals = serializers.BooleanField(default=False)
    timeout_forfeits = serializers.BooleanField(
        default=True,
        help_text="A seat handed to a bot after timeouts forfeits its series (last place).",
    )


class RegistrationSerializer(serializers.ModelSerializer[Registration]):
    player_name = serializers.CharField(source="player.name", read_only=True)

    class Meta:
        model = Registration
        fields = ["id", "player", "player_name", "from_round", "dropped_after", "registered_at"]
        read_only_fields = fields


class RegisterSerializer(serializers.Serializer[Any]):
    player = serializers.IntegerField(min_value=1)
    from_round = serializers.IntegerField(
        min_value=1, required=False, allow_null=True, default=None
    )


class CheckInSerializer(serializers.ModelSerializer[CheckIn]):
    class Meta:
        model = CheckIn
        fields = ["id", "player", "round_number", "at"]
        read_only_fields = fields


class CheckInCreateSerializer(serializers.Serializer[Any]):
    player = serializers.IntegerField(min_value=1)
    round_number = serializers.IntegerField(
        min_value=1, required=False, allow_null=True, default=None
    )


class PlayerRefSerializer(serializers.Serializer[Any]):
    player = serializers.IntegerField(min_value=1)


class FixedSerializer(serializers.Serializer[Any]):
    player = serializers.IntegerField(min_value=1)
    table = serializers.IntegerField(min_value=1, help_text="Table number, 1 first.")


class StartRoundSerializer(serializers.Serializer[Any]):
    auto_check_in = serializers.BooleanField(
        default=False, help_text="Seat every active registered player, checked in or not."
    )
    fixed = FixedSerializer(many=True, required=False, default=list)
    apart = serializers.ListField(
        child=serializers.ListField(
            child=serializers.IntegerField(min_value=1), min_length=2, max_length=2
        ),
        required=False,
        default=list,
        help_text="Pairs of player ids who must not share a table.",
    )


class SwapSerializer(serializers.Serializer[Any]):
    players = serializers.ListField(
        child=serializers.IntegerField(min_value=1),
        min_length=2,
        max_length=2,
        help_text="The two players to exchange (seat for seat, or a seat for a bye).",
    )


class SeatSerializer(serializers.ModelSerializer[TableSeat]):
    name = serializers.CharField(source="player.name", read_only=True)
    is_bot = serializers.BooleanField(source="player.is_bot", read_only=True)

    class Meta:
        model = TableSeat
        fields = ["seat", "player", "name", "is_bot", "autoplay"]
        read_only_fields = fields


class TableSummarySerializer(serializers.ModelSerializer[Table]):
    seats = SeatSerializer(many=True, read_only=True)
    placings = serializers.ListField(
        child=serializers.ListField(child=serializers.IntegerField()),
        allow_null=True,
        read_only=True,
        help_text="Once finished: groups of seats, best first (a group shares its place).",
    )

    class Meta:
        model = Table
        fields = ["id", "number", "first_dealer", "status", "placings", "next_commitment", "seats"]
        read_only_fields = fields


class RoundSerializer(serializers.ModelSerializer[Round]):
    tables = TableSummarySerializer(many=True, read_only=True)
    byes = serializers.ListField(child=serializers.IntegerField(), read_only=True)
    seed = serializers.SerializerMethodField(help_text="The duplicate-deal seed once finished.")
    client_seeds = serializers.SerializerMethodField(
        help_text="Duplicate deals, once finished: the client seeds of every player of the"
        " round (by player id) frozen as it began, which every deck of the round mixes in"
        " (docs/fairness.md); null otherwise."
    )

    class Meta:
        model = Round
        fields = [
            "number",
            "status",
            "byes",
            "commitment",
            "seed",
            "client_seeds",
            "started_at",
            "finished_at",
            "tables",
        ]
        read_only_fields = fields

    def get_seed(self, round_: Round) -> str:
        return round_.seed if round_.status == Round.Status.FINISHED else ""

    def get_client_seeds(self, round_: Round) -> list[str] | None:
        # Shown with the seed: what docs/fairness_check.py --round needs to derive the decks.
        if round_.status != Round.Status.FINISHED or not round_.commitment:
            return None
        return services.round_contributions(round_)


# -- games -----------------------------------------------------------------------------------------


class GameSummarySerializer(serializers.ModelSerializer[Game]):
    tournament = serializers.SerializerMethodField()
    round = serializers.SerializerMethodField()
    table = serializers.SerializerMethodField()
    game_number = serializers.SerializerMethodField()
    players = serializers.ListField(child=serializers.CharField(), read_only=True)
    to_act = serializers.ListField(child=serializers.IntegerField(), read_only=True)
    waiting_for = serializers.ListField(child=serializers.IntegerField(), read_only=True)
    deadlines = serializers.DictField(child=serializers.CharField(), read_only=True)
    result = serializers.JSONField(read_only=True, allow_null=True)
    seed = serializers.SerializerMethodField(help_text="The shuffle's seed, once the game is over.")

    class Meta:
        model = Game
        fields = [
            "id",
            "kind",
            "seats",
            "dealer",
            "players",
            "status",
            "sequence",
            "to_act",
            "waiting_for",
            "deadlines",
            "turn_seconds",
            "result",
            "commitment",
            "seed",
            "tournament",
            "round",
            "table",
            "game_number",
            "created_at",
            "finished_at",
        ]
        read_only_fields = fields

    def _from_context(self, game: Game, key: str) -> int | None:
        if key == "table":
            return table_id_of(game)
        value: int | None = getattr(GameContext.parse(game.context), key)
        return value

    def get_tournament(self, game: Game) -> int | None:
        return self._from_context(game, "tournament")

    def get_round(self, game: Game) -> int | None:
        return self._from_context(game, "round")

    def get_table(self, game: Game) -> int | None:
        return self._from_context(game, "table")

    def get_game_number(self, game: Game) -> int | None:
        return self._from_context(game, "game_number")

    def get_seed(self, game: Game) -> str:
        return game.seed if game.is_over else ""


class TableSerializer(TableSummarySerializer):
    tournament = serializers.IntegerField(source="round.tournament_id", read_only=True)
    round = serializers.IntegerField(source="round.number", read_only=True)
    series = serializers.SerializerMethodField()
    scores = serializers.SerializerMethodField(
        help_text="Each seat's series score over the finished games (higher is better)."
    )
    games = serializers.SerializerMethodField()

    class Meta(TableSummarySerializer.Meta):
        fields = [
            "id",
            "tournament",
            "round",
            "number",
            "first_dealer",
            "status",
            "placings",
            "seats",
            "series",
            "scores",
            "games",
        ]
        read_only_fields = fields

    def get_series(self, table: Table) -> dict[str, Any]:
        series: dict[str, Any] = table.round.tournament.series
        return series

    def get_scores(self, table: Table) -> list[float]:
        from engine.series import SeriesFormat, scores

        games = self.context.get("games", [])
        results = [g.result for g in games if g.is_over and g.result is not None]
        seats = len(table.seats.all())
        return scores(SeriesFormat.from_json(table.round.tournament.series), results, seats)

    def get_games(self, table: Table) -> list[dict[str, Any]]:
        return list(GameSummarySerializer(self.context.get("games", []), many=True).data)


class SeatContextSerializer(serializers.Serializer[Any]):
    player = serializers.IntegerField(allow_null=True)
    name = serializers.CharField()
    bot = serializers.CharField(allow_null=True)


class GameViewSerializer(serializers.Serializer[Any]):
    """A game as the caller may see it (the engine's view plus the service's facts).

    Each game adds its own table keys (hands, piles, tricks...): see docs/rules/.
    While the game runs, nothing hidden from the caller is here; once it is over,
    ``hidden``, ``deck`` and ``seed`` show everything.
    """

    game = serializers.CharField(help_text="The engine id.")
    game_id = serializers.IntegerField()
    role = serializers.ChoiceField(choices=["seat", "spectator", "organiser"])
    seat = serializers.IntegerField(allow_null=True, help_text="The caller's seat, or null.")
    viewer = serializers.IntegerField(allow_null=True)
    status = serializers.ChoiceField(choices=Game.Status.choices)
    sequence = serializers.IntegerField()
    players = serializers.ListField(child=serializers.CharField())
    to_act = serializers.ListField(child=serializers.IntegerField())
    waiting_for = serializers.ListField(child=serializers.IntegerField())
    legal_actions = serializers.ListField(
        child=serializers.DictField(),
        help_text="What the caller's seat may send now (empty for spectators).",
    )
    outcome = serializers.JSONField(allow_null=True)
    turn_seconds = serializers.IntegerField(allow_null=True)
    deadlines = serializers.DictField(child=serializers.CharField())
    commitment = serializers.CharField(allow_blank=True)
    tournament = serializers.IntegerField(allow_null=True)
    table = serializers.IntegerField(allow_null=True)
    seats = serializers.IntegerField(help_text="How many seats the table has.")
    sitting = SeatContextSerializer(
        many=True, help_text="Who sits where: player id, name and bot level per seat."
    )
    next_game = serializers.IntegerField(
        allow_null=True,
        help_text="Once the game is over: its table's next game in the series (null while"
        " it runs, after the series' last game, and outside tournaments).",
    )
    hidden = serializers.DictField(required=False, help_text="After the end: every hidden card.")
    deck = serializers.ListField(
        child=serializers.CharField(), required=False, help_text="After the end: the deck."
    )
    seed = serializers.CharField(required=False, help_text="After the end: the shuffle's seed.")


class CauseSerializer(serializers.Serializer[Any]):
    kind = serializers.CharField()
    id = serializers.CharField(allow_blank=True)


class GameEventSerializer(serializers.Serializer[Any]):
    """One event of a game, redacted for the caller while the game runs."""

    sequence = serializers.IntegerField()
    type = serializers.CharField()
    version = serializers.IntegerField()
    payload = serializers.DictField(help_text="The engine's event (RECORD.md's move shape).")
    cause = CauseSerializer()
    recorded_at = serializers.DateTimeField()


class TournamentStreamEventSerializer(GameEventSerializer):
    """The data of one event of a tournament stream: the game's event as its events endpoint
    shows it to the caller, with the game and the event's global position (the SSE id)."""

    game_id = serializers.IntegerField()
    position = serializers.CharField(help_text="The store's global position, 'tx.id'.")


class ActionSerializer(serializers.Serializer[Any]):
    action = serializers.DictField(
        help_text='The action, e.g. {"type": "draw", "index": 2}: one of legal_actions.'
    )
    expected_sequence = serializers.IntegerField(
        min_value=0, help_text="The sequence of the view you decided on."
    )
    seat = serializers.IntegerField(
        min_value=0,
        required=False,
        help_text="Your seat (optional: leave it out, or send your own).",
    )

    def validate_action(self, value: dict[str, Any]) -> dict[str, Any]:
        if not isinstance(value.get("type"), str):
            raise serializers.ValidationError('an action is an object with a "type" (a string)')
        return value


class ActionResultSerializer(serializers.Serializer[Any]):
    replayed = serializers.BooleanField(
        help_text="True when this is the first outcome of a retried Idempotency-Key."
    )
    sequence = serializers.IntegerField(help_text="The sequence of the command's last event.")
    view = GameViewSerializer()


class RecordSerializer(serializers.Serializer[Any]):
    """A portable game record (RECORD.md)."""

    format = serializers.CharField()
    game = serializers.CharField()
    seats = serializers.IntegerField()
    players = serializers.ListField(child=serializers.CharField())
    dealer = serializers.IntegerField()
    options = serializers.DictField()
    deck = serializers.ListField(child=serializers.CharField())
    moves = serializers.ListField(child=serializers.DictField())
    result = serializers.JSONField(allow_null=True)
    shuffle = serializers.DictField(required=False)


class RecordCheckSerializer(serializers.Serializer[Any]):
    valid = serializers.BooleanField()
    game = serializers.CharField()
    seats = serializers.IntegerField()
    moves = serializers.IntegerField()
    result = serializers.JSONField(allow_null=True)
    over = serializers.BooleanField()
    shuffle_verified = serializers.BooleanField(
        help_text="Whether a revealed seed was checked against its commitment and the deck."
    )


# -- standings and ratings -------------------------------------------------------------------------


class StandingSerializer(serializers.Serializer[Any]):
    rank = serializers.IntegerField()
    player = serializers.IntegerField()
    name = serializers.CharField()
    points = serializers.CharField(help_text="Exact points as a fraction, e.g. '5/2'.")
    points_value = serializers.FloatField()
    opponents_points = serializers.CharField()
    head_to_head = serializers.IntegerField()
    last_places = serializers.IntegerField()
    played = serializers.IntegerField()
    byes = serializers.IntegerField()
    dropped = serializers.BooleanField()


class RatingSerializer(serializers.Serializer[Any]):
    rank = serializers.IntegerField()
    player = serializers.IntegerField()
    name = serializers.CharField()
    game = serializers.CharField()
    mu = serializers.FloatField()
    sigma = serializers.FloatField()
    ordinal = serializers.FloatField()
    display = serializers.IntegerField()
