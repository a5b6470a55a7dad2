"""The rules pages state every convention of CONVENTIONS.md, in Russian and in English.

Every bullet of ``../shared/rules/CONVENTIONS.md`` (the binding settlement of the points the
seeds leave open) has a stable id below, with the game it concerns (``None``: all four), the
opening words of its bullet and, for each language, phrases its paragraph must contain: the
short check that the paragraph states the convention and is not an empty section with the
right id.  Each rules page marks the paragraph of a convention ``<section
id="convention-<id>">``; a page that lacks one of its game's (or the common) conventions fails
here, and so does a Russian page with an English word on it.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path

import pytest
from django.test import Client
from django.urls import reverse

from engine.registry import game_ids
from tests.factories import PageWorld, bot_tournament
from tournaments.models import Game, Table

pytestmark = pytest.mark.django_db

ROOT = Path(__file__).resolve().parents[2]
#: The binding conventions, beside the project as the seeds are (README.md, "Rules").
CONVENTIONS_MD = ROOT.parent / "shared" / "rules" / "CONVENTIONS.md"
GAMES = ("give_away", "old_maid", "bhabhi", "give_and_take")
LANGUAGES = ("en", "ru")


@dataclass(frozen=True)
class Convention:
    #: The game it concerns; ``None`` for the conventions common to all four.
    game: str | None
    #: The opening words of its bullet in CONVENTIONS.md.
    opening: str
    #: Phrases the paragraph says in English, and in Russian.
    en: tuple[str, ...]
    ru: tuple[str, ...]


CONVENTIONS: dict[str, Convention] = {
    # -- common to all four --------------------------------------------------------------
    "common-seats": Convention(
        None,
        "**Seats** are numbered",
        ("clockwise", "(s+1) % n", "(s−1) % n", "still in the game"),
        ("по часовой стрелке", "(s+1) % n", "(s−1) % n", "выбывших пропускаются"),
    ),
    "common-cards": Convention(
        None,
        "**Cards** have the canonical code",
        ("2 3 4 5 6 7 8 9 T J Q K A", "S H D C", "TS", "ten of spades", "10", "canonical"),
        ("2 3 4 5 6 7 8 9 T J Q K A", "S H D C", "TS", "десятка пик", "10", "каноническом"),
    ),
    "common-dealing": Convention(
        None,
        "**Dealing**: the shuffled deck",
        ("ordered list", "one at a time", "left neighbour", "first card", "equal share"),
        ("упорядоченный список", "по одной", "соседа слева", "первой карты", "равную долю"),
    ),
    "common-shuffles": Convention(
        None,
        "**Shuffles are events.**",
        ("never uses chance", "order it produced", "same position", "cryptographically secure"),
        ("случайность не участвует", "получившегося порядка", "ту же позицию", "криптографически"),
    ),
    "common-dealer-rotation": Convention(
        None,
        "**Dealer rotation**",
        ("left neighbour of the previous dealer", "drawn at random", "least often", "Swiss"),
        ("сосед слева от предыдущего сдающего", "жребием", "реже всех", "швейцарке"),
    ),
    "common-illegal-actions": Convention(
        None,
        "**Illegal actions**",
        ("out of turn", "refuses it", "nothing changes", "penalties"),
        ("не в свою очередь", "отклоняет", "ничего не меняется", "штрафы"),
    ),
    "common-hidden-information": Convention(
        None,
        "**Hidden information**",
        ("own hidden cards", "only its size", "ace's declared value", "drawn blind", "public"),
        ("свои скрытые карты", "только её размер", "значение туза", "вслепую", "открытым"),
    ),
    # -- Give Away -----------------------------------------------------------------------
    "give-away-stacks": Convention(
        "give_away",
        "Each player's cards form one face-down personal stack.",
        ("single face-down personal stack", "at the bottom", "on top"),
        ("одну личную стопку", "в самом низу", "сверху"),
    ),
    "give-away-face-up": Convention(
        "give_away",
        "After the deal every player turns the top card",
        ("turns the top card", "more than one face-up card"),
        ("открывает верхнюю карту", "больше одной"),
    ),
    "give-away-foundations": Convention(
        "give_away",
        "Four foundation slots, empty at the start.",
        ("four foundation", "ace may start any empty", "r−1", "suit and colour do not matter"),
        ("четыре места для баз", "туз можно положить на любое пустое", "r−1", "масть и цвет не"),
    ),
    "give-away-turn": Convention(
        "give_away",
        "The left neighbour of the dealer moves first.",
        ("left neighbour moves first", "you must play it", "you choose", "pass", "not allowed"),
        ("сосед слева от сдающего", "обязаны её сыграть", "выбираете вы", "пас", "нельзя"),
    ),
    "give-away-going-out": Convention(
        "give_away",
        "The round ends at once, with that player the winner,",
        ("won the round at once", "face-down stack is empty"),
        ("сразу выиграли раунд", "закрытая стопка уже пуста"),
    ),
    "give-away-deadlock": Convention(
        "give_away",
        "**Deadlock**: when the number of consecutive passes",
        ("as many passes in a row as there are players", "smallest count", "draw"),
        ("пасов подряд стало столько же, сколько игроков", "наименьшим числом", "вничью"),
    ),
    "give-away-match": Convention(
        "give_away",
        "**Match**: rounds are played with dealer rotation",
        ("3 round wins", "drawn round brings nobody", "no limit on the number of deals", "shown"),
        ("выиграет 3 раунда", "ничья никого не продвигает", "число сдач не", "показываются"),
    ),
    "give-away-forced-moves": Convention(
        "give_away",
        "Every Give Away move is forced",
        ("every move", "is forced", "as that seat's own moves", "record is the same"),
        ("каждый ход вынужденный", "как его собственные ходы", "запись"),
    ),
    # -- Old Maid ------------------------------------------------------------------------
    "old-maid-fan": Convention(
        "old_maid",
        "Hands keep an order (the fan).",
        ("fan with an order", "end of the drawer's fan", "two or more", "shuffles", "equally"),
        ("веер", "в конец", "две карты или больше", "тасует", "на равных"),
    ),
    "old-maid-opening-discard": Convention(
        "old_maid",
        "After the deal every player discards all pairs at once;",
        ("all their pairs at once", "dealt first", "both pairs", "shown to everyone", "out"),
        ("все свои пары разом", "сдана первой", "обе пары", "видят все", "выходит из игры"),
    ),
    "old-maid-first-offer": Convention(
        "old_maid",
        "The dealer, if still in, offers their fan",
        ("dealer, if still in", "next active player on their left", "already out"),
        ("сдающий, если он ещё в игре", "следующему активному игроку слева", "уже вышел"),
    ),
    "old-maid-draw": Convention(
        "old_maid",
        "The player offered a fan draws one card",
        ("choosing a position", "how many cards", "discarded at once"),
        ("выбирая её место", "сколько там карт", "сразу сбрасывается"),
    ),
    "old-maid-next-offer": Convention(
        "old_maid",
        "Then the drawer offers their fan",
        ("drawer offers", "next active player after the drawer"),
        ("тянувший предлагает", "следующий активный игрок"),
    ),
    "old-maid-going-out": Convention(
        "old_maid",
        "A player whose hand becomes empty",
        ("avoided defeat", "same moment"),
        ("избежал поражения", "в один и тот же момент"),
    ),
    "old-maid-rearrange": Convention(
        "old_maid",
        "A player may rearrange their own fan",
        ("rearrange your own fan", "started drawing", "shuffled by the server", "recorded"),
        ("свой веер можно переложить", "не начали тянуть", "сервер", "записывается"),
    ),
    "old-maid-end": Convention(
        "old_maid",
        "The game ends when only one player has cards",
        ("only one player still has cards", "odd queen", "lose", "no other ranking"),
        ("только у одного игрока", "непарная дама", "проигрывает", "других мест нет"),
    ),
    "old-maid-series": Convention(
        "old_maid",
        "**Series**: an agreed number of games",
        ("agreed number of games", "one loss", "fewer losses rank higher", "share a place"),
        ("оговорённое число партий", "одно поражение", "меньше поражений", "место делится"),
    ),
    # -- Bhabhi --------------------------------------------------------------------------
    "bhabhi-ranks": Convention(
        "bhabhi",
        "Ranks high to low A K Q J T 9",
        ("A K Q J 10 9", "no trumps", "all 52 cards"),
        ("A K Q J 10 9", "козырей нет", "все 52"),
    ),
    "bhabhi-trick-1": Convention(
        "bhabhi",
        "**Trick 1**: the holder of A♠ leads A♠.",
        ("holds A♠ leads it", "exactly one card", "a spade", "face down", "discard"),
        ("у кого A♠, заходит с него", "ровно одну карту", "пику", "закрыто в сброс"),
    ),
    "bhabhi-later-tricks": Convention(
        "bhabhi",
        "**Later tricks**: clockwise from the leader,",
        ("follow the suit", "no duty to beat", "tochoo", "at once", "highest card", "picks up"),
        ("ходить в масть", "перебивать не обязательно", "точу (tochoo)", "тут же", "забирает"),
    ),
    "bhabhi-going-out": Convention(
        "bhabhi",
        "**Going out** is decided when a trick ends:",
        ("when a trick ends", "holds the next lead", "blind", "old discard", "recorded", "loses"),
        ("когда взятка кончилась", "следующий заход", "вслепую", "старого сброса", "проигрывает"),
    ),
    "bhabhi-out-together": Convention(
        "bhabhi",
        "Everyone who goes out at the end of one trick",
        ("same moment", "hand is taken goes out alone"),
        ("в один момент", "выходит один"),
    ),
    "bhabhi-take-left": Convention(
        "bhabhi",
        "**Taking the left hand**:",
        ("between tricks", "before the first trick", "whole hand", "avoided defeat", "must lead"),
        ("между взятками", "перед первой взяткой", "всю руку", "избегает поражения", "заходит"),
    ),
    "bhabhi-end": Convention(
        "bhabhi",
        "The game ends when only one player is left in it",
        ("only one player is left", "loses", "does not score"),
        ("остался один игрок", "проигрывает", "очков не даёт"),
    ),
    "bhabhi-series": Convention(
        "bhabhi",
        "**Series**: an agreed number of deals",
        ("agreed number of deals", "one loss", "fewer losses rank higher", "share a place"),
        ("оговорённое число сдач", "одно поражение", "меньше поражений", "место делится"),
    ),
    # -- Give & Take ---------------------------------------------------------------------
    "give-and-take-values": Convention(
        "give_and_take",
        "Values: A is 1 or 14",
        ("1 or 14", "king 13", "queen 12", "jack 11"),
        ("1 или 14", "король — 13", "дама — 12", "валет — 11"),
    ),
    "give-and-take-deal": Convention(
        "give_and_take",
        "**Deal**: each player has a left pile",
        ("left pile", "⌊52 / 2n⌋", "4 cards with 3 or 4 players", "reserve", "bottom card"),
        ("левая и правая", "⌊52 / 2n⌋", "4 карты при трёх или четырёх", "резерв", "нижняя"),
    ),
    "give-and-take-exchange": Convention(
        "give_and_take",
        "**Exchange**: for every pair of neighbours,",
        ("left pile of seat s", "right pile of seat s+1", "two players both boundaries"),
        ("левая стопка места s", "правой стопкой места s+1", "при двух игроках"),
    ),
    "give-and-take-duets": Convention(
        "give_and_take",
        "**Duets**: between seat `s` and its right neighbour",
        ("right neighbour", "right duet", "n duets"),
        ("соседом справа", "правый дуэт", "дуэтов тоже n"),
    ),
    "give-and-take-round": Convention(
        "give_and_take",
        "**Round**: every active player turns",
        (
            "all at the same moment",
            "declares it 1 or 14",
            "smallest difference",
            "captures",
            "clockwise from the capturer",
            "nearest the top",
        ),
        (
            "все одновременно",
            "объявляет туз за 1 или за 14",
            "наименьшей",
            "(взятие)",
            "начиная с забирающего",
            "ближе всех к верху",
        ),
    ),
    "give-and-take-aces": Convention(
        "give_and_take",
        "Ace declarations of one round may arrive in any order;",
        ("any order", "last one is in", "at once"),
        ("в любом порядке", "объявлен последний", "сразу"),
    ),
    "give-and-take-tie": Convention(
        "give_and_take",
        "**Tie** for the smallest difference:",
        ("nobody captures", "on top of them", "takes them all"),
        ("никто не забирает", "поверх них", "заберёт их все"),
    ),
    "give-and-take-running-out": Convention(
        "give_and_take",
        "**Running out** is checked at the start of each round:",
        (
            "start of each round",
            "exactly one player",
            "whole reserve",
            "out of the game",
            "close up",
        ),
        ("в начале каждого круга", "ровно у одного", "весь резерв", "выходит из игры", "смыкаются"),
    ),
    "give-and-take-ranking": Convention(
        "give_and_take",
        "**Ranking**: the first player out wins;",
        ("first player out wins", "last player left", "more cards rank higher", "share"),
        ("первый вышедший из игры побеждает", "последний оставшийся", "карт больше", "делится"),
    ),
    "give-and-take-series": Convention(
        "give_and_take",
        "**Series**: successive games with dealer rotation;",
        ("place points", "organiser's table", "n−1", "0 for"),
        ("очки за место", "таблице организатора", "n−1", "0"),
    ),
}

#: The Latin words a Russian rules page may hold: the games' proper names and the brand (the
#: glossary).
PROPER_NAMES = frozenset({"Give", "Away", "Take", "Getaway", "tochoo", "Parlour"})


def conventions_of(game: str) -> dict[str, Convention]:
    return {k: c for k, c in CONVENTIONS.items() if c.game in (None, game)}


class _Page(HTMLParser):
    """The rules article of a page: its text, each convention section's text, the code in it."""

    def __init__(self) -> None:
        super().__init__()
        self.depth = 0  # inside <article class="rules">: the nesting depth there
        self.sections: dict[str, list[str]] = {}
        self.open: list[tuple[str, int]] = []
        self.code = 0
        self.text: list[str] = []
        self.code_text: list[str] = []
        self.lang = ""

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        if tag == "html":
            self.lang = found.get("lang") or ""
        if self.depth:
            self.depth += 1
        elif tag == "article" and "rules" in (found.get("class") or "").split():
            self.depth = 1
        if not self.depth:
            return
        ident = found.get("id") or ""
        if tag == "section" and ident.startswith("convention-"):
            assert ident not in self.sections, f"{ident} twice"
            self.sections[ident] = []
            self.open.append((ident, self.depth))
        if tag == "code":
            self.code += 1

    def handle_endtag(self, tag: str) -> None:
        if not self.depth:
            return
        if tag == "code":
            self.code -= 1
        if self.open and self.open[-1][1] == self.depth:
            self.open.pop()
        self.depth -= 1

    def handle_data(self, data: str) -> None:
        if not self.depth:
            return
        (self.code_text if self.code else self.text).append(data)
        for ident, _depth in self.open:
            self.sections[ident].append(data)

    def section(self, ident: str) -> str:
        return " ".join("".join(self.sections[ident]).split())


def read(client: Client, url: str, language: str) -> _Page:
    response = client.get(url, HTTP_ACCEPT_LANGUAGE=language)
    assert response.status_code == 200, url
    page = _Page()
    page.feed(response.content.decode())
    assert page.depth == 0 and not page.open, "the article is closed"
    return page


# -- CONVENTIONS.md and the table above agree --------------------------------------------


def conventions_md_bullets() -> dict[str | None, list[str]]:
    """Each section's bullets (their first line), keyed by the section's engine id."""
    bullets: dict[str | None, list[str]] = {}
    game: str | None = None
    for line in CONVENTIONS_MD.read_text().splitlines():
        if line.startswith("## "):
            ids = re.findall(r"`([a-z_]+)`", line)
            game = ids[0] if ids else None
            bullets[game] = []
        elif line.startswith("- ") and bullets:
            bullets[game].append(line[2:])
    return bullets


@pytest.mark.skipif(
    not CONVENTIONS_MD.exists(), reason=f"{CONVENTIONS_MD} is not beside the project"
)
def test_every_bullet_of_conventions_md_has_an_id_and_every_id_a_bullet() -> None:
    bullets = conventions_md_bullets()
    assert set(bullets) == {None, *GAMES}
    for game, lines in bullets.items():
        ours = [c.opening for c in CONVENTIONS.values() if c.game == game]
        assert len(ours) == len(lines), f"{game}: {len(lines)} bullets, {len(ours)} ids"
        for opening, line in zip(ours, lines, strict=True):
            assert line.startswith(opening), f"{game}: {opening!r} is not {line!r}"


def test_every_game_has_conventions_and_the_ids_are_stable_words() -> None:
    assert {c.game for c in CONVENTIONS.values()} == {None, *GAMES}
    assert set(GAMES) <= set(game_ids())
    for ident in CONVENTIONS:
        assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", ident), ident


# -- every page states every convention ----------------------------------------------------


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("game", GAMES)
def test_the_rules_page_states_every_convention_of_its_game(game: str, language: str) -> None:
    page = read(Client(), reverse("rules-game", args=[game]), language)
    assert page.lang == language
    wanted = conventions_of(game)
    missing = sorted(set(f"convention-{k}" for k in wanted) - set(page.sections))
    assert not missing, f"{game} ({language}) lacks {missing}"
    unknown = sorted(set(page.sections) - {f"convention-{k}" for k in wanted})
    assert not unknown, f"{game} ({language}) marks {unknown}, not its conventions"
    for ident, convention in wanted.items():
        text = page.section(f"convention-{ident}").lower()
        for phrase in getattr(convention, language):
            assert phrase.lower() in text, f"{game} ({language}) {ident}: no {phrase!r}"


@pytest.mark.parametrize("game", GAMES)
def test_both_languages_mark_the_same_conventions(game: str) -> None:
    client = Client()
    url = reverse("rules-game", args=[game])
    english, russian = (read(client, url, language) for language in LANGUAGES)
    assert list(english.sections) == list(russian.sections)


def _latin_words(text: str) -> list[str]:
    return re.findall(r"[A-Za-z]{2,}", text)


@pytest.mark.parametrize("url", [*(f"/rules/{game}" for game in GAMES), "/rules/"])
def test_a_russian_rules_page_has_no_english_word_but_the_games_names(url: str) -> None:
    page = read(Client(), url, "ru")
    prose = "".join(page.text)
    assert not [w for w in _latin_words(prose) if w not in PROPER_NAMES]
    # Code is a card's code or a formula: single letters and card codes (TS), no words.
    code = " ".join(page.code_text)
    assert all(re.fullmatch(r"[2-9TJQKA][SHDC]", w) for w in _latin_words(code)), code
    assert re.search(r"[а-яё]{4}", prose)


@pytest.mark.parametrize("game", GAMES)
def test_the_frame_of_a_russian_rules_page_is_russian_too(game: str) -> None:
    html = Client().get(f"/rules/{game}", HTTP_ACCEPT_LANGUAGE="ru").content.decode()
    title = re.search(r"<title>(.*?)</title>", html, re.S)
    assert title and title.group(1).startswith("Правила: ")
    crumbs = html.split('<p class="crumbs">')[1].split("</p>")[0]
    others = html.split("</article>")[1].split("</main>")[0]
    for part in (title.group(1), crumbs, others):
        words = _latin_words(re.sub(r"<[^>]+>", " ", part))
        assert not [w for w in words if w not in PROPER_NAMES], part


@pytest.mark.parametrize("game", GAMES)
def test_tochoo_appears_on_a_russian_page_only_in_brackets(game: str) -> None:
    prose = "".join(read(Client(), f"/rules/{game}", "ru").text)
    assert prose.count("tochoo") == prose.count("(tochoo)")


# -- served in the request's language, linked from the pages that name a game --------------


def test_the_index_lists_every_game_in_the_request_language() -> None:
    client = Client()
    english = client.get("/rules/").content.decode()
    russian = client.get("/rules/", HTTP_ACCEPT_LANGUAGE="ru").content.decode()
    for game in GAMES:
        link = f'href="{reverse("rules-game", args=[game])}"'
        assert link in english and link in russian
    assert "The rules of the games" in english and "Правила игр" in russian
    assert "The rules of the games" not in russian
    assert "2–6 игроков" in russian and "2–4 игрока" in russian and "3–8 игроков" in russian


def test_the_language_chosen_in_the_switcher_beats_the_browser() -> None:
    client = Client()
    client.cookies["django_language"] = "ru"
    page = client.get("/rules/old_maid", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "непарная дама" in page and "odd queen" not in page
    english = Client().get("/rules/old_maid").content.decode()
    assert "odd queen" in english and "непарная дама" not in english


def test_a_game_without_rules_has_no_page() -> None:
    assert Client().get("/rules/no_such_game").status_code == 404
    assert Client().get("/rules/..%2Fbase").status_code == 404


def test_the_pages_that_name_a_game_link_to_its_rules(world: PageWorld) -> None:
    tournament = bot_tournament(world, "old_maid", players=3)
    game = Game.objects.get(table__round__tournament=tournament)
    table = Table.objects.get(round__tournament=tournament)
    rules = f'href="{reverse("rules-game", args=["old_maid"])}"'
    client = world.client(world.organiser)
    for url in (
        reverse("tournament", args=[tournament.pk]),
        reverse("table", args=[table.pk]),
        reverse("game", args=[game.pk]),
        reverse("game-replay", args=[game.pk]),
    ):
        assert rules in client.get(url).content.decode(), url


@pytest.mark.parametrize("game", GAMES)
def test_the_play_page_links_the_rules_of_its_game_in_russian_too(
    world: PageWorld, make_person_game: Callable[..., Game], game: str
) -> None:
    played = make_person_game(game)
    client = world.client(world.person)
    page = client.get(reverse("game-play", args=[played.pk]), HTTP_ACCEPT_LANGUAGE="ru")
    rules = reverse("rules-game", args=[game])
    assert f'<a class="rules-link small" href="{rules}">Правила</a>' in page.content.decode()
