"""``make run``'s launcher (``parlour.devserver``) keeps its children running."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable
from pathlib import Path

import pytest

from parlour.devserver import Child, Supervisor, describe_exit

ROOT = Path(__file__).resolve().parents[2]
SLEEPER = [sys.executable, "-c", "import time; time.sleep(600)"]
PORT = 8117


def wait_until(predicate: Callable[[], object], *, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            pytest.fail(f"timed out after {timeout} s waiting for {what}")
        time.sleep(0.05)


def pid_of(child: Child) -> int:
    assert child.process is not None
    return child.process.pid


def test_a_child_killed_with_sigkill_is_started_again_and_the_other_keeps_running() -> None:
    web, worker = Child("web", SLEEPER), Child("worker", SLEEPER)
    supervisor = Supervisor([web, worker], restart_delay=0.2)
    for child in (web, worker):
        child.start()
    try:
        first, web_pid = pid_of(worker), pid_of(web)
        os.kill(first, signal.SIGKILL)

        def restarted() -> bool:
            supervisor.check()
            return worker.process is not None and worker.process.pid != first

        wait_until(restarted, timeout=5, what="the worker to be started again")
        assert web.process is not None and web.process.pid == web_pid
        assert web.process.poll() is None and worker.process is not None
        assert worker.process.poll() is None
    finally:
        for child in (web, worker):
            child.stop()


def test_a_child_that_keeps_dying_is_reported_and_left_stopped(
    capsys: pytest.CaptureFixture[str],
) -> None:
    web = Child("web", SLEEPER)
    worker = Child("worker", [sys.executable, "-c", "raise SystemExit(3)"])
    supervisor = Supervisor([web, worker], restart_delay=0.05, give_up_deaths=5)
    for child in (web, worker):
        child.start()
    try:

        def given_up() -> bool:
            supervisor.check()
            return worker.given_up

        wait_until(given_up, timeout=20, what="the supervisor to give the worker up")
        assert len(worker.deaths) == 5 and worker.process is None
        for _ in range(5):  # and it stays stopped
            time.sleep(0.1)
            supervisor.check()
        assert worker.process is None
        assert web.process is not None and web.process.poll() is None
        err = capsys.readouterr().err
        assert err.count("worker started") == 5
        assert "worker (pid" in err and "exit code 3" in err
        assert "died 5 times in 60 s, so it is not started again" in err
    finally:
        web.stop()


def test_exits_are_described_by_code_or_signal() -> None:
    assert describe_exit(1) == "exit code 1"
    assert describe_exit(-9) == "killed by SIGKILL"


def _healthy() -> bool:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{PORT}/healthz", timeout=2) as answer:
            return bool(answer.status == 200)
    except OSError:
        return False


def test_make_runs_launcher_restarts_a_killed_worker_while_the_web_keeps_serving(
    tmp_path: Path,
) -> None:
    """The real ``python -m parlour.devserver`` on the embedded default (SQLite, no Redis)."""
    env = {
        k: v
        for k, v in os.environ.items()
        if k
        not in (
            "DATABASE_URL",
            "POSTGRES_URL",
            "REDIS_URL",
            "CELERY_BROKER_URL",
            "PARLOUR_TEST_BOTH_BACKENDS",
        )
    }
    env.update(PORT=str(PORT), PARLOUR_VAR_DIR=str(tmp_path / "var"), PYTHONPATH=str(ROOT))
    log = tmp_path / "devserver.log"
    with log.open("wb") as out:
        launcher = subprocess.Popen(
            [sys.executable, "-m", "parlour.devserver"],
            cwd=ROOT,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )

    def pids(name: str) -> list[int]:
        text = log.read_text(errors="replace")
        return [int(pid) for pid in re.findall(rf"{name} started \(pid (\d+)\)", text)]

    try:
        wait_until(lambda: pids("worker") and _healthy(), timeout=60, what="make run to serve")
        (web_pid,), (worker_pid,) = pids("web server"), pids("worker")
        time.sleep(2)  # the worker is up (its pool and beat started)
        os.killpg(worker_pid, signal.SIGKILL)
        killed = time.monotonic()
        answers = []
        while len(pids("worker")) < 2 and time.monotonic() - killed < 10:
            answers.append(_healthy())
            time.sleep(0.1)
        assert len(pids("worker")) == 2, log.read_text()
        assert time.monotonic() - killed < 5  # started again within a few seconds
        assert answers and all(answers)  # the web server served all along
        assert pids("web server") == [web_pid]
        assert f"worker (pid {worker_pid}) stopped: killed by SIGKILL" in log.read_text()
        os.kill(launcher.pid, signal.SIGINT)  # Ctrl-C
        assert launcher.wait(timeout=60) == 0
        # In order and in time: each child stopped by itself, none killed, and the
        # worker's pool was not shot from under it (which Celery logs as errors).
        text = log.read_text(errors="replace")
        assert "web server stopped (" in text and "worker stopped (" in text, text
        assert "killing it" not in text and "exited with 'signal" not in text, text
        for pid in (web_pid, pids("worker")[1]):
            with pytest.raises(ProcessLookupError):
                os.kill(pid, 0)  # the children are gone
    finally:
        if launcher.poll() is None:
            os.killpg(launcher.pid, signal.SIGKILL)
            launcher.wait()
