"""Two minutes of ``bench/soak.py``: the ``make run`` stack, a real worker killed twice.

The embedded default (SQLite, the SQLite broker, ``python -m parlour.devserver``
supervising uvicorn serving ``parlour.asgi`` and ``celery worker --beat``) plays the live demo's bot
tournaments while the worker's process group is killed with SIGKILL twice.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from tests.workers.conftest import ROOT

pytestmark = pytest.mark.slow


def test_two_minutes_of_make_run_lose_nothing_while_the_worker_is_killed_twice() -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PARLOUR_TEST_")}
    run = subprocess.run(
        [sys.executable, "bench/soak.py", "--minutes", "2", "--kills", "2", "--json"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert run.stdout.strip(), run.stderr[-3000:]
    figures = json.loads(run.stdout.strip().splitlines()[-2])
    what = run.stdout[-3000:]
    assert figures["kills"] == 2 and figures["restarts"] == 2, what
    assert figures["unplanned_crashes"] == 0 and figures["given_up"] == 0, what
    assert figures["tasks_lost"] == 0, what
    assert figures["streams_with_gap"] == 0, what
    assert figures["answers_5xx"] == 0 and figures["request_errors"] == 0, what
    assert figures["games_finished"] > 0 and figures["events"] > 0, what
    # The live demo: every home page read showed a tournament being played.
    assert figures["homes_with_nothing_playing"] == 0, what
    assert "make run stopped on Ctrl-C with exit code 0" in figures["notes"], what
    assert run.returncode == 0, what
