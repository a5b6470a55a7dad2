"""Every string a person reads is marked for translation (issue 23): in the templates, in the
Python that writes words for people, and in the pages' JavaScript.

tests/project/test_translations.py proves that what is marked is in the Russian catalog,
translated; this module proves that nothing a person reads escapes the marking.  It reads the
sources — templates with Django's template Lexer, Python with ast, the plain JavaScript (no
build) with a small scanner — rather than the rendered pages, so it sees every branch of
every template, also those no test world reaches;
tests/pages/test_russian_pages.py and tests/browser/test_in_russian.py look at the pages.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from html.parser import HTMLParser
from pathlib import Path

import pytest
from django.conf import settings
from django.template.base import Lexer, TokenType

ROOT = Path(settings.BASE_DIR)
TEMPLATES = ROOT / "templates"

#: A word: two letters in a row (any script: Russian left unmarked in a template is as wrong
#: as English, since English is the source language of the catalogs).
WORD = re.compile(r"[^\W\d_]{2,}")

#: What may stand unmarked where people read, and why.
ALLOWED = {
    "Parlour",  # the brand, the same in every language
}

#: Attributes whose values people read (or hear: screen readers speak aria-label and alt).
READ_ATTRIBUTES = {"title", "aria-label", "alt", "placeholder", "aria-description"}
#: ``value`` is read only on inputs drawn as buttons.
BUTTON_INPUTS = {"submit", "button", "reset"}
#: Elements whose content no person reads as text.
UNREAD_ELEMENTS = {"script", "style"}

#: Stands for a template tag or variable in the text rebuilt for the HTML parser: no letters,
#: and spaces round it so that ``<tr{% if … %} class="x"{% endif %}>`` still parses as a tag.
HOLE = " \u2063 "


def without_allowed(text: str) -> str:
    for allowed in ALLOWED:
        text = text.replace(allowed, " ")
    return text


class ReadText(HTMLParser):
    """The text people read in one template (tags and variables replaced by :data:`HOLE`):
    element content outside <script>/<style>, and the read attributes' values."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        #: (what it is, its text): ``'title="…"'`` or the content itself.
        self.found: list[tuple[str, str]] = []
        self.unread_depth = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in UNREAD_ELEMENTS:
            self.unread_depth += 1
        values = dict(attrs)
        for name, value in attrs:
            read = name in READ_ATTRIBUTES or (
                name == "value" and tag == "input" and values.get("type") in BUTTON_INPUTS
            )
            if read and value:
                self.found.append((f'{name}="{value}"', value))

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.handle_starttag(tag, attrs)
        if tag in UNREAD_ELEMENTS:
            self.unread_depth -= 1

    def handle_endtag(self, tag: str) -> None:
        if tag in UNREAD_ELEMENTS and self.unread_depth:
            self.unread_depth -= 1

    def handle_data(self, data: str) -> None:
        if not self.unread_depth and data.strip():
            self.found.append((data, data))


#: Filters whose quoted argument is text shown to people (``|default:"the table"``).
READ_FILTER_ARGUMENT = re.compile(r"\|(?:default|default_if_none|yesno):(['\"])(.*?)\1")
#: ``with name="text"`` in {% include %} / {% with %}: a literal handed to a template.
WITH_LITERAL = re.compile(r"\b[\w.]+=(['\"])(.*?)\1")
#: Literals passed on that are names, not words: {% include … with part="seat" %}.
WITH_NAMES = {"part"}


def unmarked_in_template(source: str) -> list[str]:
    """The unmarked strings people read in one template's source."""
    rebuilt: list[str] = []
    found: list[str] = []
    inside_blocktranslate = False
    inside_comment = False
    for token in Lexer(source).tokenize():
        content = token.contents
        first = content.split(" ", 1)[0] if token.token_type == TokenType.BLOCK else ""
        if inside_comment:
            inside_comment = first != "endcomment"
            continue
        if first == "comment":
            inside_comment = True
            continue
        if first in ("blocktranslate", "blocktrans"):
            inside_blocktranslate = True
        if inside_blocktranslate:
            inside_blocktranslate = first not in ("endblocktranslate", "endblocktrans")
            rebuilt.append(HOLE)
            continue
        if token.token_type == TokenType.TEXT:
            rebuilt.append(token.contents)
            continue
        if token.token_type == TokenType.COMMENT:
            continue
        rebuilt.append(HOLE)
        if token.token_type == TokenType.VAR or (
            token.token_type == TokenType.BLOCK and first not in ("translate", "trans")
        ):
            for match in READ_FILTER_ARGUMENT.finditer(content):
                if WORD.search(match.group(2)):
                    found.append(f"{{{{ {content} }}}}")
            if first in ("include", "with"):
                for match in WITH_LITERAL.finditer(content):
                    name = match.group(0).split("=", 1)[0]
                    if name not in WITH_NAMES and WORD.search(match.group(2)):
                        found.append(f"{{% {content} %}}")
            if "|pluralize" in content:  # English plurals: {% blocktranslate count %} instead
                found.append(f"{{{{ {content} }}}}")
    html = re.sub(r"<!--.*?-->", "", "".join(rebuilt), flags=re.S)
    parser = ReadText()
    parser.feed(html)
    parser.close()
    for shown, text in parser.found:
        if WORD.search(without_allowed(text.replace(HOLE.strip(), " "))):
            found.append(" ".join(shown.replace(HOLE.strip(), "…").split()))
    return found


def templates() -> list[Path]:
    """The templates with source strings: not those in a folder named for a language
    (``rules/ru/``, ``rules/en/``), which are written in that language, one per language,
    and chosen by the request's (the page walk reads them as served)."""
    languages = {code for code, _ in settings.LANGUAGES}
    return sorted(
        path
        for path in TEMPLATES.rglob("*.html")
        if not languages & set(path.relative_to(TEMPLATES).parts[:-1])
    )


def test_the_template_check_finds_what_a_person_reads() -> None:
    # The check itself, on a template of every kind of place a word can hide.
    source = (
        '{% load i18n %}<h1>{% translate "Marked" %}</h1><p>Plain words</p>'
        '<a href="{% url "home" %}" title="Read title" class="button primary">{{ x }}</a>'
        '<img alt="A picture"><input type="submit" value="Send it"><input name="q" value="x1">'
        "<select><option>First option</option></select><!-- a comment --> {# a note #}"
        "{% comment %}Not shown{% endcomment %}<script>let text = 'code';</script>"
        "{% blocktranslate with n=x %}{{ n }} marked{% endblocktranslate %}"
        '{{ name|default:"nobody" }} {{ n|pluralize }} · Parlour ♠ 12'
    )
    assert unmarked_in_template(source) == [
        '{{ name|default:"nobody" }}',
        "{{ n|pluralize }}",
        "Plain words",
        'title="Read title"',
        'alt="A picture"',
        'value="Send it"',
        "First option",
    ]


@pytest.mark.parametrize("template", templates(), ids=lambda p: str(p.relative_to(TEMPLATES)))
def test_every_string_a_person_reads_in_a_template_is_marked(template: Path) -> None:
    unmarked = unmarked_in_template(template.read_text(encoding="utf-8"))
    assert not unmarked, (
        f"{template.relative_to(ROOT)}: {len(unmarked)} unmarked strings people read"
        " (wrap them in {% translate %} / {% blocktranslate %}):\n  " + "\n  ".join(unmarked)
    )


# -- Python ------------------------------------------------------------------------------------

#: The Python that writes words for people: the pages' views, the forms, the presenters (the
#: table, the log, the buttons), the use cases' refusals, the API's problems, the logins, the
#: clock's refusals and the management commands' messages to organisers.
PYTHON_SOURCES = (
    "tournaments/web",
    "tournaments/forms.py",
    "tournaments/presenters",
    "tournaments/services",
    "tournaments/api/problems.py",
    "tournaments/logins.py",
    "tournaments/templatetags",
    "tournaments/workers/clock.py",
)
#: Where only the messages count (what ``self.stdout.write`` and ``CommandError`` say to the
#: organiser running the command), not every sentence: the commands' --help is for the
#: operator, and load_demo's names are names.
MESSAGE_SOURCES = ("tournaments/management/commands",)
#: Calls whose arguments are marked (their literals are the msgids).
GETTEXT = {
    "gettext",
    "gettext_lazy",
    "ngettext",
    "ngettext_lazy",
    "pgettext",
    "pgettext_lazy",
    "npgettext",
    "npgettext_lazy",
    "gettext_noop",
    "_",
}
#: Calls whose literal arguments are not for people: logs, programmers' errors, lookups, and
#: Http404's reason (templates/404.html shows none of it).
NOT_READ_CALLS = {
    "debug",
    "exception",
    "getLogger",
    "get",
    "getattr",
    "setdefault",
    "pop",
    "filter",
    "exclude",
    "get_or_create",
    "order_by",
    "values",
    "values_list",
    "select_related",
    "prefetch_related",
    "only",
    "annotate",
    "reverse",
    "redirect",
    "render",
    "render_to_string",
    "get_template",
    "startswith",
    "endswith",
    "split",
    "join",
    "replace",
    "strip",
    "AssertionError",
    "ValueError",
    "Http404",
    "TypeError",
    "KeyError",
    "RuntimeError",
    "NotImplementedError",
    "ImproperlyConfigured",
    "cast",
    "TypeVar",
    "mark_safe",
}
#: Calls whose literal arguments people read, by position (``None``: every one): messages,
#: refusals and errors (their first argument; the second is the field at fault), problems,
#: the presenters' HTML and buttons.
READ_CALLS: dict[str, tuple[int, ...] | None] = {
    "success": None,
    "info": None,
    "error": None,
    "warning": None,
    "add_message": None,
    "ValidationError": (0,),
    "CommandError": (0,),
    "write": (0,),
    "ServiceError": (0,),
    "Refused": (0,),
    "Forbidden": (0,),
    "PermissionDenied": (0,),
    "ProblemType": (1, 3),
    "problem_body": (1,),
    "problem_response": (1,),
    "format_html": (0,),
    "choice": (1,),
    "HttpResponseForbidden": (0,),
    "HttpResponseBadRequest": (0,),
}
#: Keyword arguments people read (form fields, choices).
READ_KEYWORDS = {"label", "help_text", "empty_label", "aria", "message", "detail", "title"}
#: A literal that is a name, not words: identifiers, keys, URLs, CSS classes, formats.
NAME = re.compile(r"^[\w./:#%@+?=&{}-]*$")
#: Literals of these modules that look like words but are for programs (and why).
NOT_WORDS = {
    "text/csv; charset=utf-8",  # the CSV's Content-Type header
    'attachment; filename="{}-standings.csv"',  # its Content-Disposition header
    # simulate's column heads over fixed-width numbers, kept in every language (its comment)
    "seat  bot        won    lost",
}
#: Functions whose words only go to the log, never to a person (and why).
NOT_SHOWN = {
    "unavailable_reason": "the 503's cause, for the operator's log (the problem says 'busy')",
}
#: Attributes written into a tag by a literal of their own: `` stroke-dasharray="{}"``.
ATTRIBUTE_FRAGMENT = re.compile(r'^(\s*[\w:-]+="[^"]*")+\s*$')


def literal_text(node: ast.expr) -> str | None:
    """The text of a str constant or f-string (its placeholders blanked), else None."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(
            str(part.value) if isinstance(part, ast.Constant) else "{}" for part in node.values
        )
    return None


def words_of(text: str) -> str:
    """What is left for people to read of a literal: its HTML's read text and attributes
    (as in templates), placeholders out."""
    if ATTRIBUTE_FRAGMENT.match(text):
        return ""
    if "<" in text:
        parser = ReadText()
        parser.feed(text)
        parser.close()
        text = " ".join(read for _, read in parser.found)
    text = re.sub(r"\{[^{}]*\}|%\(\w+\)[sd]|%[sd]|&\w+;", " ", text)
    return without_allowed(text)


def call_name(node: ast.Call) -> str:
    func = node.func
    if isinstance(func, ast.Attribute):
        return func.attr
    if isinstance(func, ast.Name):
        return func.id
    return ""


class Unmarked(ast.NodeVisitor):
    """Literals with words people read that are not the argument of a gettext call.

    A literal counts as read when it is a sentence (words with spaces between them, which
    no identifier, key or CSS class is), or when it stands where people read whatever it is:
    a message, a refusal, a problem, a form's label or help, a button, a presenter's words.
    """

    def __init__(self, *, sentences: bool = True) -> None:
        self.found: list[tuple[int, str]] = []
        self.skip: set[int] = set()
        #: Whether any sentence counts, or only the literals where people read whatever it is.
        self.sentences = sentences

    def note(self, node: ast.expr, *, read_here: bool) -> None:
        text = literal_text(node)
        if text is None or id(node) in self.skip or text in NOT_WORDS:
            return
        left = words_of(text)
        if not WORD.search(left):
            return
        sentence = len(WORD.findall(left)) >= 2 and not NAME.match(text)
        if (sentence and self.sentences) or read_here:
            self.found.append((node.lineno, text))
        self.skip.add(id(node))

    def visit_FunctionDef(self, node: ast.FunctionDef) -> None:
        if node.name not in NOT_SHOWN:
            self.generic_visit(node)

    def visit_Expr(self, node: ast.Expr) -> None:
        if literal_text(node.value) is not None:  # docstrings and bare strings: not shown
            return
        self.generic_visit(node)

    def visit_Call(self, node: ast.Call) -> None:
        name = call_name(node)
        if name in GETTEXT:
            return  # marked: everything inside is the msgid and its context
        if name in NOT_READ_CALLS or (
            isinstance(node.func, ast.Attribute)
            and isinstance(node.func.value, ast.Name)
            and node.func.value.id in ("logger", "log", "logging")
        ):
            for arg in node.args:
                if literal_text(arg) is not None:
                    self.skip.add(id(arg))
        if name in READ_CALLS:
            positions = READ_CALLS[name]
            for position, arg in enumerate(node.args):
                if positions is None or position in positions:
                    self.note(arg, read_here=True)
                elif literal_text(arg) is not None and NAME.match(literal_text(arg) or ""):
                    self.skip.add(id(arg))  # the field at fault, a problem's slug
        for keyword in node.keywords:
            if keyword.arg in READ_KEYWORDS:
                self.note(keyword.value, read_here=True)
        self.generic_visit(node)

    def visit_Compare(self, node: ast.Compare) -> None:
        for part in (node.left, *node.comparators):  # kind == "draw": a key, not words
            if literal_text(part) is not None:
                self.skip.add(id(part))
            elif isinstance(part, ast.Tuple | ast.List | ast.Set):
                self.skip.update(id(e) for e in part.elts)
        self.generic_visit(node)

    def visit_Subscript(self, node: ast.Subscript) -> None:
        self.skip.add(id(node.slice))
        self.generic_visit(node)

    def visit_Dict(self, node: ast.Dict) -> None:
        self.skip.update(id(key) for key in node.keys if key is not None)
        self.generic_visit(node)

    def visit_Constant(self, node: ast.Constant) -> None:
        self.note(node, read_here=False)

    def visit_JoinedStr(self, node: ast.JoinedStr) -> None:
        self.note(node, read_here=False)


def python_sources() -> list[Path]:
    found: list[Path] = []
    for name in (*PYTHON_SOURCES, *MESSAGE_SOURCES):
        path = ROOT / name
        found += sorted(path.rglob("*.py")) if path.is_dir() else [path]
    return found


def only_messages(path: Path) -> bool:
    return any(path.is_relative_to(ROOT / name) for name in MESSAGE_SOURCES)


def unmarked_in_python(source: str, *, sentences: bool = True) -> list[tuple[int, str]]:
    visitor = Unmarked(sentences=sentences)
    visitor.visit(ast.parse(source))
    return sorted(visitor.found)


def test_the_python_check_finds_what_a_person_reads() -> None:
    source = '''
"""A docstring: not shown."""
from django.utils.translation import gettext as _
def view(request, form, kind):
    """Nor this."""
    messages.success(request, "Saved.")
    messages.success(request, _("Marked."))
    logger.info("a log line for the operator")
    if kind == "draw":
        row = {"status": "draws", "key": f"{kind} x"}
    raise ValidationError(f"no such player {kind}")
    label = forms.CharField(label="Name", help_text=_("Marked help"))
    return format_html('<span class="card back">{}</span>', kind), "Two words here"
'''
    assert [text for _, text in unmarked_in_python(source)] == [
        "Saved.",
        "no such player {}",
        "Name",
        "Two words here",
    ]


def python_ids(path: Path) -> str:
    return str(path.relative_to(ROOT))


@pytest.mark.parametrize("module", python_sources(), ids=python_ids)
def test_every_string_a_person_reads_in_python_is_marked(module: Path) -> None:
    unmarked = unmarked_in_python(
        module.read_text(encoding="utf-8"), sentences=not only_messages(module)
    )
    assert not unmarked, (
        f"{module.relative_to(ROOT)}: {len(unmarked)} unmarked strings people read"
        " (wrap them in gettext / gettext_lazy / ngettext):\n  "
        + "\n  ".join(f"line {line}: {text!r}" for line, text in unmarked)
    )


# -- JavaScript ----------------------------------------------------------------------------

JAVASCRIPT = ROOT / "tournaments" / "static" / "parlour"
#: The JavaScript catalog's marking functions (Django's /jsi18n/).
JS_GETTEXT = {"gettext", "ngettext", "pgettext", "npgettext", "gettext_noop"}
#: Calls whose literal arguments are selectors, events or keys, not words.
JS_NOT_READ = {
    "querySelector",
    "querySelectorAll",
    "closest",
    "matches",
    "getElementById",
    "getAttribute",
    "removeAttribute",
    "hasAttribute",
    "addEventListener",
    "createElement",
    "add",
    "remove",
    "toggle",
    "contains",
    "Error",
    "log",
    "warn",
}
#: Where a lone word is read: ``el.textContent = "Play"``, ``setAttribute("aria-label", …)``.
JS_READ_TARGET = re.compile(
    r"(?:textContent|innerText|title|placeholder|alt|message|text|body)\s*[:=]\s*$"
    r"|setAttribute\(\s*[\"'](?:aria-label|title|alt|placeholder)[\"']\s*,\s*$"
)
#: A literal joined to others with ``+``: read when it is words, not a key (``":turn:"``).
JS_JOINED = re.compile(r"\+\s*$")
JS_KEY = re.compile(r"^[\w:#?=&./\[\]\"'-]*$")


def js_literals(source: str) -> Iterator[tuple[int, str, str, list[str]]]:
    """Each string literal of a script: its line, text, the code just before it, and the
    names of the calls it is inside (a scanner, not a parser: enough for our plain scripts)."""
    i, line, calls = 0, 1, []
    while i < len(source):
        char = source[i]
        if source.startswith("//", i):
            end = source.find("\n", i)
            i = len(source) if end < 0 else end
            continue
        if source.startswith("/*", i):
            end = source.find("*/", i) + 2
            line += source.count("\n", i, end)
            i = end
            continue
        if char in "'\"`":
            j = i + 1
            while j < len(source) and source[j] != char:
                j += 2 if source[j] == "\\" else 1
            text = source[i + 1 : j]
            yield line, re.sub(r"\$\{[^}]*\}", "{}", text), source[max(0, i - 60) : i], calls[:]
            line += text.count("\n")
            i = j + 1
            continue
        if char == "(":
            name = re.search(r"([\w$]+)\s*$", source[max(0, i - 40) : i])
            calls.append(name.group(1) if name else "")
        elif char == ")" and calls:
            calls.pop()
        elif char == "\n":
            line += 1
        i += 1


def unmarked_in_javascript(source: str) -> list[tuple[int, str]]:
    found = []
    for line, text, before, calls in js_literals(source):
        if any(call in JS_GETTEXT for call in calls) or (calls and calls[-1] in JS_NOT_READ):
            continue
        words = WORD.findall(without_allowed(text))
        if not words or text == "use strict" or "className" in before[-20:]:
            continue
        if re.search(r"[!=]==?\s*$", before):  # a comparison with a key
            continue
        sentence = len(words) >= 2 and not JS_KEY.match(text)
        read_here = bool(JS_READ_TARGET.search(before)) or (
            bool(JS_JOINED.search(before)) and not JS_KEY.match(text)
        )
        if sentence or read_here:
            found.append((line, text))
    return found


def scripts() -> list[Path]:
    return sorted(JAVASCRIPT.glob("*.js"))


def test_the_javascript_check_finds_what_a_person_reads() -> None:
    source = """
    "use strict";
    // a comment with "quoted words" in it
    el.textContent = on ? "Alerts: on" : gettext("Alerts: off");
    link.textContent = "Play";
    link.className = "button primary";
    root.querySelectorAll("ol.moves li");
    var key = game.game_id + ":turn:" + n;
    el.setAttribute("aria-label", "Hide this notice");
    var text = interpolate(gettext("Your move: %s"), [name]) + " (and " + n + ")";
    """
    assert [text for _, text in unmarked_in_javascript(source)] == [
        "Alerts: on",
        "Play",
        "Hide this notice",
        " (and ",
    ]


@pytest.mark.parametrize("script", scripts(), ids=lambda p: p.name)
def test_every_string_a_person_reads_in_javascript_is_marked(script: Path) -> None:
    unmarked = unmarked_in_javascript(script.read_text(encoding="utf-8"))
    assert not unmarked, (
        f"{script.relative_to(ROOT)}: {len(unmarked)} unmarked strings people read"
        " (wrap them in gettext() / ngettext() of the JavaScript catalog, interpolate() for"
        " the values):\n  " + "\n  ".join(f"line {line}: {text!r}" for line, text in unmarked)
    )


def every_unmarked() -> Iterator[str]:
    """All offenders, for a report: ``python -c 'from tests.project.test_marked_strings import
    every_unmarked; print(*every_unmarked(), sep="\\n")'`` (with Django set up)."""
    for template in templates():
        for text in unmarked_in_template(template.read_text(encoding="utf-8")):
            yield f"{template.relative_to(ROOT)}: {text}"
    for module in python_sources():
        source = module.read_text(encoding="utf-8")
        for line, text in unmarked_in_python(source, sentences=not only_messages(module)):
            yield f"{module.relative_to(ROOT)}:{line}: {text!r}"
    for script in scripts():
        for line, text in unmarked_in_javascript(script.read_text(encoding="utf-8")):
            yield f"{script.relative_to(ROOT)}:{line}: {text!r}"
