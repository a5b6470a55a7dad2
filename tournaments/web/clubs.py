"""From nothing to a club (issue 20): the first-run page, a club's people, its sign-up link,
and changing one's password."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_required
from django.contrib.auth.models import User
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseBase
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse, reverse_lazy
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_POST
from django.views.i18n import set_language

from tournaments import services
from tournaments.forms import (
    AddOrganiserForm,
    ClubLanguageForm,
    FirstRunForm,
    NewLoginPlayerForm,
    SignUpForm,
)
from tournaments.models import Club, Player

#: The backend ``login`` records (the one of ``AUTHENTICATION_BACKENDS``).
_BACKEND = "tournaments.logins.ThrottledModelBackend"


def _signed_in(request: HttpRequest) -> User:
    user = request.user
    assert isinstance(user, User)  # login_required
    return user


def _form_error(form: Any, error: services.ServiceError) -> None:
    """Show a use case's refusal on the field it names (or on the whole form)."""
    field = error.field if error.field in form.fields else None
    form.add_error(field, error.message)


def first_run(request: HttpRequest) -> HttpResponseBase:
    """An empty install's first page: create the club and its first organiser, logged in."""
    if not services.needs_first_run():
        messages.info(request, _("This install is set up already: log in to organise."))
        return redirect("home")
    form = FirstRunForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            club, user = services.first_run(
                data["club_name"], data["username"], data["password"], email=data["email"]
            )
        except services.ServiceError as error:
            _form_error(form, error)
        else:
            login(request, user, backend=_BACKEND)
            messages.success(
                request,
                _("%(club)s is ready and you organise it. Add its people next.")
                % {"club": club.name},
            )
            return redirect("club-people", slug=club.slug)
    return render(request, "clubs/first_run.html", {"form": form})


def _organised(request: HttpRequest, slug: str) -> Club:
    club = get_object_or_404(Club, slug=slug)
    if not services.is_organiser(request.user, club):
        raise PermissionDenied(
            _("Only the organisers of %(club)s may do this.") % {"club": club.name}
        )
    return club


def _people_context(request: HttpRequest, club: Club, **forms: Any) -> dict[str, Any]:
    players = list(Player.objects.filter(club=club).select_related("user").order_by("name"))
    organiser_ids = set(club.organisers.values_list("pk", flat=True))
    link = (
        request.build_absolute_uri(reverse("sign-up", args=[club.signup_token]))
        if club.signup_token
        else ""
    )
    return {
        "club": club,
        "players": players,
        "organisers": club.organisers.order_by("username"),
        "organiser_ids": organiser_ids,
        "signup_url": link,
        "new_player_form": forms.get("new_player_form") or NewLoginPlayerForm(),
        "organiser_form": AddOrganiserForm(
            players=[p for p in players if p.user_id and p.user_id not in organiser_ids]
        ),
        "handed_out": forms.get("handed_out"),
        "language_form": ClubLanguageForm(initial={"language": club.language}),
    }


@login_required
def club_people(request: HttpRequest, slug: str) -> HttpResponse:
    """An organiser's page of the club's people: logins, the sign-up link, organisers."""
    club = _organised(request, slug)
    return render(request, "clubs/people.html", _people_context(request, club))


@require_POST
@login_required
def club_new_player(request: HttpRequest, slug: str) -> HttpResponse:
    """Create a player with a login; the password (made up if not given) is shown once."""
    club = _organised(request, slug)
    form = NewLoginPlayerForm(request.POST)
    handed_out = None
    if form.is_valid():
        data = form.cleaned_data
        try:
            player, password = services.add_player_with_login(
                club,
                data["name"],
                data["username"],
                password=data["password"],
                by=_signed_in(request),
            )
        except services.ServiceError as error:
            _form_error(form, error)
        else:
            handed_out = {
                "player": player,
                "username": player.user.get_username() if player.user else "",
                "password": "" if data["password"] else password,
            }
            form = NewLoginPlayerForm()
    context = _people_context(request, club, new_player_form=form, handed_out=handed_out)
    return render(request, "clubs/people.html", context)


def _confirm(request: HttpRequest, club: Club, question: str, button: str) -> HttpResponse:
    """The question before a destructive action on the club's people (a plain form)."""
    return render(
        request,
        "organise/confirm.html",
        {
            "subject": _("%(club)s: people") % {"club": club.name},
            "question": question,
            "button": button,
            "hidden": [(k, v) for k, v in request.GET.items() if k == "user"],
            "back": reverse("club-people", args=[club.slug]),
        },
    )


@require_http_methods(["GET", "POST"])
@login_required
def club_signup_link(request: HttpRequest, slug: str, action: str) -> HttpResponseBase:
    """Turn the club's sign-up link on with a new secret (``renew``), or off (``off``).

    While a link is on, both ask first (GET): the link handed out stops working.
    """
    club = _organised(request, slug)
    if action not in ("renew", "off"):
        raise Http404(f"there is no sign-up link action {action!r}")
    if request.method == "GET":
        if not club.signup_token:
            return redirect("club-people", slug=club.slug)
        if action == "renew":
            question = _(
                "Renew %(club)s's sign-up link? The link handed out so far stops working:"
                " only the new one lets people join."
            ) % {"club": club.name}
            return _confirm(request, club, question, _("Renew the link"))
        question = _("Turn %(club)s's sign-up link off? Nobody can join through it any more.") % {
            "club": club.name
        }
        return _confirm(request, club, question, _("Turn the link off"))
    if action == "renew":
        services.renew_signup_link(club)
        messages.success(request, _("The sign-up link is on. Any older link no longer works."))
    else:
        services.close_signup_link(club)
        messages.success(request, _("The sign-up link is off: nobody can join through it."))
    return redirect("club-people", slug=club.slug)


def _posted_user(request: HttpRequest) -> User | None:
    raw = (request.POST if request.method == "POST" else request.GET).get("user", "")
    return User.objects.filter(pk=int(raw)).first() if raw.isdecimal() else None


@require_POST
@login_required
def club_add_organiser(request: HttpRequest, slug: str) -> HttpResponseBase:
    """Make one of the club's logins an organiser of the club."""
    club = _organised(request, slug)
    user = _posted_user(request)
    if user is None:
        messages.error(request, _("Choose the login to make an organiser."))
        return redirect("club-people", slug=club.slug)
    try:
        services.add_organiser(club, user, by=_signed_in(request))
    except services.ServiceError as error:
        messages.error(request, error.message)
    else:
        messages.success(
            request,
            _("%(user)s now organises %(club)s too.")
            % {"user": user.get_username(), "club": club.name},
        )
    return redirect("club-people", slug=club.slug)


@require_http_methods(["GET", "POST"])
@login_required
def club_remove_organiser(request: HttpRequest, slug: str) -> HttpResponseBase:
    """An organiser stops organising the club: asked first (GET), done on the POST."""
    club = _organised(request, slug)
    user = _posted_user(request)
    if user is None or not club.organisers.filter(pk=user.pk).exists():
        messages.error(request, _("Choose one of the club's organisers."))
        return redirect("club-people", slug=club.slug)
    if request.method == "GET":
        try:
            services.check_removal(club, user)  # refused now, not once confirmed
        except services.ServiceError as error:
            messages.error(request, error.message)
            return redirect("club-people", slug=club.slug)
        names = {"user": user.get_username(), "club": club.name}
        if Player.objects.filter(club=club, user=user).exists():
            question = (
                _(
                    "Remove %(user)s from the organisers of %(club)s? They keep their"
                    " login and their player, but can no longer run its tournaments."
                )
                % names
            )
        else:  # an organiser need not play (found by trying: "their player" of none)
            question = (
                _(
                    "Remove %(user)s from the organisers of %(club)s? They keep their"
                    " login, but can no longer run its tournaments."
                )
                % names
            )
        if user == request.user:
            question += " " + _("You will no longer organise it yourself.")
        return _confirm(request, club, question, _("Remove the organiser"))
    try:
        services.remove_organiser(club, user, by=_signed_in(request))
    except services.ServiceError as error:
        messages.error(request, error.message)
        return redirect("club-people", slug=club.slug)
    messages.success(
        request,
        _("%(user)s no longer organises %(club)s.")
        % {"user": user.get_username(), "club": club.name},
    )
    if not services.is_organiser(request.user, club):
        return redirect("home")
    return redirect("club-people", slug=club.slug)


def sign_up(request: HttpRequest, token: str) -> HttpResponseBase:
    """A club's sign-up link: a person makes their own login and player in the club."""
    club = services.club_of_signup_link(token)
    if club is None:
        return render(request, "clubs/sign_up_closed.html", status=404)
    form = SignUpForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            player = services.sign_up(token, data["name"], data["username"], data["password"])
        except services.ServiceError as error:
            _form_error(form, error)
        else:
            assert player.user is not None
            login(request, player.user, backend=_BACKEND)
            messages.success(
                request,
                _("Welcome to %(club)s, %(name)s. Register for a tournament from its page.")
                % {"club": club.name, "name": player.name},
            )
            return redirect("home")
    return render(request, "clubs/sign_up.html", {"form": form, "club": club})


@require_POST
@login_required
def club_language(request: HttpRequest, slug: str) -> HttpResponseBase:
    """The club's default language (docs/i18n.md), chosen by its organiser."""
    club = _organised(request, slug)
    form = ClubLanguageForm(request.POST)
    if not form.is_valid():
        messages.error(request, _("Choose one of the languages offered."))
        return redirect("club-people", slug=club.slug)
    services.set_club_language(club, form.cleaned_data["language"])
    if club.language:
        name = dict(settings.LANGUAGES)[club.language]
        messages.success(
            request,
            _("%(club)s's pages are in %(language)s unless a person chooses otherwise.")
            % {"club": club.name, "language": name},
        )
    else:
        messages.success(
            request, _("%(club)s has no language of its own now.") % {"club": club.name}
        )
    return redirect("club-people", slug=club.slug)


@require_POST
def switch_language(request: HttpRequest) -> HttpResponseBase:
    """The switcher: Django's ``set_language`` (the cookie, back to the page), and for a
    signed-in person the choice kept on their login too, for their other devices."""
    answer = set_language(request)
    language = request.POST.get("language", "")
    if request.user.is_authenticated and language in dict(settings.LANGUAGES):
        services.remember_language(_signed_in(request), language)
    return answer


class PasswordChange(auth_views.PasswordChangeView):
    """Django's password change, in our pages; back to the home page with a message."""

    template_name = "registration/password_change.html"
    success_url = reverse_lazy("home")

    def form_valid(self, form: Any) -> HttpResponse:
        answer = super().form_valid(form)
        messages.success(self.request, _("Your password is changed."))
        return answer
