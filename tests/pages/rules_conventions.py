"""Every convention of CONVENTIONS.md, by a stable id: the game it concerns and a short check.

``../shared/rules/CONVENTIONS.md`` settles, bindingly, the points the seeds leave open. Each
of its bullets has an id here (``common-seats``, ``bhabhi-take-left``), with the game it
concerns (``None``: all four), the opening words of its bullet, and for each language phrases
its paragraph on a rules page must contain.  A rules page marks that paragraph ``<section
id="convention-<id>">``; tests/pages/test_rules_pages.py reads this table (docs/rules/README.md).
"""

from __future__ import annotations

from dataclasses import dataclass


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
