"""Parlour's one settings module, driven by environment variables.

With no configuration Parlour runs embedded: SQLite under ``var/`` and a Celery
broker on the filesystem under ``var/``, so ``make run`` needs no server.
Production sets ``DATABASE_URL`` (PostgreSQL), ``CELERY_BROKER_URL`` and
``REDIS_URL`` (Redis), ``DEBUG=false`` and a ``SECRET_KEY``.  Every value is read
by a strict helper from :mod:`parlour.env`: a bad one stops start-up with a
message that says what is accepted.
"""

from __future__ import annotations

from pathlib import Path

import dj_database_url

from parlour.env import ConfigError, env_bool, env_float, env_int, env_list, env_str

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = Path(env_str("PARLOUR_VAR_DIR", str(BASE_DIR / "var")))
VAR_DIR.mkdir(parents=True, exist_ok=True)

DEBUG = env_bool("DEBUG", True)

_DEV_SECRET = "parlour-development-only-not-secret"
SECRET_KEY = env_str("SECRET_KEY", _DEV_SECRET if DEBUG else None)
if not DEBUG and SECRET_KEY == _DEV_SECRET:
    raise ConfigError("SECRET_KEY must be set to a secret of your own when DEBUG is off")

ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["*"] if DEBUG else [])
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", [])

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "events",
    "tournaments",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

ROOT_URLCONF = "parlour.urls"
WSGI_APPLICATION = "parlour.wsgi.application"
ASGI_APPLICATION = "parlour.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]


def _database(url: str) -> dict[str, object]:
    try:
        config: dict[str, object] = dict(dj_database_url.parse(url, conn_max_age=60))
    except ValueError as error:
        raise ConfigError(
            f"DATABASE_URL={url!r} is not usable ({error}); use sqlite:///path or"
            " postgres://user@host:port/name"
        ) from None
    engine = str(config["ENGINE"])
    if engine.endswith("sqlite3"):
        # Web and worker processes share the file: WAL lets readers go on while
        # one writes, IMMEDIATE takes the write lock up front so a transaction
        # never fails half-way on a lock upgrade, and writers wait, not fail.
        config["OPTIONS"] = {
            "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
            "transaction_mode": "IMMEDIATE",
            "timeout": 30,
        }
        config["CONN_MAX_AGE"] = 0
    elif "postgresql" not in engine:
        raise ConfigError(f"DATABASE_URL={url!r}: Parlour runs on PostgreSQL or SQLite only")
    return config


DATABASE_URL = env_str("DATABASE_URL", f"sqlite:///{VAR_DIR / 'parlour.sqlite3'}")
DATABASES = {"default": _database(DATABASE_URL)}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

#: The test suite runs the store's tests against both backends: it adds the
#: aliases ``sqlite`` and ``postgres`` (never used outside tests).
TEST_BOTH_BACKENDS = env_bool("PARLOUR_TEST_BOTH_BACKENDS", False)
POSTGRES_URL = env_str("POSTGRES_URL", "postgres://postgres@127.0.0.1:5432/parlour")
if TEST_BOTH_BACKENDS:
    DATABASES["sqlite"] = _database(f"sqlite:///{VAR_DIR / 'parlour-sqlite-alias.sqlite3'}")
    DATABASES["postgres"] = _database(POSTGRES_URL)

REDIS_URL = env_str("REDIS_URL", "")
if REDIS_URL:
    CACHES = {
        "default": {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": REDIS_URL}
    }
else:
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
]

LANGUAGE_CODE = "en"
TIME_ZONE = env_str("TIME_ZONE", "UTC")
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = VAR_DIR / "static"
LOGIN_URL = "/accounts/login/"
LOGIN_REDIRECT_URL = "/"

# -- Celery -------------------------------------------------------------------
# Embedded default: kombu's filesystem transport under var/, no server needed.
CELERY_BROKER_URL = env_str("CELERY_BROKER_URL", "filesystem://")
_BROKER_DIR = VAR_DIR / "broker"
if CELERY_BROKER_URL.startswith("filesystem://"):
    for sub in ("queue", "processed"):
        (_BROKER_DIR / sub).mkdir(parents=True, exist_ok=True)
    CELERY_BROKER_TRANSPORT_OPTIONS: dict[str, object] = {
        "data_folder_in": str(_BROKER_DIR / "queue"),
        "data_folder_out": str(_BROKER_DIR / "queue"),
        "processed_folder": str(_BROKER_DIR / "processed"),
        "store_processed": False,
    }
else:
    CELERY_BROKER_TRANSPORT_OPTIONS = {}
# Tasks are idempotent (each names the game sequence it expects), so it is safe
# to acknowledge only after the work is done and to requeue on a lost worker:
# a task is then at worst run twice, and the second run changes nothing.
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
# One message at a time per process: a slow game never holds others' tasks.
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_IGNORE_RESULT = True
CELERY_TASK_ALWAYS_EAGER = env_bool("CELERY_TASK_ALWAYS_EAGER", False)
CELERY_BEAT_SCHEDULE_FILENAME = str(VAR_DIR / "celerybeat-schedule")

# -- Parlour --------------------------------------------------------------------
#: Seconds a bot waits before acting, so people can watch bot games.
PARLOUR_BOT_THINK_SECONDS = env_float("PARLOUR_BOT_THINK_SECONDS", 0.0, minimum=0.0)
#: How often (seconds) the sweep looks for expired turn deadlines.
PARLOUR_SWEEP_SECONDS = env_float("PARLOUR_SWEEP_SECONDS", 1.0, minimum=0.1)
#: Largest request body accepted, in bytes.
DATA_UPLOAD_MAX_MEMORY_SIZE = env_int("PARLOUR_MAX_BODY_BYTES", 1_000_000, minimum=1024)

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": env_str("LOG_LEVEL", "INFO")},
}
