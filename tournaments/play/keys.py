"""The one maker of idempotency keys: every command a caller may retry names itself
with one of these, so that a retry returns the first outcome instead of acting twice
(:func:`events.store.append`, ``idempotency_key``).

The keys are stored with the events: each keeps the exact text it has always had, so
that a retry in flight across an upgrade is still recognised.  A key is unique within
its game's stream; the prefixes keep the callers' keys apart.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import Any


def api_key(user_id: int, client_key: str) -> str:
    """An API client's ``Idempotency-Key``, scoped to its login."""
    return f"api:{user_id}:{client_key}"


def web_key(seat: int, expected_sequence: int, action: Mapping[str, Any]) -> str:
    """A play page's form post: the seat, the sequence it saw and what it asked."""
    digest = hashlib.sha256(
        json.dumps(dict(action), sort_keys=True, separators=(",", ":")).encode()
    ).hexdigest()[:24]
    return f"web:{seat}:{expected_sequence}:{digest}"


def automatic_key(kind: str, game_id: int, expected_sequence: int, seat: int) -> str:
    """A move the server makes for a seat (``kind``: a bot's move, a forced move), once
    per sequence and seat whichever worker makes it."""
    return f"{kind}:{game_id}:{expected_sequence}:{seat}"


def timeout_key(seat: int, expected_sequence: int) -> str:
    """A seat's timeout at a sequence: two sweeps firing the same timeout store it once."""
    return f"timeout-{seat}-{expected_sequence}"
