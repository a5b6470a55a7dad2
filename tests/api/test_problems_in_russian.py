"""A problem's title and detail follow Accept-Language (English by default); its type and
fields never change with the language."""

from __future__ import annotations

import random
import re

from django.utils import translation
from rest_framework import fields, serializers

from tests.api.conftest import Api
from tests.api.test_games import act, drawer, is_problem, standalone
from tests.factories import ClubWorld, tournament_game
from tests.service.play import play
from tournaments import play as service
from tournaments.api import drf_words

RUSSIAN = {"Accept-Language": "ru"}


def test_an_illegal_action_is_told_in_russian_when_asked_and_in_english_by_default(
    world: ClubWorld, api: Api
) -> None:
    _, game = tournament_game(world)
    _, name = drawer(world, game)
    status, english, _ = act(api, world, game, name, {"type": "draw", "index": 99})
    assert status == 422 and is_problem(english, 422, "illegal-action")
    assert english["title"] == "Illegal action" and "choose a position" in english["detail"]
    game.refresh_from_db()
    status, russian, _ = api.post(
        f"/api/v1/games/{game.pk}/actions",
        {"action": {"type": "draw", "index": 99}, "expected_sequence": game.sequence},
        token=world.tokens[name],
        headers={"Idempotency-Key": "k-2", **RUSSIAN},
    )
    assert status == 422 and is_problem(russian, 422, "illegal-action")
    assert russian["type"] == english["type"] and russian["field"] == english["field"]
    assert russian["title"] == "Недопустимый ход"
    assert "выберите позицию от 0 до" in russian["detail"], russian["detail"]
    assert not re.search(r"\b(choose|position|offers|cards)\b", russian["detail"])


def test_an_unknown_address_is_not_found_in_the_language_asked(api: Api) -> None:
    status, english, _ = api.get("/api/v1/no-such-thing")
    status_ru, russian, _ = api.get("/api/v1/no-such-thing", headers=RUSSIAN)
    assert status == status_ru == 404
    assert english["type"] == russian["type"] == "/api/v1/problems/not-found"
    assert english["title"] == "Not found" and russian["title"] == "Не найдено"
    assert "there is no resource" in english["detail"]
    assert "ничего нет" in russian["detail"] and "/api/v1/no-such-thing" in russian["detail"]


def test_the_catalogue_of_problem_types_is_read_in_the_language_asked(api: Api) -> None:
    _, english, _ = api.get("/api/v1/problems/illegal-action")
    _, russian, _ = api.get("/api/v1/problems/illegal-action", headers=RUSSIAN)
    assert english["type"] == russian["type"] and english["status"] == russian["status"]
    assert english["title"] == "Illegal action" and russian["title"] == "Недопустимый ход"
    assert russian["description"].startswith("Правила сейчас не разрешают")


def test_a_tampered_record_is_told_in_russian_naming_the_move(world: ClubWorld, api: Api) -> None:
    game = play(standalone(world), random.Random(5))
    record = service.export_record(game)
    draws = [i for i, m in enumerate(record["moves"]) if m["action"]["type"] == "draw"]
    record["moves"][draws[0]]["action"]["index"] = 50
    _, english, _ = api.post("/api/v1/records/verify", record)
    status, russian, _ = api.post("/api/v1/records/verify", record, headers=RUSSIAN)
    assert status == 422 and russian["type"] == english["type"] == "/api/v1/problems/invalid-record"
    assert russian["move_index"] == english["move_index"] == draws[0]
    assert english["detail"].startswith(f"move {draws[0]}: seat ")
    assert russian["title"] == "Неверная запись партии"
    assert russian["detail"].startswith(f"ход {draws[0]}: в веере места "), russian["detail"]


def test_a_client_seed_and_a_mistyped_body_are_refused_in_russian(
    world: ClubWorld, api: Api
) -> None:
    # Found by trying: the client seed's refusals and the strict types' were English only.
    token = world.tokens["alice"]
    for path, body, field in (
        ("/api/v1/me/client-seed", {"seed": "привет"}, "seed"),
        ("/api/v1/me/client-seed", {"seed": "x" * 100}, "seed"),
        ("/api/v1/me/client-seed", {"seed": 123}, "seed"),
        ("/api/v1/me", {"play_forced_moves": "yes"}, "play_forced_moves"),
    ):
        method = api.put if path.endswith("client-seed") else api.patch
        status, problem, _ = method(path, body, token=token, headers=RUSSIAN)
        assert status in (400, 422) and problem["field"] == field, problem
        # The detail names the field first, as every problem does: its name is no word.
        # JSON's own words (true, false, JSON, ASCII) are no English either.
        words = re.sub(
            r'"[^"]*"|\d+|\b(true|false|null|JSON|ASCII)\b',
            "",
            problem["detail"].removeprefix(f"{field}: "),
        )
        assert not re.search(r"[A-Za-z]{4,}", words), problem["detail"]


def test_a_refused_sign_in_is_told_in_russian(world: ClubWorld, api: Api) -> None:
    # Found by trying: the 401s' words were English whatever the reader asked.
    _, game = tournament_game(world)
    for headers in (
        {"Authorization": "Bearer nope", **RUSSIAN},
        {"Authorization": "Bearer a b", **RUSSIAN},
    ):
        status, problem, _ = api.get(f"/api/v1/games/{game.pk}", headers=headers)
        assert status == 401 and re.search("[а-я]{4,}", problem["detail"]), problem
    status, problem, _ = api.post(
        f"/api/v1/games/{game.pk}/actions", {"action": {}}, headers=RUSSIAN
    )
    assert status == 401 and problem["detail"].startswith("войдите"), problem


def test_a_seating_refusal_is_told_in_russian(world: ClubWorld, api: Api) -> None:
    # Found by a Russian-speaking organiser: «тур 1 нельзя рассадить: Alice is fixed to
    # table 9; this round has 2 tables».
    status, created, _ = api.post(
        "/api/v1/tournaments",
        {"club": world.club.pk, "name": "Весна", "game": "old_maid", "rounds": 1,
         "table_min": 2, "table_max": 2},
        token=world.tokens["org"],
    )  # fmt: skip
    assert status == 201, created
    base = f"/api/v1/tournaments/{created['id']}"
    for name in ("alice", "bob", "carol", "dave"):
        api.post(
            f"{base}/registrations", {"player": world.players[name].pk}, token=world.tokens["org"]
        )
    alice = world.players["alice"]
    status, problem, _ = api.post(
        f"{base}/rounds",
        {"auto_check_in": True, "fixed": [{"player": alice.pk, "table": 9}]},
        token=world.tokens["org"],
        headers=RUSSIAN,
    )
    assert status == 422, problem
    assert problem["detail"] == (
        f"тур 1 нельзя рассадить: за игроком {alice.name} закреплён стол 9,"
        " а последний стол этого тура — 2"
    )
    assert not re.search(r"[A-Za-z]{2,}", problem["detail"].replace(alice.name, ""))


def test_a_body_that_is_not_json_is_told_in_russian(world: ClubWorld, api: Api) -> None:
    # Found by trying: the decoder's own words stayed English in a Russian answer
    # («тело запроса — некорректный JSON: Expecting value: line 1 column 4 (char 3)»).
    token = world.tokens["alice"]
    for raw, russian in (
        ("[1,", "ожидается значение (строка 1, позиция 4)"),
        ("{", "ожидается ключ в двойных кавычках (строка 1, позиция 2)"),
        ('{"a" 1}', "ожидается двоеточие (строка 1, позиция 6)"),
        ('{"a": 1}x', "лишний текст после значения (строка 1, позиция 9)"),
        ('"\\x"', "неизвестный символ после обратной косой черты (строка 1, позиция 2)"),
        (b"\xff", "байт 1 — не текст в кодировке UTF-8"),
    ):
        status, problem, _ = api.call(
            "PUT", "/api/v1/me/client-seed", raw=raw, token=token, headers=RUSSIAN
        )
        assert status == 400 and problem["type"] == "/api/v1/problems/bad-request", problem
        assert problem["detail"] == f"тело запроса — некорректный JSON: {russian}"
        assert not re.search(
            r"[A-Za-z]{2,}", problem["detail"].replace("JSON", "").replace("UTF", "")
        ), problem["detail"]
    _, english, _ = api.call("PUT", "/api/v1/me/client-seed", raw="[1,", token=token)
    assert english["detail"] == "the body is not valid JSON: a value is expected (line 1, column 4)"


def test_drf_s_own_refusals_of_a_body_are_in_russian(world: ClubWorld, api: Api) -> None:
    # Found by a Russian-speaking organiser: DRF's catalog left the lengths of a list in
    # English («Ensure this field has at least 2 elements.») and said a list half in
    # English («Ожидался list со значениями, но был получен "str"»).
    status, created, _ = api.post(
        "/api/v1/tournaments",
        {"club": world.club.pk, "name": "Весна", "game": "old_maid", "rounds": 1},
        token=world.tokens["org"],
    )
    assert status == 201, created
    rounds = f"/api/v1/tournaments/{created['id']}/rounds"
    for body, russian in (
        ({"apart": "x"}, "apart: ожидается список (массив JSON, например [1, 2])"),
        ({"fixed": {}}, "fixed: ожидается список (массив JSON, например [1, 2])"),
        ({"apart": [[1]]}, "apart.0: элементов в списке должно быть не меньше 2"),
        ({"apart": [[1, 2, 3]]}, "apart.0: элементов в списке должно быть не больше 2"),
        ({"fixed": ["x"]}, "fixed.0: ожидается объект JSON"),
    ):
        status, problem, _ = api.post(rounds, body, token=world.tokens["org"], headers=RUSSIAN)
        assert status == 400 and problem["detail"] == russian, (body, problem)
    # The msgids are DRF's own: an upgrade that changed one would leave ours unused.
    with translation.override("en"):
        drf = {
            str(message)
            for cls in (*vars(fields).values(), *vars(serializers).values())
            if isinstance(cls, type)
            for message in getattr(cls, "default_error_messages", {}).values()
        }
    assert set(drf_words.MESSAGES) <= drf, set(drf_words.MESSAGES) - drf
