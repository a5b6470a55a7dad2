"""What one HTTP request costs on this machine, from the bare server up to a game's view.

    .venv/bin/python bench/floor.py [--seconds 10] [--connections 32] [--web-workers 3]
                                    [--threads 8]

The load targets of ``bench/load.py`` (400 actions/s at 32 players) are judged
against this: the most requests per second the same gunicorn (gthread, ``--web-workers``
x ``--threads``, as ``bench/load.py`` runs it) serves on this machine, for four
answers of increasing depth, each driven for ``--seconds`` by ``wrk`` (a C client:
Debian's package ``wrk``) over ``--connections`` kept-alive connections:

1. ``bare WSGI``: a WSGI function that answers ``ok`` (``bench/floor_app.py``): no
   Django at all, the server and the socket only;
2. ``Django /healthz``: Django with Parlour's middleware and one ``SELECT 1``;
3. ``DRF GET /api/v1``: the API's index (DRF, anonymous, the address throttle's
   Redis round trip, no database);
4. ``GET /api/v1/games/{id}``: a seated player's view of a running Old Maid game
   with a token (token, throttle, access, the stream read, the view).

For each it prints requests/s, the CPU the web processes used (cores) and so the
web CPU per request, and what PostgreSQL and wrk used.  An action of
``bench/load.py`` costs about 2.6 requests (its POST, the long-poll answer to the
other seat, the next long-poll), so the web CPU per request bounds the actions
per second two cores can carry.  Uses the database ``parlour_floor`` (made and
dropped) and Redis databases 8 and 9 (flushed).  docs/benchmarks.md records the
figures ("HTTP load", "The floor").
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # before bench/, whose engine.py would shadow the package

from bench.faults.players import person_tables  # noqa: E402
from bench.faults.stack import Stack  # noqa: E402
from bench.load import group_cpu, postgres_cpu  # noqa: E402


def wrk(url: str, seconds: float, connections: int, header: str | None) -> tuple[float, float]:
    """Requests/s and the wrk process's CPU seconds of one run against ``url``."""
    args = ["wrk", "-t2", f"-c{connections}", f"-d{seconds:.0f}s", "--latency"]
    if header:
        args += ["-H", header]
    child = subprocess.run(args + [url], capture_output=True, text=True, check=True)
    usage = _children_cpu()
    found = re.search(r"Requests/sec:\s+([\d.]+)", child.stdout)
    errors = re.search(r"Non-2xx or 3xx responses: (\d+)", child.stdout)
    if found is None:
        raise SystemExit("wrk printed no rate:\n" + child.stdout + child.stderr)
    if errors:
        raise SystemExit(f"{url}: {errors.group(1)} answers were not 2xx:\n{child.stdout}")
    return float(found.group(1)), usage


_children_seen = 0.0


def _children_cpu() -> float:
    """CPU seconds of the children this process reaped since the last call (wrk)."""
    global _children_seen
    import resource

    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    total = usage.ru_utime + usage.ru_stime
    spent, _children_seen = total - _children_seen, total
    return spent


def measure(
    name: str, url: str, pgid: int | None, args: argparse.Namespace, header: str | None = None
) -> None:
    wrk(url, 2, args.connections, header)  # warm-up: imports, connections, caches
    web0, pg0, wall0 = group_cpu(pgid), postgres_cpu(), time.monotonic()
    rate, client = wrk(url, args.seconds, args.connections, header)
    wall = time.monotonic() - wall0
    web, pg = group_cpu(pgid) - web0, postgres_cpu() - pg0
    requests = rate * args.seconds
    print(
        f"  {name:<28} {rate:8.0f} requests/s   web {web / wall:4.2f} cores"
        f" = {web / requests * 1000:5.2f} ms CPU a request"
        f"   postgres {pg / wall:4.2f}   wrk {client / wall:4.2f}",
        flush=True,
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=10)
    parser.add_argument("--connections", type=int, default=32)
    parser.add_argument("--web-workers", type=int, default=3)
    parser.add_argument("--threads", type=int, default=8)
    args = parser.parse_args()
    if shutil.which("wrk") is None:
        raise SystemExit("wrk is not installed: apt-get install wrk (Debian's package)")
    _children_cpu()
    with Stack("parlour_floor") as stack:
        _, seats = person_tables("floor", 1, people_per_table=2, bots_per_table=0)
        bare = stack.start_web(
            args.web_workers, "wsgi", args.threads, app="bench.floor_app:application"
        )
        print(
            f"gunicorn gthread {args.web_workers} x {args.threads} threads,"
            f" wrk {args.connections} connections, {args.seconds:.0f} s each:"
        )
        measure("bare WSGI (no Django)", stack.url + "/", bare.popen and bare.popen.pid, args)
        bare.stop()
        web = stack.start_web(args.web_workers, "wsgi", args.threads)
        pgid = web.popen.pid if web.popen else None
        measure("Django /healthz", stack.url + "/healthz", pgid, args)
        measure("DRF GET /api/v1", stack.url + "/api/v1", pgid, args)
        seat = seats[0]
        measure(
            "GET /api/v1/games/{id}",
            f"{stack.url}/api/v1/games/{seat.game}",
            pgid,
            args,
            header=f"Authorization: Bearer {seat.token}",
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
