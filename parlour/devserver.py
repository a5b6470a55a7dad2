"""``python -m parlour.devserver``: the web server and a Celery worker together.

Started by ``make run``.  Prints the URL, and stops both on Ctrl-C.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time


def _stop(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def main() -> int:
    # Ctrl-C and a plain `kill` both stop the two children in order (a shell
    # may start us with SIGINT ignored, so the handlers are set explicitly).
    signal.signal(signal.SIGINT, _stop)
    signal.signal(signal.SIGTERM, _stop)
    port = os.environ.get("PORT", "8000")
    python = sys.executable
    # The children get a session of their own, so Ctrl-C reaches only this
    # process, which then stops both in order (and exits 0).
    web = subprocess.Popen(
        [python, "manage.py", "runserver", f"127.0.0.1:{port}", "--noreload"],
        start_new_session=True,
    )
    worker = subprocess.Popen(
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
        start_new_session=True,
    )
    print(f"\n  Parlour is running at http://127.0.0.1:{port}/  (Ctrl-C stops it)\n", flush=True)
    children = [web, worker]
    try:
        while all(child.poll() is None for child in children):
            time.sleep(0.5)
        failed = next(child for child in children if child.poll() is not None)
        print(f"{failed.args[2:4]} stopped with exit code {failed.returncode}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 0
    finally:
        for child in children:
            if child.poll() is None:
                child.send_signal(signal.SIGTERM)
        for child in children:
            try:
                child.wait(timeout=10)
            except subprocess.TimeoutExpired:
                child.kill()


if __name__ == "__main__":
    sys.exit(main())
