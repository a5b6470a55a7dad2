"""The API's views, one module a resource: thin layers over the use cases
(tournaments.play, tournaments.services, tournaments.services.queries).

Each view checks who the caller is (:mod:`tournaments.api.permissions`), reads
its input with a serializer, calls one use case and shows the result; every
refusal is a problem document (:mod:`tournaments.api.problems`).  None of them
reads the event store (tests/project/test_thin_views.py).  docs/api.md walks
through them with curl.

* :mod:`~tournaments.api.views.meta`: the index, the problem types;
* :mod:`~tournaments.api.views.me`: tokens, your client seed, you;
* :mod:`~tournaments.api.views.clubs`: clubs, players, login changes, ratings;
* :mod:`~tournaments.api.views.tournaments`: tournaments, registrations, check-ins,
  drops, standings;
* :mod:`~tournaments.api.views.rounds`: rounds and tables;
* :mod:`~tournaments.api.views.games`: games, their events, actions, autoplay, records;
* :mod:`~tournaments.api.views.records`: verifying and importing records;
* :mod:`~tournaments.api.views.live`: the Server-Sent Events streams.

The names below are re-exported so that ``tournaments.api.views.<View>`` keeps working.
"""

from __future__ import annotations

from tournaments.api.views.clubs import (
    ClubDetailView,
    ClubListView,
    LoginChangeListView,
    PlayerDetailView,
    PlayerListView,
    RatingsView,
)
from tournaments.api.views.games import (
    GameActionView,
    GameAutoplayView,
    GameDetailView,
    GameEventsView,
    GameListView,
    GameRecordView,
    view_of,
)
from tournaments.api.views.live import GameStreamView, TournamentStreamView
from tournaments.api.views.me import ClientSeedView, MeView, TokenDetailView, TokenListView
from tournaments.api.views.meta import ProblemTypeListView, ProblemTypeView, RootView
from tournaments.api.views.records import RecordImportView, RecordVerifyView
from tournaments.api.views.rounds import (
    RoundBeginView,
    RoundDetailView,
    RoundListView,
    RoundSwapView,
    TableDetailView,
)
from tournaments.api.views.tournaments import (
    CheckInListView,
    DropView,
    RegistrationListView,
    StandingsView,
    TournamentDetailView,
    TournamentListView,
)

__all__ = [
    "CheckInListView",
    "ClientSeedView",
    "ClubDetailView",
    "ClubListView",
    "DropView",
    "GameActionView",
    "GameAutoplayView",
    "GameDetailView",
    "GameEventsView",
    "GameListView",
    "GameRecordView",
    "GameStreamView",
    "LoginChangeListView",
    "MeView",
    "PlayerDetailView",
    "PlayerListView",
    "ProblemTypeListView",
    "ProblemTypeView",
    "RatingsView",
    "RecordImportView",
    "RecordVerifyView",
    "RegistrationListView",
    "RootView",
    "RoundBeginView",
    "RoundDetailView",
    "RoundListView",
    "RoundSwapView",
    "StandingsView",
    "TableDetailView",
    "TokenDetailView",
    "TokenListView",
    "TournamentDetailView",
    "TournamentListView",
    "TournamentStreamView",
    "view_of",
]
