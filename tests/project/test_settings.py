"""The settings helpers fail loudly on a bad value and say what is accepted."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from parlour.env import ConfigError, env_bool, env_int

ROOT = Path(__file__).resolve().parents[2]


def test_a_boolean_accepts_true_false_one_zero_on_off(monkeypatch: pytest.MonkeyPatch) -> None:
    for word, expected in [("true", True), ("0", False), ("ON", True), ("off", False)]:
        monkeypatch.setenv("PARLOUR_FLAG", word)
        assert env_bool("PARLOUR_FLAG", not expected) is expected


def test_debug_yes_is_an_error_that_lists_the_accepted_words(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("DEBUG", "yes")
    with pytest.raises(ConfigError, match="true, on, 0|use one of"):
        env_bool("DEBUG", False)


def test_a_number_that_is_not_one_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PARLOUR_N", "ten")
    with pytest.raises(ConfigError, match="not a whole number"):
        env_int("PARLOUR_N", 1)


def _start(**env: str) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if k not in ("DEBUG", "SECRET_KEY")}
    return subprocess.run(
        [sys.executable, "-c", "import django; django.setup()"],
        cwd=ROOT,
        env=clean | {"DJANGO_SETTINGS_MODULE": "parlour.settings"} | env,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_the_project_refuses_to_start_with_debug_yes() -> None:
    run = _start(DEBUG="yes")
    assert run.returncode != 0
    assert "DEBUG='yes' is not a boolean" in run.stderr


def test_without_debug_a_secret_key_must_be_given() -> None:
    run = _start(DEBUG="false")
    assert run.returncode != 0
    assert "SECRET_KEY must be set" in run.stderr
    assert _start(DEBUG="false", SECRET_KEY="s3cret-for-the-test").returncode == 0


def _settings(expression: str, **env: str) -> subprocess.CompletedProcess[str]:
    """A fresh process's settings, ``expression`` of them (``s``) printed, with ``env``."""
    return subprocess.run(
        [
            sys.executable,
            "-c",
            "import django; django.setup(); from django.conf import settings as s;"
            f" print({expression})",
        ],
        cwd=ROOT,
        env=env | {"DJANGO_SETTINGS_MODULE": "parlour.settings"},
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_the_default_database_is_a_sqlite_file_under_var() -> None:
    run = _settings(
        "s.DATABASES['default']['NAME'], s.CELERY_BROKER_URL",
        **{
            k: v
            for k, v in os.environ.items()
            if k
            not in ("DATABASE_URL", "DATABASE_POOL_SIZE", "CELERY_BROKER_URL", "PARLOUR_VAR_DIR")
        },
    )
    name, broker = run.stdout.split()
    assert name == str(ROOT / "var" / "parlour.sqlite3")
    assert broker == "sqlite:///" + str(ROOT / "var" / "broker.sqlite3")


@pytest.mark.parametrize(
    ("url", "transport"),
    [
        ("redis://127.0.0.1:6379/1", "parlour.broker:RedisTransport"),
        # kombu turns TLS on from the scheme: a transport named in the settings would not.
        ("rediss://127.0.0.1:6380/1", "None"),
    ],
)
def test_a_redis_broker_url_takes_the_mended_transport_and_a_tls_one_kombu_s(
    url: str, transport: str
) -> None:
    run = _settings(
        "getattr(s, 'CELERY_BROKER_TRANSPORT', None)",
        **(dict(os.environ) | {"CELERY_BROKER_URL": url}),
    )
    assert run.stdout.strip() == transport, run.stderr[-2000:]
