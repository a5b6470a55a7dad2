"""Passwords are hashed as Django's pbkdf2_sha256, at the lowest CPU priority
(tournaments/hashers.py), so that the hashes a guesser is allowed do not slow others."""

from __future__ import annotations

import os
import threading

import pytest
from django.conf import settings
from django.contrib.auth.hashers import PBKDF2PasswordHasher, check_password, make_password

from tournaments import hashers

linux_only = pytest.mark.skipif(
    not hashers._can_renice(), reason="per-thread priorities are Linux's"
)


def test_new_passwords_are_stored_with_the_yielding_hasher_first() -> None:
    assert settings.PASSWORD_HASHERS[0] == "tournaments.hashers.YieldingPBKDF2PasswordHasher"


def test_what_it_stores_is_django_s_own_pbkdf2_sha256_and_reads_back_both_ways() -> None:
    ours = hashers.YieldingPBKDF2PasswordHasher()
    django_s = PBKDF2PasswordHasher()
    stored = ours.encode("le mot de passe", "somesalt", 1000)
    assert stored == django_s.encode("le mot de passe", "somesalt", 1000)
    assert ours.verify("le mot de passe", django_s.encode("le mot de passe", "s2", 1000))
    assert django_s.verify("le mot de passe", stored)
    assert not ours.verify("another", stored)


def test_a_password_made_and_checked_through_the_settings_round_trips() -> None:
    encoded = make_password("hunter2 hunter2")
    assert encoded.startswith("pbkdf2_sha256$")
    assert check_password("hunter2 hunter2", encoded)
    assert not check_password("hunter3", encoded)


@linux_only
def test_the_hash_runs_in_a_thread_at_the_lowest_priority_not_the_caller_s() -> None:
    seen: dict[str, int] = {}
    real = PBKDF2PasswordHasher.encode

    def spying(self: PBKDF2PasswordHasher, *args: object, **kwargs: object) -> str:
        tid = threading.get_native_id()
        seen["thread"] = tid
        seen["niceness"] = os.getpriority(os.PRIO_PROCESS, tid)
        return str(real(self, *args, **kwargs))  # type: ignore[arg-type]

    caller = threading.get_native_id()
    before = os.getpriority(os.PRIO_PROCESS, caller)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(PBKDF2PasswordHasher, "encode", spying)
        hashers.YieldingPBKDF2PasswordHasher().encode("x", "salt", 1000)
    assert seen["thread"] != caller
    assert seen["niceness"] == hashers.NICENESS
    assert os.getpriority(os.PRIO_PROCESS, caller) == before  # the caller's is untouched


@linux_only
def test_a_forked_child_gets_threads_of_its_own() -> None:
    hashers.YieldingPBKDF2PasswordHasher().encode("x", "salt", 10)
    parent_pool = hashers.pool()
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: a pool of its own, and a hash that completes
        try:
            fresh = hashers.pool() is not parent_pool
            done = hashers.YieldingPBKDF2PasswordHasher().verify(
                "x", PBKDF2PasswordHasher().encode("x", "salt", 10)
            )
            os.write(write, b"ok" if fresh and done else b"no")
        finally:
            os._exit(0)
    os.close(write)
    _, status = os.waitpid(pid, 0)
    assert os.read(read, 2) == b"ok"
    assert os.waitstatus_to_exitcode(status) == 0
