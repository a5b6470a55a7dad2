"""End-to-end tests in a real browser: Debian's Chromium driven by Playwright's Python package.

The app runs as it does under ``make run``: uvicorn serving ``parlour.asgi``
(:func:`parlour.devserver.web_command`, so the pages have the push channel) in a
subprocess, on a database of its own (a SQLite file in a temporary folder, or,
when the tests run on PostgreSQL, a fresh PostgreSQL database ``parlour_browser_<pid>_<n>``
dropped at the end).  The bots' seats are played by the helper process
``tests/browser/harness.py`` (a loop over :func:`tournaments.workers.autoplay.play_bot_move`,
what the Celery worker does in production), which also sets up each test's scenario.

Chromium must be ``/usr/bin/chromium`` (``apt-get install chromium``; ``make test``
installs it when it runs as root).  Without it — or without the ``playwright``
package — these tests are skipped with that reason, except under ``CI=true``,
where that is a failure.  Playwright's own browser download is never used.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlparse, urlunparse

import pytest

from parlour.devserver import web_command

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = os.environ.get("PARLOUR_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
SCREENSHOTS = ROOT / "var" / "screenshots"
IN_CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")
DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}


def _missing() -> str | None:
    """Why the browser tests cannot run here, or ``None``."""
    if not Path(CHROMIUM).exists():
        return (
            f"Chromium is not installed at {CHROMIUM} (apt-get install chromium;"
            " make test does it when run as root)"
        )
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "the playwright package is not installed (pip install -e '.[dev]')"
    return None


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    mine = [item for item in items if str(item.fspath).startswith(str(Path(__file__).parent))]
    for item in mine:  # a server, a helper process and Chromium for each test
        item.add_marker(pytest.mark.slow)
    reason = _missing() if mine else None
    if reason is None:
        return
    if IN_CI:
        raise pytest.UsageError(f"CI=true and {reason}: the browser tests need it")
    for item in mine:
        item.add_marker(pytest.mark.skip(reason=reason))


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _postgres_url() -> str | None:
    """The PostgreSQL server the suite runs on, if it runs on PostgreSQL."""
    url = os.environ.get("DATABASE_URL", "")
    return url if url.startswith(("postgres://", "postgresql://")) else None


#: Numbers the databases of one test process: the session's server and each module's
#: empty server live at the same time, each on a database of its own.
_DATABASES = itertools.count(1)


@contextlib.contextmanager
def _fresh_env() -> Iterator[dict[str, str]]:
    """An environment for a server and a helper: a new, migrated database and var folder."""
    folder = Path(tempfile.mkdtemp(prefix="parlour-browser-"))
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("PARLOUR_TEST_BOTH_BACKENDS", "REDIS_URL", "DJANGO_SETTINGS_MODULE")
    }
    env.update(
        {
            "DJANGO_SETTINGS_MODULE": "parlour.settings",
            "PARLOUR_VAR_DIR": str(folder),
            "DEBUG": "true",
            # Tasks the app queues stay in the server's memory: the helper plays the bots.
            "CELERY_BROKER_URL": "memory://",
            "CELERY_TASK_ALWAYS_EAGER": "false",
            "PARLOUR_STREAM_POLL_SECONDS": "0.05",
            "PARLOUR_STREAM_SECONDS": "120",
            "PYTHONPATH": str(ROOT),
            "PYTHONUNBUFFERED": "1",
        }
    )
    server = _postgres_url()
    database = None
    if server is not None:
        import psycopg

        database = f"parlour_browser_{os.getpid()}_{next(_DATABASES)}"
        parts = urlparse(server)
        admin = urlunparse(parts._replace(path="/postgres"))
        with psycopg.connect(admin, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{database}"')
            conn.execute(f'CREATE DATABASE "{database}"')
        env["DATABASE_URL"] = urlunparse(parts._replace(path=f"/{database}"))
        env["POSTGRES_URL"] = env["DATABASE_URL"]
    else:
        env["DATABASE_URL"] = f"sqlite:///{folder / 'browser.sqlite3'}"
    subprocess.run(
        [sys.executable, "manage.py", "migrate", "--noinput", "-v0"],
        cwd=ROOT,
        env=env,
        check=True,
    )
    yield env
    if server is not None and database is not None:
        import psycopg

        parts = urlparse(server)
        admin = urlunparse(parts._replace(path="/postgres"))
        with psycopg.connect(admin, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{database}" WITH (FORCE)')
    shutil.rmtree(folder, ignore_errors=True)


def _stop(process: subprocess.Popen[Any]) -> None:
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=5)


@contextlib.contextmanager
def _serving(app_env: dict[str, str]) -> Iterator[str]:
    """The app served as ``make run`` serves it (uvicorn, parlour.asgi); its base URL."""
    port = _free_port()
    log = open(Path(app_env["PARLOUR_VAR_DIR"]) / "server.log", "wb")  # noqa: SIM115
    process = subprocess.Popen(
        web_command(port),
        cwd=ROOT,
        env=app_env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 30
    while True:
        try:
            with urllib.request.urlopen(base + "/healthz", timeout=2) as answer:
                if answer.status == 200:
                    break
        except OSError:
            pass
        if process.poll() is not None or time.monotonic() > deadline:
            _stop(process)
            log.close()
            text = (Path(app_env["PARLOUR_VAR_DIR"]) / "server.log").read_text(errors="replace")
            pytest.fail(f"the web server did not start:\n{text[-3000:]}")
        time.sleep(0.2)
    yield base
    _stop(process)
    log.close()


@pytest.fixture(scope="session")
def app_env() -> Iterator[dict[str, str]]:
    """The environment of the server and the helper: a database and a var folder of their own."""
    with _fresh_env() as env:
        yield env


@pytest.fixture(scope="session")
def server(app_env: dict[str, str]) -> Iterator[str]:
    """The app served as ``make run`` serves it; its base URL."""
    with _serving(app_env) as base:
        yield base


class Harness:
    """The helper process: one JSON command per line in, one JSON answer per line out."""

    def __init__(self, env: dict[str, str]) -> None:
        self.errors = open(Path(env["PARLOUR_VAR_DIR"]) / "harness.log", "wb")  # noqa: SIM115
        self.process = subprocess.Popen(
            [sys.executable, "-m", "tests.browser.harness"],
            cwd=ROOT,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self.errors,
            text=True,
        )
        ready = self._read()
        if not ready.get("ready"):
            raise RuntimeError(f"the browser test helper did not start: {ready}")

    def _read(self) -> dict[str, Any]:
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        if not line:
            raise RuntimeError("the browser test helper stopped (see harness.log)")
        answer: dict[str, Any] = json.loads(line)
        return answer

    def __call__(self, cmd: str, **args: Any) -> Any:
        assert self.process.stdin is not None
        self.process.stdin.write(json.dumps({"cmd": cmd, **args}) + "\n")
        self.process.stdin.flush()
        answer = self._read()
        if not answer.get("ok"):
            raise AssertionError(f"helper command {cmd} failed: {answer.get('error')}")
        return answer["result"]

    def close(self) -> None:
        if self.process.stdin is not None:
            self.process.stdin.close()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            _stop(self.process)
        self.errors.close()


@pytest.fixture(scope="module")
def empty_evening() -> Iterator[tuple[str, Harness]]:
    """A server on an empty database of its own, with a helper process on the same database
    (to play the bots' seats, people's forced moves and the clock): one whole evening."""
    with _fresh_env() as env, _serving(env) as base:
        helper = Harness(env)
        try:
            yield base, helper
        finally:
            helper.close()


@pytest.fixture(scope="session")
def harness(app_env: dict[str, str]) -> Iterator[Harness]:
    helper = Harness(app_env)
    yield helper
    helper.close()


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@pytest.fixture
def page(browser: Any, server: str) -> Iterator[Any]:
    """A fresh desktop browser tab (its own cookies) with the app's URL as base."""
    context = browser.new_context(viewport=DESKTOP, base_url=server)
    context.set_default_timeout(15_000)
    tab = context.new_page()
    errors: list[str] = []
    tab.on("pageerror", lambda error: errors.append(str(error)))
    yield tab
    context.close()
    assert not errors, f"JavaScript errors on the page: {errors}"


@pytest.fixture
def phone(browser: Any, server: str) -> Iterator[Any]:
    """A fresh phone-sized tab."""
    context = browser.new_context(
        viewport=PHONE, base_url=server, is_mobile=True, has_touch=True, device_scale_factor=2
    )
    context.set_default_timeout(15_000)
    tab = context.new_page()
    yield tab
    context.close()


def shot(tab: Any, name: str) -> Path:
    """Save a full-page screenshot of ``tab`` as ``var/screenshots/<name>.png``."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOTS / f"{name}.png"
    tab.screenshot(path=str(path), full_page=True)
    return path


def login(tab: Any, username: str, password: str) -> None:
    """Log in through the login page."""
    tab.goto("/accounts/login/")
    tab.fill("#id_username", username)
    tab.fill("#id_password", password)
    # The form's own button: the header's language switcher is a form with a button too.
    tab.click("#login-form button[type=submit]")
    tab.wait_for_selector(f"text=({username})")


def new_tab(browser: Any, base: str, viewport: dict[str, int]) -> Any:
    """A tab of its own (its own cookies) at ``viewport``, with the app's URL as base."""
    context = browser.new_context(viewport=viewport, base_url=base)
    context.set_default_timeout(15_000)
    return context.new_page()


@contextlib.contextmanager
def people_tabs(
    browser: Any, base: str, viewports: dict[str, dict[str, int]]
) -> Iterator[dict[str, Any]]:
    """One tab per person (by name, at their viewport); no JavaScript error on any of them."""
    made = {name: new_tab(browser, base, viewport) for name, viewport in viewports.items()}
    errors: list[str] = []
    for tab in made.values():
        tab.on("pageerror", lambda error: errors.append(str(error)))
    yield made
    for tab in made.values():
        tab.context.close()
    assert not errors, f"JavaScript errors on the page: {errors}"


def sign_up(tab: Any, link: str, name: str, username: str, password: str, club: str) -> None:
    """A person joins ``club`` through its sign-up link."""
    tab.goto(link)
    tab.fill("#id_name", name)
    tab.fill("#id_username", username)
    tab.fill("#id_password", password)
    tab.fill("#id_password_again", password)
    tab.click("#sign-up-form button[type=submit]")
    tab.wait_for_selector(f"text=Welcome to {club}, {name}.")


def wait_for_round(harness: Harness, tournament: int, number: int, seconds: float = 180) -> None:
    """Until round ``number`` of ``tournament`` has finished (the helper plays it)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        rounds = harness("tournament", tournament=tournament)["rounds"]
        if any(r["number"] == number and r["status"] == "finished" for r in rounds):
            return
        time.sleep(0.25)
    raise AssertionError(f"round {number} did not finish")


def first_run(tab: Any, club: str, username: str, password: str, screenshot: str) -> None:
    """On an empty install, from the home page: the first-run page makes ``club`` and its
    organiser and logs them in (a screenshot of the filled form named ``screenshot``)."""
    tab.goto("/")
    tab.wait_for_selector("text=this install has no club yet")
    tab.click("text=Set up your club")
    tab.fill("#id_club_name", club)
    tab.fill("#id_username", username)
    tab.fill("#id_password", password)
    tab.fill("#id_password_again", password)
    shot(tab, screenshot)
    tab.click("#first-run-form button[type=submit]")
    tab.wait_for_selector(f"text={club} is ready and you organise it.")
