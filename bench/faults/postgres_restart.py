"""Fault run: PostgreSQL restarted during load.

    .venv/bin/python bench/faults/postgres_restart.py --yes [--tables 6] [--keep]

CAUTION: this restarts the PostgreSQL cluster of ``--url`` (the one ``pg_lsclusters``
lists on its port: the machine's shared ``main`` by default), ``pg_ctlcluster
--skip-systemctl-redirect <version> <name> restart``: every connection to it, other
people's included, is cut. Hence ``--yes``.  A cluster of the run's own keeps others
out of it: ``pg_createcluster 15 faults --port 5440 --start`` (trust it for local
connections in its ``pg_hba.conf``), then ``--url postgres://postgres@127.0.0.1:5440/postgres``.

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
from urllib.parse import urlparse

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from bench.faults.checks import FaultRun, run_fault  # noqa: E402


def cluster_of(port: int) -> tuple[str, str]:
    """The (version, name) of the local cluster listening on ``port`` (``pg_lsclusters``)."""
    listed = subprocess.run(["pg_lsclusters", "-h"], capture_output=True, text=True, check=True)
    for line in listed.stdout.splitlines():
        version, name, found = line.split()[:3]
        if int(found) == port:
            return version, name
    raise SystemExit(f"no local PostgreSQL cluster listens on port {port} (pg_lsclusters)")


def restart_postgres(run: FaultRun) -> None:
    time.sleep(3)
    version, name = cluster_of(urlparse(run.stack.database_url).port or 5432)
    run.strike(f"restarting PostgreSQL {version}/{name}")
    started = time.monotonic()
    subprocess.run(
        ["pg_ctlcluster", "--skip-systemctl-redirect", version, name, "restart"],
        check=True,
        capture_output=True,
    )
    run.note(f"PostgreSQL restarted ({time.monotonic() - started:.1f} s)")


if __name__ == "__main__":
    sys.exit(run_fault("postgres_restart", restart_postgres, description=__doc__))
