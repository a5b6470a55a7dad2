"""The API's one parser: JSON, read up to the body size limit and no further."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import IO, Any

from django.conf import settings
from rest_framework.exceptions import ParseError
from rest_framework.parsers import JSONParser

from tournaments.api.problems import PayloadTooLarge


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


class LimitedJSONParser(JSONParser):
    """``application/json`` bodies of at most ``DATA_UPLOAD_MAX_MEMORY_SIZE`` bytes.

    The limit holds also for a body sent without ``Content-Length`` (chunked):
    the parser reads one byte past the limit and refuses with 413.
    """

    def parse(
        self,
        stream: IO[bytes] | None,
        media_type: str | None = None,
        parser_context: Mapping[str, Any] | None = None,
    ) -> Any:
        if stream is None:
            return {}
        limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE or 0
        raw = stream.read(limit + 1) if limit else stream.read()
        if limit and len(raw) > limit:
            raise PayloadTooLarge(f"the body is larger than {limit} bytes")
        encoding = (parser_context or {}).get("encoding") or settings.DEFAULT_CHARSET
        try:
            text = raw.decode(encoding)
            return json.loads(text, parse_constant=_refuse_constant)
        except (UnicodeDecodeError, ValueError) as error:
            raise ParseError(f"the body is not valid JSON: {error}") from None
