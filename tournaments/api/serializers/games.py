"""Serializers of games: a game's summary and view, its events, actions and their results."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from tournaments.api.serializers.tournaments import TableSummarySerializer
from tournaments.models import Game, Table
from tournaments.play.context import GameContext, table_id_of


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
    autoplay = serializers.BooleanField(
        help_text="Whether a bot plays the seat for its player now (handed over, or timed out)."
    )


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
    server_time = serializers.DateTimeField(
        help_text="The server's time as it made this view: count the clocks down from it."
    )
    remaining_ms = serializers.DictField(
        child=serializers.IntegerField(min_value=0),
        help_text="Per waited-for seat (keyed as deadlines): milliseconds left at server_time.",
    )
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


class GameStreamEventSerializer(GameEventSerializer):
    """The data of one event of a game stream; with ``?view=true`` also ``view``."""

    view = GameViewSerializer(
        required=False,
        allow_null=True,
        help_text="With ?view=true: your view after this event (on the last event of each"
        " batch sent at once; null on the events before it).",
    )


class AccountStreamEventSerializer(serializers.Serializer[Any]):
    """The data of one frame of the account stream (``started``, ``turn``, ``finished``)."""

    game_id = serializers.IntegerField()
    view = GameViewSerializer(help_text="Your seat's view of the game now (GET /games/{id}).")


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
