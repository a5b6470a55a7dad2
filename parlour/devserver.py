"""``python -m parlour.devserver``: the web server and a Celery worker, supervised.

Started by ``make run``.  Prints the URL; if either child dies it says how, starts
it again after ``RESTART_DELAY`` seconds and keeps the other one serving; a child
that dies ``GIVE_UP_DEATHS`` times within ``GIVE_UP_WINDOW`` seconds is reported and
left stopped (a loop of restarts would hide the cause).  Ctrl-C (or SIGTERM) stops
the web server, then the worker (which puts the tasks it holds back in the
broker), and exits 0.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from collections import deque
from collections.abc import Callable, Sequence

RESTART_DELAY = 1.0
GIVE_UP_DEATHS = 5
GIVE_UP_WINDOW = 60.0
#: Seconds a child has to stop after SIGTERM before it is killed.
STOP_TIMEOUT = 20.0


def _say(message: str) -> None:
    print(f"[parlour.devserver] {message}", file=sys.stderr, flush=True)


def describe_exit(returncode: int) -> str:
    """``exit code 1`` or ``killed by SIGKILL``: how a child ended."""
    if returncode < 0:
        try:
            return f"killed by {signal.Signals(-returncode).name}"
        except ValueError:
            return f"killed by signal {-returncode}"
    return f"exit code {returncode}"


class Child:
    """One supervised process: its command, the process now, its recent deaths."""

    def __init__(self, name: str, argv: Sequence[str]) -> None:
        self.name = name
        self.argv = list(argv)
        self.process: subprocess.Popen[bytes] | None = None
        self.deaths: deque[float] = deque()
        self.restart_at: float | None = None
        self.given_up = False

    def start(self) -> None:
        # A session of its own: Ctrl-C reaches only the supervisor, which then
        # stops the children in order; and the child's whole group (the worker's
        # pool and beat) can be stopped at once.
        self.process = subprocess.Popen(self.argv, start_new_session=True)
        self.restart_at = None
        _say(f"{self.name} started (pid {self.process.pid})")

    def stop(self) -> None:
        process = self.process
        if process is None or process.poll() is not None:
            return
        _say(f"stopping the {self.name} (pid {process.pid})")
        started = time.monotonic()
        try:
            # To the child alone: Celery's main process stops its own pool and beat in
            # order (a SIGTERM to the whole group killed the pool under it, each an ERROR).
            process.send_signal(signal.SIGTERM)
            process.wait(timeout=STOP_TIMEOUT)
            _say(f"{self.name} stopped ({time.monotonic() - started:.1f} s)")
        except subprocess.TimeoutExpired:
            _say(f"{self.name} did not stop within {STOP_TIMEOUT:.0f} s: killing it")
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)  # nothing of its group outlives it


class Supervisor:
    """Keeps its children running: see the module's docstring."""

    def __init__(
        self,
        children: Sequence[Child],
        *,
        restart_delay: float = RESTART_DELAY,
        give_up_deaths: int = GIVE_UP_DEATHS,
        give_up_window: float = GIVE_UP_WINDOW,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.children = list(children)
        self.restart_delay = restart_delay
        self.give_up_deaths = give_up_deaths
        self.give_up_window = give_up_window
        self.clock = clock

    def check(self) -> None:
        """One round: note the children that died, start those whose delay is over."""
        now = self.clock()
        for child in self.children:
            process = child.process
            if child.given_up:
                continue
            if process is not None and process.poll() is not None:
                child.process = None
                child.deaths.append(now)
                while child.deaths and child.deaths[0] < now - self.give_up_window:
                    child.deaths.popleft()
                how = describe_exit(process.returncode)
                if len(child.deaths) >= self.give_up_deaths:
                    child.given_up = True
                    _say(
                        f"{child.name} (pid {process.pid}) stopped: {how}. It died"
                        f" {len(child.deaths)} times in {self.give_up_window:.0f} s, so it is"
                        " not started again; its own messages above say why. Fix that and"
                        " start make run again (Ctrl-C stops the rest)."
                    )
                    continue
                _say(
                    f"{child.name} (pid {process.pid}) stopped: {how}; starting it again"
                    f" in {self.restart_delay:g} s"
                )
                child.restart_at = now + self.restart_delay
            if child.process is None and child.restart_at is not None and now >= child.restart_at:
                child.start()

    def run(self, *, every: float = 0.2) -> int:
        """Start the children and keep them running until SIGINT/SIGTERM (0), or until
        every child was given up (1).  Always stops the children in order."""
        try:
            for child in self.children:
                child.start()
            while not all(child.given_up for child in self.children):
                time.sleep(every)
                self.check()
            _say("every process was given up: stopping")
            return 1
        except KeyboardInterrupt:
            return 0
        finally:
            for child in self.children:
                child.stop()


def _stop(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def web_command(port: str | int, python: str = sys.executable) -> list[str]:
    """The web server of ``make run`` on ``port``: uvicorn serving ``parlour.asgi``, as
    production does, so that the pages have the push channel (``/api/v1/ws``) too.

    One process, as ``runserver`` was: the embedded SQLite database wants few writers.
    Without Redis each open stream or socket reads its game's row every tenth of a
    second (tournaments/workers/notify.py).  Stopping, it gives open streams and
    sockets a few seconds to end.
    """
    return [
        python,
        "-m",
        "uvicorn",
        "parlour.asgi:application",
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--timeout-graceful-shutdown",
        "3",
        "--lifespan",
        "off",  # Django and Channels have no start-up or shut-down events to run
    ]


def main() -> int:
    # Ctrl-C and a plain `kill` both stop the children in order (a shell may
    # start us with SIGINT ignored, so the handlers are set explicitly).
    signal.signal(signal.SIGINT, _stop)
    signal.signal(signal.SIGTERM, _stop)
    port = os.environ.get("PORT", "8000")
    # The children inherit it: beat keeps a demo bot tournament playing.
    os.environ.setdefault("PARLOUR_DEMO_LIVE", "true")
    python = sys.executable
    web = Child("web server", web_command(port))
    worker = Child(
        "worker",
        [
            python,
            "-m",
            "celery",
            "-A",
            "parlour",
            "worker",
            "--beat",
            "--loglevel=warning",
            "--concurrency=2",
        ],
    )
    print(f"\n  Parlour is running at http://127.0.0.1:{port}/  (Ctrl-C stops it)\n", flush=True)
    return Supervisor([web, worker]).run()


if __name__ == "__main__":
    sys.exit(main())
