"""Under ASGI (parlour.asgi, what docker-compose serves), requests must not hoard DB connections.

Found by ``bench/load.py``: with 32 and more players, gunicorn's uvicorn workers
answered hundreds of 500s, "FATAL: sorry, too many clients already".  Django runs
each ASGI request's sync code in a thread of its own, so a persistent connection
(``CONN_MAX_AGE`` > 0) is never reused by the next request: every request opened
a new connection, and it stayed open after its request ended.  N concurrent
requests left N connections behind, and a busy server soon held more than
PostgreSQL's ``max_connections``.  ``parlour/settings.py`` now keeps no
connection by default (``DATABASE_CONN_MAX_AGE``, 0).

The test serves requests through Django's ASGI application in a child process
(on PostgreSQL, as in production, with the default settings) and counts the
server's connections named after the run once the requests are done.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid
from pathlib import Path
from urllib.parse import urlparse, urlunparse

import psycopg
import pytest

ROOT = Path(__file__).resolve().parents[2]

CHILD = r"""
import asyncio, json, sys
import django
django.setup()
import httpx, psycopg
from django.core.asgi import get_asgi_application

app = get_asgi_application()

async def main(n):
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as client:
        answers = await asyncio.gather(*[client.get("/healthz") for _ in range(n)])
    return sorted({a.status_code for a in answers})

statuses = asyncio.run(main(int(sys.argv[1])))
with psycopg.connect(sys.argv[2], autocommit=True) as admin:
    open_now = admin.execute(
        "SELECT COUNT(*) FROM pg_stat_activity WHERE application_name = %s", [sys.argv[3]]
    ).fetchone()[0]
print(json.dumps({"statuses": statuses, "open": open_now}))
"""


@pytest.mark.postgres
def test_concurrent_asgi_requests_leave_no_database_connections_open() -> None:
    from django.conf import settings

    base = str(settings.POSTGRES_URL)
    admin = urlunparse(urlparse(base)._replace(path="/postgres"))
    name = f"parlour-asgi-{uuid.uuid4().hex[:8]}"
    database = urlunparse(
        urlparse(base)._replace(path="/postgres", query=f"application_name={name}")
    )
    with psycopg.connect(admin, autocommit=True):
        pass  # the server answers
    env = {k: v for k, v in os.environ.items() if not k.startswith("PARLOUR_TEST_")}
    env.update(
        DATABASE_URL=database,
        DJANGO_SETTINGS_MODULE="parlour.settings",
        DEBUG="false",
        SECRET_KEY="asgi-" + uuid.uuid4().hex,
        ALLOWED_HOSTS="127.0.0.1",
        PYTHONPATH=str(ROOT),
    )
    done = subprocess.run(
        [sys.executable, "-c", CHILD, "30", admin, name],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    found = json.loads(done.stdout.strip().splitlines()[-1])
    assert found["statuses"] == [200]
    # Once the 30 requests are answered, at most a handful of connections may stay open
    # (a pool's idle ones); with CONN_MAX_AGE = 60 every request's connection did.
    assert found["open"] <= 4, (
        f"{found['open']} database connections stay open after 30 concurrent ASGI requests:"
        " persistent connections (CONN_MAX_AGE) do not work under ASGI"
    )
