"""The engine's words a person reads, marked for translation without Django.

The engine stays pure Python: its names and refusals are English source strings,
marked with :func:`gettext_noop`, a marker that changes nothing.  Django's
``makemessages`` (GNU xgettext underneath) extracts every string passed to a
function of that name with no option of ours (``gettext_noop`` is one of its
keywords), so the Russian catalog holds them and the extract-and-compare test
(``tests/project/test_translations.py``) sees them; the Django side translates
them where a person reads them (``tournaments.words``).
"""

from __future__ import annotations


def gettext_noop(message: str) -> str:
    """``message`` itself: marks it for the catalog, translated later on the Django side."""
    return message
