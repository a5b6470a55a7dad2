"""The ``<id:…>`` path converter: a row's id in a URL, within the database's range.

Django's ``<int:…>`` takes any run of digits, and an id beyond a 64-bit integer
(``/api/v1/games/9583660007041794048``) reached the database: SQLite's driver
raised ``OverflowError`` and PostgreSQL a ``DataError``, both a 500.  This
converter refuses such an id, so the URL does not match: a 404 on both backends,
for every route that names a row, in one place.
"""

from __future__ import annotations

from django.urls import register_converter

#: The largest id a row can have (``BigAutoField``: a signed 64-bit integer).
MAX_ID = 2**63 - 1


class IdConverter:
    regex = "[0-9]{1,19}"

    def to_python(self, value: str) -> int:
        number = int(value)
        if number > MAX_ID:
            raise ValueError(f"{value} is beyond the largest id")
        return number

    def to_url(self, value: int) -> str:
        return str(value)


register_converter(IdConverter, "id")
