"""The engine's words a person reads, marked for translation without Django.

The engine stays pure Python: its names and refusals are English source strings,
marked with :func:`gettext_noop`, a marker that changes nothing.  Django's
``makemessages`` (GNU xgettext underneath) extracts every string passed to a
function of that name with no option of ours (``gettext_noop`` is one of its
keywords), so the Russian catalog holds them and the extract-and-compare test
(``tests/project/test_translations.py``) sees them.

A refusal with places (a seat, a card) is a :class:`Phrase`: the marked message with
``%(name)s`` places and their values, some of them phrases in turn (a suit's name,
an :class:`Either` of foundations).  Its ``str`` is the English the engine has always
said; the Django side (``tournaments.words``) says it in the request's language.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping


def said(value: object) -> str:
    """``value`` as a refusal quotes it: JSON, as the client sent it (``null``, ``"x"``,
    ``{"a": 1}``), never Python's repr (``None``, ``'x'``)."""
    try:
        return json.dumps(value, ensure_ascii=False, sort_keys=True)
    except (TypeError, ValueError):
        return str(value)


def gettext_noop(message: str) -> str:
    """``message`` itself: marks it for the catalog, translated later on the Django side."""
    return message


class Phrase:
    """A marked message and the values of its ``%(name)s`` places."""

    __slots__ = ("message", "params")

    def __init__(self, message: str, **params: object) -> None:
        self.message = message
        self.params: Mapping[str, object] = params

    def __str__(self) -> str:
        if not self.params:
            return self.message
        return self.message % {name: str(value) for name, value in self.params.items()}

    def __repr__(self) -> str:
        return f"Phrase({str(self)!r})"


class PhrasedError(ValueError):
    """An error whose words are a :class:`Phrase` (``phrase``), for the Django side to say
    in the reader's language: raised with a message marked by :func:`gettext_noop` and the
    values of its places, as :class:`~engine.contract.IllegalAction` is."""

    def __init__(self, reason: str | Phrase, **params: object) -> None:
        self.phrase = reason if isinstance(reason, Phrase) else Phrase(reason, **params)
        super().__init__(str(self.phrase))


class Either:
    """Alternatives said one after the other: ``0 or 1 or 2``."""

    __slots__ = ("items",)

    def __init__(self, items: Iterable[object]) -> None:
        self.items = tuple(items)

    def __str__(self) -> str:
        return " or ".join(str(item) for item in self.items)
