"""Tournament tables in the admin: where organisers work until the web pages exist.

:class:`~tournaments.models.Game` rows are projections of event streams: the
admin shows them and never changes them (``manage.py rebuild_projections``
recomputes them from the events).

Clubs, players and tournaments are the organisers' to edit.  An organiser is a
staff login among a club's organisers: they see and change their clubs' rows
only, without any Django permission rows (a superuser sees everything).
Everything with rules goes through :mod:`tournaments.services`: a new
tournament, registration or check-in is checked by the use case (its message
shows on the form), rounds are seated, re-seated and begun by admin actions,
and a seat's player is changed by swapping (:func:`services.swap_players`).
Rounds, tables and seats are otherwise read-only: they are what the use cases
made of them.  (Over 400 lines: one ``ModelAdmin`` per model of the app, each
short; they share the organiser's scoping above.)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from django import forms
from django.contrib import admin, messages
from django.contrib.auth.models import User
from django.db import transaction
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.urls import reverse
from django.utils.html import format_html
from django.utils.translation import gettext, gettext_lazy

from engine.contract import said
from events.admin import EventAdmin
from events.models import Event
from tournaments import play as games
from tournaments import services, sql
from tournaments.logins import ThrottledAdminAuthenticationForm
from tournaments.models import (
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
from tournaments.services.access import organised_clubs
from tournaments.services.base import refuse_mixed_scripts, refuse_taken_name, written_name

if TYPE_CHECKING:
    # The stubs' name for what get_fields returns (fields and groups of fields).
    from django.contrib.admin.options import _FieldGroups

# ModelAdmin, the inlines and ModelForm are generic in the stubs only: a class base here is
# evaluated, and subscripting it at run time needs django_stubs_ext.monkeypatch() (a run-time
# dependency the app does not take), so each class below says ignore[type-arg].

# The admin's login counts failed attempts as every other way in does (tournaments/logins.py).
admin.site.login_form = ThrottledAdminAuthenticationForm


@admin.register(Game)
class GameAdmin(admin.ModelAdmin):  # type: ignore[type-arg]
    list_display = ("id", "kind", "seats", "status", "sequence", "to_act", "created_at")
    list_filter = ("status", "kind")
    ordering = ("-id",)

    def get_readonly_fields(self, request: HttpRequest, obj: Game | None = None) -> list[str]:
        return [f.name for f in Game._meta.fields]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


admin.site.unregister(Event)


@admin.register(Event)
class GameEventAdmin(EventAdmin):
    """The event table, with a game's events shown as a spectator sees them until the game is
    revealed: not even a superuser reads a running game's deck, seed or hidden moves here."""

    def get_readonly_fields(self, request: HttpRequest, obj: Event | None = None) -> list[str]:
        return [
            "shown_payload" if name == "payload" else name
            for name in super().get_readonly_fields(request, obj)
        ]

    def get_fields(self, request: HttpRequest, obj: Event | None = None) -> _FieldGroups:
        # A new list: get_readonly_fields's list[str] is not the stubs' list of groups.
        return [name for name in self.get_readonly_fields(request, obj)]

    @admin.display(description=gettext_lazy("payload"))
    def shown_payload(self, event: Event) -> Any:
        return games.stored_payload_as_spectator(event.stream, event.sequence, event.payload)


# -- who may do what ------------------------------------------------------------------------


def _clubs(request: HttpRequest) -> QuerySet[Club]:
    """The clubs ``request.user`` organises (every club for a superuser)."""
    user = request.user
    if not user.is_active or not user.is_staff:
        return Club.objects.none()
    return organised_clubs(user)


def _club_of(obj: Any) -> Club | None:
    if isinstance(obj, Club):
        return obj
    if isinstance(obj, Player | Tournament | LoginLinkChange):
        return obj.club
    if isinstance(obj, Registration | CheckIn | Round):
        return obj.tournament.club
    if isinstance(obj, Table):
        return obj.round.tournament.club
    if isinstance(obj, TableSeat):
        return obj.table.round.tournament.club
    return None


class OrganiserAdmin(admin.ModelAdmin):  # type: ignore[type-arg]
    """Rows of the clubs the user organises; organisers need no Django permissions."""

    #: The lookup from this model to its club (``""`` for the club itself).
    club_path = ""
    #: Whether organisers may add / change / delete rows here.
    can_add = True
    can_change = True
    can_delete = False

    def _organises_any(self, request: HttpRequest) -> bool:
        return _clubs(request).exists()

    def has_module_permission(self, request: HttpRequest) -> bool:
        return self._organises_any(request)

    def has_view_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        if obj is None:
            return self._organises_any(request)
        club = _club_of(obj)
        return club is not None and _clubs(request).filter(pk=club.pk).exists()

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return self.can_add and self._organises_any(request)

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return self.can_change and self.has_view_permission(request, obj)

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return self.can_delete and self.has_view_permission(request, obj)

    def get_queryset(self, request: HttpRequest) -> QuerySet[Any]:
        rows = super().get_queryset(request)
        if request.user.is_superuser:
            return rows
        key = f"{self.club_path}__in" if self.club_path else "pk__in"
        return rows.filter(**{key: _clubs(request)})

    def formfield_for_foreignkey(
        self, db_field: Any, request: HttpRequest, **kwargs: Any
    ) -> forms.ModelChoiceField[Any] | None:
        clubs = _clubs(request)
        limits = {Club: "pk__in", Player: "club__in", Tournament: "club__in"}
        if db_field.related_model in limits:
            kwargs["queryset"] = db_field.related_model.objects.filter(
                **{limits[db_field.related_model]: clubs}
            )
        return super().formfield_for_foreignkey(db_field, request, **kwargs)


class _DryRun(Exception):
    """Rolls a use case back after checking it (form validation)."""


def _check(use_case: Callable[[], object]) -> None:
    """Run ``use_case`` and undo it; a :class:`services.ServiceError` becomes a form error."""
    try:
        with transaction.atomic():
            use_case()
            raise _DryRun
    except _DryRun:
        pass
    except services.ServiceError as error:
        raise forms.ValidationError(error.message) from None


def _run_action(
    admin_: admin.ModelAdmin[Any],
    request: HttpRequest,
    rows: QuerySet[Any],
    use_case: Callable[[Any], str],
) -> None:
    """Apply ``use_case`` to each row; its message, or the refusal, shows to the user."""
    for row in rows:
        try:
            admin_.message_user(request, use_case(row), messages.SUCCESS)
        except services.ServiceError as error:
            admin_.message_user(request, f"{row}: {error.message}", messages.ERROR)


# -- clubs and players --------------------------------------------------------------------


class PlayerForm(forms.ModelForm):  # type: ignore[type-arg]
    class Meta:
        model = Player
        fields = ("club", "name", "user", "bot_level")

    def clean_name(self) -> str:
        # The services' rule for a name (tournaments/services/base.py), which the admin
        # bypassed: nothing invisible, and no second player who reads the same.
        name = written_name(str(self.cleaned_data.get("name") or ""))
        if not name:
            raise forms.ValidationError(gettext("a player needs a name"))
        if self.instance.pk is not None and not {"name", "club"} & set(self.changed_data):
            # Neither the name nor the club changes: a name stored before these rules (a
            # mixed word, a lookalike of another's) must not block an edit of the login or
            # the bot level, nor every save of the club whose inline rows show it (found
            # by review).  Renaming such a player is checked as any rename is.
            return name
        _check(lambda: refuse_mixed_scripts(name))
        club = self.cleaned_data.get("club") or getattr(self.instance, "club", None)
        if club is not None:
            # Held until the admin's save commits (a change is one transaction), so that a
            # name added meanwhile by the desk or the API is seen, or waits for this one.
            sql.lock_player_names(club.pk)
            _check(lambda: refuse_taken_name(club, name, other_than=self.instance.pk))
        return name

    def clean_bot_level(self) -> str:
        level = str(self.cleaned_data.get("bot_level") or "")
        known = services.known_bot_levels()
        if level and level not in known:
            raise forms.ValidationError(
                gettext("known bot levels: %(value)s") % {"value": ", ".join(sorted(known))}
            )
        return level

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        if data.get("bot_level") and data.get("user"):
            raise forms.ValidationError(gettext("a bot cannot be linked to a login"))
        user = data.get("user")
        if self.instance.pk is not None and "user" in self.changed_data:
            stored = Player.objects.get(pk=self.instance.pk)
            _check(lambda: services.link_login(stored, user))
        elif self.instance.pk is None and user is not None:
            # What link_login refuses when _save_player links the new player's login.
            club = data.get("club")
            club_id = club.pk if club is not None else self.instance.club_id
            if Player.objects.filter(club_id=club_id, user=user).exists():
                raise forms.ValidationError(
                    gettext("the login %(user)s already plays in this club")
                    % {"user": said(user.get_username())}
                )
        return data


def _save_player(request: HttpRequest, form: forms.ModelForm[Player], player: Player) -> None:
    """Save an admin form's player; its login changes through the service (checked, logged)."""
    wanted = player.user
    if player.pk is None or "user" in form.changed_data:
        # The login stays as stored (none for a new player) until link_login changes it.
        player.user_id = form.initial.get("user")
    by = request.user if isinstance(request.user, User) else None
    with transaction.atomic():
        player.save()
        services.link_login(player, wanted, by=by)


class PlayerInline(admin.TabularInline):  # type: ignore[type-arg]
    model = Player
    form = PlayerForm
    fields = ("name", "user", "bot_level")
    extra = 0
    can_delete = False


@admin.register(Club)
class ClubAdmin(OrganiserAdmin):
    list_display = ("name", "slug", "created_at")
    search_fields = ("name", "slug")
    prepopulated_fields = {"slug": ("name",)}
    filter_horizontal = ("organisers",)
    inlines = (PlayerInline,)

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        # A new club has no organisers yet: only a superuser creates clubs.
        return bool(request.user.is_superuser)

    def save_formset(
        self,
        request: HttpRequest,
        form: Any,
        formset: Any,
        change: bool,
    ) -> None:
        if formset.model is not Player:
            super().save_formset(request, form, formset, change)
            return
        formset.save(commit=False)
        for player_form in formset.forms:
            if player_form.has_changed():
                _save_player(request, player_form, player_form.instance)


@admin.register(Player)
class PlayerAdmin(OrganiserAdmin):
    club_path = "club"
    form = PlayerForm
    list_display = ("name", "club", "bot_level", "user")
    list_filter = ("club", "bot_level")
    search_fields = ("name", "user__username")

    def save_model(
        self,
        request: HttpRequest,
        obj: Player,
        form: forms.ModelForm[Player],
        change: bool,
    ) -> None:
        _save_player(request, form, obj)


@admin.register(LoginLinkChange)
class LoginLinkChangeAdmin(OrganiserAdmin):
    """The audit log of players' logins: read only, for the club's organisers."""

    club_path = "club"
    can_add = False
    can_change = False
    list_display = ("at", "player", "old_username", "new_username", "changed_by_username")
    list_filter = ("club",)
    search_fields = ("player__name", "old_username", "new_username", "changed_by_username")

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> list[str]:
        return [f.name for f in LoginLinkChange._meta.fields]


# -- tournaments -------------------------------------------------------------------------------


class RegistrationInline(admin.TabularInline):  # type: ignore[type-arg]
    model = Registration
    fields = ("player", "from_round", "dropped_after", "registered_at")
    readonly_fields = fields
    extra = 0
    can_delete = False
    show_change_link = True

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False  # through Registrations: the use case checks late entries


class RoundInline(admin.TabularInline):  # type: ignore[type-arg]
    model = Round
    fields = ("number", "status", "byes", "commitment", "seed", "started_at", "finished_at")
    readonly_fields = fields
    extra = 0
    can_delete = False
    show_change_link = True

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False  # rounds are seated by the "seat the next round" action


#: The settings the admin's form shows: the no-show rule and the first turn's grace are
#: set on the organiser's pages (an unticked box or an empty field left out of an admin
#: form would change them).
ADMIN_SETTINGS = tuple(
    s for s in services.SETTINGS if s not in ("timeout_forfeits", "first_turn_grace")
)


class TournamentForm(forms.ModelForm):  # type: ignore[type-arg]
    class Meta:
        model = Tournament
        fields = ("club", *ADMIN_SETTINGS)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        for name in ("series", "table_min", "table_max"):
            if name in self.fields:
                self.fields[name].required = False
                self.fields[name].help_text = "empty: the game's default"

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        settings: dict[str, Any] = {k: data.get(k) for k in ADMIN_SETTINGS}
        settings["duplicate_deals"] = bool(settings["duplicate_deals"])
        settings["timeouts_to_bot"] = settings["timeouts_to_bot"] or 0
        settings["series"] = settings["series"] or None
        if self.errors:
            return data
        if self.instance.pk is None:
            club = data.get("club")
            if club is not None:
                _check(lambda: services.create_tournament(club, **settings))
        else:
            instance = Tournament.objects.get(pk=self.instance.pk)
            _check(lambda: services.update_tournament(instance, **settings))
        self.settings = settings
        return data


def _seat_next(tournament: Tournament) -> str:
    round_ = services.start_round(tournament, auto_check_in=False)
    return gettext("%(tournament)s: round %(number)s seated (not begun)") % {
        "tournament": tournament.name,
        "number": round_.number,
    }


def _seat_next_auto(tournament: Tournament) -> str:
    round_ = services.start_round(tournament, auto_check_in=True)
    return gettext("%(tournament)s: round %(number)s seated, everyone checked in (not begun)") % {
        "tournament": tournament.name,
        "number": round_.number,
    }


def _seated_round(tournament: Tournament) -> Round:
    round_ = Round.objects.filter(tournament=tournament).order_by("number").last()
    if round_ is None or round_.status != Round.Status.SEATED:
        raise services.ServiceError(
            gettext("%(tournament)s has no seated round to begin") % {"tournament": tournament.name}
        )
    return round_


def _begin(tournament: Tournament) -> str:
    round_ = services.begin_round(_seated_round(tournament))
    return gettext("%(tournament)s: round %(number)s begun") % {
        "tournament": tournament.name,
        "number": round_.number,
    }


@admin.register(Tournament)
class TournamentAdmin(OrganiserAdmin):
    club_path = "club"
    form = TournamentForm
    list_display = ("name", "club", "game", "rounds", "seating_mode", "status", "created_at")
    list_filter = ("status", "game", "club")
    search_fields = ("name",)
    inlines = (RegistrationInline, RoundInline)

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> tuple[str, ...]:
        if obj is None:
            return ("status",)
        return ("club", "status", "standings")

    actions = ("seat_next_round", "seat_next_round_checking_everyone_in", "begin_seated_round")

    def save_model(self, request: HttpRequest, obj: Any, form: Any, change: bool) -> None:
        settings = form.settings
        if change:
            saved = services.update_tournament(obj, **settings)
        else:
            saved = services.create_tournament(obj.club, **settings)
        obj.pk = saved.pk
        obj.refresh_from_db()

    @admin.display(description=gettext_lazy("standings (from the games' events)"))
    def standings(self, obj: Tournament) -> str:
        if obj.pk is None:
            return "-"
        from tournaments.standings import compute_standings, player_names

        table = compute_standings(obj)
        names = player_names(s.player for s in table)
        return format_html(
            "<br>".join(
                f"{s.rank}. {{}} — "
                + gettext("%(points).3f points (%(played)s played, %(byes)s byes)")
                % {"points": float(s.points), "played": s.played, "byes": s.byes}
                + (" " + gettext("dropped") if s.dropped else "")
                for s in table
            ),
            *[names.get(s.player, s.player) for s in table],
        )

    @admin.action(description=gettext_lazy("Seat the next round (checked-in players and bots)"))
    def seat_next_round(self, request: HttpRequest, rows: QuerySet[Tournament]) -> None:
        _run_action(self, request, rows, _seat_next)

    @admin.action(
        description=gettext_lazy("Seat the next round, checking in every registered player")
    )
    def seat_next_round_checking_everyone_in(
        self, request: HttpRequest, rows: QuerySet[Tournament]
    ) -> None:
        _run_action(self, request, rows, _seat_next_auto)

    @admin.action(
        description=gettext_lazy("Begin the seated round (deal every table's first game)")
    )
    def begin_seated_round(self, request: HttpRequest, rows: QuerySet[Tournament]) -> None:
        _run_action(self, request, rows, _begin)


class _PlayerRoundForm(forms.ModelForm):  # type: ignore[type-arg]
    """A tournament, a player and an optional round, saved by a use case (``use_case``).

    The use case's own checks (and words) stand in for the model's uniqueness
    checks; an empty round means the next round that has not begun.
    """

    round_field = ""
    #: The use case that saves the form: (tournament, player, round or None).
    use_case: Callable[[Tournament, Player, int | None], object]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if self.round_field in self.fields:
            self.fields[self.round_field].required = False
            self.fields[self.round_field].help_text = "empty: the next round that has not begun"

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        tournament, player = data.get("tournament"), data.get("player")
        if tournament is not None and player is not None and not self.errors:
            number = data.get(self.round_field)
            _check(lambda: self.use_case(tournament, player, number))
        return data

    def validate_unique(self) -> None:
        pass  # the use case refuses a second registration in its own words


class RegistrationForm(_PlayerRoundForm):
    round_field = "from_round"

    class Meta:
        model = Registration
        fields = ("tournament", "player", "from_round")

    use_case = staticmethod(
        lambda tournament, player, number: services.register(tournament, player, from_round=number)
    )


@admin.register(Registration)
class RegistrationAdmin(OrganiserAdmin):
    club_path = "tournament__club"
    form = RegistrationForm
    list_display = ("player", "tournament", "from_round", "dropped_after", "registered_at")
    list_filter = ("tournament",)
    search_fields = ("player__name",)
    actions = ("drop_players",)

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> tuple[str, ...]:
        if obj is not None:
            return ("tournament", "player", "from_round", "dropped_after", "registered_at")
        return ()

    def save_model(self, request: HttpRequest, obj: Any, form: Any, change: bool) -> None:
        if change:
            return  # nothing is editable on a registration
        data = form.cleaned_data
        saved = services.register(data["tournament"], data["player"], from_round=data["from_round"])
        obj.pk = saved.pk
        obj.refresh_from_db()

    @admin.action(description=gettext_lazy("Drop the selected players (between rounds)"))
    def drop_players(self, request: HttpRequest, rows: QuerySet[Registration]) -> None:
        def drop(row: Registration) -> str:
            done = services.drop(row.tournament, row.player)
            return gettext("%(player)s dropped after round %(number)s") % {
                "player": row.player.name,
                "number": done.dropped_after,
            }

        _run_action(self, request, rows.select_related("tournament", "player"), drop)


class CheckInForm(_PlayerRoundForm):
    round_field = "round_number"

    class Meta:
        model = CheckIn
        fields = ("tournament", "player", "round_number")

    use_case = staticmethod(services.check_in)


@admin.register(CheckIn)
class CheckInAdmin(OrganiserAdmin):
    club_path = "tournament__club"
    form = CheckInForm
    can_change = False
    list_display = ("player", "tournament", "round_number", "at")
    list_filter = ("tournament", "round_number")
    search_fields = ("player__name",)

    def save_model(self, request: HttpRequest, obj: Any, form: Any, change: bool) -> None:
        data = form.cleaned_data
        saved = services.check_in(data["tournament"], data["player"], data["round_number"])
        obj.pk = saved.pk
        obj.refresh_from_db()


# -- rounds, tables, seats (made by the use cases) -------------------------------------------


class TableInline(admin.TabularInline):  # type: ignore[type-arg]
    model = Table
    fields = ("number", "status", "first_dealer", "placings")
    readonly_fields = fields
    extra = 0
    can_delete = False
    show_change_link = True

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


def _begin_round(round_: Round) -> str:
    done = services.begin_round(round_)
    return gettext("round %(number)s of %(tournament)s begun") % {
        "number": done.number,
        "tournament": done.tournament.name,
    }


def _reseat_round(round_: Round) -> str:
    done = services.reseat(round_)
    return gettext("round %(number)s of %(tournament)s seated again") % {
        "number": done.number,
        "tournament": done.tournament.name,
    }


@admin.register(Round)
class RoundAdmin(OrganiserAdmin):
    club_path = "tournament__club"
    can_add = False
    list_display = ("__str__", "status", "commitment", "started_at", "finished_at")
    list_filter = ("status", "tournament")
    readonly_fields = (
        "tournament",
        "number",
        "status",
        "byes",
        "commitment",
        "seed",
        "started_at",
        "finished_at",
    )
    inlines = (TableInline,)
    actions = ("begin_rounds", "reseat_rounds")

    @admin.action(description=gettext_lazy("Begin the selected seated rounds"))
    def begin_rounds(self, request: HttpRequest, rows: QuerySet[Round]) -> None:
        _run_action(self, request, rows, _begin_round)

    @admin.action(
        description=gettext_lazy("Seat the selected seated rounds again (current check-ins)")
    )
    def reseat_rounds(self, request: HttpRequest, rows: QuerySet[Round]) -> None:
        _run_action(self, request, rows, _reseat_round)


class TableSeatInline(admin.TabularInline):  # type: ignore[type-arg]
    model = TableSeat
    fields = ("seat", "player", "autoplay", "timeouts_in_a_row")
    readonly_fields = fields
    extra = 0
    can_delete = False
    show_change_link = True

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(Table)
class TableAdmin(OrganiserAdmin):
    club_path = "round__tournament__club"
    can_add = False
    list_display = ("__str__", "status", "first_dealer", "placings")
    list_filter = ("status", "round__tournament")
    readonly_fields = ("round", "number", "status", "first_dealer", "placings", "games")
    inlines = (TableSeatInline,)

    @admin.display(description=gettext_lazy("games of the series"))
    def games(self, obj: Table) -> str:
        rows = Game.objects.filter(table=obj).order_by("number_in_series")
        return ", ".join(f"#{g.pk} {g.status}" for g in rows) or "-"


class TableSeatForm(forms.ModelForm):  # type: ignore[type-arg]
    class Meta:
        model = TableSeat
        fields = ("player",)

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        seat = self.instance
        new = data.get("player")
        if seat.pk is not None and new is not None and new.pk != seat.player_id:
            round_ = seat.table.round
            old = seat.player_id
            _check(lambda: services.swap_players(round_, old, new))
        return data

    def validate_unique(self) -> None:
        pass  # a swap rewrites both seats; the use case checks it


@admin.register(TableSeat)
class TableSeatAdmin(OrganiserAdmin):
    """A seat's player changes by a swap with the new player (a seat or a bye of the round)."""

    club_path = "table__round__tournament__club"
    form = TableSeatForm
    can_add = False
    list_display = ("table", "seat", "player", "autoplay", "timeouts_in_a_row")
    list_filter = ("table__round__tournament",)
    search_fields = ("player__name",)

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> tuple[str, ...]:
        fixed = ("table", "seat", "autoplay", "timeouts_in_a_row")
        if obj is not None and obj.table.round.status != Round.Status.SEATED:
            return (*fixed, "player")
        return fixed

    def save_model(self, request: HttpRequest, obj: Any, form: Any, change: bool) -> None:
        old = TableSeat.objects.get(pk=obj.pk)
        if old.player_id != obj.player_id:
            services.swap_players(old.table.round, old.player_id, obj.player_id)
            self.message_user(
                request,
                gettext("%(a)s and %(b)s swapped places")
                % {"a": old.player.name, "b": obj.player.name},
                messages.SUCCESS,
            )

    def response_change(self, request: HttpRequest, obj: Any) -> HttpResponse:
        # The swap rewrote the round's seats: show the table, not this (replaced) seat row.
        url = reverse("admin:tournaments_table_change", args=[obj.table_id])
        return HttpResponseRedirect(url)
