"""The organiser's, the club's and the sign-in pages in Russian (issue 23): Russian text is
there and the English is not, down to the forms' labels, help and errors and the messages."""

from __future__ import annotations

import pytest
from django.conf import settings
from django.test import Client

from tests.factories import PageWorld, bot_tournament
from tournaments import services

pytestmark = pytest.mark.django_db

RU = {"HTTP_ACCEPT_LANGUAGE": "ru"}


def _russian(client: Client) -> Client:
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "ru"
    return client


def _page(client: Client, url: str) -> str:
    answer = client.get(url, follow=True)
    assert answer.status_code == 200, (url, answer.status_code)
    return answer.content.decode()


def _absent(page: str, *english: str) -> None:
    left = [text for text in english if text in page]
    assert not left, f"English left on a Russian page: {left}"


def test_the_login_page_is_in_russian() -> None:
    page = _page(Client(**RU), "/accounts/login/")
    assert "Имя пользователя" in page and "Пароль" in page and "Войти" in page
    _absent(page, "User name", "Password", "Log in")


def test_the_new_tournament_form_is_in_russian(world: PageWorld) -> None:
    page = _page(_russian(world.client(world.organiser)), "/tournaments/new")
    for text in ("Новый турнир", "Создать турнир", "Секунд на ход", "Рассадка", "Серия",
                 "Пусто: без часов.", "обычная серия этой игры"):  # fmt: skip
        assert text in page, text
    _absent(page, "Create the tournament", "Seconds per turn", "Empty: no clock.",
            "the game's usual series", " players)", "Series target", "tables of")  # fmt: skip


def test_a_refused_form_says_why_in_russian(world: PageWorld) -> None:
    client = _russian(world.client(world.organiser))
    answer = client.post(
        "/tournaments/new",
        {"club": world.club.pk, "name": "Весна", "game": "give_away", "rounds": 2,
         "series_kind": "first_to", "table_min": 4, "table_max": 2,
         "seating_mode": "mixing"},
    )  # fmt: skip
    page = answer.content.decode()
    assert "Укажите N для выбранной серии." in page
    _absent(page, "Give N for the series you chose.")


def test_the_desk_and_its_messages_are_in_russian(world: PageWorld) -> None:
    client = _russian(world.client(world.organiser))
    made = services.create_tournament(world.club, "Весенний кубок", "old_maid", 2)
    desk = f"/tournaments/{made.pk}/manage"
    page = _page(client, desk)
    for text in ("Туры", "Игроки", "Зарегистрировать выбранных игроков", "Исправления",
                 "Пока никто не записался.", "Рассадить тур 1"):  # fmt: skip
        assert text in page, text
    _absent(page, "Rounds", "Register the chosen players", "Corrections", "Seat round 1")
    ids = [str(p.pk) for p in world.bots[:3]]
    answer = client.post(f"{desk}/register", {"players": ids}, follow=True)
    page = answer.content.decode()
    assert "Зарегистрированы: Bot 0, Bot 1, Bot 2." in page
    assert "бот со стратегией" in page and "случайный бот" in page
    _absent(page, "Registered Bot", "heuristic bot", "random bot")
    answer = client.post(f"{desk}/check-in-all", follow=True)
    assert "На тур 1 отмечены 3 игрока." in answer.content.decode()
    confirm = _page(client, f"/tournaments/{made.pk}/confirm/delete")
    assert "Вы уверены?" in confirm and "удаляются 3 регистрации" in confirm
    _absent(confirm, "Are you sure?", "registrations go with it", "Cancel")


def test_a_use_cases_refusal_shows_in_russian(world: PageWorld) -> None:
    client = _russian(world.client(world.organiser))
    finished = bot_tournament(world, "old_maid", players=3)
    answer = client.post(
        f"/tournaments/{finished.pk}/manage/add-player", {"name": "Зоя"}, follow=True
    )
    page = answer.content.decode()
    assert f"турнир «{finished.name}» окончен" in page, page[-3000:]
    _absent(page, "is finished: nobody can enter it now")


def test_the_clubs_people_page_is_in_russian(world: PageWorld) -> None:
    client = _russian(world.client(world.organiser))
    page = _page(client, f"/clubs/{world.club.slug}/people")
    for text in ("Test Club: участники", "Ссылка для записи", "Организаторы", "Язык клуба",
                 "нет: язык браузера", "Игрок с логином", "Пароль (пусто:"):  # fmt: skip
        assert text in page, text
    _absent(page, "Sign-up link", "Organisers", "The club's language", "A player with a login")
    answer = client.post(f"/clubs/{world.club.slug}/sign-up-link/renew", follow=True)
    assert "Ссылка для записи включена." in answer.content.decode()
    question = _page(client, f"/clubs/{world.club.slug}/sign-up-link/off")
    assert "Отключить ссылку для записи в клуб Test Club?" in question


def test_the_sign_up_page_and_its_refusals_are_in_russian(world: PageWorld) -> None:
    token = services.renew_signup_link(world.club)
    client = Client(**RU)
    page = _page(client, f"/join/{token}")
    assert "Вступить в клуб Test Club" in page and "Имя пользователя для входа" in page
    _absent(page, "Join Test Club", "A user name to log in with")
    answer = client.post(
        f"/join/{token}",
        {"name": "Ann", "username": "ann2", "password": "x1-long-pass", "password_again": "y"},
    )
    page = answer.content.decode()
    assert "Пароли не совпадают" in page
    _absent(page, "The two passwords differ")
    closed = Client(**RU).get("/join/no-such-link")
    assert (
        closed.status_code == 404 and "Эта ссылка для записи не работает" in closed.content.decode()
    )


def test_the_password_change_page_is_in_russian(world: PageWorld) -> None:
    page = _page(_russian(world.client(world.person)), "/accounts/password/")
    assert "Смена пароля" in page and "Сменить пароль" in page
    _absent(page, "Change your password", "Change the password")
