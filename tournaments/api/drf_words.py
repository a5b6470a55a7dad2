"""DRF's own refusals that its Russian catalog leaves in English or half in English, marked
here so that our catalog holds them (docs/i18n.md, "DRF's words").

Django reads the catalogs of ``LOCALE_PATHS`` before the installed apps' (ours before
DRF's), so an entry of ours says a DRF message in its place.  DRF's ``ru`` catalog has no
words for the lengths of a list (``Ensure this field has at least 2 elements.`` came back
in English under ``Accept-Language: ru``) and says a list, a dictionary and the type
received with English and Python words («Ожидался list со значениями, но был получен
"str"»): our Russian names the JSON kind asked for and leaves out Python's name of what was
sent.  The msgids are DRF's exactly (``rest_framework/fields.py`` and ``serializers.py``
of the version in ``constraints.txt``); ``tests/api/test_problems_in_russian.py`` fails if
an upgrade changes one that a body can meet.  Nothing calls these: they are marks.
"""

from __future__ import annotations

from django.utils.translation import gettext_noop

#: The DRF messages a request body of ours can meet whose Russian is ours.
MESSAGES = (
    # ListField and a list of objects (many=True): the lists of a body.  The type DRF puts
    # in is Python's name ("str", "dict"), no word for a reader: the Russian leaves it out,
    # which a brace format's check would refuse, hence no-python-brace-format.
    # xgettext:no-python-brace-format
    gettext_noop('Expected a list of items but got type "{input_type}".'),
    gettext_noop("Ensure this field has at least {min_length} elements."),
    gettext_noop("Ensure this field has no more than {max_length} elements."),
    gettext_noop("This list may not be empty."),
    # DictField and an object in a body.
    # xgettext:no-python-brace-format
    gettext_noop('Expected a dictionary of items but got type "{input_type}".'),
    gettext_noop("This dictionary may not be empty."),
    # xgettext:no-python-brace-format
    gettext_noop("Invalid data. Expected a dictionary, but got {datatype}."),
    # The plain fields' (the strict ones of serializers/common.py say more first).
    gettext_noop("Not a valid string."),
    gettext_noop("Must be a valid boolean."),
    gettext_noop("Integer value too large to convert to float"),
)
