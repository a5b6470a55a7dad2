"""The API's one parser: JSON, read up to the body size limit and no further.

:func:`load_json` is the one reading of untrusted JSON, the pages' too.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from typing import IO, Any

from django.conf import settings
from django.urls import Resolver404, resolve
from django.utils.translation import gettext, gettext_noop
from rest_framework.exceptions import ParseError
from rest_framework.parsers import JSONParser

from tournaments.api.problems import PayloadTooLarge

#: Deepest nesting of arrays and objects accepted (a record is about 5 deep).
MAX_JSON_DEPTH = 32


def _refuse_constant(name: str) -> Any:
    raise ValueError(gettext("%(name)s is not JSON") % {"name": name})


def _finite_float(text: str) -> float:
    number = float(text)
    if math.isinf(number):
        raise ValueError(gettext("the number %(start)s… is too large") % {"start": text[:20]})
    return number


#: The one decoder (``json.loads`` with options builds a decoder and its scanner per call,
#: which took most of a push-channel message's parsing).
_DECODER = json.JSONDecoder(parse_constant=_refuse_constant, parse_float=_finite_float)


#: What Python's JSON decoder says (its message begins so), in words marked for the
#: catalog: its own are English whatever the reader asked.  The first that fits is said.
_DECODER_WORDS: tuple[tuple[str, str], ...] = (
    ("Expecting value", gettext_noop("a value is expected")),
    (
        "Expecting property name",
        gettext_noop("a key in double quotes is expected"),
    ),
    ("Expecting ':'", gettext_noop("a colon is expected")),
    ("Expecting ','", gettext_noop("a comma is expected")),
    ("Unterminated string", gettext_noop("a string is not closed")),
    ("Invalid control character", gettext_noop("a control character inside a string")),
    ("Invalid \\uXXXX", gettext_noop("a \\u escape needs four hexadecimal digits")),
    ("Invalid \\escape", gettext_noop("an unknown escape after a backslash")),
    ("Extra data", gettext_noop("more text after the value")),
    ("Illegal trailing comma", gettext_noop("a comma before the end of an array or object")),
)


def _decoder_error(error: json.JSONDecodeError) -> ValueError:
    """The decoder's refusal in the reader's language, with where it stopped."""
    words = next(
        (gettext(w) for start, w in _DECODER_WORDS if error.msg.startswith(start)),
        gettext("this is not JSON"),
    )
    return ValueError(
        gettext("%(problem)s (line %(line)s, column %(column)s)")
        % {"problem": words, "line": error.lineno, "column": error.colno}
    )


def not_text(error: UnicodeDecodeError) -> ValueError:
    """A body's bytes that are not text in its encoding, in the reader's language."""
    return ValueError(
        gettext("byte %(position)s is not %(encoding)s text")
        % {"position": error.start + 1, "encoding": error.encoding.upper()}
    )


def load_json(text: str) -> Any:
    """Parse untrusted JSON text; :class:`ValueError` with the reason if it is not acceptable.

    Every entry point that reads JSON from a request comes here (the API's parser,
    the play page's ``action`` field): besides invalid JSON it refuses nesting
    deeper than :data:`MAX_JSON_DEPTH` (100,000 ``[`` would otherwise raise
    RecursionError, here or in any code that walks the value later), the
    ``NaN``/``Infinity`` literals and numbers too large for a float.
    """
    try:
        value = _DECODER.decode(text)
    except RecursionError:
        raise _too_deep() from None
    except json.JSONDecodeError as error:
        raise _decoder_error(error) from None
    if _deeper_than(value, MAX_JSON_DEPTH):
        raise _too_deep()
    return value


def _too_deep() -> ValueError:
    # Translated only when refused: every action's body passes through load_json.
    return ValueError(
        gettext("the JSON is nested deeper than %(levels)d levels") % {"levels": MAX_JSON_DEPTH}
    )


def _deeper_than(value: Any, limit: int) -> bool:
    """Whether ``value``'s arrays and objects nest deeper than ``limit`` (no recursion)."""
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            children: Any = item.values()
        elif isinstance(item, list):
            children = item
        else:
            continue
        if depth > limit:
            return True
        stack.extend((child, depth + 1) for child in children)
    return False


class LimitedJSONParser(JSONParser):
    """``application/json`` bodies of at most ``DATA_UPLOAD_MAX_MEMORY_SIZE`` bytes.

    The limit holds also for a body sent without ``Content-Length`` (chunked):
    the parser reads one byte past the limit and refuses with 413.
    """

    def limit(self) -> int:
        """The most bytes a body may have (0: no limit)."""
        return int(settings.DATA_UPLOAD_MAX_MEMORY_SIZE or 0)

    def limit_name(self) -> str:
        """Where the limit comes from, for the 413's message (in the request's language)."""
        return ""

    def parse(
        self,
        stream: IO[bytes] | None,
        media_type: str | None = None,
        parser_context: Mapping[str, Any] | None = None,
    ) -> Any:
        if stream is None:
            return {}
        limit = self.limit()
        raw = stream.read(limit + 1) if limit else stream.read()
        if limit and len(raw) > limit:
            raise PayloadTooLarge(
                gettext("the body is larger than %(limit)d bytes%(why)s")
                % {"limit": limit, "why": self.limit_name()}
            )
        encoding = (parser_context or {}).get("encoding") or settings.DEFAULT_CHARSET
        try:
            text = raw.decode(encoding)
        except UnicodeDecodeError as error:
            raise ParseError(
                gettext("the body is not valid JSON: %(error)s") % {"error": not_text(error)}
            ) from None
        try:
            return load_json(text)
        except ValueError as error:
            raise ParseError(
                gettext("the body is not valid JSON: %(error)s") % {"error": error}
            ) from None


class RecordJSONParser(LimitedJSONParser):
    """A portable record's body: at most ``PARLOUR_RECORD_MAX_BYTES`` (verify and import)."""

    def limit_name(self) -> str:
        return gettext(" (PARLOUR_RECORD_MAX_BYTES, the largest record taken)")

    def limit(self) -> int:
        return min(
            super().limit() or settings.PARLOUR_RECORD_MAX_BYTES, settings.PARLOUR_RECORD_MAX_BYTES
        )


def body_limit(path: str) -> tuple[int, str] | None:
    """The most bytes a body to ``path`` may have and the setting that says so (``None``:
    no limit): the smallest of ``DATA_UPLOAD_MAX_MEMORY_SIZE`` and the limits of the
    parsers of the view at ``path``."""
    found: list[tuple[int, str]] = []
    if settings.DATA_UPLOAD_MAX_MEMORY_SIZE is not None:
        found.append((int(settings.DATA_UPLOAD_MAX_MEMORY_SIZE), ""))
    try:
        view = resolve(path).func
    except Resolver404:
        view = None
    for parser in getattr(getattr(view, "view_class", None), "parser_classes", ()):
        if isinstance(parser, type) and issubclass(parser, LimitedJSONParser):
            limit = parser().limit()
            if limit:
                found.append((limit, parser().limit_name()))
    return min(found, key=lambda item: item[0]) if found else None
