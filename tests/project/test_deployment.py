"""docker-compose.yml is well formed and every service runs something the project has.

No Docker engine runs on our machines, so the file is checked as data.
"""

from __future__ import annotations

import re
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
COMPOSE = yaml.safe_load((ROOT / "docker-compose.yml").read_text())


def test_compose_has_the_five_services_each_with_a_health_check_or_beats_restart() -> None:
    services = COMPOSE["services"]
    assert set(services) == {"postgres", "redis", "web", "worker", "beat"}
    for name, service in services.items():
        if name == "beat":  # no ping for beat: compose restarts it if it exits
            continue
        assert "healthcheck" in service, name
        assert service["healthcheck"]["test"], name


def test_every_long_running_service_is_restarted_if_it_exits() -> None:
    for name, service in COMPOSE["services"].items():
        assert service.get("restart") == "unless-stopped", name


def test_one_beat_of_its_own_and_no_worker_embeds_one() -> None:
    services = COMPOSE["services"]
    assert services["beat"]["command"][:4] == ["celery", "-A", "parlour", "beat"]
    for name, service in services.items():
        assert "--beat" not in " ".join(service.get("command") or []), name


def test_web_and_worker_wait_for_healthy_postgres_and_redis() -> None:
    for name in ("web", "worker"):
        depends = COMPOSE["services"][name]["depends_on"]
        assert depends == {
            "postgres": {"condition": "service_healthy"},
            "redis": {"condition": "service_healthy"},
        }
        env = COMPOSE["services"][name]["environment"]
        assert env["DATABASE_URL"].startswith("postgres://")
        assert env["CELERY_BROKER_URL"].startswith("redis://")
        assert env["DEBUG"] == "false"


def test_every_service_command_names_something_the_project_has() -> None:
    web = " ".join(COMPOSE["services"]["web"]["command"])
    assert "manage.py migrate" in web
    module = re.search(r"gunicorn (\S+):application", web)
    assert module is not None
    assert (ROOT / (module.group(1).replace(".", "/") + ".py")).exists()
    worker = COMPOSE["services"]["worker"]["command"]
    assert worker[:3] == ["celery", "-A", "parlour"]
    assert (ROOT / "parlour" / "celery.py").exists()
    dockerfile = (ROOT / "Dockerfile").read_text()
    for copied in re.findall(r"^COPY (\S+)", dockerfile, re.M):
        assert (ROOT / copied).exists(), copied


def test_the_dependencies_the_services_run_are_declared() -> None:
    pyproject = (ROOT / "pyproject.toml").read_text()
    for package in ("gunicorn", "uvicorn", "uvicorn-worker", "celery", "psycopg"):
        assert f'"{package}' in pyproject, package
