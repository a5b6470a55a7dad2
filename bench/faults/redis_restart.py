"""Fault run: Redis shut down without saving and started again, empty, during play.

    .venv/bin/python bench/faults/redis_restart.py --yes [--tables 6] [--keep]

CAUTION: this stops the machine's shared Redis (127.0.0.1:6379) for about two
seconds and brings it back empty: every database in it is lost, including other
people's (tests, workers, the cache). Hence ``--yes``.

Runs the workload of :func:`stack.run_fault` (a tournament of bots played by two
workers, and people's tables played through the API).  Three seconds in:
``redis-cli shutdown nosave``, two seconds of no Redis, then ``redis-server
--daemonize yes --bind 127.0.0.1 -::1 --port 6379 --save "" --appendonly no --dir
/var/lib/redis --logfile /var/log/redis/ci.log``.  Queued bot tasks and the
throttle counts are gone; the workers reconnect, and the sweep finds the games
whose bot task was lost.  While Redis is down, API calls that touch the cache (the
throttles) fail; a client retries its action with the same Idempotency-Key.
Then every check of :func:`stack.check_store` must pass.
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from bench.faults.stack import FaultRun, run_fault  # noqa: E402

START = [
    "redis-server",
    "--daemonize",
    "yes",
    "--bind",
    "127.0.0.1",
    "-::1",
    "--port",
    "6379",
    "--save",
    "",
    "--appendonly",
    "no",
    "--dir",
    "/var/lib/redis",
    "--logfile",
    "/var/log/redis/ci.log",
]


def answers() -> bool:
    done = subprocess.run(["redis-cli", "ping"], capture_output=True, text=True, check=False)
    return done.stdout.strip() == "PONG"


def restart_redis(run: FaultRun) -> None:
    time.sleep(3)
    subprocess.run(["redis-cli", "shutdown", "nosave"], capture_output=True, check=False)
    run.note("Redis shut down (nosave)")
    time.sleep(2)
    Path("/var/lib/redis").mkdir(parents=True, exist_ok=True)
    Path("/var/log/redis").mkdir(parents=True, exist_ok=True)
    subprocess.run(START, check=True, capture_output=True)
    for _ in range(100):
        if answers():
            break
        time.sleep(0.1)
    run.note(f"Redis started again, empty (answers: {answers()})")


if __name__ == "__main__":
    sys.exit(run_fault("redis_restart", restart_redis, description=__doc__))
