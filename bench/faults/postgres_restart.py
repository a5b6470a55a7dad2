"""Fault run: PostgreSQL restarted during load.

    .venv/bin/python bench/faults/postgres_restart.py --yes [--tables 6] [--keep]

CAUTION: this restarts the machine's shared PostgreSQL cluster (``pg_ctlcluster
--skip-systemctl-redirect <version> main restart``): every connection to it, other
people's included, is cut. Hence ``--yes``.

Runs the workload of :func:`stack.run_fault` (a tournament of bots played by two
workers, and people's tables played through the API).  Three seconds in,
PostgreSQL is restarted (fast shutdown: running transactions are rolled back).
Requests in flight fail with a 500 problem or a lost connection, and the clients
retry each action with the same Idempotency-Key until they get an answer; tasks
retry their database errors (``autoretry_for``), and the sweep requeues the rest.
Then every check of :func:`stack.check_store` must pass: in particular an action
whose answer was lost is stored once, not twice.
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from bench.faults.checks import FaultRun, run_fault  # noqa: E402


def restart_postgres(run: FaultRun) -> None:
    time.sleep(3)
    version = sorted(p.name for p in Path("/etc/postgresql").iterdir())[0]
    run.note(f"restarting PostgreSQL {version}")
    started = time.monotonic()
    subprocess.run(
        ["pg_ctlcluster", "--skip-systemctl-redirect", version, "main", "restart"],
        check=True,
        capture_output=True,
    )
    run.note(f"PostgreSQL restarted ({time.monotonic() - started:.1f} s)")


if __name__ == "__main__":
    sys.exit(run_fault("postgres_restart", restart_postgres, description=__doc__))
