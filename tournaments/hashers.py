"""Password hashing that gives way to the rest of the server.

A password check is PBKDF2 with a million rounds: about 0.24 s of a core here, by
design.  The login limits (tournaments/logins.py) bound how many a guesser can make
(one at a time for each account and each address, 20 an hour for an account), but
the few they allow still took a whole core each on a 2-core server, and every other
request of the process shared the other one: bench/abuse.py's attack (a) lifted the
other users' p99 from 28 to 105 ms with 12 hashes in 25 s.

:class:`YieldingPBKDF2PasswordHasher` is Django's ``pbkdf2_sha256`` (the same
algorithm, rounds and stored form: existing passwords keep working, and Django's own
hasher reads what it stores) computed in a thread of the process's own that runs at
the lowest CPU priority (Linux's per-thread ``nice 19``; PBKDF2 lets the interpreter
go while it runs).  A login then takes the CPU the other requests leave: as long as
without load, longer under load, never at the others' expense.  Where threads cannot
be given a priority (not Linux), it hashes as Django does.
"""

from __future__ import annotations

import os
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from django.contrib.auth.hashers import PBKDF2PasswordHasher

#: Hashes computed at once in a process: a guesser's are bounded by the login limits,
#: and on two cores more would not finish any sooner.
AT_ONCE = 2
NICENESS = 19

_lock = threading.Lock()
_pool: tuple[int, ThreadPoolExecutor] | None = None


def _lower_priority() -> None:
    # On Linux a thread is a task of its own: PRIO_PROCESS with its id renices it alone.
    os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), NICENESS)


def _can_renice() -> bool:
    return hasattr(os, "setpriority") and os.uname().sysname == "Linux"


def pool() -> ThreadPoolExecutor:
    """The process's hashing threads (made anew in a forked child: threads do not fork)."""
    global _pool
    with _lock:
        if _pool is None or _pool[0] != os.getpid():
            _pool = (
                os.getpid(),
                ThreadPoolExecutor(
                    max_workers=AT_ONCE, thread_name_prefix="hash", initializer=_lower_priority
                ),
            )
        return _pool[1]


class YieldingPBKDF2PasswordHasher(PBKDF2PasswordHasher):
    """Django's ``pbkdf2_sha256``, computed at the lowest CPU priority."""

    def encode(self, password: Any, salt: str, iterations: int | None = None) -> str:
        if not _can_renice():
            return str(super().encode(password, salt, iterations))
        return str(pool().submit(super().encode, password, salt, iterations).result())
