"""Fault run: Celery workers killed (SIGKILL) in the middle of a bot tournament.

    .venv/bin/python bench/faults/worker_kill.py [--tables 6] [--keep]

Runs the workload of :func:`stack.run_fault` (a tournament of bots played by two
workers, and people's tables played through the API) on a database of its own.
Two seconds in, ``worker-b``'s whole process group (main process and pool) is
killed with SIGKILL while it holds bot tasks, and started again two seconds later;
at six seconds ``worker-a`` is killed the same way and restarted at eight, and at ten
beat (the scheduler of the sweep, the safety net) is killed and restarted at
twelve.  A killed worker's unacknowledged tasks stay with Redis until the visibility
timeout; the sweep finds their games stalled and queues
their bot moves again.  Then every check of :func:`stack.check_store` must pass:
acknowledged actions stored once, streams gap-free and legal, every game and both
tournaments finished, projections rebuilt equal to the live ones.

Only this run's own processes are touched: safe to run next to other work.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from bench.faults.checks import FaultRun, run_fault  # noqa: E402


def kill_workers(run: FaultRun) -> None:
    a, b, beat = run.workers
    for process in (b, a, beat):  # at 2, 6 and 10 s, each back 2 s later
        time.sleep(2)
        process.kill()
        run.strike(f"{process.name} killed (SIGKILL, whole process group)")
        time.sleep(2)
        process.start()
        run.note(f"{process.name} started again")


if __name__ == "__main__":
    sys.exit(run_fault("worker_kill", kill_workers, description=__doc__))
