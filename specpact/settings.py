"""SpecPact settings: one module, every value from the environment through a typed reader.

With no environment at all it runs embedded: an SQLite file and a filesystem Celery broker
under var/, DEBUG on. Production sets DEBUG=0, SECRET_KEY, ALLOWED_HOSTS, DATABASE_URL
(PostgreSQL) and CELERY_BROKER_URL (Redis).
"""

from __future__ import annotations

import ipaddress
import re
from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured

from specpact.apps_list import PROJECT_APPS
from specpact.env import env_bool, env_float, env_int, env_list, env_str

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = Path(env_str("SPECPACT_VAR_DIR", str(BASE_DIR / "var")) or BASE_DIR / "var")

DEBUG = env_bool("DEBUG", default=True)

_secret = env_str("SECRET_KEY")
if not _secret:
    if not DEBUG:
        raise ImproperlyConfigured("SECRET_KEY is required when DEBUG is off")
    # Only for the embedded demo and tests: never used with DEBUG off.
    _secret = "insecure-embedded-demo-key-not-for-production-use-0123456789abcdef"  # noqa: S105
SECRET_KEY = _secret

ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["127.0.0.1", "localhost", "[::1]"] if DEBUG else [])
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", [])

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "rest_framework",
    "django_filters",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    *PROJECT_APPS,
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "kernel.middleware.RequestIdMiddleware",
    "kernel.api.guard.RequestGuardMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "kernel.middleware.ContentSecurityPolicyMiddleware",
]

ROOT_URLCONF = "specpact.urls"
WSGI_APPLICATION = "specpact.wsgi.application"
ASGI_APPLICATION = "specpact.asgi.application"

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
            # `breakable` in every template (kernel/templatetags/pages.py).
            "builtins": ["kernel.templatetags.pages"],
        },
    },
]

_database_url = env_str("DATABASE_URL")
if not _database_url:
    # The embedded default: an SQLite file under var/, created on first use.
    VAR_DIR.mkdir(parents=True, exist_ok=True)
    _database_url = f"sqlite:///{VAR_DIR / 'specpact.sqlite3'}"
# Persistent connections: a new PostgreSQL connection per request costs a fork on the
# server and the TLS/auth round trips (issue 16 measured it on every request). Health
# checks make a connection that died while idle (a database restart) reconnect instead of
# failing the next request. 0 turns it off (one connection per request, Django's default).
DATABASES = {
    "default": dj_database_url.parse(
        _database_url,
        conn_max_age=env_int("DATABASE_CONN_MAX_AGE", 600),
        conn_health_checks=True,
    )
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # Several processes share the demo's file (web, control worker): wait for a lock
    # rather than fail, and take write locks up front so two writers can't deadlock.
    DATABASES["default"]["OPTIONS"] = {
        "timeout": 30,
        "transaction_mode": "IMMEDIATE",
        "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
    }
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"


AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
]
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "routes-overview"
LOGOUT_REDIRECT_URL = "login"

# Single sign-on through an OpenID Connect provider (docs/sso.md), beside local accounts:
# off unless OIDC_RP_CLIENT_ID is set. The names of the settings read by
# mozilla-django-oidc are its own (mozilla/mozilla-django-oidc 5.0.2,
# mozilla_django_oidc/auth.py and views.py, `get_settings(...)`). The client secret is read
# like every secret here: from the environment or from OIDC_RP_CLIENT_SECRET_FILE.
OIDC_RP_CLIENT_ID = env_str("OIDC_RP_CLIENT_ID", "") or ""
OIDC_ENABLED = bool(OIDC_RP_CLIENT_ID)
OIDC_RP_CLIENT_SECRET = env_str("OIDC_RP_CLIENT_SECRET", "") or ""
OIDC_PROVIDER_NAME = env_str("OIDC_PROVIDER_NAME", "single sign-on") or "single sign-on"
OIDC_OP_ISSUER = env_str("OIDC_OP_ISSUER", "") or ""
OIDC_OP_AUTHORIZATION_ENDPOINT = env_str("OIDC_OP_AUTHORIZATION_ENDPOINT", "") or ""
OIDC_OP_TOKEN_ENDPOINT = env_str("OIDC_OP_TOKEN_ENDPOINT", "") or ""
OIDC_OP_USER_ENDPOINT = env_str("OIDC_OP_USER_ENDPOINT", "") or ""
OIDC_OP_JWKS_ENDPOINT = env_str("OIDC_OP_JWKS_ENDPOINT", "") or ""
OIDC_OP_END_SESSION_ENDPOINT = env_str("OIDC_OP_END_SESSION_ENDPOINT", "") or ""
OIDC_GROUPS_CLAIM = env_str("OIDC_GROUPS_CLAIM", "groups") or "groups"
OIDC_ROLE_MAPPING = env_str("OIDC_ROLE_MAPPING", "") or ""
# ID tokens are checked as RS256 JWS against the provider's JWKS (signature, alg, exp by
# PyJWT; nonce by mozilla-django-oidc; iss and aud by accounts_app/sso.py).
OIDC_RP_SIGN_ALGO = "RS256"
OIDC_RP_SCOPES = env_str("OIDC_RP_SCOPES", "openid email profile") or "openid email profile"
OIDC_USE_NONCE = True
OIDC_USE_PKCE = True
OIDC_TIMEOUT = env_float("OIDC_TIMEOUT_S", 10.0)
# Kept for the provider's end_session `id_token_hint` at logout.
OIDC_STORE_ID_TOKEN = True
OIDC_OP_LOGOUT_URL_METHOD = "accounts_app.sso.provider_logout_url"
LOGIN_REDIRECT_URL_FAILURE = "login"
AUTHENTICATION_BACKENDS = [
    "django.contrib.auth.backends.ModelBackend",
    *(["accounts_app.sso.SpecPactOIDCBackend"] if OIDC_ENABLED else []),
]
if OIDC_ENABLED:
    _missing = [
        name
        for name in (
            "OIDC_RP_CLIENT_SECRET",
            "OIDC_OP_ISSUER",
            "OIDC_OP_AUTHORIZATION_ENDPOINT",
            "OIDC_OP_TOKEN_ENDPOINT",
            "OIDC_OP_USER_ENDPOINT",
            "OIDC_OP_JWKS_ENDPOINT",
        )
        if not globals()[name]
    ]
    if _missing:
        raise ImproperlyConfigured(f"OIDC_RP_CLIENT_ID is set, so these are required: {', '.join(_missing)}")

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = VAR_DIR / "staticfiles"
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"
        if DEBUG
        else "whitenoise.storage.CompressedManifestStaticFilesStorage"
    },
}

# A contract is a few kB; 1 MiB leaves room and refuses abuse before parsing.
DATA_UPLOAD_MAX_MEMORY_SIZE = env_int("DATA_UPLOAD_MAX_MEMORY_SIZE", 1024 * 1024)
# A worker's result upload (PUT /api/v1/runs/{id}/result), after gzip decompression: a
# 4 levels x 512 requests x 512 tokens run (both arms) weighs 36.6 MiB in result schema 2
# (13.7 MiB gzipped; benchmarks/result_size.py measures it); the default leaves ~2.2x.
RUN_RESULT_MAX_BYTES = env_int("RUN_RESULT_MAX_BYTES", 80 * 1024 * 1024)
# The request bodies the request guard (kernel/api/guard.py) holds to a limit of their own
# instead of DATA_UPLOAD_MAX_MEMORY_SIZE: which method and path, the setting with the limit,
# and whether the view streams the body itself (the guard then leaves it unread; with
# `view_inflates`, a gzip body too: the view inflates it in chunks under the same limit).
API_BODY_LIMITS: list[dict[str, str | bool]] = [
    {
        "method": "PUT",
        "path": r"^/api/v1/runs/[^/]+/result/?$",
        "setting": "RUN_RESULT_MAX_BYTES",
        "streamed": True,
        "view_inflates": True,
    },
    {"method": "POST", "path": r"^/api/v1/workloads/?$", "setting": "WORKLOAD_MAX_BYTES", "streamed": True},
    # The upload page (workloads_app/upload_page.py): a multipart form, parsed by Django.
    {"method": "POST", "path": r"^/workload-upload/$", "setting": "WORKLOAD_MAX_BYTES"},
]
# The most rows one page of a list endpoint returns (?limit= is clamped to it).
API_MAX_PAGE_SIZE = env_int("API_MAX_PAGE_SIZE", 500)


def _throttle_rate(name: str, default: str) -> str | None:
    """DRF's `N/period` (s, m, h, d, or their words), or `off`; anything else fails now,
    not as a 500 on the first request."""
    value = (env_str(name, default) or default).strip()
    if value.lower() == "off":
        return None
    if not re.fullmatch(r"[1-9][0-9]*/(s|sec|second|m|min|minute|h|hour|d|day)", value):
        raise ImproperlyConfigured(f"{name} must be like 1200/min (or off), not {value!r}")
    return value


REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "accounts_app.authentication.ApiTokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    # JSON only: a contract document (JSON or YAML) is read by its own endpoints from the raw
    # body (contracts_app/api/uploads.py), workloads by theirs; YAML anywhere else is a 415.
    "DEFAULT_PARSER_CLASSES": ["kernel.api.parsers.SafeJSONParser"],
    "DEFAULT_RENDERER_CLASSES": [
        "rest_framework.renderers.JSONRenderer",
        "rest_framework.renderers.BrowsableAPIRenderer",
    ],
    "DEFAULT_PAGINATION_CLASS": "kernel.api.pagination.ClampedLimitOffsetPagination",
    "PAGE_SIZE": 50,
    "DEFAULT_FILTER_BACKENDS": ["kernel.api.filters.FilterBackend"],
    "EXCEPTION_HANDLER": "kernel.api.problems.problem_exception_handler",
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "UNAUTHENTICATED_USER": "django.contrib.auth.models.AnonymousUser",
    # Requests per token (or session user), per registered worker, and per anonymous address
    # (kernel/api/throttles.py).
    "DEFAULT_THROTTLE_CLASSES": [
        "kernel.api.throttles.TokenRateThrottle",
        "kernel.api.throttles.AnonymousRateThrottle",
    ],
    "DEFAULT_THROTTLE_RATES": {
        "token": _throttle_rate("API_THROTTLE_TOKEN_RATE", "1200/min"),
        "worker": _throttle_rate("API_THROTTLE_WORKER_RATE", "6000/min"),
        "anon": _throttle_rate("API_THROTTLE_ANON_RATE", "120/min"),
    },
    # Proxies in front of the web process whose X-Forwarded-For is trusted (0: none).
    "NUM_PROXIES": env_int("API_NUM_PROXIES", 0),
}

# Two caches. `default` holds the throttle counts and the login-attempt limit, which every
# web process must share: Redis with CACHE_URL=redis://… (docker-compose sets it), else a
# database table in production (DEBUG off; `specpact_cache`, created by specpact's
# migrations whatever the settings they run under), else memory (the one-process demo).
# `figures` holds the release page's built figures (dashboard_app/selectors/figure_cache.py),
# whose inputs never change once written: the same Redis with CACHE_URL, else each
# process's memory (too large and too hot for a table).
DATABASE_CACHE_TABLE = "specpact_cache"
_cache_url = env_str("CACHE_URL", "") or ""
if _cache_url and not _cache_url.startswith(("redis://", "rediss://", "unix://")):
    raise ImproperlyConfigured(f"CACHE_URL must be a redis:// URL, not {_cache_url!r}")
_redis_cache = {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": _cache_url}
_memory_cache = {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}
if _cache_url:
    _shared_cache: dict = _redis_cache
elif DEBUG:
    _shared_cache = _memory_cache
else:
    _shared_cache = {
        "BACKEND": "django.core.cache.backends.db.DatabaseCache",
        "LOCATION": DATABASE_CACHE_TABLE,
    }
CACHES = {
    "default": _shared_cache,
    "figures": _redis_cache if _cache_url else {**_memory_cache, "OPTIONS": {"MAX_ENTRIES": 300}},
}
FIGURE_CACHE_TIMEOUT_S = env_int("FIGURE_CACHE_TIMEOUT_S", 7 * 24 * 3600)

# The browser login's attempt limit (accounts_app/login_limit.py): failures allowed per
# name-and-address, per address across names (more: an office shares one) and per name
# across addresses, before each further failure waits 1, 2, 4, … s, up to LOGIN_DELAY_MAX_S;
# counts are forgotten LOGIN_LOCKOUT_S after a subject's latest failure.
LOGIN_MAX_FAILURES = env_int("LOGIN_MAX_FAILURES", 5)
LOGIN_MAX_FAILURES_PER_ADDRESS = env_int("LOGIN_MAX_FAILURES_PER_ADDRESS", 20)
LOGIN_MAX_FAILURES_PER_NAME = env_int("LOGIN_MAX_FAILURES_PER_NAME", 100)
LOGIN_DELAY_MAX_S = env_int("LOGIN_DELAY_MAX_S", 60)
LOGIN_LOCKOUT_S = env_int("LOGIN_LOCKOUT_S", 300)

SPECTACULAR_SETTINGS = {
    "TITLE": "SpecPact API",
    "DESCRIPTION": "Route contracts for speculative decoding: versions, diffs, releases, benchmarks, audit.",
    "VERSION": "v1",
    "SERVE_INCLUDE_SCHEMA": False,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "COMPONENT_SPLIT_REQUEST": True,
    # Two "format" enums (a contract's yaml/json, a workload's importers): each its own name.
    "ENUM_NAME_OVERRIDES": {
        "WorkloadFormatEnum": "workloads_app.models.WorkloadVersion.Format",
        "LiveProbeStateEnum": "live_app.choices.ProbeState",
        "LiveProbeRequestStateEnum": "live_app.choices.ProbeRequestState",
        "LiveEngineEnum": "live_app.choices.EndpointEngine",
        "SecretKindEnum": "live_app.choices.SecretKind",
        # Releases and endpoints both have a `state` choice set: each keeps its own name.
        "ReleaseStateEnum": "releases_app.choices.ReleaseState",
        "AdviceStateEnum": "advice_app.choices.AdviceState",
    },
    # Every operation's problem responses (kernel/api/schema.py), after the enum names.
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "kernel.api.schema.problem_responses",
    ],
}

# Celery: the embedded default is kombu's filesystem transport under var/, which needs
# no server; production and the test suite point CELERY_BROKER_URL at Redis.
CELERY_BROKER_URL = env_str("CELERY_BROKER_URL", "filesystem://") or "filesystem://"
CELERY_RESULT_BACKEND = None
CELERY_VISIBILITY_TIMEOUT_S = env_int("CELERY_VISIBILITY_TIMEOUT_S", 6 * 3600)
# The control-plane worker's queue: docker-compose runs it with `--queues celery` and the
# demo's (`manage.py demo`) consumes Celery's default, which this is. GPU workers never
# listen on it (only on their worker.*, engine.* and pool.* queues), so the control plane's
# own tasks (a release's conclusion after its last result upload) are sent here.
CONTROL_PLANE_QUEUE = "celery"
CELERY_TASK_DEFAULT_QUEUE = CONTROL_PLANE_QUEUE
# A control-plane worker process reserves one message at a time (Celery's default is 4; with
# acks_late the task it runs is that one): with several workers a task goes to one that is
# free, and a worker killed -9 strands no queue of unacknowledged messages until the
# broker's visibility timeout (hours on Redis) hands them to another (docs/topology.md).
CELERY_WORKER_PREFETCH_MULTIPLIER = env_int("CELERY_WORKER_PREFETCH_MULTIPLIER", 1)
if CELERY_BROKER_URL.startswith("filesystem://"):
    _broker_dir = VAR_DIR / "broker"
    CELERY_BROKER_TRANSPORT_OPTIONS: dict[str, object] = {
        "data_folder_in": str(_broker_dir / "out"),
        "data_folder_out": str(_broker_dir / "out"),
        "processed_folder": str(_broker_dir / "processed"),
        # Exchange tables; kombu's default is ./control, relative to whatever the cwd is.
        "control_folder": str(_broker_dir / "control"),
        "store_processed": False,
    }
else:
    # Longer than the longest run, so that Redis does not redeliver a long GPU job
    # to a second worker while the first is still on it.
    CELERY_BROKER_TRANSPORT_OPTIONS = {"visibility_timeout": CELERY_VISIBILITY_TIMEOUT_S}

# The worker protocol and dispatch (benchmarks_app).
# A worker silent this long is offline; its running run is lost.
WORKER_OFFLINE_AFTER_S = env_int("WORKER_OFFLINE_AFTER_S", 60)
# How often workers are told to heartbeat.
WORKER_HEARTBEAT_S = env_int("WORKER_HEARTBEAT_S", 15)
# The broker URL handed to workers at registration; unset: CELERY_BROKER_URL.
WORKER_BROKER_URL = env_str("WORKER_BROKER_URL")
# Redis Sentinel as the broker (docs/topology.md): CELERY_BROKER_URL lists the sentinels,
# `sentinel://s1:26379;sentinel://s2:26379;sentinel://s3:26379`, and kombu's sentinel
# transport asks them for the master of the group this names: "'master_name' transport
# option must be specified" (kombu 5.7 kombu/transport/redis.py, SentinelChannel). Workers
# get it at registration with the rest of the transport options (benchmarks_app/broker.py).
BROKER_SENTINEL_MASTER = env_str("BROKER_SENTINEL_MASTER", "") or ""
_sentinel = [url.startswith("sentinel://") for url in (CELERY_BROKER_URL, WORKER_BROKER_URL or "")]
if any(_sentinel) and not BROKER_SENTINEL_MASTER:
    raise ImproperlyConfigured("a sentinel:// broker URL needs BROKER_SENTINEL_MASTER (its master group)")
if _sentinel[0]:
    CELERY_BROKER_TRANSPORT_OPTIONS["master_name"] = BROKER_SENTINEL_MASTER
# Attempts per run: a lost run is requeued once, then failed.
RUN_MAX_ATTEMPTS = env_int("RUN_MAX_ATTEMPTS", 2)
# Hard time limit of a run when the request gives none, and the most a run may ask for
# (it must also stay below the broker's visibility timeout; the spec builder checks).
RUN_DEFAULT_TIME_LIMIT_S = env_int("RUN_DEFAULT_TIME_LIMIT_S", 3600)
RUN_MAX_TIME_LIMIT_S = env_int("RUN_MAX_TIME_LIMIT_S", 4 * 3600)
# The queue of release runs for the in-process engine; unset: `engine.transformers`.
RUN_RELEASE_QUEUE = env_str("RUN_RELEASE_QUEUE", "") or ""
# The pool release runs of launched engines (vLLM, SGLang, TGI, llama-server) go to: every
# GPU worker serves `pool.gpu`; a fleet that keeps release benchmarks on one kind of card
# names its hardware pool (`pool.gpu-h100`) or an operator pool its workers join (--queue).
RUN_MANAGED_QUEUE = env_str("RUN_MANAGED_QUEUE", "pool.gpu") or "pool.gpu"
# How long a run may wait with no online worker able to serve it (wrong engine, pool or
# spec version, or no worker at all) before it fails with that reason, and its release
# with it: a pipeline learns promptly that nothing will ever run it.
RUN_WORKER_WAIT_MAX_S = env_int("RUN_WORKER_WAIT_MAX_S", 300)
# The outbox relay: how often beat runs it, and the longest wait between tries to
# publish one message.
OUTBOX_RELAY_INTERVAL_S = env_int("OUTBOX_RELAY_INTERVAL_S", 5)
OUTBOX_RETRY_MAX_S = env_int("OUTBOX_RETRY_MAX_S", 300)
# How often beat sweeps for lost runs and for releases whose runs all ended.
RUN_SWEEP_INTERVAL_S = env_int("RUN_SWEEP_INTERVAL_S", 15)
# Raw samples (each result's per-request records) are kept this many days after the
# result landed, then taken out of it by beat's prune (benchmarks_app/services/retention.py,
# or `manage.py prune_raw_samples`) every RAW_SAMPLES_PRUNE_INTERVAL_S; the aggregates the
# pages draw, the digest, the verdicts and the audit trail are kept forever. 0 (the
# default): raw samples are kept forever too.
RAW_SAMPLES_RETENTION_DAYS = env_int("RAW_SAMPLES_RETENTION_DAYS", 0, minimum=0)
RAW_SAMPLES_PRUNE_INTERVAL_S = env_int("RAW_SAMPLES_PRUNE_INTERVAL_S", 3600, minimum=1)

# The audit chain's signed checkpoints (audit_app/checkpoints.py): an Ed25519 private key,
# PEM (PKCS#8, `openssl genpkey -algorithm ed25519`) or its raw 32-byte seed in base64, from
# AUDIT_SIGNING_KEY or the file AUDIT_SIGNING_KEY_FILE names. Never in the database or the
# repository. With DEBUG on and no key given, one is generated on first use at
# AUDIT_DEV_SIGNING_KEY_FILE (under var/, and the log says so); with DEBUG off, none is.
AUDIT_SIGNING_KEY = env_str("AUDIT_SIGNING_KEY", "") or ""
AUDIT_DEV_SIGNING_KEY_FILE = str(VAR_DIR / "audit-signing-key.pem") if DEBUG else ""
# The public keys that verify checkpoints besides the signing key's own: keys rotated
# away (PEM SubjectPublicKeyInfo blocks, one after another), from AUDIT_VERIFY_KEYS or the
# file AUDIT_VERIFY_KEYS_FILE names. A checkpoint's stored key id is never trusted: its
# signature must verify under one of these or the signing key, else it is a break.
AUDIT_VERIFY_KEYS = env_str("AUDIT_VERIFY_KEYS", "") or ""
# Where each signed checkpoint's head is appended as one JSON line (fsync'd), off the
# database: `verify_audit --against FILE` and `audit/verify` hold the database to it, so
# deleted checkpoint rows show. Empty: not written (the log line and the webhook still are).
AUDIT_HEAD_EXPORT_FILE = env_str("AUDIT_HEAD_EXPORT_FILE", "") or ""
# How long an Idempotency-Key's answer is kept (kernel/api/idempotency.py), and how
# often beat purges the expired ones.
IDEMPOTENCY_KEY_TTL_S = env_int("IDEMPOTENCY_KEY_TTL_S", 24 * 3600)
IDEMPOTENCY_PURGE_INTERVAL_S = env_int("IDEMPOTENCY_PURGE_INTERVAL_S", 3600)

# Webhooks (webhooks_app): how often beat runs the relay; tries before a delivery is dead;
# the backoff's base and cap (full jitter); each try's deadline; whether receivers may be
# on loopback or in private networks (off: only public addresses; link-local and metadata
# addresses never); the key the stored secrets are encrypted under (unset: SECRET_KEY).
WEBHOOK_RELAY_INTERVAL_S = env_int("WEBHOOK_RELAY_INTERVAL_S", 5)
WEBHOOK_MAX_ATTEMPTS = env_int("WEBHOOK_MAX_ATTEMPTS", 8)
WEBHOOK_RETRY_BASE_S = env_int("WEBHOOK_RETRY_BASE_S", 10)
WEBHOOK_RETRY_MAX_S = env_int("WEBHOOK_RETRY_MAX_S", 3600)
WEBHOOK_DEADLINE_S = env_int("WEBHOOK_DEADLINE_S", 10)
WEBHOOK_ALLOW_LOOPBACK = env_bool("WEBHOOK_ALLOW_LOOPBACK", False)
WEBHOOK_ALLOW_PRIVATE = env_bool("WEBHOOK_ALLOW_PRIVATE", False)
WEBHOOK_SECRET_KEY = env_str("WEBHOOK_SECRET_KEY", "") or ""

# How often beat signs a checkpoint of the chain's head (skipped when no event came since).
AUDIT_CHECKPOINT_INTERVAL_S = env_int("AUDIT_CHECKPOINT_INTERVAL_S", 3600)
# How often beat walks the whole audit chain (audit_app.verify_full): the audit page and
# `audit/verify` hash only the events after the last verified one, so an edit before it
# is caught by this walk (or `manage.py verify_audit`, or `audit/verify?full=true`).
AUDIT_FULL_VERIFY_INTERVAL_S = env_int("AUDIT_FULL_VERIFY_INTERVAL_S", 6 * 3600)

# Beat's schedule. Expiring each tick at its interval keeps a backlog of ticks from
# piling up while the control-plane worker is down; every task is safe to overlap itself.
# Live endpoints (live_app). Where the control plane may probe: comma-separated CIDRs;
# the private ranges by default. Loopback is not in the default (a control plane probing
# itself reaches its own admin ports); add 127.0.0.0/8 for a single-machine setup.
# Link-local and metadata addresses are refused whatever this says (kernel/outbound.py).
_PRIVATE_NETWORKS = "10.0.0.0/8,172.16.0.0/12,192.168.0.0/16,fc00::/7"
ENDPOINT_ALLOWED_NETWORKS = env_str("ENDPOINT_ALLOWED_NETWORKS", _PRIVATE_NETWORKS)
# Who may scrape `/metrics` without a token (observability_app/access.py): comma-separated
# CIDRs, loopback only by default; empty: every scrape needs a token. Checked here, so a
# bad value fails at start-up rather than at the first scrape.
METRICS_ALLOWED_NETWORKS = env_str("METRICS_ALLOWED_NETWORKS", "127.0.0.0/8,::1/128") or ""
for _network in filter(None, (p.strip() for p in METRICS_ALLOWED_NETWORKS.split(","))):
    try:
        ipaddress.ip_network(_network, strict=False)
    except ValueError:
        raise ImproperlyConfigured(
            f"METRICS_ALLOWED_NETWORKS: {_network!r} is not an address or CIDR"
        ) from None
# A probe (every request it sends together: connect, headers, body) ends within this many
# seconds. Probes run on the control-plane worker, never in a web worker.
ENDPOINT_PROBE_TIMEOUT_S = env_int("ENDPOINT_PROBE_TIMEOUT_S", 10)
# How long `POST …/endpoints/{name}/probe` waits for the probe before answering 202 with
# where to read it (a web worker is held that long at most).
ENDPOINT_PROBE_WAIT_S = env_float("ENDPOINT_PROBE_WAIT_S", 2.0)
# How many endpoints beat's scheduled probes read at once.
ENDPOINT_PROBE_CONCURRENCY = env_int("ENDPOINT_PROBE_CONCURRENCY", 8)
# The most one engine answer may be (a /metrics of a large vLLM is well under 1 MiB).
ENDPOINT_PROBE_MAX_BYTES = env_int("ENDPOINT_PROBE_MAX_BYTES", 4 * 1024 * 1024)
# Scheduled probes and acceptance samples of every endpoint, on beat.
ENDPOINT_PROBE_INTERVAL_S = env_int("ENDPOINT_PROBE_INTERVAL_S", 60)
# Probes and acceptance samples older than this are deleted by the scheduled probe task
# (each endpoint's last probe is kept).
ENDPOINT_HISTORY_DAYS = env_int("ENDPOINT_HISTORY_DAYS", 30)
# Secret references: env names must start with this; files must lie under these folders.
_REF_PREFIX = "SPECPACT_ENDPOINT_"
ENDPOINT_SECRET_ENV_PREFIX = env_str("ENDPOINT_SECRET_ENV_PREFIX", _REF_PREFIX) or _REF_PREFIX
ENDPOINT_SECRET_DIRS = env_list("ENDPOINT_SECRET_DIRS", [str(VAR_DIR / "secrets")])

# One beat sends the schedule however many run (kernel/beat.py): the one holding the
# database lease, renewed every third of BEAT_LEASE_S; a standby beat takes over within
# about a lease and a third after the holder dies.
BEAT_LEASE_S = env_int("BEAT_LEASE_S", 30)
if BEAT_LEASE_S < 3:
    raise ImproperlyConfigured(f"BEAT_LEASE_S must be at least 3 (seconds), not {BEAT_LEASE_S}")
CELERY_BEAT_SCHEDULER = "kernel.beat:SingleBeatScheduler"
CELERY_BEAT_SCHEDULE = {
    "benchmarks-relay-outbox": {
        "task": "benchmarks_app.relay_outbox",
        "schedule": float(OUTBOX_RELAY_INTERVAL_S),
        "options": {"expires": float(OUTBOX_RELAY_INTERVAL_S)},
    },
    "benchmarks-sweep-runs": {
        "task": "benchmarks_app.sweep_runs",
        "schedule": float(RUN_SWEEP_INTERVAL_S),
        "options": {"expires": float(RUN_SWEEP_INTERVAL_S)},
    },
    "advice-left-behind": {
        "task": "advice_app.left_behind",
        "schedule": float(RUN_SWEEP_INTERVAL_S),
        "options": {"expires": float(RUN_SWEEP_INTERVAL_S)},
    },
    "releases-conclude-left-behind": {
        "task": "releases_app.conclude_left_behind",
        "schedule": float(RUN_SWEEP_INTERVAL_S),
        "options": {"expires": float(RUN_SWEEP_INTERVAL_S)},
    },
    "live-probe-endpoints": {
        "task": "live_app.probe_endpoints",
        "schedule": float(ENDPOINT_PROBE_INTERVAL_S),
        "options": {"expires": float(ENDPOINT_PROBE_INTERVAL_S)},
    },
    "webhooks-relay": {
        "task": "webhooks_app.relay_deliveries",
        "schedule": float(WEBHOOK_RELAY_INTERVAL_S),
        "options": {"expires": float(WEBHOOK_RELAY_INTERVAL_S)},
    },
    "purge-idempotency-keys": {
        "task": "specpact.purge_idempotency_keys",
        "schedule": float(IDEMPOTENCY_PURGE_INTERVAL_S),
        "options": {"expires": float(IDEMPOTENCY_PURGE_INTERVAL_S)},
    },
    "audit-checkpoint": {
        "task": "audit_app.checkpoint",
        "schedule": float(AUDIT_CHECKPOINT_INTERVAL_S),
        "options": {"expires": float(AUDIT_CHECKPOINT_INTERVAL_S)},
    },
    "benchmarks-prune-raw-samples": {
        "task": "benchmarks_app.prune_raw_samples",
        "schedule": float(RAW_SAMPLES_PRUNE_INTERVAL_S),
        "options": {"expires": float(RAW_SAMPLES_PRUNE_INTERVAL_S)},
    },
    "audit-verify-full": {
        "task": "audit_app.verify_full",
        "schedule": float(AUDIT_FULL_VERIFY_INTERVAL_S),
        "options": {"expires": float(AUDIT_FULL_VERIFY_INTERVAL_S)},
    },
}

# The Content-Security-Policy of every HTML page (kernel/middleware.py). Pages load their
# scripts and styles from static/ (STYLE.md: one small JS file per page at most; JSON data
# in <script type="application/json">, which is not run); no inline script or style.
CSP_POLICY: dict[str, list[str]] = {
    "default-src": ["'self'"],
    "script-src": ["'self'"],
    "style-src": ["'self'"],
    # Style attributes: only the empty one (its SHA-256 is that of ""), which Plotly sets
    # on colour-bar rectangles to reset them (`.attr("style", "")`) and which styles nothing.
    "style-src-attr": ["'unsafe-hashes'", "'sha256-47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU='"],
    # data: for the SVG icons Swagger UI inlines; Plotly draws SVG in the page itself.
    "img-src": ["'self'", "data:"],
    "font-src": ["'self'"],
    "connect-src": ["'self'"],
    "object-src": ["'none'"],
    "base-uri": ["'none'"],
    "form-action": ["'self'"],
    "frame-ancestors": ["'none'"],
}
# HTML the project doesn't template itself (Swagger UI, DRF's browsable API) uses inline
# styles: allowed there, and only there. Scripts stay 'self' everywhere.
CSP_LOOSE_STYLE_PATHS = ["/api/v1/"]
# Report violations in the browser's console without enforcing (to trial a change).
CSP_REPORT_ONLY = env_bool("CSP_REPORT_ONLY", False)

# Registered workloads (workloads_app). An upload larger than this is refused (413) before
# it is read; the canonical form must fit too.
WORKLOAD_MAX_BYTES = env_int("WORKLOAD_MAX_BYTES", 32 * 1024 * 1024)
# The most records (requests) one workload may have: an upload past it is refused (413)
# naming the line of the first one too many. A million is ~32 bytes a record at the byte
# limit, shorter than any real prompt; the import's memory doesn't grow with the count
# (workloads_app/formats/scratch.py), its time and the worker's replay do.
WORKLOAD_MAX_RECORDS = env_int("WORKLOAD_MAX_RECORDS", 1_000_000)
# Extra regular expressions the optional redaction pass replaces (besides e-mail
# addresses, phone numbers and long digit runs), comma-separated; an upload may add more.
WORKLOAD_REDACT_PATTERNS = env_list("WORKLOAD_REDACT_PATTERNS", [])

# Tracing (observability_app/tracing.py, docs/observability.md): OpenTelemetry spans of
# web requests, control-plane Celery tasks and their SQL, off unless SPECPACT_TRACING is on;
# off, nothing of OpenTelemetry is imported. The OTEL_* names are the SDK's own
# (opentelemetry-python 1.45 `opentelemetry/sdk/environment_variables`; the exporter, the
# sampler and the resource read them themselves): they are read here too, so that a bad
# value stops `manage.py check` and the processes' start (observability_app/checks.py)
# instead of the SDK warning and falling back to a default.
SPECPACT_TRACING = env_bool("SPECPACT_TRACING", False)
# `otlp` (OTLP over HTTP/protobuf to the operator's collector), `console` (stdout, to
# debug), `none`; comma-separated for several. The name and its default `otlp` are
# opentelemetry-api's (`opentelemetry/environment_variables`, OTEL_TRACES_EXPORTER).
TRACING_EXPORTERS = env_list("OTEL_TRACES_EXPORTER", ["otlp"])
# The traces-specific names win over the general ones, as in the SDK's exporter. Empty:
# the exporter's default, http://localhost:4318/v1/traces.
TRACING_OTLP_ENDPOINT = (
    env_str("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "") or env_str("OTEL_EXPORTER_OTLP_ENDPOINT", "") or ""
)
TRACING_OTLP_PROTOCOL = (
    env_str("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "")
    or env_str("OTEL_EXPORTER_OTLP_PROTOCOL", "")
    or "http/protobuf"
)
TRACING_SAMPLER = env_str("OTEL_TRACES_SAMPLER", "parentbased_always_on") or "parentbased_always_on"
# Checked only with tracing on: OTEL_* names may be set for other software beside it.
TRACING_SAMPLER_ARG = env_str("OTEL_TRACES_SAMPLER_ARG", "") or ""
# Request URLs never traced (regular expressions searched in the full URL), besides the
# ones always left out (/metrics, /static/): OpenTelemetry's own names for the list.
TRACING_EXCLUDED_URLS = env_list(
    "OTEL_PYTHON_DJANGO_EXCLUDED_URLS", env_list("OTEL_PYTHON_EXCLUDED_URLS", [])
)

SPECPACT_PUBLIC_URL = env_str("SPECPACT_PUBLIC_URL", "http://127.0.0.1:8000") or ""

# The control-plane benchmark's floor (kernel/floor.py): two views that only authenticate,
# so that every page and API endpoint can be measured as a multiple of it in the same run
# (issue 26, point 1). Off by default and off in production: off, both answer 404, and
# `check --deploy` warns while it is on (kernel/checks.py).
SPECPACT_BENCH_FLOOR = env_bool("SPECPACT_BENCH_FLOOR", False)

# Production hardening: on whenever DEBUG is off (manage.py check --deploy stays clean).
if not DEBUG:
    SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", True)
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    # A Prometheus beside the web process scrapes it over plain HTTP (docs/observability.md);
    # a redirect to HTTPS on gunicorn's own port would fail every scrape.
    SECURE_REDIRECT_EXEMPT = [r"^metrics$"]
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    SECURE_HSTS_SECONDS = env_int("SECURE_HSTS_SECONDS", 31536000)
    SECURE_HSTS_INCLUDE_SUBDOMAINS = True
    SECURE_HSTS_PRELOAD = env_bool("SECURE_HSTS_PRELOAD", True)
    SECURE_CONTENT_TYPE_NOSNIFF = True
    X_FRAME_OPTIONS = "DENY"

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": env_str("LOG_LEVEL", "INFO")},
}
