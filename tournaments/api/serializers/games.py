"""Serializers of games: a game's summary and view, its events, actions and their results."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.utils.translation import gettext
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from tournaments.api.serializers.common import BOT_HELP, BodySerializer, WholeNumberField
from tournaments.api.serializers.tournaments import SeriesSerializer, TableSummarySerializer
from tournaments.models import Game, Table
from tournaments.play.context import GameContext, table_id_of


class DeadlineSerializer(serializers.Serializer[Any]):
    """When one waited-for seat's time runs out."""

    seat = WholeNumberField()
    at = serializers.DateTimeField()
    remaining_ms = serializers.IntegerField(
        min_value=0,
        required=False,
        help_text="In a game's view: milliseconds left at the view's server_time (0 once"
        " passed); count down from it rather than from a clock of your own.",
    )


def deadline_list(
    deadlines: Mapping[str, str], remaining_ms: Mapping[str, int] | None = None
) -> list[dict[str, Any]]:
    """The stored ``{"<seat>": iso}`` deadlines as the API shows them: a list in seat order,
    with each seat's ``remaining_ms`` when given (a view's clock)."""
    shown = []
    for seat in sorted(deadlines, key=int):
        entry: dict[str, Any] = {"seat": int(seat), "at": deadlines[seat]}
        if remaining_ms is not None:
            entry["remaining_ms"] = remaining_ms.get(seat, 0)
        shown.append(entry)
    return shown


class GameSummarySerializer(serializers.ModelSerializer[Game]):
    game = serializers.CharField(source="kind", read_only=True, help_text="The engine id.")
    tournament = serializers.SerializerMethodField()
    round = serializers.SerializerMethodField()
    table = serializers.SerializerMethodField()
    game_number = serializers.SerializerMethodField()
    players = serializers.ListField(child=serializers.CharField(), read_only=True)
    to_act = serializers.ListField(child=WholeNumberField(), read_only=True)
    waiting_for = serializers.ListField(child=WholeNumberField(), read_only=True)
    deadlines = serializers.SerializerMethodField(
        help_text="When each waited-for seat's time runs out ([] without a clock)."
    )
    result = serializers.JSONField(read_only=True, allow_null=True)
    commitment = serializers.SerializerMethodField(
        help_text="SHA-256 of the shuffle's seed (null for an imported game without one)."
    )
    seed = serializers.SerializerMethodField(
        help_text="The shuffle's seed, once the game is over (null before, and for a duplicate"
        " deal, whose seed is its round's)."
    )

    class Meta:
        model = Game
        fields = [
            "id",
            "game",
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
        value: int | None = getattr(GameContext.of(game), key)
        return value

    def get_tournament(self, game: Game) -> int | None:
        return self._from_context(game, "tournament")

    def get_round(self, game: Game) -> int | None:
        return self._from_context(game, "round")

    def get_table(self, game: Game) -> int | None:
        return self._from_context(game, "table")

    def get_game_number(self, game: Game) -> int | None:
        return self._from_context(game, "game_number")

    @extend_schema_field(DeadlineSerializer(many=True))
    def get_deadlines(self, game: Game) -> list[dict[str, Any]]:
        return deadline_list(game.deadlines or {})

    def get_commitment(self, game: Game) -> str | None:
        return game.commitment or None

    def get_seed(self, game: Game) -> str | None:
        return (game.seed or None) if game.is_over else None


class TableSerializer(TableSummarySerializer):
    tournament = WholeNumberField(source="round.tournament_id", read_only=True)
    round = WholeNumberField(source="round.number", read_only=True)
    # As the tournament's, every key shown (a series without a deal limit left
    # "deal_limit" out here, where the tournament said null: found by trying).
    series = SeriesSerializer(source="round.tournament.series", read_only=True)
    scores = serializers.SerializerMethodField(
        help_text="Each seat's series score over the finished games (higher is better)."
    )
    games = serializers.SerializerMethodField()

    class Meta(TableSummarySerializer.Meta):
        # The summary's fields and more: a round's tables and one table answer alike (the
        # detail had its own list, which left out who sits where and the next deal's
        # commitment, and kept the seats' row ids: found by a client written from the docs).
        fields = [
            *TableSummarySerializer.Meta.fields,
            "tournament",
            "round",
            "series",
            "scores",
            "games",
        ]
        read_only_fields = fields

    def get_scores(self, table: Table) -> list[float]:
        from engine.series import SeriesFormat, scores

        games = self.context.get("scored", [])
        results = [g.result for g in games if g.is_over and g.result is not None]
        seats = len(table.seats.all())
        return scores(SeriesFormat.from_json(table.round.tournament.series), results, seats)

    def get_games(self, table: Table) -> list[dict[str, Any]]:
        return list(GameSummarySerializer(self.context.get("games", []), many=True).data)


class SittingSerializer(serializers.Serializer[Any]):
    """Who sits at one seat of a game: the shape of a table's ``sitting`` entries."""

    seat = WholeNumberField()
    player = WholeNumberField(allow_null=True, help_text="The player's id (null: none).")
    name = serializers.CharField()
    bot = serializers.CharField(allow_null=True, help_text=BOT_HELP)
    autoplay = serializers.BooleanField(
        help_text="Whether a bot plays the seat for its player now (handed over, or timed out)."
    )


class GameViewSerializer(serializers.Serializer[Any]):
    """A game as the caller may see it: the keys every game's view has.

    Each game adds its own table keys (hands, piles, tricks...), typed per game in the
    schema (``GameView`` is a ``oneOf`` by ``game``: tournaments/api/schema.py, from
    each game's declarations in engine/games/).  While the game runs, nothing hidden
    from the caller is here; once it is revealed, ``hidden``, ``deck`` and ``seed``
    show everything.
    """

    game = serializers.CharField(help_text="The engine id.")
    id = WholeNumberField(help_text="The game's id.")
    role = serializers.ChoiceField(choices=["seat", "spectator", "organiser"])
    seat = WholeNumberField(allow_null=True, help_text="The caller's seat, or null.")
    status = serializers.ChoiceField(choices=Game.Status.choices)
    sequence = WholeNumberField(
        help_text="The number of the game's last event: send it back as expected_sequence."
    )
    players = serializers.ListField(
        child=serializers.CharField(), help_text="The players' names in seat order."
    )
    to_act = serializers.ListField(
        child=WholeNumberField(), help_text="The seats that may act now."
    )
    waiting_for = serializers.ListField(
        child=WholeNumberField(), help_text="The seats the game waits for."
    )
    legal_actions = serializers.ListField(
        child=serializers.DictField(),
        help_text="What the caller's seat may send now (empty for spectators).",
    )
    result = serializers.JSONField(
        allow_null=True, help_text="The result (RECORD.md's shape) once over; null before."
    )
    turn_seconds = WholeNumberField(allow_null=True)
    deadlines = DeadlineSerializer(
        many=True,
        help_text="When each waited-for seat's time runs out, and the milliseconds left"
        " ([] without a clock).",
    )
    server_time = serializers.DateTimeField(
        help_text="The server's time as it made this view: count the clocks down from it."
    )
    commitment = serializers.CharField(
        allow_null=True, help_text="SHA-256 of the shuffle's seed (null: none)."
    )
    revealed = serializers.BooleanField(
        help_text="Whether the hidden cards, deck and seed are public (the game's end; a"
        " duplicate deal: its round's end)."
    )
    tournament = WholeNumberField(allow_null=True)
    table = WholeNumberField(allow_null=True, help_text="The table's id.")
    seats = WholeNumberField(help_text="How many seats the table has.")
    sitting = SittingSerializer(many=True, help_text="Who sits where, in seat order.")
    next_game_id = WholeNumberField(
        allow_null=True,
        help_text="Once the game is over: its table's next game in the series (null while"
        " it runs, after the series' last game, and outside tournaments).",
    )
    hidden = serializers.DictField(required=False, help_text="Once revealed: every hidden card.")
    deck = serializers.ListField(
        child=serializers.CharField(), required=False, help_text="Once revealed: the deck."
    )
    seed = serializers.CharField(
        required=False,
        allow_null=True,
        help_text="Once revealed: the shuffle's seed (null: none of its own, a duplicate deal's"
        " deck is its round's, whose seed GET /tournaments/{id}/rounds/{n} shows).",
    )


class CauseSerializer(serializers.Serializer[Any]):
    kind = serializers.CharField(help_text="Who or what caused the event (player, bot, clock…).")
    id = serializers.CharField(allow_null=True, help_text="Whose (a player's id), or null.")


class GameEventSerializer(serializers.Serializer[Any]):
    """One event of a game, redacted for the caller while the game runs."""

    game = serializers.CharField(help_text="The engine id (the payload's shapes depend on it).")
    sequence = WholeNumberField()
    type = serializers.CharField()
    version = WholeNumberField()
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

    game_id = WholeNumberField()
    position = serializers.CharField(help_text="The store's global position, 'tx.id'.")


class ActionSerializer(BodySerializer):
    action = serializers.DictField(
        help_text='The action, e.g. {"type": "draw", "index": 2}: one of legal_actions.'
    )
    expected_sequence = WholeNumberField(
        min_value=0, help_text="The sequence of the view you decided on."
    )
    seat = WholeNumberField(
        min_value=0,
        required=False,
        help_text="Your seat (optional: leave it out, or send your own).",
    )

    def validate_action(self, value: dict[str, Any]) -> dict[str, Any]:
        if not isinstance(value.get("type"), str):
            raise serializers.ValidationError(
                gettext('an action is an object with a "type" (a string)')
            )
        return value


#: The fields of :class:`ActionSerializer` (any other is refused, as the serializer does).
_ACTION_FIELDS = frozenset({"action", "expected_sequence", "seat"})


def plain_action(data: Any) -> dict[str, Any] | None:
    """``data`` as :class:`ActionSerializer` would validate it, when it is plainly valid
    (an action object with a string ``type``; whole numbers from 0 to 2**63 - 1), else
    ``None``: the serializer decides, and words the refusal.

    Every move's body is read here first: DRF's validation took 3 % of the web processes'
    CPU at 32 players for an object of three fields (issue 24).
    tests/api/test_action_body.py holds it to the serializer's answer on every body it takes.
    """
    if not isinstance(data, Mapping) or not _ACTION_FIELDS.issuperset(data):
        return None
    action = data.get("action")
    if not isinstance(action, dict) or not isinstance(action.get("type"), str):
        return None
    if not all(isinstance(key, str) for key in action):
        return None
    found: dict[str, Any] = {"action": dict(action)}
    for name in ("expected_sequence", "seat"):
        if name not in data:
            if name == "seat":  # optional
                continue
            return None
        value = data[name]
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < 2**63:
            return None
        found[name] = value
    return found


class ActionResultSerializer(serializers.Serializer[Any]):
    replayed = serializers.BooleanField(
        help_text="True when this is the first outcome of a retried Idempotency-Key."
    )
    sequence = WholeNumberField(help_text="The sequence of the command's last event.")
    view = GameViewSerializer()
