"""Every page, asked for in Russian, is in Russian (issue 23's proof, through the test client).

One world with everything a page can show: an empty install's first page, then a club with an
organiser and a player, a finished tournament of each game, a running one where the player is
to act, one where a bot holds the player's seat, one open for registration; every page of
tournaments/urls.py that a GET reaches is asked for with ``Accept-Language: ru`` by each kind
of visitor (and a few forms are sent wrong, for their refusals and errors), and the text a
person reads on it (tests/english.py) must hold no English word but the names typed in the
world.  The test lists every offender of every page at once.

The test also checks that the walk misses no page: every URL name of tournaments/urls.py is
visited, or listed in :data:`NOT_PAGES` with the reason it is not a page.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from django.contrib.auth.models import User
from django.template.loader import render_to_string
from django.test import Client
from django.urls import URLPattern, resolve
from django.utils import translation

from tests.english import english_words, has_russian, read_in_html
from tests.factories import PAGE_SEATS, bot_tournament, page_world, person_game, tournament
from tournaments import services, urls
from tournaments.models import Club, Game, Player, Round, Table, Tournament
from tournaments.workers.clock import hand_to_bot

pytestmark = pytest.mark.django_db

RUSSIAN = {"HTTP_ACCEPT_LANGUAGE": "ru"}

#: URL names of tournaments/urls.py that are no page a GET shows, and why.
NOT_PAGES = {
    "healthz": "JSON for load balancers",
    "set_language": "POST only: the language switcher's form",
    "club-language": "POST only: the people page's form for the club's language",
    "logout": "POST only (Django's LogoutView)",
    "club-new-player": "POST only: the people page's form",
    "club-add-organiser": "POST only: the people page's form",
    "my-notices": "JSON for notices.js (the browser run reads what it shows)",
    "my-client-seed": "POST only: the me page's form",
    "my-preferences": "POST only: the me page's form",
    "tournament-command": "POST only: the desk's forms",
    "tournament-standings-csv": "a CSV for spreadsheets: its column names are for programs",
    "game-act": "POST only: the play page's buttons",
    "game-take-back": "POST only: the play page's button",
}


class Walk:
    """Asks for pages in Russian and keeps what a person reads on each."""

    def __init__(self) -> None:
        self.offenders: dict[str, list[str]] = {}
        self.visited: set[str] = set()

    def get(self, client: Client, url: str, who: str) -> None:
        answer = client.get(url, follow=True, **RUSSIAN)  # type: ignore[arg-type]
        self.visited.add(resolve(url.split("?")[0]).url_name or url)
        where = f"{url} ({who}, {answer.status_code})"
        if "html" not in answer.get("Content-Type", ""):
            self.offenders[where] = [f"not an HTML page: {answer.get('Content-Type')}"]
            return
        self.check(where, answer.content.decode())

    def post(self, client: Client, url: str, data: dict[str, object], who: str) -> None:
        """A form sent (a refusal, mostly): the page it lands on, with its message."""
        answer = client.post(url, data, follow=True, **RUSSIAN)  # type: ignore[arg-type]
        self.check(
            f"POST {url} {sorted(data)} ({who}, {answer.status_code})", answer.content.decode()
        )

    def check(self, where: str, html: str) -> None:
        read = read_in_html(html)
        found = english_words(read, typed_names())
        if not has_russian(read):
            found.insert(0, "no Russian at all on the page")
        if found:
            self.offenders[where] = found

    def report(self) -> str:
        return "\n".join(
            f"{where}:\n    " + "\n    ".join(words) for where, words in self.offenders.items()
        )


def typed_names() -> list[str]:
    """Every name a person typed into the world: clubs, players, tournaments, logins."""
    return [
        *Club.objects.values_list("name", flat=True),
        *Player.objects.values_list("name", flat=True),
        *Tournament.objects.values_list("name", flat=True),
        *User.objects.values_list("username", flat=True),
    ]


def logged_in(user: User | None) -> Client:
    client = Client()
    if user is not None:
        client.force_login(user)
    return client


def walk_every_page() -> Walk:
    walk = Walk()
    anonymous = Client()
    # An empty install: its home page and the first-run page.
    walk.get(anonymous, "/", "anonymous, empty install")
    walk.get(anonymous, "/welcome", "anonymous, empty install")

    world = page_world()
    olga, ann = logged_in(world.organiser), logged_in(world.person)
    finished = {
        game: bot_tournament(world, game, players=max(PAGE_SEATS[game], 3)) for game in PAGE_SEATS
    }
    playing = person_game(world, "bhabhi")
    handed = person_game(world, "give_away")
    hand_to_bot(handed, world.person, seat=seat_index(handed, world.player))
    coming = tournament(world.club, [world.player, *world.bots[:2]], game="old_maid", rounds=2)
    coming.name = "Friday Night"
    coming.save(update_fields=["name"])
    services.renew_signup_link(world.club)
    world.club.refresh_from_db()
    second = User.objects.create_user("boris", password="boris-secret")
    services.add_player(world.club, "Boris", user=second)
    services.add_organiser(world.club, second)

    for who, client in (("anonymous", anonymous), ("Ann", ann), ("Olga", olga)):
        walk.get(client, "/", who)
        walk.get(client, "/welcome", who)
    walk.get(anonymous, "/accounts/login/", "anonymous")
    walk.get(ann, "/accounts/password/", "Ann")
    walk.get(anonymous, f"/join/{world.club.signup_token}", "anonymous")
    walk.get(anonymous, "/join/no-such-link", "anonymous")
    slug = world.club.slug
    walk.get(olga, f"/clubs/{slug}/people", "Olga")
    walk.get(olga, f"/clubs/{slug}/people/organisers/remove?user={second.pk}", "Olga")
    walk.get(olga, f"/clubs/{slug}/people/organisers/remove?user={world.organiser.pk}", "Olga")
    walk.get(olga, f"/clubs/{slug}/sign-up-link/renew", "Olga")
    walk.get(olga, f"/clubs/{slug}/sign-up-link/off", "Olga")
    walk.get(ann, f"/clubs/{slug}/people", "Ann, not an organiser")
    walk.get(ann, "/me/", "Ann")
    walk.get(olga, "/me/", "Olga")
    walk.get(olga, "/tournaments/new", "Olga")

    for t in (*finished.values(), playing.table.round.tournament, coming):
        for who, client in (("anonymous", anonymous), ("Ann", ann), ("Olga", olga)):
            walk.get(client, f"/tournaments/{t.pk}/", who)
        walk.get(olga, f"/tournaments/{t.pk}/manage", "Olga")
        walk.get(olga, f"/tournaments/{t.pk}/edit", "Olga")
        walk.get(anonymous, f"/tournaments/{t.pk}/projector", "anonymous")
    walk.get(ann, f"/tournaments/{coming.pk}/manage", "Ann, not an organiser")
    walk.get(ann, f"/tournaments/{coming.pk}/me/withdraw", "Ann")
    walk.get(ann, f"/tournaments/{playing.table.round.tournament_id}/me/withdraw", "Ann")
    ask = f"/tournaments/{coming.pk}/confirm"
    bot = world.bots[0].pk
    walk.get(olga, f"{ask}/withdraw?player={world.player.pk}", "Olga")
    walk.get(olga, f"{ask}/drop?player={bot}", "Olga")
    walk.get(olga, f"{ask}/absent?player={world.player.pk}", "Olga")
    walk.get(olga, f"{ask}/delete", "Olga")
    services.start_round(coming, auto_check_in=True)
    walk.get(olga, f"/tournaments/{coming.pk}/manage", "Olga, round 1 seated")
    walk.get(olga, f"{ask}/reseat", "Olga")
    done = finished["bhabhi"]
    player_done = Table.objects.filter(round__tournament=done).first()
    assert player_done is not None
    done_player = player_done.seats.first()
    assert done_player is not None
    ask_done = f"/tournaments/{done.pk}/confirm"
    walk.get(olga, f"{ask_done}/forfeit?player={done_player.player_id}&round=1", "Olga")
    services.forfeit(done, done_player.player, 1, by=world.organiser)
    walk.get(olga, f"{ask_done}/unforfeit?player={done_player.player_id}&round=1", "Olga")
    walk.get(anonymous, f"/tournaments/{done.pk}/", "anonymous, a forfeit")
    handed_seat = handed.table.seats.get(player=world.player)
    ask_handed = f"/tournaments/{handed.table.round.tournament_id}/confirm"
    walk.get(olga, f"{ask_handed}/take-back?table_seat={handed_seat.pk}", "Olga")

    for game in (*Game.objects.filter(status=Game.Status.OVER).order_by("kind", "id")[:8],):
        walk.get(anonymous, f"/tables/{game.table_id}/", "anonymous")
        walk.get(anonymous, f"/games/{game.pk}/", "anonymous")
        walk.get(anonymous, f"/games/{game.pk}/replay", "anonymous")
        walk.get(anonymous, f"/games/{game.pk}/replay?seat=1", "anonymous")
    over = Game.objects.filter(status=Game.Status.OVER).first()
    assert over is not None
    walk.get(anonymous, f"/games/{over.pk}/replay?seat=99", "anonymous")
    for game in (playing, handed):
        walk.get(anonymous, f"/tables/{game.table_id}/", "anonymous")
        walk.get(anonymous, f"/games/{game.pk}/", "anonymous")
        walk.get(ann, f"/games/{game.pk}/", "Ann")
        walk.get(anonymous, f"/games/{game.pk}/replay", "anonymous, still playing")
        walk.get(ann, f"/games/{game.pk}/play", "Ann")
        walk.get(olga, f"/games/{game.pk}/play", "Olga, not seated")
    walk.get(anonymous, f"/players/{world.player.pk}/", "anonymous")
    walk.get(anonymous, f"/players/{world.bots[1].pk}/", "anonymous")
    walk.get(anonymous, "/games/999999/", "anonymous, no such game")
    walk.get(anonymous, "/rules/", "anonymous")
    for game in PAGE_SEATS:
        walk.get(anonymous, f"/rules/{game}", "anonymous")

    # Forms sent wrong: the refusals and the forms' errors, in the pages they land on.
    walk.post(Client(), "/accounts/login/", {"username": "ann", "password": "wrong"}, "anonymous")
    walk.post(olga, "/tournaments/new", {"name": "", "game": "bhabhi", "rounds": "0"}, "Olga")
    walk.post(olga, f"/tournaments/{coming.pk}/manage/check-in", {}, "Olga")
    walk.post(olga, f"/tournaments/{coming.pk}/manage/begin-round", {}, "Olga")
    walk.post(olga, f"/tournaments/{coming.pk}/manage/add-player", {"name": "Ann"}, "Olga")
    walk.post(olga, f"/clubs/{slug}/people/new", {"name": "", "username": "a b"}, "Olga")
    walk.post(ann, f"/games/{playing.pk}/act", {"action": "[]", "sequence": "1"}, "Ann")
    walk.post(
        ann,
        f"/games/{playing.pk}/act",
        {"action": '{"type": "no"}', "sequence": str(playing.sequence)},
        "Ann",
    )
    walk.post(ann, f"/tournaments/{finished['bhabhi'].pk}/me/register", {}, "Ann")
    walk.post(ann, "/accounts/password/", {"old_password": "x", "new_password1": "y"}, "Ann")
    walk.post(
        anonymous,
        f"/join/{world.club.signup_token}",
        {"name": "Ann", "username": "ann"},
        "anonymous",
    )
    return walk


def seat_index(game: Game, player: Player) -> int:
    return [entry["player"] for entry in game.context["seats"]].index(player.pk)


def every_url_name() -> set[str]:
    return {p.name for p in urls.urlpatterns if isinstance(p, URLPattern) and p.name}


def test_every_page_asked_for_in_russian_has_no_english_but_typed_names() -> None:
    walk = walk_every_page()
    # The world really holds what the pages are to show, and the walk missed no page.
    kinds = set(Game.objects.filter(status=Game.Status.OVER).values_list("kind", flat=True))
    assert kinds == set(PAGE_SEATS)
    assert Round.objects.filter(status=Round.Status.PLAYING).exists()
    # Everything wrong at once: the pages the walk missed and the English on those it saw.
    problems = []
    missing = every_url_name() - walk.visited - set(NOT_PAGES)
    if missing:
        problems.append(f"pages the Russian walk never asks for: {sorted(missing)}")
    if set(NOT_PAGES) - every_url_name():
        problems.append(f"NOT_PAGES names pages that are gone: {set(NOT_PAGES) - every_url_name()}")
    if walk.offenders:
        problems.append(
            f"{len(walk.offenders)} pages with English on them (mark and translate):\n"
            + walk.report()
        )
    assert not problems, "\n\n".join(problems)


@pytest.mark.parametrize("template", ["503.html", "403.html", "404.html"])
def test_the_error_pages_are_in_russian(template: str) -> None:
    render: Callable[..., str] = render_to_string
    with translation.override("ru"):
        html = render(template, {})
    walk = Walk()
    walk.check(template, html)
    assert not walk.offenders, walk.report()
