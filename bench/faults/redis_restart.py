"""Fault run: Redis shut down without saving and started again, empty, during play.

    .venv/bin/python bench/faults/redis_restart.py --yes [--tables 6] [--keep]

CAUTION: this stops the Redis of ``--redis`` (default: the machine's shared one,
127.0.0.1:6379) for ``--outage`` seconds (2) and brings it back empty: every
database in it is lost, including other people's (tests, workers, the cache).
Hence ``--yes``. On a shared machine give it a Redis of its own::

    redis-server --port 8118 --daemonize yes --save "" --appendonly no
    .venv/bin/python bench/faults/redis_restart.py --yes \
        --redis redis://127.0.0.1:8118/0 --outage 12

Runs the workload of :func:`stack.run_fault` (a tournament of bots played by two
workers, beat on its own as compose runs it, and people's tables played through
the API).  Three seconds in: ``redis-cli shutdown nosave``, ``--outage`` seconds of
no Redis, then ``redis-server --daemonize yes --port <port> --save ""
--appendonly no`` again.  Queued bot tasks and the
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
from urllib.parse import urlparse

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from bench.faults.checks import FaultRun, run_fault  # noqa: E402


def start_command(port: int) -> list[str]:
    folder = "/var/lib/redis" if port == 6379 else f"/tmp/parlour-fault-redis-{port}"
    log = "/var/log/redis/ci.log" if port == 6379 else f"{folder}/redis.log"
    Path(folder).mkdir(parents=True, exist_ok=True)
    Path(log).parent.mkdir(parents=True, exist_ok=True)
    return [
        "redis-server",
        "--daemonize",
        "yes",
        "--bind",
        "127.0.0.1",
        "-::1",
        "--port",
        str(port),
        "--save",
        "",
        "--appendonly",
        "no",
        "--dir",
        folder,
        "--logfile",
        log,
    ]


def answers(port: int) -> bool:
    done = subprocess.run(
        ["redis-cli", "-p", str(port), "ping"], capture_output=True, text=True, check=False
    )
    return done.stdout.strip() == "PONG"


def restart_redis(run: FaultRun) -> None:
    port = urlparse(run.stack.broker_url).port or 6379
    time.sleep(3)
    subprocess.run(
        ["redis-cli", "-p", str(port), "shutdown", "nosave"], capture_output=True, check=False
    )
    run.strike(f"Redis shut down (nosave), down for {run.outage:g} s")
    time.sleep(run.outage)
    subprocess.run(start_command(port), check=True, capture_output=True)
    for _ in range(100):
        if answers(port):
            break
        time.sleep(0.1)
    run.note(f"Redis started again, empty (answers: {answers(port)})")


if __name__ == "__main__":
    sys.exit(run_fault("redis_restart", restart_redis, description=__doc__))
