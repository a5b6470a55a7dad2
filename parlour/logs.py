"""Logging filters of the settings' ``LOGGING``."""

from __future__ import annotations

import logging


class RefusalsWithoutTraceback(logging.Filter):
    """A page's refusal (``django.request``'s 4xx: a spectator opening a seat's play page,
    a duplicate deal hidden until its round ends) is logged as its one line, without the
    traceback Django attaches to a ``PermissionDenied``.

    A refusal is the answer the reader was meant to get, not a failure: ``make run``'s log
    showed dozens of tracebacks for an evening's ordinary 403s, among which a real error
    was hard to see (found by trying).  A 5xx keeps its traceback.
    """

    def filter(self, record: logging.LogRecord) -> bool:
        status = getattr(record, "status_code", None)
        if isinstance(status, int) and status < 500:
            record.exc_info = None
            record.exc_text = None
        return True
