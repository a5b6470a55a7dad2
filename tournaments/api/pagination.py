"""Every list is paginated alike: ``?limit=&offset=``, ``{count, next, previous, results}``.

``limit`` is 1 to 500 (default 50) and ``offset`` 0 or more: anything else — a negative
number, a word, a fraction, a limit above 500 — is a 400 problem naming the parameter,
like every other number of a query (:func:`whole_number`), never silently replaced.
"""

from __future__ import annotations

from django.utils.translation import gettext
from rest_framework.exceptions import ValidationError
from rest_framework.pagination import LimitOffsetPagination
from rest_framework.request import Request

from engine.contract import said

#: The largest number a query parameter takes (ids, sequences, offsets: 32-bit integers).
MOST = 2**31 - 1


def whole_number(
    request: Request, name: str, *, least: int = 0, most: int = MOST, what: str = ""
) -> int | None:
    """The query parameter ``name`` as a whole number from ``least`` to ``most``, or
    ``None`` when it is absent or empty; a 400 problem naming it otherwise
    (:func:`read_whole_number` is the rule).
    """
    raw = request.query_params.get(name)
    if raw is None or raw == "":
        return None
    try:
        return read_whole_number(raw, least=least, most=most, what=what)
    except ValueError as error:
        raise ValidationError({name: [str(error)]}) from None


def read_whole_number(raw: str, *, least: int = 0, most: int = MOST, what: str = "") -> int:
    """``raw``, a number sent as text, as a whole number from ``least`` to ``most``; a
    ``ValueError`` whose words are the refusal otherwise.  The query's numbers and the
    play page's form read their numbers by this one rule.

    Only ASCII digits count: ``"+5"``, ``" 5"``, ``"5.0"``, ``"1_0"``, ``"²"`` and ``"٣"``
    are not whole numbers here, whatever Python's ``int`` would make of them.
    """
    value = int(raw) if raw.isascii() and raw.isdigit() else None
    if value is None or not least <= value <= most:
        bounds = (
            gettext("from %(least)s to %(most)s") % {"least": least, "most": most}
            if most < MOST
            else gettext("%(least)s or more") % {"least": least}
        )
        kind = what or gettext("a whole number")
        refusal = gettext("%(kind)s (%(bounds)s), not %(raw)s")
        raise ValueError(refusal % {"kind": kind, "bounds": bounds, "raw": said(raw)})
    return value


class Pagination(LimitOffsetPagination):
    default_limit = 50
    max_limit = 500

    def get_limit(self, request: Request) -> int:
        limit = whole_number(request, self.limit_query_param, least=1, most=self.max_limit)
        return self.default_limit if limit is None else limit

    def get_offset(self, request: Request) -> int:
        return whole_number(request, self.offset_query_param) or 0
