"""Which language a request gets (docs/i18n.md): the person's choice (this browser's cookie,
else the one kept on their login), then Accept-Language, then the club's default, then
LANGUAGE_CODE; the API hears only Accept-Language, English by default."""

from __future__ import annotations

import pytest
from django.conf import settings
from django.test import Client, override_settings

from tests.factories import PageWorld, bot_tournament, club, user
from tournaments import services
from tournaments.models import AccountLanguage, Club

pytestmark = pytest.mark.django_db

COOKIE = settings.LANGUAGE_COOKIE_NAME


def _text(answer: object) -> str:
    assert answer.status_code == 200, answer.status_code  # type: ignore[attr-defined]
    return answer.content.decode()  # type: ignore[attr-defined]


def _is_russian(page: str) -> bool:
    """Whether the page is Russian, by its language and its header's log in or out (in
    every page's header); otherwise it must be the English page."""
    if '<html lang="ru">' in page and ("Войти" in page or "Выйти" in page):
        return True
    assert '<html lang="en">' in page and ("Log in" in page or "Log out" in page), page[:400]
    return False


def _club_language(found: Club, code: str) -> None:
    services.set_club_language(found, code)


# -- 1. the person's choice ------------------------------------------------------------------


def test_the_switchers_cookie_beats_the_browsers_accept_language() -> None:
    client = Client(HTTP_ACCEPT_LANGUAGE="en")
    client.cookies[COOKIE] = "ru"
    assert _is_russian(_text(client.get("/accounts/login/")))
    client = Client(HTTP_ACCEPT_LANGUAGE="ru")
    client.cookies[COOKIE] = "en"
    assert not _is_russian(_text(client.get("/accounts/login/")))


def test_a_cookie_naming_no_language_of_ours_is_passed_over() -> None:
    client = Client(HTTP_ACCEPT_LANGUAGE="ru")
    client.cookies[COOKIE] = "xx-nonsense"
    assert _is_russian(_text(client.get("/accounts/login/")))


def test_switching_sets_the_cookie_and_goes_back_to_the_page() -> None:
    client = Client()
    answer = client.post("/i18n/setlang/", {"language": "ru", "next": "/accounts/login/"})
    assert answer.status_code == 302 and answer["Location"] == "/accounts/login/"
    assert client.cookies[COOKIE].value == "ru"
    assert _is_russian(_text(client.get("/accounts/login/")))


def test_a_signed_in_persons_switch_is_kept_on_their_login_and_follows_them(
    world: PageWorld,
) -> None:
    laptop = world.client(world.person)
    laptop.post("/i18n/setlang/", {"language": "ru", "next": "/"})
    assert AccountLanguage.objects.get(user=world.person).language == "ru"
    # Another device: no cookie, a browser asking for English; their own choice wins.
    phone = Client(HTTP_ACCEPT_LANGUAGE="en")
    phone.force_login(world.person)
    assert COOKIE not in phone.cookies
    assert _is_russian(_text(phone.get("/me/")))
    # Switching back on the phone changes the kept choice too.
    phone.post("/i18n/setlang/", {"language": "en", "next": "/"})
    assert AccountLanguage.objects.get(user=world.person).language == "en"
    tablet = Client(HTTP_ACCEPT_LANGUAGE="ru")
    tablet.force_login(world.person)
    assert not _is_russian(_text(tablet.get("/me/")))


def test_this_browsers_cookie_beats_the_choice_kept_on_the_login(world: PageWorld) -> None:
    services.remember_language(world.person, "ru")
    client = world.client(world.person)
    client.cookies[COOKIE] = "en"
    assert not _is_russian(_text(client.get("/me/")))


def test_nothing_is_kept_for_an_anonymous_switch_or_a_language_we_do_not_have(
    world: PageWorld,
) -> None:
    Client().post("/i18n/setlang/", {"language": "ru", "next": "/"})
    assert not AccountLanguage.objects.exists()
    world.client(world.person).post("/i18n/setlang/", {"language": "de", "next": "/"})
    assert not AccountLanguage.objects.exists()
    with pytest.raises(services.ServiceError):
        services.remember_language(world.person, "de")


# -- 2. the browser's Accept-Language ----------------------------------------------------------


def test_without_a_choice_the_browsers_accept_language_counts() -> None:
    assert _is_russian(_text(Client(HTTP_ACCEPT_LANGUAGE="ru-RU,ru;q=0.9").get("/accounts/login/")))
    assert _is_russian(_text(Client(HTTP_ACCEPT_LANGUAGE="de, ru;q=0.5").get("/accounts/login/")))
    assert not _is_russian(_text(Client(HTTP_ACCEPT_LANGUAGE="en-GB").get("/accounts/login/")))


# -- 3. the club's default -----------------------------------------------------------------------


def test_a_clubs_pages_are_in_its_language_when_the_browser_asks_for_none_of_ours(
    world: PageWorld,
) -> None:
    _club_language(world.club, "ru")
    token = services.renew_signup_link(world.club)
    finished = bot_tournament(world, "old_maid", players=3)
    for url in (f"/join/{token}", f"/tournaments/{finished.pk}/", f"/players/{world.player.pk}/"):
        assert _is_russian(_text(Client().get(url))), url
        assert _is_russian(_text(Client(HTTP_ACCEPT_LANGUAGE="de").get(url))), url
        # A browser that asks for a language of ours is heard before the club.
        assert not _is_russian(_text(Client(HTTP_ACCEPT_LANGUAGE="en").get(url))), url
    # Another club's pages, and pages of no club, keep LANGUAGE_CODE.
    other = club("Other Club")
    services.add_player(other, "Zed")
    assert not _is_russian(_text(Client().get("/accounts/login/")))
    assert not _is_russian(_text(Client().get(f"/players/{other.players.get().pk}/")))


def test_a_signed_in_member_gets_their_clubs_language_on_any_page(world: PageWorld) -> None:
    _club_language(world.club, "ru")
    member = world.client(world.person)
    assert _is_russian(_text(member.get("/me/")))
    # Someone of no such club does not.
    stranger = Client()
    stranger.force_login(user("stranger"))
    assert not _is_russian(_text(stranger.get("/me/")))
    # Their own choice still comes first.
    services.remember_language(world.person, "en")
    assert not _is_russian(_text(member.get("/me/")))


def test_a_club_without_a_language_leaves_language_code(world: PageWorld) -> None:
    _club_language(world.club, "")
    assert not _is_russian(_text(world.client(world.person).get("/me/")))


# -- 4. LANGUAGE_CODE -----------------------------------------------------------------------------


@override_settings(LANGUAGE_CODE="ru")
def test_with_nothing_else_language_code_decides() -> None:
    assert _is_russian(_text(Client().get("/accounts/login/")))
    assert not _is_russian(_text(Client(HTTP_ACCEPT_LANGUAGE="en").get("/accounts/login/")))


# -- the API: only Accept-Language, English by default ---------------------------------------


@override_settings(LANGUAGE_CODE="ru")
def test_the_api_hears_only_accept_language_and_is_english_by_default(world: PageWorld) -> None:
    services.remember_language(world.person, "ru")
    _club_language(world.club, "ru")
    client = world.client(world.person)
    client.cookies[COOKIE] = "ru"
    answer = client.get("/api/v1/")
    assert answer["Content-Language"] == "en"
    answer = client.get("/api/v1/", HTTP_ACCEPT_LANGUAGE="ru")
    assert answer["Content-Language"] == "ru"
    answer = Client().get("/api/v1/nothing-here", HTTP_ACCEPT_LANGUAGE="de")
    assert answer["Content-Language"] == "en"


# -- the club's organiser sets it ---------------------------------------------------------------


def test_the_clubs_organiser_sets_its_language_on_the_people_page(world: PageWorld) -> None:
    organiser = world.client(world.organiser)
    page = _text(organiser.get(f"/clubs/{world.club.slug}/people"))
    assert 'id="club-language-form"' in page
    answer = organiser.post(f"/clubs/{world.club.slug}/language", {"language": "ru"})
    assert answer.status_code == 302
    world.club.refresh_from_db()
    assert world.club.language == "ru"
    organiser.post(f"/clubs/{world.club.slug}/language", {"language": ""})
    world.club.refresh_from_db()
    assert world.club.language == ""


def test_only_the_clubs_organisers_set_its_language_and_only_to_one_of_ours(
    world: PageWorld,
) -> None:
    answer = world.client(world.person).post(
        f"/clubs/{world.club.slug}/language", {"language": "ru"}
    )
    assert answer.status_code == 403
    world.client(world.organiser).post(f"/clubs/{world.club.slug}/language", {"language": "de"})
    world.club.refresh_from_db()
    assert world.club.language == ""
    with pytest.raises(services.ServiceError):
        services.set_club_language(world.club, "de")
