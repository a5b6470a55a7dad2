"""Parlour's tables of record for tournaments, and the game projection.

:class:`Game` is a *projection*: every field is derived from the game's event
stream ``game-<id>`` (see :mod:`tournaments.play`), updated in the same
transaction as each append, and disposable: ``manage.py rebuild_projections``
recomputes every row from the events alone.

Longer than ~400 lines on purpose: Django's convention of one ``models.py`` per app
keeps every table of record in one place, and the migrations refer to it.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db import models
from django.db.models import Value
from django.utils.translation import gettext, gettext_lazy, pgettext_lazy


class Game(models.Model):
    """One game (one deal) as its events make it: who acts, deadlines, the result.

    Never edit a row by hand: append events through :mod:`tournaments.play`.
    """

    class Status(models.TextChoices):
        RUNNING = "running", pgettext_lazy("game status", "running")
        OVER = "over", pgettext_lazy("game status", "over")

    #: The engine id (``give_away``, ``old_maid``, ``bhabhi``, ``give_and_take``).
    kind = models.CharField(max_length=32, verbose_name=gettext_lazy("kind"))
    seats = models.PositiveSmallIntegerField(verbose_name=gettext_lazy("seats"))
    dealer = models.PositiveSmallIntegerField(verbose_name=gettext_lazy("dealer"))
    #: One display name per seat.
    players = models.JSONField(default=list, verbose_name=gettext_lazy("players"))
    options = models.JSONField(default=dict, verbose_name=gettext_lazy("options"))
    #: Seconds each seat has to act once it is waited for; ``None``: no clock.
    turn_seconds = models.PositiveIntegerField(
        null=True, blank=True, verbose_name=gettext_lazy("turn seconds")
    )
    #: Free JSON the creator attached (for example the tournament, round and table).
    context = models.JSONField(null=True, blank=True, verbose_name=gettext_lazy("context"))
    status = models.CharField(
        max_length=16,
        choices=Status.choices,
        default=Status.RUNNING,
        verbose_name=gettext_lazy("status"),
    )
    #: Sequence of the last event of the stream.
    sequence = models.PositiveIntegerField(default=0, verbose_name=gettext_lazy("sequence"))
    #: The store's id of that event (its position's ``id``; 0 before the deal): what each
    #: process's fold cache is checked against (tournaments/play/state.py).
    last_event = models.BigIntegerField(
        default=0, db_default=0, verbose_name=gettext_lazy("last event")
    )
    #: When that event was recorded: with its id, what names it in one timeline only (a
    #: database restored or failed over to a replica behind may give the id again).
    last_event_at = models.DateTimeField(
        null=True, blank=True, verbose_name=gettext_lazy("last event recorded at")
    )
    #: Seats that may act now / that the game is waiting for (ascending lists).
    to_act = models.JSONField(default=list, verbose_name=gettext_lazy("to act"))
    waiting_for = models.JSONField(default=list, verbose_name=gettext_lazy("waiting for"))
    #: ``{"seat": ISO time}``: when each waited-for seat's time runs out.
    deadlines = models.JSONField(default=dict, verbose_name=gettext_lazy("deadlines"))
    #: The result in RECORD.md's shape once over.
    result = models.JSONField(null=True, blank=True, verbose_name=gettext_lazy("result"))
    #: SHA-256 of the shuffle seed (hex); empty for a game dealt from a given deck.
    commitment = models.CharField(
        max_length=64, blank=True, default="", verbose_name=gettext_lazy("commitment")
    )
    #: The seed (hex), revealed only once the game is over.
    seed = models.CharField(
        max_length=128, blank=True, default="", verbose_name=gettext_lazy("seed")
    )
    created_at = models.DateTimeField(
        null=True, blank=True, verbose_name=gettext_lazy("created at")
    )
    finished_at = models.DateTimeField(
        null=True, blank=True, verbose_name=gettext_lazy("finished at")
    )
    #: The tournament table whose series this game belongs to (``None``: a standalone game).
    table = models.ForeignKey(
        "Table",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="games",
        verbose_name=gettext_lazy("table"),
    )
    #: 1 for the first game of the table's series, 2 for the next…
    number_in_series = models.PositiveSmallIntegerField(
        null=True, blank=True, verbose_name=gettext_lazy("number in series")
    )

    class Meta:
        verbose_name = gettext_lazy("game")
        verbose_name_plural = gettext_lazy("games")
        ordering = ["id"]
        indexes = [models.Index(fields=["status", "kind"], name="game_status_kind")]

    def __str__(self) -> str:
        return f"{self.kind} #{self.pk} ({self.status}, sequence {self.sequence})"

    @property
    def stream(self) -> str:
        """The name of the game's event stream."""
        return f"game-{self.pk}"

    @property
    def is_over(self) -> bool:
        return self.status == self.Status.OVER


class AccountNotice(models.Model):
    """One line of a login's account feed: a game of theirs started, waits for them, or
    finished (``GET /api/v1/stream/events``, :mod:`tournaments.play.feed`).

    Written with the change it tells of, in the same transaction, so that a login's
    feed is read through its own index (``user``, ``tx``, ``id``) — never the store's
    global order filtered — and a reader resumes after the position it last got.  The
    position is ``(tx, id)`` as in the event store (``tx`` the writing transaction's id
    on PostgreSQL, ``0`` on SQLite), read only below the settled bound, so that a notice
    committed late is never passed (docs/store.md).  An index of the events, like the
    ``Game`` row: nothing here is the truth about a game.
    """

    class Kind(models.TextChoices):
        STARTED = "started", pgettext_lazy("account notice", "started")
        TURN = "turn", pgettext_lazy("account notice", "turn")
        FINISHED = "finished", pgettext_lazy("account notice", "finished")

    user = models.ForeignKey(
        "auth.User",
        on_delete=models.CASCADE,
        related_name="+",
        db_index=False,
        verbose_name=gettext_lazy("user"),
    )
    # Looked up by the (user, kind, game) index; games are never deleted.
    game = models.ForeignKey(
        Game,
        on_delete=models.CASCADE,
        related_name="+",
        db_index=False,
        verbose_name=gettext_lazy("game"),
    )
    seat = models.PositiveSmallIntegerField(verbose_name=gettext_lazy("seat"))
    #: The game's sequence after the change.
    sequence = models.PositiveIntegerField(verbose_name=gettext_lazy("sequence"))
    kind = models.CharField(max_length=16, choices=Kind.choices, verbose_name=gettext_lazy("kind"))
    #: The writing transaction's id on PostgreSQL (its default there), 0 on SQLite.
    tx = models.BigIntegerField(db_default=0, verbose_name=gettext_lazy("tx"))

    class Meta:
        ordering = ["id"]
        indexes = [
            models.Index(fields=["user", "tx", "id"], name="notice_user_position"),
            models.Index(fields=["user", "kind", "game"], name="notice_user_kind_game"),
        ]

    def __str__(self) -> str:
        return f"{self.kind} game {self.game_id} seat {self.seat} for user {self.user_id}"


# -- clubs, players, tournaments ----------------------------------------------------


class Club(models.Model):
    """A card club: its players, its organisers (staff) and its tournaments."""

    name = models.CharField(max_length=120, verbose_name=gettext_lazy("name"))
    slug = models.SlugField(max_length=60, unique=True, verbose_name=gettext_lazy("slug"))
    #: Logins that run this club's tournaments.
    organisers = models.ManyToManyField(
        "auth.User",
        related_name="organised_clubs",
        blank=True,
        verbose_name=gettext_lazy("organisers"),
    )
    #: The secret of the club's sign-up link (``/join/<token>``); ``""``: the link is off.
    #: A database default too: hand-written inserts (tests/store/test_app_role.py) omit it.
    signup_token = models.CharField(
        max_length=64,
        blank=True,
        default="",
        db_default="",
        verbose_name=gettext_lazy("signup token"),
    )
    #: The language of the club's pages, and of its members', when nobody chose one and the
    #: browser asks for none we have (docs/i18n.md); ``""``: none, ``LANGUAGE_CODE`` then.
    language = models.CharField(
        gettext_lazy("language"),
        max_length=8,
        blank=True,
        default="",
        db_default="",
        choices=settings.LANGUAGES,
    )
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=gettext_lazy("created at"))

    class Meta:
        verbose_name = gettext_lazy("club")
        verbose_name_plural = gettext_lazy("clubs")
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name


class AccountLanguage(models.Model):
    """The language a login last chose with the switcher, so that it follows them to
    another browser or device (docs/i18n.md); the ``django_language`` cookie is the
    choice on this one."""

    user = models.OneToOneField(
        "auth.User",
        on_delete=models.CASCADE,
        primary_key=True,
        related_name="language",
        verbose_name=gettext_lazy("user"),
    )
    language = models.CharField(gettext_lazy("language"), max_length=8, choices=settings.LANGUAGES)

    def __str__(self) -> str:
        return f"{self.language} for user {self.user_id}"


#: The bot levels (engine.bots) in words; a level without words here is named as it is.
BOT_LEVEL_WORDS = {"random": gettext_lazy("random bot"), "heuristic": gettext_lazy("heuristic bot")}


def bot_words(level: str) -> str:
    """A bot level in the reader's language («эвристический бот»); ``""`` for none."""
    if not level:
        return ""
    known = BOT_LEVEL_WORDS.get(level)
    return str(known) if known else gettext("%(level)s bot") % {"level": level}


class Player(models.Model):
    """A person (optionally linked to a login) or a bot of a given level, in one club."""

    club = models.ForeignKey(
        Club, on_delete=models.PROTECT, related_name="players", verbose_name=gettext_lazy("club")
    )
    name = models.CharField(max_length=80, verbose_name=pgettext_lazy("a person's", "name"))
    #: The login of a person who plays online; ``None`` for a bot or an offline player.
    user = models.ForeignKey(
        "auth.User",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="players",
        verbose_name=gettext_lazy("user"),
    )
    #: ``""`` for a person; a bot level (``random``, ``heuristic``) for a bot.
    bot_level = models.CharField(
        max_length=32, blank=True, default="", verbose_name=gettext_lazy("bot level")
    )
    #: Whether the server plays this person's forced moves for them (every Give Away
    #: move; a seat with one legal action).  Off: the person clicks each one.
    play_forced_moves = models.BooleanField(
        default=True, db_default=True, verbose_name=gettext_lazy("play forced moves")
    )
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=gettext_lazy("created at"))

    class Meta:
        verbose_name = gettext_lazy("player")
        verbose_name_plural = gettext_lazy("players")
        ordering = ["name"]
        constraints = [
            models.UniqueConstraint(fields=["club", "name"], name="player_name_unique_in_club")
        ]

    def __str__(self) -> str:
        return f"{self.name} ({self.bot_words})" if self.bot_level else self.name

    @property
    def is_bot(self) -> bool:
        return bool(self.bot_level)

    @property
    def bot_words(self) -> str:
        """What the player is, in the reader's language (``""`` for a person)."""
        return bot_words(self.bot_level)

    def save(self, *args: Any, **kwargs: Any) -> None:
        # The last guard of issue 17's attack (an organiser relinking a seated
        # player's login to their own, so their token acts and sees as the seat):
        # whatever path saves a player, its login cannot change while it holds a seat
        # at a table in play.  services.link_login is the way that says why and logs it.
        if self.pk is not None:
            stored = Player.objects.filter(pk=self.pk).values_list("user_id", flat=True).first()
            if stored != self.user_id and (table := self.table_in_play()) is not None:
                raise SeatedLoginChange(
                    f"{self.name} holds a seat at {table}: their login can change once that"
                    " table has finished"
                )
        super().save(*args, **kwargs)

    def table_in_play(self) -> Table | None:
        """A table this player is seated at that has not finished (its games play as them)."""
        seat = (
            TableSeat.objects.filter(player_id=self.pk)
            .exclude(table__status=Table.Status.FINISHED)
            .select_related("table__round__tournament")
            .first()
        )
        return seat.table if seat is not None else None


class SeatedLoginChange(ValueError):
    """A player's login was to change while they hold a seat at a table in play."""


class Tournament(models.Model):
    """A club tournament of one game over a number of rounds."""

    class Status(models.TextChoices):
        REGISTRATION = "registration", pgettext_lazy("tournament status", "registration")
        RUNNING = "running", pgettext_lazy("tournament status", "running")
        FINISHED = "finished", pgettext_lazy("tournament status", "finished")

    class SeatingMode(models.TextChoices):
        MIXING = "mixing", gettext_lazy("mixing")
        SWISS = "swiss", gettext_lazy("swiss")

    club = models.ForeignKey(
        Club,
        on_delete=models.PROTECT,
        related_name="tournaments",
        verbose_name=gettext_lazy("club"),
    )
    name = models.CharField(max_length=120, verbose_name=gettext_lazy("name"))
    #: The engine id of the game.
    game = models.CharField(max_length=32, verbose_name=gettext_lazy("game"))
    rounds = models.PositiveSmallIntegerField(verbose_name=gettext_lazy("rounds"))
    #: The series format per table (:class:`engine.series.SeriesFormat` JSON).
    series = models.JSONField(verbose_name=gettext_lazy("series"))
    table_min = models.PositiveSmallIntegerField(verbose_name=gettext_lazy("table min"))
    table_max = models.PositiveSmallIntegerField(verbose_name=gettext_lazy("table max"))
    table_preferred = models.PositiveSmallIntegerField(
        null=True, blank=True, verbose_name=gettext_lazy("table preferred")
    )
    #: How rounds after the first are seated (round 1 is always random).
    seating_mode = models.CharField(
        max_length=16,
        choices=SeatingMode.choices,
        default=SeatingMode.MIXING,
        verbose_name=gettext_lazy("seating mode"),
    )
    #: Seconds per action; ``None``: no clock.
    turn_seconds = models.PositiveIntegerField(
        null=True, blank=True, verbose_name=gettext_lazy("turn seconds")
    )
    #: Seconds added to the clock of each game's first turn (the deal's), so that players
    #: have time to arrive at the new game's page; 0: none.  Only with a clock.
    first_turn_grace = models.PositiveIntegerField(
        default=20, db_default=20, verbose_name=gettext_lazy("first turn grace")
    )
    #: After this many timeouts in a row a seat is handed to a bot; 0: never.
    timeouts_to_bot = models.PositiveSmallIntegerField(
        default=0, verbose_name=gettext_lazy("timeouts to bot")
    )
    #: Whether every table of a round with the same size plays the same decks.
    duplicate_deals = models.BooleanField(
        default=False, verbose_name=gettext_lazy("duplicate deals")
    )
    #: Whether a seat handed to a bot after timeouts forfeits that series (last place,
    #: marked in the standings); off: the bot's result counts as the player's.
    timeout_forfeits = models.BooleanField(
        default=True, db_default=True, verbose_name=gettext_lazy("timeout forfeits")
    )
    status = models.CharField(
        max_length=16,
        choices=Status.choices,
        default=Status.REGISTRATION,
        verbose_name=gettext_lazy("status"),
    )
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=gettext_lazy("created at"))

    class Meta:
        verbose_name = gettext_lazy("tournament")
        verbose_name_plural = gettext_lazy("tournaments")
        ordering = ["-created_at", "id"]

    def __str__(self) -> str:
        return f"{self.name} ({self.game})"


class Registration(models.Model):
    """A player entered in a tournament (late entry and drops by round number)."""

    tournament = models.ForeignKey(
        Tournament,
        on_delete=models.CASCADE,
        related_name="registrations",
        verbose_name=gettext_lazy("tournament"),
    )
    player = models.ForeignKey(
        Player,
        on_delete=models.PROTECT,
        related_name="registrations",
        verbose_name=gettext_lazy("player"),
    )
    #: The first round the player can be seated in (1, or later for a late entry).
    from_round = models.PositiveSmallIntegerField(
        default=1, verbose_name=gettext_lazy("from round")
    )
    #: The last round played before dropping out; ``None`` while in.
    dropped_after = models.PositiveSmallIntegerField(
        null=True, blank=True, verbose_name=gettext_lazy("dropped after")
    )
    registered_at = models.DateTimeField(
        auto_now_add=True, verbose_name=gettext_lazy("registered at")
    )

    class Meta:
        verbose_name = gettext_lazy("registration")
        verbose_name_plural = gettext_lazy("registrations")
        ordering = ["id"]
        constraints = [
            models.UniqueConstraint(
                fields=["tournament", "player"], name="registration_unique_player"
            )
        ]

    def __str__(self) -> str:
        return f"{self.player} in {self.tournament}"


class CheckIn(models.Model):
    """A registered player present for a round."""

    tournament = models.ForeignKey(
        Tournament,
        on_delete=models.CASCADE,
        related_name="checkins",
        verbose_name=gettext_lazy("tournament"),
    )
    player = models.ForeignKey(
        Player,
        on_delete=models.PROTECT,
        related_name="checkins",
        verbose_name=gettext_lazy("player"),
    )
    round_number = models.PositiveSmallIntegerField(verbose_name=gettext_lazy("round number"))
    at = models.DateTimeField(auto_now_add=True, verbose_name=gettext_lazy("at"))

    class Meta:
        verbose_name = gettext_lazy("check-in")
        verbose_name_plural = gettext_lazy("check-ins")
        constraints = [
            models.UniqueConstraint(
                fields=["tournament", "player", "round_number"], name="checkin_once_per_round"
            )
        ]


class Absence(models.Model):
    """A registered player marked absent for a round by the organiser: not seated in it,
    even by an automatic check-in; checking them in for that round removes it."""

    tournament = models.ForeignKey(
        Tournament,
        on_delete=models.CASCADE,
        related_name="absences",
        verbose_name=gettext_lazy("tournament"),
    )
    player = models.ForeignKey(
        Player,
        on_delete=models.PROTECT,
        related_name="absences",
        verbose_name=gettext_lazy("player"),
    )
    round_number = models.PositiveSmallIntegerField(verbose_name=gettext_lazy("round number"))
    by = models.ForeignKey(
        "auth.User",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        verbose_name=gettext_lazy("by"),
    )
    at = models.DateTimeField(auto_now_add=True, verbose_name=gettext_lazy("at"))

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["tournament", "player", "round_number"], name="absence_once_per_round"
            )
        ]

    def __str__(self) -> str:
        return f"{self.player} absent for round {self.round_number} of {self.tournament}"


class Forfeit(models.Model):
    """A decision that a player's series in a round is forfeited, or no longer is.

    Rows are never changed: the latest row for a (tournament, round, player) is
    the one in force, so the standings stay a projection of these rows and the
    games' events, and the rows are the audit of who decided what and when.
    """

    class Cause(models.TextChoices):
        #: The seat timed out and was handed to a bot (``Tournament.timeout_forfeits``).
        TIMEOUT = "timeout", pgettext_lazy("forfeit cause", "timed out")
        #: The organiser decided at the desk.
        ORGANISER = "organiser", pgettext_lazy("forfeit cause", "the organiser")

    tournament = models.ForeignKey(
        Tournament,
        on_delete=models.CASCADE,
        related_name="forfeits",
        verbose_name=gettext_lazy("tournament"),
    )
    player = models.ForeignKey(
        Player,
        on_delete=models.PROTECT,
        related_name="forfeits",
        verbose_name=gettext_lazy("player"),
    )
    round_number = models.PositiveSmallIntegerField(verbose_name=gettext_lazy("round number"))
    #: ``False``: this row lifts an earlier forfeit.
    forfeited = models.BooleanField(default=True, verbose_name=gettext_lazy("forfeited"))
    cause = models.CharField(
        max_length=16, choices=Cause.choices, verbose_name=gettext_lazy("cause")
    )
    by = models.ForeignKey(
        "auth.User",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        verbose_name=gettext_lazy("by"),
    )
    at = models.DateTimeField(auto_now_add=True, verbose_name=gettext_lazy("at"))

    class Meta:
        ordering = ["id"]
        indexes = [models.Index(fields=["tournament", "round_number"], name="forfeit_round")]

    def __str__(self) -> str:
        verb = "forfeits" if self.forfeited else "does not forfeit"
        return f"{self.player} {verb} round {self.round_number} of {self.tournament}"


class Round(models.Model):
    """One round of a tournament: its seating and its tables."""

    class Status(models.TextChoices):
        SEATED = (
            "seated",
            pgettext_lazy("round status", "seated (the organiser may still adjust it)"),
        )
        PLAYING = "playing", pgettext_lazy("round status", "playing")
        FINISHED = "finished", pgettext_lazy("round status", "finished")

    tournament = models.ForeignKey(
        Tournament,
        on_delete=models.CASCADE,
        related_name="round_set",
        verbose_name=gettext_lazy("tournament"),
    )
    number = models.PositiveSmallIntegerField(verbose_name=gettext_lazy("number"))
    status = models.CharField(
        max_length=16,
        choices=Status.choices,
        default=Status.SEATED,
        verbose_name=gettext_lazy("status"),
    )
    #: Players sitting out this round (player ids).
    byes = models.JSONField(default=list, verbose_name=gettext_lazy("byes"))
    #: Duplicate deals: SHA-256 commitment of the round seed, and the seed once the round is over.
    commitment = models.CharField(
        max_length=64, blank=True, default="", verbose_name=gettext_lazy("commitment")
    )
    seed = models.CharField(
        max_length=128, blank=True, default="", verbose_name=gettext_lazy("seed")
    )
    started_at = models.DateTimeField(
        null=True, blank=True, verbose_name=gettext_lazy("started at")
    )
    finished_at = models.DateTimeField(
        null=True, blank=True, verbose_name=gettext_lazy("finished at")
    )

    class Meta:
        verbose_name = gettext_lazy("round")
        verbose_name_plural = gettext_lazy("rounds")
        ordering = ["tournament", "number"]
        constraints = [
            models.UniqueConstraint(fields=["tournament", "number"], name="round_number_unique")
        ]

    def __str__(self) -> str:
        return f"{self.tournament} round {self.number}"


class Table(models.Model):
    """A table of a round: its players in seat order play one series."""

    class Status(models.TextChoices):
        WAITING = "waiting", pgettext_lazy("table status", "waiting")
        PLAYING = "playing", pgettext_lazy("table status", "playing")
        FINISHED = "finished", pgettext_lazy("table status", "finished")

    round = models.ForeignKey(
        Round, on_delete=models.CASCADE, related_name="tables", verbose_name=gettext_lazy("round")
    )
    number = models.PositiveSmallIntegerField(verbose_name=gettext_lazy("number"))
    #: The dealer of the series' first game (a seat number).
    first_dealer = models.PositiveSmallIntegerField(
        default=0, verbose_name=gettext_lazy("first dealer")
    )
    status = models.CharField(
        max_length=16,
        choices=Status.choices,
        default=Status.WAITING,
        verbose_name=gettext_lazy("status"),
    )
    #: The series' placings once finished: groups of seats, best first (derived from games).
    placings = models.JSONField(null=True, blank=True, verbose_name=gettext_lazy("placings"))
    #: The series so far, kept by the series hook at each game's end (so that a deal's end
    #: costs the same at the thousandth deal as at the first): the deals counted, and each
    #: seat's score over them (:func:`engine.series.scored`; ``[]`` before the first).
    series_deals = models.PositiveIntegerField(
        default=0, db_default=0, editable=False, verbose_name=gettext_lazy("deals counted")
    )
    series_scores = models.JSONField(
        default=list,
        db_default=Value([], output_field=models.JSONField()),
        editable=False,
        verbose_name=gettext_lazy("series scores"),
    )
    #: SHA-256 of the server seed of the table's next deal, committed before it is dealt
    #: (the seed itself is in the event stream ``table-<id>``, docs/fairness.md).
    next_commitment = models.CharField(
        max_length=64,
        blank=True,
        default="",
        db_default="",
        verbose_name=gettext_lazy("next commitment"),
    )

    class Meta:
        verbose_name = gettext_lazy("table")
        verbose_name_plural = gettext_lazy("tables")
        ordering = ["round", "number"]
        constraints = [
            models.UniqueConstraint(fields=["round", "number"], name="table_number_unique")
        ]

    def __str__(self) -> str:
        return f"{self.round} table {self.number}"


class TableSeat(models.Model):
    """Who sits at which seat of a table, and whether a bot plays the seat for them."""

    table = models.ForeignKey(
        Table, on_delete=models.CASCADE, related_name="seats", verbose_name=gettext_lazy("table")
    )
    seat = models.PositiveSmallIntegerField(verbose_name=gettext_lazy("seat"))
    player = models.ForeignKey(
        Player,
        on_delete=models.PROTECT,
        related_name="table_seats",
        verbose_name=gettext_lazy("player"),
    )
    #: A person's seat handed to a bot after repeated timeouts (the player can take it back).
    autoplay = models.BooleanField(default=False, verbose_name=gettext_lazy("autoplay"))
    #: Timeouts in a row at this seat (reset by the player's own action).
    timeouts_in_a_row = models.PositiveSmallIntegerField(
        default=0, verbose_name=gettext_lazy("timeouts in a row")
    )

    class Meta:
        verbose_name = gettext_lazy("seat")
        verbose_name_plural = gettext_lazy("seats")
        ordering = ["table", "seat"]
        constraints = [
            models.UniqueConstraint(fields=["table", "seat"], name="table_seat_unique"),
            models.UniqueConstraint(fields=["table", "player"], name="table_player_unique"),
        ]

    def __str__(self) -> str:
        return f"{self.table} seat {self.seat}: {self.player}"


class PlayerRating(models.Model):
    """A player's club rating in one game, kept as each of their tables finishes: a
    projection of the finished tables' placings (:mod:`tournaments.services.ratings`),
    so that a leaderboard or a player's page reads rows of its own, never the club's
    history (``standings.club_ratings(from_events=True)`` folds the events again)."""

    player = models.ForeignKey(
        Player,
        on_delete=models.CASCADE,
        related_name="ratings",
        verbose_name=gettext_lazy("player"),
    )
    #: The player's club, kept for the leaderboard's index.
    club = models.ForeignKey(
        Club, on_delete=models.CASCADE, related_name="+", verbose_name=gettext_lazy("club")
    )
    game = models.CharField(max_length=32, verbose_name=gettext_lazy("game"))
    mu = models.FloatField(verbose_name="μ")
    sigma = models.FloatField(verbose_name="σ")
    #: ``μ − 3σ``, the leaderboard's order (:class:`tournaments.ratings.Rating`).
    ordinal = models.FloatField(verbose_name=gettext_lazy("ordinal"))
    tables = models.PositiveIntegerField(default=0, verbose_name=gettext_lazy("tables"))

    class Meta:
        verbose_name = gettext_lazy("rating")
        verbose_name_plural = gettext_lazy("ratings")
        constraints = [
            models.UniqueConstraint(fields=["player", "game"], name="rating_player_game_unique")
        ]
        indexes = [models.Index(fields=["club", "game", "-ordinal", "player"], name="rating_board")]


class RatingStep(models.Model):
    """A player's displayed rating after one finished table (their page's history)."""

    player = models.ForeignKey(
        Player,
        on_delete=models.CASCADE,
        related_name="rating_steps",
        verbose_name=gettext_lazy("player"),
    )
    game = models.CharField(max_length=32, verbose_name=gettext_lazy("game"))
    table = models.ForeignKey(
        Table, on_delete=models.CASCADE, related_name="+", verbose_name=gettext_lazy("table")
    )
    #: When the table's series ended: the order of the fold (``standings``).
    finished_at = models.DateTimeField(verbose_name=gettext_lazy("finished at"))
    display = models.IntegerField(verbose_name=gettext_lazy("rating"))

    class Meta:
        verbose_name = gettext_lazy("rating step")
        verbose_name_plural = gettext_lazy("rating steps")
        constraints = [
            models.UniqueConstraint(fields=["player", "table"], name="rating_step_unique")
        ]
        indexes = [
            models.Index(
                fields=["player", "game", "finished_at", "table"], name="rating_step_history"
            )
        ]


class ApiToken(models.Model):
    """A personal API token: only its SHA-256 hash is stored; the key is shown once."""

    user = models.ForeignKey(
        "auth.User",
        on_delete=models.CASCADE,
        related_name="api_tokens",
        verbose_name=gettext_lazy("user"),
    )
    name = models.CharField(
        max_length=80, blank=True, default="", verbose_name=gettext_lazy("name")
    )
    #: The first characters of the key, to tell tokens apart in lists.
    prefix = models.CharField(max_length=12, verbose_name=gettext_lazy("prefix"))
    #: SHA-256 hex of the whole key.
    key_hash = models.CharField(max_length=64, unique=True, verbose_name=gettext_lazy("key hash"))
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=gettext_lazy("created at"))
    last_used_at = models.DateTimeField(
        null=True, blank=True, verbose_name=gettext_lazy("last used at")
    )
    revoked_at = models.DateTimeField(
        null=True, blank=True, verbose_name=gettext_lazy("revoked at")
    )

    class Meta:
        ordering = ["-created_at", "id"]

    def __str__(self) -> str:
        return f"{self.prefix}… ({self.user})"


class LoginLinkChange(models.Model):
    """The audit log of which login plays as a player: one row per change, never edited.

    The usernames are copied, so the log still reads right after a login is renamed
    or deleted.
    """

    club = models.ForeignKey(
        Club,
        on_delete=models.PROTECT,
        related_name="login_changes",
        verbose_name=gettext_lazy("club"),
    )
    player = models.ForeignKey(
        Player,
        on_delete=models.PROTECT,
        related_name="login_changes",
        verbose_name=gettext_lazy("player"),
    )
    old_user = models.ForeignKey(
        "auth.User",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        verbose_name=gettext_lazy("old user"),
    )
    new_user = models.ForeignKey(
        "auth.User",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        verbose_name=gettext_lazy("new user"),
    )
    old_username = models.CharField(
        max_length=150, blank=True, default="", verbose_name=gettext_lazy("old username")
    )
    new_username = models.CharField(
        max_length=150, blank=True, default="", verbose_name=gettext_lazy("new username")
    )
    #: Who made the change (``None``: a command or the system).
    changed_by = models.ForeignKey(
        "auth.User",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        verbose_name=gettext_lazy("changed by"),
    )
    changed_by_username = models.CharField(
        max_length=150, blank=True, default="", verbose_name=gettext_lazy("changed by username")
    )
    at = models.DateTimeField(auto_now_add=True, verbose_name=gettext_lazy("at"))

    class Meta:
        verbose_name = gettext_lazy("change of a player's login")
        verbose_name_plural = gettext_lazy("changes of players' logins")
        ordering = ["-at", "-id"]

    def __str__(self) -> str:
        before = self.old_username or "no login"
        after = self.new_username or "no login"
        return f"{self.player}: {before} -> {after} by {self.changed_by_username or 'the system'}"


class ClientSeed(models.Model):
    """A login's own contribution to the decks it is dealt (docs/fairness.md); changeable."""

    user = models.OneToOneField(
        "auth.User",
        on_delete=models.CASCADE,
        related_name="client_seed",
        verbose_name=gettext_lazy("user"),
    )
    #: Printable ASCII, at most 64 characters (engine.fairness.check_client_seed).
    seed = models.CharField(max_length=64, verbose_name=gettext_lazy("seed"))
    updated_at = models.DateTimeField(auto_now=True, verbose_name=gettext_lazy("updated at"))

    def __str__(self) -> str:
        return f"{self.user}: {self.seed}"


class StandaloneDeal(models.Model):
    """A game outside tournaments whose server seed is committed before it is dealt.

    Made by :func:`tournaments.services.commit_standalone_deal`: its players see the
    commitment (``/me/``, ``GET /api/v1/me/client-seed``) and may set a new client seed
    before :func:`tournaments.services.deal_standalone` deals it with their seeds mixed
    in (docs/fairness.md).  The seed waits in the event stream ``standalone-<id>``.
    """

    kind = models.CharField(max_length=32, verbose_name=gettext_lazy("kind"))
    #: ``[{"player", "name", "bot"}, ...]`` in seat order: the dealt game's context seats.
    seats = models.JSONField(default=list, verbose_name=gettext_lazy("seats"))
    options = models.JSONField(default=dict, blank=True, verbose_name=gettext_lazy("options"))
    turn_seconds = models.PositiveIntegerField(
        null=True, blank=True, verbose_name=gettext_lazy("turn seconds")
    )
    #: SHA-256 (hex) of the server seed, shown from the start.
    commitment = models.CharField(max_length=64, verbose_name=gettext_lazy("commitment"))
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=gettext_lazy("created at"))
    #: The game once dealt.
    game = models.OneToOneField(
        Game,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="standalone_deal",
        verbose_name=gettext_lazy("game"),
    )

    class Meta:
        ordering = ["id"]

    def __str__(self) -> str:
        return f"standalone {self.kind} #{self.pk} ({'dealt' if self.game_id else 'waiting'})"
