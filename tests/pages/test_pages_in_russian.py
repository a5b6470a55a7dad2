"""The pages a player or spectator meets, in Russian: the home page, a tournament, a table, a
game, the play page, a replay, a player, "my games", the projector and the error pages, each
asked for with ``Accept-Language: ru`` (docs/i18n.md).

Each page must show its own words in Russian and none of the English ones it shows in
English; the move log's words, the cards' names and the games' names are the presenters'
(tests of their own), so these tests name the page's words, not every Latin letter.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from html.parser import HTMLParser

import pytest
from django.template.loader import render_to_string
from django.test import Client
from django.utils import formats, translation

from tests.factories import PageWorld, bot_tournament
from tournaments import services
from tournaments.models import Game, Table, Tournament

pytestmark = pytest.mark.django_db

#: The attributes a person reads or hears, as well as the text between the tags.
READ_ATTRIBUTES = ("title", "aria-label", "alt", "placeholder")


class _Reader(HTMLParser):
    """The text a person reads on a page: the visible text and the attributes read aloud,
    not scripts or styles."""

    def __init__(self) -> None:
        super().__init__()
        self.parts: list[str] = []
        self._skip = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in ("script", "style"):
            self._skip += 1
        self.parts.extend(value for name, value in attrs if name in READ_ATTRIBUTES and value)

    def handle_endtag(self, tag: str) -> None:
        if tag in ("script", "style") and self._skip:
            self._skip -= 1

    def handle_data(self, data: str) -> None:
        if not self._skip:
            self.parts.append(data)


def read(html: str) -> str:
    reader = _Reader()
    reader.feed(html)
    return re.sub(r"\s+", " ", " ".join(reader.parts))


def russian(client: Client, url: str, status: int = 200) -> str:
    response = client.get(url, HTTP_ACCEPT_LANGUAGE="ru")
    assert response.status_code == status, (url, response.status_code)
    assert response.headers["Content-Language"] == "ru"
    return read(response.content.decode())


def assert_russian(text: str, shown: list[str], not_shown: list[str]) -> None:
    missing = [words for words in shown if words not in text]
    english = [words for words in not_shown if re.search(rf"\b{re.escape(words)}\b", text)]
    assert not missing, f"missing Russian {missing} in: {text}"
    assert not english, f"English {english} left in: {text}"


def test_the_home_page_in_russian_lists_tournaments_with_counted_rounds(
    world: PageWorld,
) -> None:
    bot_tournament(world, "old_maid", players=3)
    bot_tournament(world, "bhabhi", players=3, play=False)
    services.create_tournament(world.club, "Пятничный вечер", "give_away", 2)
    text = russian(world.client(), "/")
    assert_russian(
        text,
        ["Главная", "Идёт сейчас", "Скоро", "Окончены", "1 тур", "2 тура", "0 участников"],
        ["Home", "Playing now", "Coming up", "Finished", "1 round", "2 rounds", "0 registered"],
    )


def test_a_finished_tournament_page_in_russian_has_its_standings_podium_and_statuses(
    world: PageWorld,
) -> None:
    tournament = bot_tournament(world, "give_away", players=4)
    text = russian(world.client(), f"/tournaments/{tournament.pk}/")
    assert_russian(
        text,
        ["окончен", "Призёры", "Итоговая турнирная таблица", "Игрок", "Очки", "Т1", "Туры"],
        ["finished", "Podium", "Final standings", "Player", "Points", "Rounds", "Table"],
    )
    # Fractional points use the Russian decimal comma, the date the Russian month's name.
    assert re.search(r"\b\d,\d", text), text
    made = tournament.created_at
    with translation.override("ru"):
        assert formats.date_format(made, "DATE_FORMAT") in text
    months = "января|февраля|марта|апреля|мая|июня|июля|августа|сентября|октября|ноября|декабря"
    assert re.search(rf"\d{{1,2}} ({months}) \d{{4}}", text), text


def test_points_on_a_russian_page_use_the_decimal_comma_and_the_english_keep_the_point(
    world: PageWorld,
) -> None:
    tournament = bot_tournament(world, "give_away", players=3)
    english = world.client().get(f"/tournaments/{tournament.pk}/").content.decode()
    ours = world.client().get(f"/tournaments/{tournament.pk}/", HTTP_ACCEPT_LANGUAGE="ru")
    points = re.findall(r'<td class="num"><strong>([0-9.,]+)</strong></td>', english)
    shown = re.findall(r'<td class="num"><strong>([0-9.,]+)</strong></td>', ours.content.decode())
    assert shown == [p.replace(".", ",") for p in points]
    assert any("." in p for p in points)


def test_a_running_tables_page_in_russian(world: PageWorld) -> None:
    tournament = bot_tournament(world, "bhabhi", players=3, play=False)
    table = Table.objects.get(round__tournament=tournament)
    text = russian(world.client(), f"/tables/{table.pk}/")
    assert_russian(
        text,
        [f"Стол {table.number}", "Серия:", "Партия 1", "Последние ходы"],
        ["Table", "Series", "Game", "Latest moves", "live", "move"],
    )


@pytest.mark.parametrize("kind", ["give_away", "old_maid", "bhabhi", "give_and_take"])
def test_the_play_page_in_russian_says_whose_move_it_is_and_counts_the_cards(
    world: PageWorld, make_person_game: Callable[..., Game], kind: str
) -> None:
    game = make_person_game(kind)
    text = russian(world.client(world.person), f"/games/{game.pk}/play")
    assert_russian(
        text,
        ["Главная", "Ваш ход", "Ваше время:", "Место 1", "осталось времени"],
        ["Your move", "Your time", "Seat", "time left", "Home", "Cards you may play"],
    )


def test_a_finished_game_and_its_replay_in_russian(world: PageWorld) -> None:
    tournament = bot_tournament(world, "old_maid", players=3)
    game = Game.objects.filter(table__round__tournament=tournament).first()
    assert game is not None
    client = world.client()
    text = russian(client, f"/games/{game.pk}/")
    assert_russian(
        text,
        ["окончена", "Повтор партии ход за ходом", "Обязательство тасовки"],
        ["Replay it move by move", "Shuffle commitment", "seed revealed"],
    )
    text = russian(client, f"/games/{game.pk}/replay?move=0")
    assert_russian(
        text,
        ["Повтор партии", "Сдача", "Назад", "Дальше", "Все ходы", "со всеми картами"],
        ["Replay", "Back", "Next", "Every move", "with every card", "moves", "Deal"],
    )
    text = russian(client, f"/games/{game.pk}/replay?seat=9", status=400)
    assert_russian(text, ["Такого места нет", "нет места"], ["No such seat", "There is no seat"])


def test_the_replay_of_a_running_game_is_refused_in_russian(world: PageWorld) -> None:
    tournament = bot_tournament(world, "bhabhi", players=3, play=False)
    game = Game.objects.get(table__round__tournament=tournament)
    text = russian(world.client(), f"/games/{game.pk}/replay", status=409)
    assert_russian(text, ["Эта партия ещё идёт"], ["This game is still being played"])


def test_a_players_page_and_my_games_in_russian(
    world: PageWorld, make_person_game: Callable[..., Game]
) -> None:
    bot_tournament(world, "give_away", players=3)
    text = russian(world.client(), f"/players/{world.bots[1].pk}/")
    assert_russian(
        text,
        ["Рейтинги", "Результаты", "Турниры", "бот со стратегией"],
        ["Ratings", "Results", "Tournaments", "bot", "replay", "heuristic"],
    )
    make_person_game("bhabhi")
    text = russian(world.client(world.person), "/me/")
    assert_russian(
        text,
        ["Мои игры", "ваш ход", "Честные колоды", "Вынужденные ходы", "Сохранить"],
        ["My games", "your move", "Fair decks", "Forced moves", "Save", "seat"],
    )


def test_the_projector_in_russian_loads_the_javascript_catalog(world: PageWorld) -> None:
    tournament = bot_tournament(world, "bhabhi", players=3, play=False)
    response = world.client().get(
        f"/tournaments/{tournament.pk}/projector", HTTP_ACCEPT_LANGUAGE="ru"
    )
    page = response.content.decode()
    assert '<html lang="ru">' in page
    assert "/jsi18n/" in page
    assert_russian(
        read(page),
        ["идёт", "Тур 1", "Стол 1", "Турнирная таблица", "проектор"],
        ["running", "Round", "Table", "Standings", "projector", "playing"],
    )


def test_the_error_pages_in_russian(world: PageWorld) -> None:
    text = russian(world.client(), "/tournaments/999999/", status=404)
    assert_russian(text, ["Не найдено", "Здесь ничего нет."], ["Not found", "nothing here"])


def test_a_registration_message_is_in_russian(world: PageWorld) -> None:
    made = services.create_tournament(world.club, "Вечер", "give_away", 2)
    client = world.client(world.person)
    response = client.post(
        f"/tournaments/{made.pk}/me/register", HTTP_ACCEPT_LANGUAGE="ru", follow=True
    )
    text = read(response.content.decode())
    assert Tournament.objects.get(pk=made.pk).registrations.exists()
    assert_russian(
        text,
        ["Вы записаны на турнир «Вечер».", "Сняться с турнира"],
        ["You are registered", "Withdraw"],
    )


def test_the_javascript_catalog_in_russian_holds_the_scripts_words(world: PageWorld) -> None:
    script = world.client().get("/jsi18n/", HTTP_ACCEPT_LANGUAGE="ru").content.decode()
    # Django writes the catalog as a JSON object (non-ASCII letters escaped) into the script.
    found = re.search(r"const newcatalog = (\{.*?\n  \});", script, re.S)
    assert found, script[:500]
    catalog = json.loads(found.group(1))
    texts = {t for v in catalog.values() for t in (v if isinstance(v, list) else [v])}
    for words in ("время вышло", "Пауза", "Оповещения: вкл.", "Скрыть это оповещение"):
        assert any(words in text for text in texts), words


def test_the_busy_page_is_in_the_language_of_the_request() -> None:
    # 503.html is rendered without a request (the database is out): the language is the one
    # LocaleMiddleware activated for the request that failed.
    with translation.override("ru"):
        page = render_to_string("503.html", {"retry_after": 5})
    assert '<html lang="ru">' in page
    assert_russian(read(page), ["Сервер ненадолго занят", "обновите её"], ["Busy", "reload"])


def test_a_spectator_on_a_play_page_is_refused_in_russian(world: PageWorld) -> None:
    tournament = bot_tournament(world, "bhabhi", players=3, play=False)
    game = Game.objects.get(table__round__tournament=tournament)
    text = russian(world.client(world.person), f"/games/{game.pk}/play", status=403)
    assert_russian(
        text,
        ["Нет доступа", "Вы не сидите за этим столом", "На главную страницу клуба"],
        ["Not allowed", "You do not sit at this table", "Back to the club's home"],
    )


def test_a_refused_page_is_logged_as_one_line_without_a_traceback(
    world: PageWorld, caplog: pytest.LogCaptureFixture
) -> None:
    # make run's log held a traceback for each of an evening's ordinary 403s (a spectator
    # on a play page), among which a real error was hard to see (found by trying).
    tournament = bot_tournament(world, "bhabhi", players=3, play=False)
    game = Game.objects.get(table__round__tournament=tournament)
    with caplog.at_level("WARNING", logger="django.request"):
        world.client(world.person).get(f"/games/{game.pk}/play")
    refused = [r for r in caplog.records if r.name == "django.request"]
    path = f"/games/{game.pk}/play"
    assert [r.getMessage() for r in refused] == [f"Forbidden (Permission denied): {path}"]
    assert refused[0].exc_info is None and "Traceback" not in caplog.text
    # And once: Django's own console handler wrote each django.* line a second time.
    from logging import getLogger

    assert not getLogger("django").handlers and getLogger("django").propagate
