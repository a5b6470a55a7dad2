"""What the API reads and writes: one serializer per shape, also the OpenAPI schema's source.

Input serializers check shapes and types only; the rules (a table range the
game allows, a round that may start) are the use cases' (:mod:`tournaments.services`),
whose refusals come back as 422 problems naming the field at fault.

The package has a module a resource; this one re-exports what the views and the schema
import.
"""

from tournaments.api.serializers.clubs import (
    ClientSeedSerializer,
    ClubSerializer,
    LoginLinkChangeSerializer,
    MeSerializer,
    PlayerCreateSerializer,
    PlayerLoginSerializer,
    PlayerSerializer,
    PreferencesSerializer,
    TokenCreatedSerializer,
    TokenCreateSerializer,
    TokenSerializer,
)
from tournaments.api.serializers.common import (
    GAME_IDS,
    FieldErrorSerializer,
    ProblemSerializer,
    ProblemTypeSerializer,
)
from tournaments.api.serializers.games import (
    AccountStreamEventSerializer,
    ActionResultSerializer,
    ActionSerializer,
    CauseSerializer,
    GameEventSerializer,
    GameStreamEventSerializer,
    GameSummarySerializer,
    GameViewSerializer,
    SeatContextSerializer,
    TableSerializer,
    TournamentStreamEventSerializer,
)
from tournaments.api.serializers.records import RecordCheckSerializer, RecordSerializer
from tournaments.api.serializers.tournaments import (
    CheckInCreateSerializer,
    CheckInSerializer,
    FixedSerializer,
    PlayerRefSerializer,
    RatingSerializer,
    RegisterSerializer,
    RegistrationSerializer,
    RoundSerializer,
    SeatSerializer,
    SeriesSerializer,
    StandingSerializer,
    StartRoundSerializer,
    SwapSerializer,
    TableSummarySerializer,
    TournamentCreateSerializer,
    TournamentSerializer,
)

__all__ = [
    "GAME_IDS",
    "ActionResultSerializer",
    "ActionSerializer",
    "CauseSerializer",
    "CheckInCreateSerializer",
    "CheckInSerializer",
    "ClientSeedSerializer",
    "ClubSerializer",
    "FieldErrorSerializer",
    "FixedSerializer",
    "GameEventSerializer",
    "GameSummarySerializer",
    "GameViewSerializer",
    "LoginLinkChangeSerializer",
    "MeSerializer",
    "PlayerCreateSerializer",
    "PlayerLoginSerializer",
    "PlayerRefSerializer",
    "PlayerSerializer",
    "PreferencesSerializer",
    "ProblemSerializer",
    "ProblemTypeSerializer",
    "RatingSerializer",
    "RecordCheckSerializer",
    "RecordSerializer",
    "RegisterSerializer",
    "RegistrationSerializer",
    "RoundSerializer",
    "SeatContextSerializer",
    "SeatSerializer",
    "SeriesSerializer",
    "StandingSerializer",
    "StartRoundSerializer",
    "SwapSerializer",
    "TableSerializer",
    "TableSummarySerializer",
    "TokenCreateSerializer",
    "TokenCreatedSerializer",
    "TokenSerializer",
    "TournamentCreateSerializer",
    "TournamentSerializer",
    "TournamentStreamEventSerializer",
    "AccountStreamEventSerializer",
    "GameStreamEventSerializer",
]
