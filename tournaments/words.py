"""The engine's words in the request's language.

The engine is pure Python and speaks English: its refusals are
:class:`engine.words.Phrase` objects, a message marked for the catalog with
``%(name)s`` places and their values (docs/i18n.md, "The engine's words").  Here a
phrase is said in the active language: its message through the catalog, then each
place, itself a phrase (a suit, the name of a game), alternatives
(:class:`engine.words.Either`, joined with the language's "or") or a plain value.
In English the words are exactly the engine's own (``IllegalAction.reason``).
"""

from __future__ import annotations

from django.utils.translation import gettext

from engine.contract import IllegalAction
from engine.record import RecordError
from engine.words import Either, Phrase


def say(phrase: Phrase) -> str:
    """``phrase`` in the active language."""
    message = gettext(phrase.message)
    if not phrase.params:
        return message
    return message % {name: _value(value) for name, value in phrase.params.items()}


def _value(value: object) -> str:
    if isinstance(value, Phrase):
        return say(value)
    if isinstance(value, Either):
        return gettext(" or ").join(_value(item) for item in value.items)
    return str(value)


def refusal(error: IllegalAction) -> str:
    """Why the rules refused an action, in the active language."""
    return say(error.phrase)


def record_fault(error: RecordError) -> str:
    """Why a record does not hold, in the active language (``move 3: …`` for a move)."""
    if error.index is None:
        return say(error.phrase)
    return gettext("move %(index)s: %(reason)s") % {
        "index": error.index,
        "reason": say(error.phrase),
    }
