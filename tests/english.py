"""English left on a page served in Russian (issue 23): the words in Latin letters a person reads.

What a person reads is the page's text outside <script>/<style> and the attributes read to or
shown to them (title, aria-label, alt, placeholder, the value of an input drawn as a button).
Allowed: the names people typed (players, clubs, tournaments, logins), the brand «Parlour»,
the game names as the seeds give them (and an original name in brackets: «точу (tochoo)»),
card faces (Q♥, 10♠), one letter standing alone (a variable, a player of an example),
the names CSV, JSON and SHA-256, hashes and seeds (hexadecimal), <code> and <var> (commands,
hashes, formulas: the same in every language), and text an element declares to be in
another language (``lang="en"``: the switcher names English in English).

One rule for both the page tests (HTML from Django's test client, :func:`read_in_html`) and
the browser run (innerText and attributes from Chromium, :func:`english_words`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from html.parser import HTMLParser

#: Attributes people read or hear (screen readers speak aria-label and alt).
READ_ATTRIBUTES = ("title", "aria-label", "alt", "placeholder", "aria-description")
#: Inputs whose value is drawn as a button's words.
BUTTON_INPUTS = ("submit", "button", "reset")
#: The brand: the same in every language.
BRAND = "Parlour"
#: Names Russian writes as they are: the formats' and the hash's (CSV, JSON, SHA-256).  One
#: letter standing alone is allowed too (:func:`allowed_word`): the N of a formula, the
#: cards' rank letters («A K Q J 10 … 2»); and the Latin words of the game names
#: («пенджабский вариант Getaway»).
TERMS = frozenset({"CSV", "JSON", "SHA"})
#: The game names as the seeds give them in Russian (/work/notes/glossary.md): two of them
#: keep a Latin part.
GAME_NAMES = ("Give Away: общие базы", "Бхабхи (Getaway)")
#: Original names given in brackets after the Russian (the glossary's «точу (tochoo)»).
ORIGINAL_NAMES = ("(Give & Take)", "(Getaway)", "(tochoo)")
#: A card face: its rank (a letter for the court cards and the ace) and its suit's symbol,
#: or a rank alone (a card draws its rank and its suit in elements of their own).
CARD_FACE = re.compile(r"(?<![A-Za-z])(?:10|[2-9JQKA])\s*[♠♥♦♣]|^\s*[JQKA]\s*$")
#: Hashes, seeds and commitments: long hexadecimal runs.
HEX = re.compile(r"\b[0-9a-fA-F]{16,}\b")
LATIN = re.compile(r"[A-Za-z]+")
#: A number written the English way: a decimal point (Russian writes «0,5»); not a date
#: (01.12.2026), which Russian writes with points.
DECIMAL_POINT = re.compile(r"(?<![\d.])\d+\.\d+(?![\d.])")
CYRILLIC = re.compile(r"[А-Яа-яЁё]")
#: Elements whose content is not read as text.
UNREAD = frozenset({"script", "style", "template", "code", "var"})
#: Elements that never have content (no end tag): they never wrap text.
VOID = frozenset(
    {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "wbr"}
)

JS_READ_TEXT = """() => {
  const read = ['title', 'aria-label', 'alt', 'placeholder', 'aria-description'];
  const found = [];
  const foreign = el => { const l = el.closest('[lang]'); return l && !l.lang.startsWith('ru'); };
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const el = node.parentElement;
    if (!el || el.closest('script, style, template, code, var') || foreign(el)) continue;
    if (node.textContent.trim()) found.push(node.textContent);
  }
  for (const el of document.querySelectorAll('*')) {
    if (foreign(el)) continue;
    for (const name of read) if (el.getAttribute(name)) found.push(el.getAttribute(name));
    if (el.tagName === 'INPUT' && ['submit', 'button', 'reset'].includes(el.type) && el.value)
      found.push(el.value);
  }
  found.push(document.title);
  return found;
}"""
"""What a person reads on the page in the browser (its text as laid out now, in every state
the scripts have put it in, and the read attributes), as a list of strings: for
``page.evaluate``.  Text nodes rather than ``innerText``, so hidden parts (a notice not yet
shown) count too."""


class _ReadText(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.found: list[str] = []
        #: Open elements: (tag, whether its content is not read or in another language).
        self.open: list[tuple[str, bool]] = []

    def _skipping(self) -> bool:
        return any(skip for _, skip in self.open)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        lang = values.get("lang")
        foreign = lang is not None and not (lang or "").startswith("ru") and tag != "html"
        if tag not in VOID:
            self.open.append((tag, tag in UNREAD or foreign))
        if self._skipping() or foreign:
            return
        for name in READ_ATTRIBUTES:
            if values.get(name):
                self.found.append(values[name] or "")
        if tag == "input" and values.get("type") in BUTTON_INPUTS and values.get("value"):
            self.found.append(values["value"] or "")

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.handle_starttag(tag, attrs)
        if tag not in VOID and self.open and self.open[-1][0] == tag:
            self.open.pop()

    def handle_endtag(self, tag: str) -> None:
        for i in range(len(self.open) - 1, -1, -1):
            if self.open[i][0] == tag:
                del self.open[i:]
                return

    def handle_data(self, data: str) -> None:
        if data.strip() and not self._skipping():
            self.found.append(data)


def read_in_html(html: str) -> list[str]:
    """The strings a person reads in an HTML page (Django's rendering)."""
    parser = _ReadText()
    parser.feed(html)
    parser.close()
    return parser.found


def allowed_word(match: re.Match[str], allowed: set[str]) -> bool:
    """A name, a term, or one letter standing alone: a symbol (a player «B» of an example, a
    variable), not a word; but not one written against a number (R1: Round 1)."""
    word, text = match.group(0), match.string
    if word in allowed:
        return True
    before = text[match.start() - 1] if match.start() else " "
    after = text[match.end()] if match.end() < len(text) else " "
    return len(word) == 1 and not (before.isdigit() or after.isdigit())


def english_words(texts: Iterable[str], names: Iterable[str]) -> list[str]:
    """The strings of ``texts`` that hold Latin-letter words other than ``names`` (the names
    people typed), the brand, the game names, card faces and hashes, or a number with a
    decimal point: each once, in the order met, as a person reads it, with what is wrong in
    it in brackets."""
    allowed = {BRAND, *TERMS, *(w for game in GAME_NAMES for w in LATIN.findall(game))}
    for name in names:
        allowed.update(LATIN.findall(name))
    found: dict[str, None] = {}
    for text in texts:
        text = " ".join(text.split())  # a name may break across the source's lines
        for game in (*GAME_NAMES, *ORIGINAL_NAMES):
            text = text.replace(game, " ")
        text = CARD_FACE.sub(" ", HEX.sub(" ", text))
        bad = [m.group(0) for m in LATIN.finditer(text) if not allowed_word(m, allowed)]
        bad += DECIMAL_POINT.findall(text)
        if bad:
            shown = " ".join(text.split())
            if len(shown) > 160:
                shown = shown[:157] + "…"
            found[f"{shown}  [{', '.join(dict.fromkeys(bad))}]"] = None
    return list(found)


def has_russian(texts: Iterable[str]) -> bool:
    return any(CYRILLIC.search(text) for text in texts)
