"""docker-compose.yml is well formed and every service runs something the project has.

No Docker engine runs on our machines, so the file is checked as data.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
COMPOSE = yaml.safe_load((ROOT / "docker-compose.yml").read_text())


def test_compose_has_its_services_each_with_a_health_check_but_the_one_offs() -> None:
    services = COMPOSE["services"]
    assert set(services) == {"proxy", "postgres", "redis", "migrate", "web", "worker", "beat"}
    for name, service in services.items():
        # migrate runs once and exits; beat has no ping: compose restarts it if it exits.
        if name in ("migrate", "beat"):
            continue
        assert "healthcheck" in service, name
        assert service["healthcheck"]["test"], name


def test_every_long_running_service_is_restarted_if_it_exits() -> None:
    for name, service in COMPOSE["services"].items():
        if name == "migrate":  # a one-off: restarting it would run it again and again
            assert service.get("restart") == "no", name
            continue
        assert service.get("restart") == "unless-stopped", name


def test_one_beat_of_its_own_and_no_worker_embeds_one() -> None:
    services = COMPOSE["services"]
    assert services["beat"]["command"][:4] == ["celery", "-A", "parlour", "beat"]
    for name, service in services.items():
        assert "--beat" not in " ".join(service.get("command") or []), name


def test_web_and_worker_wait_for_the_migrations_and_healthy_postgres_and_redis() -> None:
    for name in ("web", "worker"):
        depends = COMPOSE["services"][name]["depends_on"]
        assert depends == {
            "migrate": {"condition": "service_completed_successfully"},
            "postgres": {"condition": "service_healthy"},
            "redis": {"condition": "service_healthy"},
        }
        env = COMPOSE["services"][name]["environment"]
        assert env["DATABASE_URL"].startswith("postgres://")
        assert env["CELERY_BROKER_URL"].startswith("redis://")
        assert env["DEBUG"] == "false"


def test_migrations_run_as_the_owner_and_the_application_as_its_own_role() -> None:
    services = COMPOSE["services"]
    owner = services["postgres"]["environment"]["POSTGRES_USER"]
    migrate = " ".join(services["migrate"]["command"])
    assert "manage.py migrate" in migrate and "manage.py grant_app_role parlour_app" in migrate
    assert services["migrate"]["environment"]["DATABASE_URL"].startswith(f"postgres://{owner}:")
    for name in ("web", "worker"):
        url = services[name]["environment"]["DATABASE_URL"]
        assert url.startswith("postgres://parlour_app:"), name
        assert "migrate" not in " ".join(services[name]["command"]), name


def test_every_service_command_names_something_the_project_has() -> None:
    web = " ".join(COMPOSE["services"]["web"]["command"])
    assert "manage.py collectstatic" in web
    module = re.search(r"gunicorn (\S+):application", web)
    assert module is not None
    assert (ROOT / (module.group(1).replace(".", "/") + ".py")).exists()
    worker = COMPOSE["services"]["worker"]["command"]
    assert worker[:3] == ["celery", "-A", "parlour"]
    assert (ROOT / "parlour" / "celery.py").exists()
    dockerfile = (ROOT / "Dockerfile").read_text()
    for copied in re.findall(r"^COPY (\S+)", dockerfile, re.M):
        assert (ROOT / copied).exists(), copied


def test_the_proxy_is_the_one_way_in_and_limits_each_clients_connections() -> None:
    services = COMPOSE["services"]
    assert services["proxy"]["ports"] == ["8000:8000"]
    assert "ports" not in services["web"], "the web service is reached through the proxy"
    assert "./deploy/nginx.conf:/etc/nginx/conf.d/default.conf:ro" in services["proxy"]["volumes"]
    assert services["web"]["environment"]["PARLOUR_NUM_PROXIES"] == "1"
    site = (ROOT / "deploy" / "nginx.conf").read_text()
    # bench/faults/stack.py runs this same file with these two lines changed.
    assert "server web:8000 resolve;" in site and "listen 8000;" in site
    zone = re.search(r"limit_conn_zone \$binary_remote_addr zone=(\w+):", site)
    limit = re.search(r"limit_conn (\w+) (\d+);", site)
    assert zone and limit and limit.group(1) == zone.group(1)
    # Above the application's own cap, so that its 429 problems decide below the proxy's.
    from django.conf import settings

    assert int(limit.group(2)) > settings.PARLOUR_OPEN_STREAMS_PER_ADDRESS
    assert "limit_conn_status 429;" in site
    # The upgrade for the push channel, no buffering limit below the application's body limit.
    assert "proxy_set_header Upgrade $http_upgrade;" in site
    body = re.search(r"client_max_body_size (\d+)m;", site)
    assert body and int(body.group(1)) * 1_000_000 > settings.DATA_UPLOAD_MAX_MEMORY_SIZE


def test_the_proxys_refusal_of_an_api_request_is_a_problem_document() -> None:
    import json

    site = (ROOT / "deploy" / "nginx.conf").read_text()
    block = site.split("location @api_refused {", 1)[1].split("\n    }", 1)[0]
    assert "default_type application/problem+json;" in block
    body = re.search(r"return 429 '(.*)\\n';", block)
    assert body is not None
    problem = json.loads(body.group(1))
    assert problem["type"] == "/api/v1/problems/throttled" and problem["status"] == 429
    assert problem["retry_after"] == 1 and problem["limit"] == "connections_address"


def test_the_dependencies_the_services_run_are_declared() -> None:
    pyproject = (ROOT / "pyproject.toml").read_text()
    for package in ("gunicorn", "uvicorn", "uvicorn-worker", "celery", "psycopg"):
        assert f'"{package}' in pyproject, package


def _compose_value(value: object) -> str:
    """A compose environment value with ``${NAME:-default}`` as compose resolves it unset."""
    text = str(value)

    def resolve(match: re.Match[str]) -> str:
        name, default = match.group(1), match.group(3) or ""
        if name == "SECRET_KEY":  # required (":?"): the operator's own, a strong one
            return "k3Qz!x9-" + "v7Lp#r2Wm8" * 6
        return default

    return re.sub(r"\$\{(\w+)(:[-?](.*?))?\}", resolve, text)


def test_the_dockerfiles_default_is_debug_off() -> None:
    dockerfile = (ROOT / "Dockerfile").read_text()
    assert re.search(r"^ENV .*\bDEBUG=false\b", dockerfile, re.M)


def test_check_deploy_is_clean_in_the_compose_shape() -> None:
    env = {k: _compose_value(v) for k, v in COMPOSE["services"]["web"]["environment"].items()}
    for name in ("SESSION_COOKIE_SECURE", "CSRF_COOKIE_SECURE", "SECURE_SSL_REDIRECT"):
        assert env[name] == "true", name
    assert int(env["SECURE_HSTS_SECONDS"]) >= 31536000
    assert env["SECURE_PROXY_SSL_HEADER"] == "X-Forwarded-Proto: https"
    inherited = {
        k: v for k, v in os.environ.items() if not k.startswith(("DATABASE", "SECURE", "DEBUG"))
    }
    run = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=ROOT,
        env=inherited | env | {"PARLOUR_TEST_BOTH_BACKENDS": "0"},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert "no issues" in run.stdout, run.stdout
