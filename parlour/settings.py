"""Parlour's one settings module, driven by environment variables.

With no configuration Parlour runs embedded: SQLite under ``var/`` and a Celery
broker on another SQLite file under ``var/``, so ``make run`` needs no server.
Production sets ``DATABASE_URL`` (PostgreSQL), ``CELERY_BROKER_URL`` and
``REDIS_URL`` (Redis), ``DEBUG=false`` and a ``SECRET_KEY``.  Every value is read
by a strict helper from :mod:`parlour.env`: a bad one stops start-up with a
message that says what is accepted.

(Over 400 lines, on purpose: Django reads one settings module, and each setting
here sits next to the environment variable and the reason that set it; splitting
it would only hide which value wins.)
"""

from __future__ import annotations

from pathlib import Path

import dj_database_url
from csp.constants import NONE, SELF

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

# -- HTTPS (docs/operations.md, "HTTPS and browser security"): off unless set, so
# that make run and the benchmark stacks work over plain HTTP on loopback; the
# compose shape sets every one of them.


def _proxy_ssl_header(name: str) -> tuple[str, str] | None:
    """``X-Forwarded-Proto: https`` → Django's ``("HTTP_X_FORWARDED_PROTO", "https")``."""
    value = env_str(name, "").strip()
    if not value:
        return None
    header, colon, expected = value.partition(":")
    header, expected = header.strip(), expected.strip()
    if not colon or not header or not expected or " " in header:
        raise ConfigError(
            f"{name}={value!r}: write it as the header your proxy sets and the value that"
            " means HTTPS, e.g. 'X-Forwarded-Proto: https'"
        )
    return "HTTP_" + header.upper().replace("-", "_"), expected


#: Trust this header from the TLS-terminating proxy to tell an HTTPS request (only
#: set it when the proxy always sets or strips that header).
SECURE_PROXY_SSL_HEADER = _proxy_ssl_header("SECURE_PROXY_SSL_HEADER")
SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", False)
#: The container's own health check asks over plain HTTP, from inside.
SECURE_REDIRECT_EXEMPT = [r"^healthz$"]
SESSION_COOKIE_SECURE = env_bool("SESSION_COOKIE_SECURE", False)
CSRF_COOKIE_SECURE = env_bool("CSRF_COOKIE_SECURE", False)
SECURE_HSTS_SECONDS = env_int("SECURE_HSTS_SECONDS", 0, minimum=0)
SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", False)
SECURE_HSTS_PRELOAD = env_bool("SECURE_HSTS_PRELOAD", False)

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "events",
    "tournaments",
    # The REST API (tournaments/api, see the "REST API" section below).
    "rest_framework",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "corsheaders",
    "csp",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    # The pages' CSS and JavaScript (collectstatic'ed) served by the app itself when DEBUG is off.
    "whitenoise.middleware.WhiteNoiseMiddleware",
    # The REST API: CORS headers, and problem documents for /api/ (oversized bodies, crashes).
    "corsheaders.middleware.CorsMiddleware",
    "tournaments.api.middleware.ApiProblemMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    # The language of pages and messages (docs/i18n.md): Django's LocaleMiddleware with our
    # order; after the login (whose kept choice and club count), before anything renders.
    "tournaments.languages.LanguageMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "csp.middleware.CSPMiddleware",
]

# The pages' Content-Security-Policy (django-csp): scripts and styles from our own
# static files only — no inline script, event handler or style attribute — and no
# framing.  tests/pages/test_content_security_policy.py checks the pages keep to it.
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": [SELF],
        "script-src": [SELF],
        "style-src": [SELF],
        "img-src": [SELF, "data:"],
        "connect-src": [SELF],
        "font-src": [SELF],
        "object-src": [NONE],
        "base-uri": [SELF],
        "form-action": [SELF],
        "frame-ancestors": [NONE],
    }
}

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


def database_settings(
    url: str, *, conn_max_age: int = 0, pool_size: int = 0, pool_timeout: float = 10.0
) -> dict[str, object]:
    """Django's settings of one database, from its URL; :class:`ConfigError` if unusable.

    ``conn_max_age`` is ``DATABASE_CONN_MAX_AGE``; ``pool_size`` > 0 gives a
    PostgreSQL database psycopg's connection pool (``DATABASE_POOL_SIZE``
    connections at most, each request waiting up to ``pool_timeout`` seconds for
    one).  The names in messages are the environment variables.
    """
    try:
        # No persistent connections by default: under ASGI (what docker-compose
        # serves) each request's sync code runs in a thread of its own, so a
        # kept connection is never reused and N concurrent requests would leave
        # N connections open (tests/fuzz/test_asgi_database_connections.py).
        # Under a WSGI server with a fixed set of threads a positive value is safe.
        config: dict[str, object] = dict(dj_database_url.parse(url, conn_max_age=conn_max_age))
    except ValueError as error:
        raise ConfigError(
            f"DATABASE_URL={url!r} is not usable ({error}); use sqlite:///path or"
            " postgres://user@host:port/name"
        ) from None
    engine = str(config["ENGINE"])
    if engine.endswith("sqlite3"):
        if pool_size > 0:
            raise ConfigError(
                f"DATABASE_POOL_SIZE={pool_size}: the connection pool is for PostgreSQL, and"
                f" DATABASE_URL={url!r} is SQLite; unset DATABASE_POOL_SIZE (or set it to 0)"
            )
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
    else:
        # Parameters bound by the server, and a statement run five times on a connection
        # prepared there (psycopg's automatic preparation): PostgreSQL then parses and
        # plans the action path's statements once per connection, not once per request
        # (issue 24).  Django disables both by default for transaction-mode PgBouncer,
        # which Parlour does not sit behind (docs/operations.md).
        url_options = config.get("OPTIONS")
        options: dict[str, object] = dict(url_options) if isinstance(url_options, dict) else {}
        options.setdefault("server_side_binding", True)
        options.setdefault("prepare_threshold", 5)
        config["OPTIONS"] = options
        if pool_size > 0:
            if conn_max_age > 0:
                raise ConfigError(
                    f"DATABASE_POOL_SIZE={pool_size} and DATABASE_CONN_MAX_AGE={conn_max_age} do"
                    " not go together: the pool keeps the connections itself (Django refuses a"
                    " pool with persistent connections); unset DATABASE_CONN_MAX_AGE (or set it"
                    " to 0)"
                )
            # Django's psycopg pool (Django 5.1+, psycopg[pool]): at most pool_size
            # connections per process, reused from request to request (no connect per
            # request), and a request waits up to pool_timeout seconds for a free one
            # instead of pushing PostgreSQL past max_connections.  A couple are kept
            # open when idle so a quiet site's first request does not pay a connect.
            # The URL's own options (?sslmode=..., ?application_name=...) are kept.
            options["pool"] = {
                "min_size": min(2, pool_size),
                "max_size": pool_size,
                "timeout": pool_timeout,
            }
            config["CONN_MAX_AGE"] = 0
    if pool_size > 0 or config["CONN_MAX_AGE"]:
        # A pooled or kept connection may have died meanwhile (a PostgreSQL
        # restart): check it before the request or task that reuses it (one empty
        # round trip) rather than fail that one; with the pool, a request that meets
        # a dead one waits (psycopg_pool backs off from 1 s) for a new one.
        config["CONN_HEALTH_CHECKS"] = True
    return config


DATABASE_URL = env_str("DATABASE_URL", f"sqlite:///{VAR_DIR / 'parlour.sqlite3'}")
#: Seconds a process keeps a connection for its next request or task (0 under ASGI).
DATABASE_CONN_MAX_AGE = env_int("DATABASE_CONN_MAX_AGE", 0, minimum=0)
#: Connections of psycopg's pool *per process* (0: no pool, a connection per request).
DATABASE_POOL_SIZE = env_int("DATABASE_POOL_SIZE", 0, minimum=0)
#: Seconds a request waits for a free pooled connection before failing (503 under /api/).
DATABASE_POOL_TIMEOUT = env_float("DATABASE_POOL_TIMEOUT", 10.0, minimum=0.1)
DATABASES = {
    "default": database_settings(
        DATABASE_URL,
        conn_max_age=DATABASE_CONN_MAX_AGE,
        pool_size=DATABASE_POOL_SIZE,
        pool_timeout=DATABASE_POOL_TIMEOUT,
    )
}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

#: The test suite runs the store's tests against both backends: it adds the
#: aliases ``sqlite`` and ``postgres`` (never used outside tests).
TEST_BOTH_BACKENDS = env_bool("PARLOUR_TEST_BOTH_BACKENDS", False)
POSTGRES_URL = env_str("POSTGRES_URL", "postgres://postgres@127.0.0.1:5432/parlour")
if TEST_BOTH_BACKENDS:
    # Never pooled: DATABASE_POOL_SIZE is for the web processes' "default".
    DATABASES["sqlite"] = database_settings(
        f"sqlite:///{VAR_DIR / 'parlour-sqlite-alias.sqlite3'}",
        conn_max_age=DATABASE_CONN_MAX_AGE,
    )
    DATABASES["postgres"] = database_settings(POSTGRES_URL, conn_max_age=DATABASE_CONN_MAX_AGE)
    for _alias in ("sqlite", "postgres"):
        DATABASES[_alias]["TEST"] = {"DEPENDENCIES": []}
    # A file, as make run's database is, not Django's shared in-memory default: that one
    # locks whole tables, so concurrent writers fail instead of waiting their turn.
    DATABASES["sqlite"]["TEST"] = {
        "DEPENDENCIES": [],
        "NAME": str(VAR_DIR / "test-parlour-sqlite-alias.sqlite3"),
    }

REDIS_URL = env_str("REDIS_URL", "")
if REDIS_URL:
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": REDIS_URL,
            # One pool per process, not one per request (parlour/cache.py).
            "OPTIONS": {"pool_class": "parlour.cache.SharedConnectionPool"},
            # Several Parlours may share one Redis database (a test's live servers, a
            # bench run beside other work): each keeps its throttles and slots apart.
            "KEY_PREFIX": env_str("CACHE_KEY_PREFIX", ""),
        }
    }
else:
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
]

# Pages and messages in Russian and English (docs/i18n.md).  English is the source
# language of the catalogs and the default for a request that names neither.
LANGUAGES = [("ru", "Русский"), ("en", "English")]
LANGUAGE_CODE = env_str("LANGUAGE_CODE", "en")
if LANGUAGE_CODE not in dict(LANGUAGES):
    raise ConfigError(f"LANGUAGE_CODE must be one of {', '.join(dict(LANGUAGES))}")
LOCALE_PATHS = [BASE_DIR / "locale"]
# The switcher's choice is remembered for a year, not for the browser session.
LANGUAGE_COOKIE_AGE = 365 * 24 * 3600
LANGUAGE_COOKIE_SAMESITE = "Lax"
TIME_ZONE = env_str("TIME_ZONE", "UTC")
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = VAR_DIR / "static"
STATIC_ROOT.mkdir(parents=True, exist_ok=True)
LOGIN_URL = "/accounts/login/"
LOGIN_REDIRECT_URL = "/"
LOGOUT_REDIRECT_URL = "/"

# -- Celery -------------------------------------------------------------------
# Embedded default (issue 16): kombu's SQLAlchemy transport on a SQLite file under
# var/, no server needed; a sqla+sqlite:// URL gets parlour.broker's tuning of it
# (WAL, a busy timeout, polled every 0.1 s, taken rows deleted: docs/workers.md).
CELERY_BROKER_URL = env_str("CELERY_BROKER_URL", f"sqla+sqlite:///{VAR_DIR / 'broker.sqlite3'}")
if CELERY_BROKER_URL.startswith("sqla+sqlite:"):
    CELERY_BROKER_URL = CELERY_BROKER_URL.removeprefix("sqla+")
    CELERY_BROKER_TRANSPORT = "parlour.broker:Transport"
    CELERY_BROKER_TRANSPORT_OPTIONS: dict[str, object] = {}
else:
    # Redis: a message taken but not acknowledged (acks late) goes back to the
    # queue after this many seconds if its worker vanished.  An ETA task is held
    # unacknowledged until it runs, so a timeout further off than half of this is
    # queued sooner and queues itself again (tasks.held_until).  Lost tasks are
    # recovered sooner by the sweep (docs/workers.md), so this is only the last resort.
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "visibility_timeout": env_int("PARLOUR_BROKER_VISIBILITY_SECONDS", 3600, minimum=60)
    }
    if CELERY_BROKER_URL.startswith("redis://"):
        # kombu's transport, but a Redis restart no longer kills a worker (parlour/broker.py).
        # Not for rediss://: kombu turns TLS on from the URL's scheme, which a transport
        # named here would replace.
        CELERY_BROKER_TRANSPORT = "parlour.broker:RedisTransport"
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
CELERY_TIMEZONE = TIME_ZONE
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
# A worker that loses the broker stops its running tasks: they are redelivered
# (acks late), and a second run changes nothing.
CELERY_WORKER_CANCEL_LONG_RUNNING_TASKS_ON_CONNECTION_LOSS = True
# Celery's Django fix-up closes every database connection around each task unless
# this is set (it then closes them every 1,000 tasks): a bot move paid a new
# PostgreSQL connection, several times the move's own database work
# (docs/benchmarks.md).  parlour/celery.py instead does around each task what
# Django does around a request: it closes a connection older than
# DATABASE_CONN_MAX_AGE (0, the default: after every task) or no longer usable.
CELERY_DB_REUSE_MAX = 1000
# Our tasks take milliseconds: a task still running after this is stuck.
CELERY_TASK_SOFT_TIME_LIMIT = 60
CELERY_TASK_TIME_LIMIT = 90
# Publishing happens after a commit, inside a web request or a task: give up
# quickly if the broker is down (the sweep finds the work in the database).
CELERY_TASK_PUBLISH_RETRY_POLICY = {
    "max_retries": 2,
    "interval_start": 0,
    "interval_step": 0.2,
    "interval_max": 0.5,
}

# -- Parlour --------------------------------------------------------------------
#: Seconds a bot waits before acting, so people can watch bot games.
PARLOUR_BOT_THINK_SECONDS = env_float("PARLOUR_BOT_THINK_SECONDS", 0.0, minimum=0.0)
#: The pause before the server plays a person's forced move, so the table can follow it.
PARLOUR_FORCED_MOVE_SECONDS = env_float("PARLOUR_FORCED_MOVE_SECONDS", 0.6, minimum=0.0)
#: How often (seconds) the sweep looks for expired turn deadlines.
PARLOUR_SWEEP_SECONDS = env_float("PARLOUR_SWEEP_SECONDS", 1.0, minimum=0.1)
#: A bot to act in a game where nothing happened for this long (beyond the think
#: delay) has lost its task: the sweep queues its move again.
PARLOUR_BOT_STALL_SECONDS = env_float("PARLOUR_BOT_STALL_SECONDS", 5.0, minimum=0.5)
#: Keep a demo bot tournament always playing (make run sets it: tournaments/demo.py).
PARLOUR_DEMO_LIVE = env_bool("PARLOUR_DEMO_LIVE", False)
#: Largest request body accepted, in bytes.
DATA_UPLOAD_MAX_MEMORY_SIZE = env_int("PARLOUR_MAX_BODY_BYTES", 1_000_000, minimum=1024)

# -- REST API (tournaments/api, docs/api.md) -------------------------------------------


def _rate(name: str, default: str) -> str:
    """A throttle rate ``N/period`` (period ``s``, ``min``, ``hour`` or ``day``)."""
    value = env_str(name, default)
    number, _, period = value.partition("/")
    if not number.isdigit() or period not in ("s", "sec", "m", "min", "h", "hour", "d", "day"):
        raise ConfigError(
            f"{name}={value!r} is not a rate: write it as 100/min (s, min, hour, day)"
        )
    return value


REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "tournaments.api.authentication.BearerTokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.AllowAny"],
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    "DEFAULT_PARSER_CLASSES": ["tournaments.api.parsers.LimitedJSONParser"],
    "DEFAULT_PAGINATION_CLASS": "tournaments.api.pagination.Pagination",
    "PAGE_SIZE": 50,
    # One throttle counts the address, anon and token limits in one cache round trip.
    "DEFAULT_THROTTLE_CLASSES": ["tournaments.api.throttling.RateLimits"],
    # Requests per period, counted in fixed windows of the period in the default
    # cache (Redis in production); None is no limit.
    "DEFAULT_THROTTLE_RATES": {
        "address": _rate("PARLOUR_API_RATE_ADDRESS", "1200/min"),
        "anon": _rate("PARLOUR_API_RATE_ANON", "300/min"),
        "token": _rate("PARLOUR_API_RATE_TOKEN", "600/min"),
        # POST /records/verify and /records (a view's throttle_scope), per address, anyone.
        "records": _rate("PARLOUR_API_RATE_RECORDS", "30/min"),
        # Streams (a game's, a tournament's) opened without signing in, per address: a
        # spectator's page opens one and keeps it for minutes; a loop reopening a whole
        # stream is what this stops (bench/abuse.py attack b).  Club Wi-Fi: 60 a minute
        # is 300 anonymous pages behind one address, each reconnecting every 5 minutes.
        "anon_streams": _rate("PARLOUR_API_RATE_ANON_STREAMS", "60/min"),
        "anon_tournament_streams": _rate("PARLOUR_API_RATE_ANON_TOURNAMENT_STREAMS", "1/s"),
    },
    # 0, not None: with None DRF takes the client's own X-Forwarded-For as its address,
    # which any client can forge to escape the address limits.
    "NUM_PROXIES": env_int("PARLOUR_NUM_PROXIES", 0, minimum=0),
    "EXCEPTION_HANDLER": "tournaments.api.problems.exception_handler",
    "DEFAULT_SCHEMA_CLASS": "tournaments.api.schema.ProblemAutoSchema",
    "UNAUTHENTICATED_USER": "django.contrib.auth.models.AnonymousUser",
}
#: The largest record (bytes of JSON) that POST /records/verify and /records take (413 above).
PARLOUR_RECORD_MAX_BYTES = env_int("PARLOUR_RECORD_MAX_BYTES", 200_000, minimum=1024)
#: The most moves such a record may hold (422 above): a bot game has at most ~200.
PARLOUR_RECORD_MAX_MOVES = env_int("PARLOUR_RECORD_MAX_MOVES", 2_000, minimum=1)
#: Failed password logins (every way in: HTTP Basic on the API, the login page, the
#: admin), counted per account and per client address in fixed windows, like the API's
#: rates; over one, logins are refused until its window ends (tournaments/logins.py).
PARLOUR_LOGIN_RATES: dict[str, str | None] = {
    "account": _rate("PARLOUR_LOGIN_RATE_ACCOUNT", "20/hour"),
    "address": _rate("PARLOUR_LOGIN_RATE_ADDRESS", "100/hour"),
}
AUTHENTICATION_BACKENDS = ["tournaments.logins.ThrottledModelBackend"]
#: Django's default hashers, the first (pbkdf2_sha256, what new passwords are stored
#: with) computed at the lowest CPU priority so that the hashes a guesser is allowed do
#: not slow everyone else (tournaments/hashers.py).
PASSWORD_HASHERS = [
    "tournaments.hashers.YieldingPBKDF2PasswordHasher",
    "django.contrib.auth.hashers.PBKDF2SHA1PasswordHasher",
    "django.contrib.auth.hashers.Argon2PasswordHasher",
    "django.contrib.auth.hashers.BCryptSHA256PasswordHasher",
    "django.contrib.auth.hashers.ScryptPasswordHasher",
]
SPECTACULAR_SETTINGS = {
    "TITLE": "Parlour API",
    "DESCRIPTION": "Club tournaments of shedding card games: clubs, players, tournaments,"
    " rounds, tables, games, events, records, standings and ratings. See docs/api.md.",
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    # The docs page's scripts are served from our own static files, not a CDN.
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "SCHEMA_PATH_PREFIX": "/api/v1",
    "COMPONENT_SPLIT_REQUEST": True,
    # The games' actions, views and events, typed from the engine's declarations.
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "tournaments.api.schema.game_shapes",
        "tournaments.api.schema.rate_headers",
    ],
    # Ids in paths (tournaments/converters.py) are integers, as with <int:…>.
    "PATH_CONVERTER_OVERRIDES": {"id": {"type": "integer"}},
    "ENUM_NAME_OVERRIDES": {
        "TournamentStatusEnum": "tournaments.models.Tournament.Status",
        "RoundStatusEnum": "tournaments.models.Round.Status",
        "TableStatusEnum": "tournaments.models.Table.Status",
        "GameStatusEnum": "tournaments.models.Game.Status",
    },
}
#: Origins (a club's own site) allowed to call the API from a browser, comma-separated.
CORS_ALLOWED_ORIGINS = env_list("CORS_ALLOWED_ORIGINS", [])
CORS_URLS_REGEX = r"^/api/.*$"
CORS_ALLOW_HEADERS = (
    "accept",
    "authorization",
    "content-type",
    "idempotency-key",
    "last-event-id",
)
CORS_EXPOSE_HEADERS = (
    "Retry-After",
    "Location",
    "Idempotency-Replayed",
    "RateLimit-Policy",
    "RateLimit",
)
#: Longest a streaming (Server-Sent Events) response stays open, in seconds.
PARLOUR_STREAM_SECONDS = env_float("PARLOUR_STREAM_SECONDS", 300.0, minimum=1.0)
#: How often a stream looks for new events, in seconds.
PARLOUR_STREAM_POLL_SECONDS = env_float("PARLOUR_STREAM_POLL_SECONDS", 0.25, minimum=0.01)
#: Longest a long-poll (GET /games/{id}?after=N&wait=S) waits for the game to move, in seconds.
PARLOUR_LONG_POLL_SECONDS = env_float("PARLOUR_LONG_POLL_SECONDS", 30.0, minimum=0.0)
#: Seconds a 429 answer (a rate or an open-streams limit) or a 413 waits before it is sent, at most
#: its Retry-After: a client looping on refusals makes one a second per connection, and the
#: wait costs the server no thread and no CPU (tournaments/api/handler.py).  0: at once.
PARLOUR_REFUSAL_DELAY_SECONDS = env_float("PARLOUR_REFUSAL_DELAY_SECONDS", 1.0, minimum=0.0)
#: Streams and long-polls one token (or logged-in user) may hold open at once.
PARLOUR_OPEN_STREAMS_PER_TOKEN = env_int("PARLOUR_OPEN_STREAMS_PER_TOKEN", 8, minimum=1)
#: ... and one address (all its clients together; behind a proxy, see PARLOUR_NUM_PROXIES).
PARLOUR_OPEN_STREAMS_PER_ADDRESS = env_int("PARLOUR_OPEN_STREAMS_PER_ADDRESS", 32, minimum=1)

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "filters": {"refusals": {"()": "parlour.logs.RefusalsWithoutTraceback"}},
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "loggers": {
        # Django's own console handler (on under DEBUG) wrote every django.* line a second
        # time beside the root's (found by trying): the root's alone writes them.
        "django": {"handlers": [], "level": "INFO", "propagate": True},
        "django.request": {"filters": ["refusals"]},
    },
    "root": {"handlers": ["console"], "level": env_str("LOG_LEVEL", "INFO")},
}
