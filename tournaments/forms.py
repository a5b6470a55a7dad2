"""The organiser's forms.  They only check the shape of the input: the rules (table sizes
inside the game's range, a series that fits) are the use cases' (:mod:`tournaments.services`),
whose errors come back onto the form's fields (:meth:`TournamentForm.add_service_error`)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django import forms
from django.conf import settings
from django.core.exceptions import ValidationError
from django.db.models import QuerySet
from django.utils.translation import get_language_info, gettext, ngettext, pgettext_lazy
from django.utils.translation import gettext_lazy as _

from engine.bots import bot_levels
from engine.registry import all_games
from engine.series import MAX_DEAL_LIMIT, MAX_TARGET
from tournaments.converters import MAX_ID
from tournaments.models import BOT_LEVEL_WORDS, Club, Player, Tournament
from tournaments.services import ServiceError, queries
from tournaments.services.tournaments import (
    MOST_FIRST_TURN_GRACE,
    MOST_ROUNDS,
    MOST_TIMEOUTS_TO_BOT,
    MOST_TURN_SECONDS,
    SERIES_KIND_WORDS,
    series_kinds,
    series_refusal,
)

#: The series kinds (:mod:`engine.series`) in words; the games scored by each are named
#: from the registry (:func:`series_choices`), so a new game needs no line here.
SERIES_WORDS = SERIES_KIND_WORDS

#: The first turn's grace the form proposes: the model's default, the one source.
FIRST_TURN_GRACE = int(Tournament._meta.get_field("first_turn_grace").get_default())


def games_of_series() -> dict[str, list[str]]:
    """Each series kind with the ids of the games that may be played as it (the engine's)."""
    games: dict[str, list[str]] = {kind: [] for kind in SERIES_WORDS}
    for game in all_games():
        for kind in series_kinds(game.id):
            games.setdefault(kind, []).append(game.id)
    return games


def series_choices() -> list[tuple[str, str]]:
    """The series a tournament may choose, each with the games whose results it scores."""
    names = {g.id: queries.game_name(g.id) for g in all_games()}
    choices = [("", gettext("the game's usual series"))]
    for kind, games in games_of_series().items():
        words = str(SERIES_WORDS.get(kind, kind))
        played = ", ".join(names[g] for g in games)
        choices.append((kind, f"{words} ({played})" if played else words))
    return choices


class SeriesSelect(forms.Select):
    """The series select: each option says which games allow it (``data-games``), so that
    ``series.js`` shows only those of the chosen game; without the script the form's
    :meth:`TournamentForm.clean` refuses a series the game does not allow."""

    def create_option(self, *args: Any, **kwargs: Any) -> dict[str, Any]:
        option: dict[str, Any] = super().create_option(*args, **kwargs)
        games = games_of_series().get(str(option["value"]))
        if games is not None:
            option["attrs"]["data-games"] = " ".join(games)
        return option


class RenameTournamentForm(forms.Form):
    """A tournament's name, the one setting that changes once a round is seated."""

    name = forms.CharField(max_length=120, label=pgettext_lazy("tournament", "Name"))


class TournamentForm(forms.Form):
    """A new tournament: its club, game, rounds and how tables play."""

    club = forms.ModelChoiceField(queryset=Club.objects.none(), empty_label=None, label=_("Club"))
    name = forms.CharField(max_length=120, label=pgettext_lazy("tournament", "Name"))
    game = forms.ChoiceField(choices=(), label=_("Game"))
    rounds = forms.IntegerField(min_value=1, max_value=MOST_ROUNDS, initial=3, label=_("Rounds"))
    series_kind = forms.ChoiceField(
        choices=(),
        required=False,
        label=_("Series"),
        # The script that hides the series the chosen game does not allow (series.js).
        widget=SeriesSelect(attrs={"data-series-of": "id_game"}),
    )
    series_target = forms.IntegerField(
        min_value=1,
        max_value=MAX_TARGET,
        required=False,
        label=_("Series target (N)"),
        help_text=_("Round wins to reach, or the number of deals/games."),
    )
    series_deal_limit = forms.IntegerField(
        min_value=1,
        max_value=MAX_DEAL_LIMIT,
        required=False,
        label=_("Deal limit (first to N only)"),
        help_text=_(
            "Empty: none, a match goes on until someone has N round wins. A match"
            " that reaches the limit ends and is placed by round wins, equal wins sharing."
        ),
    )
    table_min = forms.IntegerField(
        min_value=2, max_value=8, required=False, label=_("Smallest table")
    )
    table_max = forms.IntegerField(
        min_value=2, max_value=8, required=False, label=_("Largest table")
    )
    table_preferred = forms.IntegerField(
        min_value=2, max_value=8, required=False, label=_("Preferred table size")
    )
    seating_mode = forms.ChoiceField(
        choices=Tournament.SeatingMode.choices,
        initial=Tournament.SeatingMode.MIXING,
        label=_("Seating"),
        help_text=_("How rounds after the first are seated (round 1 is random)."),
    )
    turn_seconds = forms.IntegerField(
        min_value=1,
        max_value=MOST_TURN_SECONDS,
        required=False,
        label=_("Seconds per turn"),
        help_text=_("Empty: no clock."),
    )
    first_turn_grace = forms.IntegerField(
        min_value=0,
        max_value=MOST_FIRST_TURN_GRACE,
        initial=FIRST_TURN_GRACE,
        required=False,
        label=_("Seconds more for each game's first turn"),
        help_text=_("Time for the players to arrive at a new game (with a clock). 0: none."),
    )
    timeouts_to_bot = forms.IntegerField(
        min_value=0,
        max_value=MOST_TIMEOUTS_TO_BOT,
        initial=0,
        required=False,
        label=_("Timeouts before a bot takes the seat"),
        help_text=_("0: never."),
    )
    duplicate_deals = forms.BooleanField(required=False, label=_("Duplicate deals"))
    timeout_forfeits = forms.BooleanField(
        required=False,
        initial=True,
        label=_("A seat handed to a bot forfeits its series"),
        help_text=_(
            "Ticked: that series counts as last place for the player, marked"
            " in the standings. Unticked: the bot's result counts as theirs."
        ),
    )

    def __init__(self, *args: Any, clubs: QuerySet[Club], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        club_field = self.fields["club"]
        assert isinstance(club_field, forms.ModelChoiceField)
        club_field.queryset = clubs
        game_field = self.fields["game"]
        assert isinstance(game_field, forms.ChoiceField)
        game_field.choices = [
            (
                g.id,
                ngettext(
                    "%(game)s (%(least)d–%(most)d player)",
                    "%(game)s (%(least)d–%(most)d players)",
                    g.max_seats,
                )
                % {"game": queries.game_name(g.id), "least": g.min_seats, "most": g.max_seats},
            )
            for g in all_games()
        ]
        series_field = self.fields["series_kind"]
        assert isinstance(series_field, forms.ChoiceField)
        series_field.choices = series_choices()

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        kind, game = data.get("series_kind"), data.get("game")
        if kind and game and kind not in series_kinds(game):
            # The use case's words without its hint for API clients (no JSON on a page).
            self.add_error(
                "series_kind",
                gettext("%(refusal)s, or leave the series empty for the game's usual one.")
                % {"refusal": series_refusal(game, kind)},
            )
        if data.get("series_kind") and not data.get("series_target"):
            self.add_error("series_target", gettext("Give N for the series you chose."))
        if data.get("series_deal_limit") and data.get("series_kind") != "first_to":
            self.add_error(
                "series_deal_limit",
                gettext("A deal limit is for a first to N series: choose that series."),
            )
        return data

    def service_arguments(self) -> dict[str, Any]:
        """The arguments of :func:`tournaments.services.create_tournament` (after the club)."""
        data = self.cleaned_data
        series = None
        if data.get("series_kind"):
            series = {"kind": data["series_kind"], "target": data["series_target"]}
            if data.get("series_deal_limit"):
                series["deal_limit"] = data["series_deal_limit"]
        return {
            "name": data["name"],
            "game": data["game"],
            "rounds": data["rounds"],
            "series": series,
            "table_min": data.get("table_min"),
            "table_max": data.get("table_max"),
            "table_preferred": data.get("table_preferred"),
            "seating_mode": data["seating_mode"],
            "turn_seconds": data.get("turn_seconds"),
            "timeouts_to_bot": data.get("timeouts_to_bot") or 0,
            "first_turn_grace": FIRST_TURN_GRACE
            if data.get("first_turn_grace") is None
            else data["first_turn_grace"],
            "duplicate_deals": bool(data.get("duplicate_deals")),
            "timeout_forfeits": bool(data.get("timeout_forfeits")),
        }

    def add_service_error(self, error: ServiceError) -> None:
        """Show a use case's refusal on the field it names (or on the whole form)."""
        field = {"series": "series_target"}.get(error.field or "", error.field)
        if field in self.fields:
            self.add_error(field, error.message)
        else:
            self.add_error(None, error.message)


class IdChoicesField(forms.ModelMultipleChoiceField):  # type: ignore[type-arg]
    """Rows chosen by id, where an id beyond any row's is a choice not offered (Django's own
    field looked it up, and SQLite's driver raised ``OverflowError``: a 500)."""

    def clean(self, value: Any) -> Any:
        for pk in value if isinstance(value, list | tuple) else ():
            try:
                number = int(str(pk))  # as the field will read it (" +12", "1_2" included)
            except ValueError:
                continue  # Django's own field refuses it in words
            if not -MAX_ID - 1 <= number <= MAX_ID:
                raise ValidationError(
                    self.error_messages["invalid_choice"],
                    code="invalid_choice",
                    params={"value": str(pk)},
                )
        return super().clean(value)


class RegisterForm(forms.Form):
    """Register some of the club's players."""

    players = IdChoicesField(
        queryset=Player.objects.none(), widget=forms.CheckboxSelectMultiple, label=_("Players")
    )

    def __init__(self, *args: Any, players: QuerySet[Player], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        field = self.fields["players"]
        assert isinstance(field, forms.ModelMultipleChoiceField)
        field.queryset = players


class NewPlayerForm(forms.Form):
    """A new player of the club (a person, or a bot of a level), registered at once."""

    name = forms.CharField(max_length=80, label=_("Name"))
    bot_level = forms.ChoiceField(required=False, label=_("Bot"), choices=())

    def __init__(self, *args: Any, game: str, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        field = self.fields["bot_level"]
        assert isinstance(field, forms.ChoiceField)
        field.choices = [("", gettext("a person"))] + [
            (level, str(BOT_LEVEL_WORDS.get(level, level))) for level in bot_levels(game)
        ]


class StartRoundForm(forms.Form):
    """Seat the next round."""

    #: Ticked by default (issue 20): left unticked, people not checked in are left out.
    auto_check_in = forms.BooleanField(
        required=False,
        initial=True,
        label=_("Check in every registered player who has not dropped"),
    )


class SwapForm(forms.Form):
    """Exchange two players of a seated round (seat for seat, or a seat for a bye)."""

    a = forms.ChoiceField(label=_("Swap"))
    b = forms.ChoiceField(label=pgettext_lazy("swap a with b", "with"))

    def __init__(self, *args: Any, players: Iterable[Player], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        choices = [(str(p.pk), p.name) for p in players]
        for name in ("a", "b"):
            field = self.fields[name]
            assert isinstance(field, forms.ChoiceField)
            field.choices = choices
        if len(choices) > 1:
            self.fields["b"].initial = choices[1][0]


class ReseatForm(forms.Form):
    """Seat a seated round again, optionally keeping two players apart or fixing one's table."""

    apart_a = forms.ChoiceField(required=False, label=_("Keep apart"))
    apart_b = forms.ChoiceField(required=False, label=pgettext_lazy("keep a and b apart", "and"))
    fixed_player = forms.ChoiceField(required=False, label=_("Put"))
    fixed_table = forms.IntegerField(required=False, min_value=1, label=_("at table"))

    def __init__(self, *args: Any, players: Iterable[Player], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        choices = [("", "—")] + [(str(p.pk), p.name) for p in players]
        for name in ("apart_a", "apart_b", "fixed_player"):
            field = self.fields[name]
            assert isinstance(field, forms.ChoiceField)
            field.choices = choices

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        if bool(data.get("apart_a")) != bool(data.get("apart_b")):
            self.add_error("apart_b", gettext("Choose both players to keep apart."))
        if bool(data.get("fixed_player")) != bool(data.get("fixed_table")):
            self.add_error("fixed_table", gettext("Choose the player and the table."))
        return data

    def constraints(self) -> dict[str, Any]:
        """The ``fixed`` and ``apart`` arguments of :func:`tournaments.services.reseat`."""
        data = self.cleaned_data
        fixed = {int(data["fixed_player"]): data["fixed_table"]} if data.get("fixed_player") else {}
        apart = [(int(data["apart_a"]), int(data["apart_b"]))] if data.get("apart_a") else []
        return {"fixed": fixed, "apart": apart}


# -- from nothing to a club (issue 20) -------------------------------------------------------


class _PasswordTwice(forms.Form):
    """A new password, typed twice."""

    password = forms.CharField(label=_("Password"), widget=forms.PasswordInput, strip=False)
    password_again = forms.CharField(
        label=_("The same password again"), widget=forms.PasswordInput, strip=False
    )

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        if data.get("password") and data.get("password") != data.get("password_again"):
            self.add_error(
                "password_again", gettext("The two passwords differ: type the same one twice.")
            )
        return data


class FirstRunForm(_PasswordTwice):
    """The first-run page: the club and its first organiser's login."""

    club_name = forms.CharField(label=_("The club's name"), max_length=120)
    username = forms.CharField(label=_("Your user name"), max_length=150)
    email = forms.EmailField(label=_("Your e-mail (optional)"), required=False)

    field_order = ["club_name", "username", "email", "password", "password_again"]


class SignUpForm(_PasswordTwice):
    """A person joining a club through its sign-up link."""

    name = forms.CharField(label=_("Your name as the club will see it"), max_length=80)
    username = forms.CharField(label=_("A user name to log in with"), max_length=150)

    field_order = ["name", "username", "password", "password_again"]


class NewLoginPlayerForm(forms.Form):
    """An organiser creates a player with a login; without a password one is generated."""

    name = forms.CharField(label=_("Name"), max_length=80)
    username = forms.CharField(label=_("User name"), max_length=150)
    password = forms.CharField(
        label=_("Password (empty: one is made up for you to hand out)"),
        required=False,
        widget=forms.PasswordInput,
        strip=False,
    )


class AddOrganiserForm(forms.Form):
    """Make one of the club's logins an organiser."""

    user = forms.ChoiceField(label=_("Make organiser"))

    def __init__(self, *args: Any, players: Iterable[Player], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        field = self.fields["user"]
        assert isinstance(field, forms.ChoiceField)
        field.choices = [
            (str(p.user_id), f"{p.name} ({p.user.get_username()})")
            for p in players
            if p.user is not None
        ]


class ClubLanguageForm(forms.Form):
    """The club's default language (docs/i18n.md), or none."""

    language = forms.ChoiceField(
        required=False,
        label=_("The club's language"),
        help_text=_(
            "For the club's pages and its members when a person has not chosen one and"
            " their browser asks for none of these."
        ),
        choices=lambda: [
            ("", gettext("none: the browser's")),
            *(
                (code, get_language_info(code)["name_translated"])
                for code, _name in settings.LANGUAGES
            ),
        ],
    )
