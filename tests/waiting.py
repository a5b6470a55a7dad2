"""Waiting on a condition with a deadline, never sleeping a guessed time and then asserting.

A test of real processes (workers, servers, a browser's helper) waits for what it checks
with :func:`wait_for`: it returns as soon as the condition holds, so a generous deadline
costs nothing on an idle machine and keeps the test green on a loaded one (2 cores shared
by several suites).  The condition is still checked in full; only the time allowed grows.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import pytest


def wait_for(
    predicate: Callable[[], Any],
    *,
    timeout: float,
    what: str,
    every: float = 0.05,
    check: Callable[[], None] | None = None,
) -> Any:
    """Poll ``predicate`` until it is true; fail saying ``what`` did not happen in time."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if check is not None:
            check()
        if time.monotonic() > deadline:
            pytest.fail(f"timed out after {timeout} s waiting for {what}")
        time.sleep(every)
