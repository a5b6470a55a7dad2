"""Serializers of tournaments, their registrations and check-ins, rounds and tables' seats,
standings and ratings."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from engine.registry import game_ids
from tournaments import services
from tournaments.api.serializers.common import (
    BOT_HELP,
    GAME_IDS,
    BodySerializer,
    StrictBooleanField,
    WholeNumberField,
)
from tournaments.models import CheckIn, Registration, Round, Table, TableSeat, Tournament
from tournaments.services.tournaments import (
    MOST_FIRST_TURN_GRACE,
    MOST_ROUNDS,
    MOST_TIMEOUTS_TO_BOT,
    MOST_TURN_SECONDS,
)
from tournaments.standings import forfeited_seats

# -- tournaments -----------------------------------------------------------------------------------


class SeriesSerializer(BodySerializer):
    kind = serializers.ChoiceField(choices=["first_to", "losses", "place_points"])
    target = WholeNumberField(min_value=1)
    points = serializers.ListField(
        child=serializers.FloatField(), required=False, allow_null=True, min_length=1
    )
    deal_limit = WholeNumberField(
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


class TournamentCreateSerializer(BodySerializer):
    club = WholeNumberField(min_value=1)
    name = serializers.CharField(max_length=120)
    game = serializers.ChoiceField(choices=GAME_IDS)
    rounds = WholeNumberField(min_value=1, max_value=MOST_ROUNDS)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        game = self.fields["game"]
        assert isinstance(game, serializers.ChoiceField)
        game.choices = game_ids()

    series = SeriesSerializer(required=False, allow_null=True, default=None)
    table_min = WholeNumberField(min_value=1, required=False, allow_null=True, default=None)
    table_max = WholeNumberField(min_value=1, required=False, allow_null=True, default=None)
    table_preferred = WholeNumberField(min_value=1, required=False, allow_null=True, default=None)
    seating_mode = serializers.ChoiceField(
        choices=Tournament.SeatingMode.choices, default=Tournament.SeatingMode.MIXING
    )
    turn_seconds = WholeNumberField(
        min_value=1, max_value=MOST_TURN_SECONDS, required=False, allow_null=True, default=None
    )
    timeouts_to_bot = WholeNumberField(min_value=0, max_value=MOST_TIMEOUTS_TO_BOT, default=0)
    first_turn_grace = WholeNumberField(
        min_value=0,
        max_value=MOST_FIRST_TURN_GRACE,
        default=0,
        help_text="Seconds added to the clock of each game's first turn (0: none).",
    )
    duplicate_deals = StrictBooleanField(default=False)
    timeout_forfeits = StrictBooleanField(
        default=True,
        help_text="A seat handed to a bot after timeouts forfeits its series (last place).",
    )


class TournamentChangeSerializer(TournamentCreateSerializer):
    """The settings to change, each optional: any before a round is seated, then the name
    alone (a tournament's club does not change)."""

    club = None  # type: ignore[assignment]


class RegistrationSerializer(serializers.ModelSerializer[Registration]):
    name = serializers.CharField(source="player.name", read_only=True)

    class Meta:
        model = Registration
        fields = ["id", "player", "name", "from_round", "dropped_after", "registered_at"]
        read_only_fields = fields
        extra_kwargs = {
            "from_round": {
                "help_text": "The first round the player may be seated in: 1, or later for a"
                " late entry (the rounds before it score nothing)."
            },
            "dropped_after": {
                "help_text": "The last round finished before the player dropped out; null while in."
            },
        }


class RegisterSerializer(BodySerializer):
    player = WholeNumberField(min_value=1)
    from_round = WholeNumberField(
        min_value=1,
        required=False,
        allow_null=True,
        default=None,
        help_text="The first round the player may be seated in (a late entry): from the next"
        " round not begun to the tournament's last; null or left out: the next round not"
        " begun. Another is a 422 refused naming from_round.",
    )


class CheckInSerializer(serializers.ModelSerializer[CheckIn]):
    round = WholeNumberField(source="round_number", read_only=True)

    class Meta:
        model = CheckIn
        fields = ["id", "player", "round", "at"]
        read_only_fields = fields


class CheckInCreateSerializer(BodySerializer):
    player = WholeNumberField(min_value=1)
    round = WholeNumberField(
        min_value=1,
        required=False,
        allow_null=True,
        default=None,
        help_text="The round's number (default: the next round).",
    )


class PlayerRefSerializer(BodySerializer):
    player = WholeNumberField(min_value=1)


class FixedSerializer(BodySerializer):
    player = WholeNumberField(min_value=1)
    table = WholeNumberField(min_value=1, help_text="Table number, 1 first.")


class StartRoundSerializer(BodySerializer):
    auto_check_in = StrictBooleanField(
        default=False, help_text="Seat every active registered player, checked in or not."
    )
    fixed = FixedSerializer(many=True, required=False, default=list)
    apart = serializers.ListField(
        child=serializers.ListField(
            child=WholeNumberField(min_value=1), min_length=2, max_length=2
        ),
        required=False,
        default=list,
        help_text="Pairs of player ids who must not share a table.",
    )


class SwapSerializer(BodySerializer):
    players = serializers.ListField(
        child=WholeNumberField(min_value=1),
        min_length=2,
        max_length=2,
        help_text="The two players to exchange (seat for seat, or a seat for a bye).",
    )


class SeatSerializer(serializers.ModelSerializer[TableSeat]):
    """Who sits at one seat: the same shape in a table's and in a game view's ``sitting``."""

    name = serializers.CharField(source="player.name", read_only=True)
    bot = serializers.SerializerMethodField(help_text=BOT_HELP)
    autoplay = serializers.BooleanField(
        read_only=True, help_text="Whether the seat's player handed it to a bot (or timed out)."
    )

    class Meta:
        model = TableSeat
        fields = ["seat", "player", "name", "bot", "autoplay"]
        read_only_fields = fields

    def get_bot(self, seat: TableSeat) -> str | None:
        return seat.player.bot_level or None


class TableSummarySerializer(serializers.ModelSerializer[Table]):
    sitting = SeatSerializer(
        source="seats", many=True, read_only=True, help_text="Who sits where, in seat order."
    )
    next_commitment = serializers.SerializerMethodField(
        help_text=(
            "The commitment of the table's next deal, once known (null before, and once"
            " the table has finished: no deal comes)."
        )
    )
    placings = serializers.ListField(
        child=serializers.ListField(child=WholeNumberField()),
        allow_null=True,
        read_only=True,
        help_text=(
            "Once finished: groups of seats, best first (a group shares its place), as the"
            " play went; a seat in `forfeited` is placed last in the standings all the same."
        ),
    )
    forfeited = serializers.SerializerMethodField(
        help_text=(
            "Seats whose series in this round is forfeited (an organiser's decision, or"
            " timeouts where the tournament counts them): each takes a shared last place in"
            " the standings, whatever `placings` says."
        )
    )

    class Meta:
        model = Table
        fields = [
            "id",
            "number",
            "first_dealer",
            "status",
            "placings",
            "forfeited",
            "next_commitment",
            "sitting",
        ]
        read_only_fields = fields

    def get_next_commitment(self, table: Table) -> str | None:
        return table.next_commitment or None

    def get_forfeited(self, table: Table) -> list[int]:
        return forfeited_seats(table)


class RoundSerializer(serializers.ModelSerializer[Round]):
    tables = TableSummarySerializer(many=True, read_only=True)
    byes = serializers.ListField(child=WholeNumberField(), read_only=True)
    commitment = serializers.SerializerMethodField(
        help_text="Duplicate deals: the commitment of the round's seed (null otherwise)."
    )
    seed = serializers.SerializerMethodField(
        help_text="Duplicate deals: the round's seed once finished (null before and otherwise)."
    )
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

    def get_commitment(self, round_: Round) -> str | None:
        return round_.commitment or None

    def get_seed(self, round_: Round) -> str | None:
        return (round_.seed or None) if round_.status == Round.Status.FINISHED else None

    def get_client_seeds(self, round_: Round) -> list[str] | None:
        # Shown with the seed: what docs/fairness_check.py --round needs to derive the decks.
        if round_.status != Round.Status.FINISHED or not round_.commitment:
            return None
        return services.round_contributions(round_)


# -- standings and ratings -------------------------------------------------------------------------


class StandingSerializer(serializers.Serializer[Any]):
    rank = WholeNumberField()
    player = WholeNumberField()
    name = serializers.CharField()
    points = serializers.CharField(help_text="Exact points as a fraction, e.g. '5/2'.")
    points_value = serializers.FloatField()
    opponents_points = serializers.CharField()
    head_to_head = WholeNumberField()
    last_place_count = WholeNumberField()
    played = WholeNumberField()
    bye_count = WholeNumberField()
    dropped = serializers.BooleanField()
    forfeit_count = WholeNumberField(
        help_text="Series of finished tables forfeited (each counted as a shared last place)."
    )


class RatingSerializer(serializers.Serializer[Any]):
    rank = WholeNumberField()
    player = WholeNumberField()
    name = serializers.CharField()
    game = serializers.CharField()
    mu = serializers.FloatField()
    sigma = serializers.FloatField()
    ordinal = serializers.FloatField()
    display = WholeNumberField()
