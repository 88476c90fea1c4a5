"""Django settings, read from the environment (12-factor).

Every knob a deployment turns is an environment variable; the README's configuration table
lists them. With nothing set you get a safe production posture that refuses to start without a
SECRET_KEY; ``make run`` sets ``DEBUG=1`` for the development server, which then needs nothing
else: a SQLite file in the project folder and Celery tasks executed in-process.

A malformed value raises ``ImproperlyConfigured`` naming the variable (see ``env.py``).
"""

from __future__ import annotations

from pathlib import Path

from django.core.exceptions import ImproperlyConfigured

from canasta_service.env import (
    env_bool,
    env_database,
    env_int,
    env_list,
    env_origins,
    env_str,
    env_url,
)
from canasta_service.logs import logging_config, sentry_init
from canasta_service.oidc_key import oidc_private_key
from core.limits import throttle_rate
from core.proxies import trusted_proxies_parse

BASE_DIR = Path(__file__).resolve().parent.parent

# ----------------------------------------------------------------------------- core
DEBUG = env_bool("DEBUG", default=False)

_secret_key = env_str("SECRET_KEY")
if _secret_key is None:
    if not DEBUG:
        raise ImproperlyConfigured(
            "Environment variable SECRET_KEY is required when DEBUG is off "
            "(set DEBUG=1 for local development)."
        )
    _secret_key = "django-insecure-development-only-key-do-not-use-in-production"
SECRET_KEY = _secret_key

ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", default=["localhost", "127.0.0.1", "[::1]"])
CSRF_TRUSTED_ORIGINS = env_origins("CSRF_TRUSTED_ORIGINS")

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "corsheaders",
    "rest_framework",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    # Identity (docs/accounts.md): sign-up and sign-in flows, passkeys and TOTP, browser
    # sessions, and an OpenID Connect provider for third-party apps.
    "allauth",
    "allauth.account",
    "allauth.headless",
    "allauth.mfa",
    "allauth.usersessions",
    "allauth.idp.oidc",
    # One app per domain; each depends only on the ones above it in this list.
    "accounts",
    "games",
    "competition",
    "notifications",
    # Registers bots.tasks with Celery (autodiscovery); without it a worker drops bot turns.
    "bots",
]

MIDDLEWARE = [
    # The request's id (X-Request-ID) on its log lines, its answer and the tasks it sends; then
    # its count and latency by route name (canasta_service/logs.py, canasta_service/metrics.py).
    "canasta_service.logs.request_id_middleware",
    "canasta_service.metrics.http_metrics_middleware",
    "corsheaders.middleware.CorsMiddleware",
    "django.middleware.security.SecurityMiddleware",
    # Oversized bodies are refused (413 body_too_large) before any parser reads them (the last
    # line of defence: the entry points' wrappers in request_bodies.py refuse them first).
    "core.limits.BodySizeLimitMiddleware",
    # A NUL character in the path or query string is refused (400) before any view.
    "core.parsers.NulCharacterMiddleware",
    # An /api/ path without its trailing slash is served by its route (no APPEND_SLASH redirect).
    "canasta_service.slashes.ApiSlashMiddleware",
    # A deprecated route's answers carry Deprecation, Sunset and Link (canasta_service/
    # deprecations.py, the one registry of deprecated routes).
    "canasta_service.deprecations.deprecation_headers_middleware",
    # WhiteNoise, async-capable: the live endpoints must not hold a thread per waiting client.
    "canasta_service.async_static.AsyncWhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    # The answer's language (docs/api.md, "Languages"): after the session, before
    # CommonMiddleware, as Django's docs ask; sets Content-Language and Vary (core/i18n.py).
    "core.i18n.LocaleMiddleware",
    # gzip, except streams and the routes that carry credentials (canasta_service/compression.py).
    "canasta_service.compression.ApiGZipMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "allauth.account.middleware.AccountMiddleware",
    # A browser session's last request, for the list of sign-ins (async-capable, and
    # written at most every five minutes: allauth's UserSessionsMiddleware is neither).
    "accounts.middleware.browser_session_activity",
    # Retry-After on allauth's 429s; the per-address limit of its token refresh
    # (accounts/ratelimits.py).
    "accounts.ratelimits.SignInLimitsMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

ROOT_URLCONF = "canasta_service.urls"
WSGI_APPLICATION = "canasta_service.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        # The API docs' pages (canasta_service/templates/docs/: nothing from another host).
        "DIRS": [BASE_DIR / "canasta_service" / "templates"],
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

# ----------------------------------------------------------------------------- database
DATABASES = {
    "default": {
        **env_database("DATABASE_URL", default=f"sqlite:///{BASE_DIR / 'db.sqlite3'}"),
        "CONN_MAX_AGE": env_int("DATABASE_CONN_MAX_AGE", default=60, minimum=0),
        "CONN_HEALTH_CHECKS": True,
    }
}
# A pool of PostgreSQL connections per server process (psycopg_pool), for ASGI serving: there
# a connection cannot be kept per thread between requests (DATABASE_CONN_MAX_AGE must be 0),
# and opening one per request costs more than the request itself. 0: no pool.
DATABASE_POOL_SIZE = env_int("DATABASE_POOL_SIZE", default=0, minimum=0, maximum=200)
if DATABASE_POOL_SIZE and DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
    if DATABASES["default"]["CONN_MAX_AGE"]:
        raise ImproperlyConfigured(
            "DATABASE_POOL_SIZE needs DATABASE_CONN_MAX_AGE=0: pooled connections go back to "
            "the pool after each request"
        )
    DATABASES["default"].setdefault("OPTIONS", {})["pool"] = {
        "min_size": 1,
        "max_size": DATABASE_POOL_SIZE,
        "timeout": 10,
    }
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# Request bodies above this many bytes are refused with 413 as they stream in
# (core/request_bodies.py; core/limits.py inside Django).
DATA_UPLOAD_MAX_MEMORY_SIZE = env_int("MAX_REQUEST_BODY_BYTES", default=2_621_440, minimum=1024)
# A body within that limit stays in memory (never spooled to a temporary file).
FILE_UPLOAD_MAX_MEMORY_SIZE = DATA_UPLOAD_MAX_MEMORY_SIZE

# Throttle counters (and presence) live in this cache: Redis at CACHE_URL, else at REDIS_URL
# (its keys prefixed, beside the broker's), so that every web process shares the counts; with
# neither, each process counts alone in its memory.
_cache_url = env_url("CACHE_URL", schemes=("redis", "rediss")) or env_url(
    "REDIS_URL", schemes=("redis", "rediss")
)
CACHES = {
    "default": (
        {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": _cache_url,
            "KEY_PREFIX": "canasta-cache",
        }
        if _cache_url
        else {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}
    )
}

# The reverse proxies in front of the service (addresses or CIDR networks, comma-separated):
# X-Forwarded-For is believed only when it comes from one of them (core/proxies.py).
TRUSTED_PROXIES = trusted_proxies_parse("TRUSTED_PROXIES", env_str("TRUSTED_PROXIES"))

# The load benchmark's baseline endpoint (canasta_service/baseline.py), off unless asked for.
BENCH_BASELINE = env_bool("BENCH_BASELINE", default=False)

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

# Argon2id first; older hashes are upgraded at the next sign-in.
PASSWORD_HASHERS = [
    "django.contrib.auth.hashers.Argon2PasswordHasher",
    "django.contrib.auth.hashers.PBKDF2PasswordHasher",
    "django.contrib.auth.hashers.PBKDF2SHA1PasswordHasher",
    "django.contrib.auth.hashers.ScryptPasswordHasher",
]

# ----------------------------------------------------------------------------- identity (allauth)
# docs/accounts.md. The headless API at /_allauth/{app,browser}/v1/: sign-up and sign-in by
# e-mail and password with codes by e-mail, passkeys (WebAuthn) and TOTP, sessions; app
# clients end a sign-in with a device session's access and refresh keys (accounts/adapters.py).
AUTHENTICATION_BACKENDS = [
    "django.contrib.auth.backends.ModelBackend",
    "allauth.account.auth_backends.AuthenticationBackend",
]
ACCOUNT_ADAPTER = "accounts.adapters.AccountAdapter"
ACCOUNT_USER_DISPLAY = "accounts.adapters.user_display"
ACCOUNT_SIGNUP_FORM_CLASS = "accounts.forms.SignupForm"
ACCOUNT_LOGIN_METHODS = {"email"}
ACCOUNT_SIGNUP_FIELDS = ["email*", "password1*"]
ACCOUNT_UNIQUE_EMAIL = True
ACCOUNT_EMAIL_VERIFICATION = "mandatory"
ACCOUNT_EMAIL_VERIFICATION_BY_CODE_ENABLED = True
ACCOUNT_PASSWORD_RESET_BY_CODE_ENABLED = True
# No answer tells whether an e-mail has an account (sign-up, reset and sign-in alike).
ACCOUNT_PREVENT_ENUMERATION = True
ACCOUNT_LOGOUT_ON_PASSWORD_CHANGE = False
ACCOUNT_EMAIL_SUBJECT_PREFIX = "Canasta: "
# Per address and per account, in the shared cache (allauth's rate limits; 429 on excess).
ACCOUNT_RATE_LIMITS = {
    "login": "30/m/ip",
    "login_failed": "10/m/ip,5/5m/key",
    "signup": "20/m/ip",
    "confirm_email": "1/3m/key",
    "reset_password": "20/m/ip,5/m/key",
    "reset_password_from_key": "20/m/ip",
    "change_password": "5/m/user",
    "manage_email": "10/m/user",
    "reauthenticate": "10/m/user",
}
HEADLESS_ONLY = True
HEADLESS_CLIENTS = ("app", "browser")
HEADLESS_TOKEN_STRATEGY = "accounts.adapters.DeviceTokenStrategy"
# allauth's own OpenAPI document of the flows, at /_allauth/openapi.{yaml,json,html}.
HEADLESS_SERVE_SPECIFICATION = True
# Links in e-mails lead to the web client (codes are what the flows use).
HEADLESS_FRONTEND_URLS = {
    "account_confirm_email": "/#/account/verify/{key}",
    "account_reset_password": "/#/account/reset",
    "account_reset_password_from_key": "/#/account/reset/{key}",
    "account_signup": "/#/account/signup",
    "account_login": "/#/account/signin?next={next}",
}
MFA_ADAPTER = "accounts.adapters.MFAAdapter"
MFA_SUPPORTED_TYPES = ["totp", "recovery_codes", "webauthn"]
MFA_PASSKEY_LOGIN_ENABLED = True
MFA_PASSKEY_SIGNUP_ENABLED = True
MFA_TOTP_ISSUER = "Canasta"
# WebAuthn over plain http (a development server on localhost); never in production.
MFA_WEBAUTHN_ALLOW_INSECURE_ORIGIN = env_bool("WEBAUTHN_ALLOW_INSECURE_ORIGIN", default=DEBUG)
# How long a process remembers whom a key stands for (accounts/services/key_cache.py): only with
# REDIS_URL, whose pub/sub tells every process of a revocation at once; 0: look every key up.
AUTH_KEY_CACHE_SECONDS = env_int("AUTH_KEY_CACHE_SECONDS", default=60, minimum=0, maximum=3600)
USERSESSIONS_TRACK_ACTIVITY = False  # accounts.middleware records it, more cheaply
SESSION_COOKIE_AGE = 30 * 24 * 3600

# -------------------------------------------------------------------------- third-party apps (OIDC)
# docs/accounts.md, "Third-party apps": allauth's OpenID Connect provider (authorization code
# with PKCE, refresh tokens, the device authorization grant) under /identity/o/ and
# /.well-known/. Its signing key: OIDC_PRIVATE_KEY (PEM) or OIDC_PRIVATE_KEY_FILE; with
# neither, DEBUG uses a development key kept in .oidc-dev-key.pem, and otherwise the provider
# is off (its endpoints answer 503 identity_provider_unavailable; the rest of the service
# runs). Clients: `manage.py oidc_client_create` or the admin. Its tokens (access, refresh,
# authorization codes) are stored as SHA-256 digests; client secrets as password hashes.
IDP_OIDC_ADAPTER = "accounts.adapters_oidc.OIDCAdapter"
IDP_OIDC_PRIVATE_KEY = oidc_private_key(debug=DEBUG, folder=BASE_DIR)
# Opaque access tokens, looked up (by digest) at every API request, so revoking one works at
# once; an hour each, renewed by refresh tokens that rotate at every use (the old one is void).
IDP_OIDC_ACCESS_TOKEN_FORMAT = "opaque"
IDP_OIDC_ACCESS_TOKEN_EXPIRES_IN = 3600
IDP_OIDC_ROTATE_REFRESH_TOKEN = True
IDP_OIDC_REFRESH_TOKEN_EXPIRES_IN = 30 * 24 * 3600
IDP_OIDC_AUTHORIZATION_CODE_EXPIRES_IN = 60
IDP_OIDC_DEVICE_CODE_EXPIRES_IN = 600
IDP_OIDC_DEVICE_CODE_INTERVAL = 5
# Clients are registered by an operator only (no dynamic registration, no metadata documents).
IDP_OIDC_DCR_ENABLED = False
IDP_OIDC_CIMD_ENABLED = False
IDP_OIDC_INTROSPECTION_ENABLED = False
# Per client address, in the shared cache (429 on excess): user codes typed at the device
# page, device codes asked for, and token requests (accounts/oidc_views.py adds the last two).
IDP_OIDC_RATE_LIMITS = {
    "device_user_code": "5/m/ip",
    "device_code": "10/m/ip",
    "token": "60/m/ip",
}
# The provider's pages need a signed-in browser: a visitor who is not signed in goes through
# /identity/signin to the web client's sign-in page (HEADLESS_FRONTEND_URLS["account_login"]),
# which brings them back.
LOGIN_URL = "/identity/signin"

# English is the source language; the others have catalogues under LOCALE_PATHS (docs/api.md,
# "Languages"): a player's account setting, else Accept-Language, chooses (core/i18n.py).
LANGUAGE_CODE = "en"
LANGUAGES = [
    ("en", "English"),
    ("es", "Español"),
    ("pt-br", "Português (Brasil)"),
    ("it", "Italiano"),
    ("de", "Deutsch"),
]
TIME_ZONE = "UTC"
USE_I18N = True
# The project's catalogues: locale/<lang>/LC_MESSAGES/django.po and djangojs.po (the web client).
LOCALE_PATHS = [BASE_DIR / "locale"]
USE_TZ = True

# ----------------------------------------------------------------------------- static files
# WhiteNoise serves the admin's and the API docs' assets (Swagger UI and Redoc come from
# drf-spectacular-sidecar, so no CDN is needed) from gunicorn too. USE_FINDERS lets it serve
# them without `collectstatic`; the Docker image runs collectstatic anyway.
STATIC_URL = "static/"
STATIC_ROOT = BASE_DIR / "staticfiles"
WHITENOISE_USE_FINDERS = True

# ----------------------------------------------------------------------------- CORS
CORS_ALLOWED_ORIGINS = env_origins("CORS_ALLOWED_ORIGINS")
CORS_URLS_REGEX = r"^/api/.*$"

# ----------------------------------------------------------------------------- DRF + OpenAPI
THROTTLE_RATES: dict[str, str | None] = {
    "health_probe": "30/minute",
    "signup": throttle_rate("THROTTLE_SIGNUP", "30/hour"),
    "actions": throttle_rate("THROTTLE_ACTIONS", "240/minute"),
    "chat": throttle_rate("THROTTLE_CHAT", "30/minute"),
    # A hint runs a bot policy (the hard one thinks for up to 0.45 s): bots/api/hints.py.
    "hint": throttle_rate("THROTTLE_HINT", "60/minute"),
    # Asking for a review sends a search of many seconds to a worker: bots/api/reviews.py.
    "review": throttle_rate("THROTTLE_REVIEW", "30/hour"),
    # Per player, far above what a person does, far below a script (docs/hardening.md#quotas):
    # creating a table (or a rematch), starting one (its bots start playing), importing a
    # game (a replay of up to 20,000 events), and each step of a pause or of turning the
    # timer off (each is an event that every seat and the timer act on).
    "game_create": throttle_rate("THROTTLE_GAME_CREATE", "30/hour"),
    "game_start": throttle_rate("THROTTLE_GAME_START", "30/hour"),
    "import": throttle_rate("THROTTLE_IMPORT", "20/hour"),
    "proposals": throttle_rate("THROTTLE_PROPOSALS", "30/hour"),
    # Sign-in keys (docs/accounts.md#abuse-protection): personal access tokens made and device
    # sessions opened from a guest key, per account; refreshes at
    # /_allauth/app/v1/tokens/refresh, per client address (accounts/ratelimits.py).
    "token_create": throttle_rate("THROTTLE_TOKEN_CREATE", "20/hour"),
    "session_create": throttle_rate("THROTTLE_SESSION_CREATE", "20/hour"),
    "token_refresh": throttle_rate("THROTTLE_TOKEN_REFRESH", "60/minute"),
    # Creating a tournament (competition/api/tournaments.py), per organiser.
    "tournament_create": throttle_rate("THROTTLE_TOURNAMENT_CREATE", "20/hour"),
}
# Unfinished tables a player created where bots play every other seat (games/services/quotas.py);
# a start or import past it is refused (409 bot_tables_limit). 0: no cap.
BOT_TABLES_ACTIVE_MAX = env_int("BOT_TABLES_ACTIVE_MAX", default=3, minimum=0, maximum=1000)
# Bot entrants in one organiser's unfinished tournaments together (their tables, where only bots
# sit, are played on the bulk queue); more is refused (409 tournament_bots_limit). 0: no cap.
TOURNAMENT_BOTS_ACTIVE_MAX = env_int(
    "TOURNAMENT_BOTS_ACTIVE_MAX", default=1024, minimum=0, maximum=1_000_000
)
# Imports replaying at once in the whole service (a slot in the cache, so Redis shares it);
# one more is refused with 503 imports_busy and Retry-After. 0: no cap.
IMPORTS_CONCURRENT_MAX = env_int("IMPORTS_CONCURRENT_MAX", default=2, minimum=0, maximum=100)

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "accounts.api.authentication.KeyAuthentication",
        "accounts.api.authentication.SessionAuthentication",
    ],
    # Every view declares the scopes a token needs (accounts/scopes.py).
    "DEFAULT_PERMISSION_CLASSES": [
        "rest_framework.permissions.IsAuthenticated",
        "accounts.api.scopes.ScopesGranted",
    ],
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    # DRF's JSON parser, with a 400 (not a 500) for bodies nested too deeply to decode.
    "DEFAULT_PARSER_CLASSES": ["core.parsers.JSONParser"],
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "EXCEPTION_HANDLER": "core.exceptions.problem_exception_handler",
    # Views opt in with `throttle_scope`; anonymous requests are counted per client address
    # (X-Forwarded-For only from TRUSTED_PROXIES), authenticated ones per user. THROTTLE_*
    # variables change a rate ("off" disables it).
    "DEFAULT_THROTTLE_CLASSES": ["core.throttling.ClientScopedRateThrottle"],
    "DEFAULT_THROTTLE_RATES": THROTTLE_RATES,
    "TEST_REQUEST_DEFAULT_FORMAT": "json",
}

SPECTACULAR_SETTINGS = {
    "TITLE": "Canasta game service API",
    "DESCRIPTION": (
        "Play Canasta over HTTP. Every error is an RFC 9457 problem document "
        "(`application/problem+json`) whose `code` field is a stable snake_case identifier; "
        "see the `Problem` schema."
    ),
    "VERSION": "0.1.0",
    "LICENSE": {"name": "MIT", "url": "https://opensource.org/license/mit"},
    # Paths start with /api/v1/, so a server is an origin: first the one serving this document
    # (its Swagger UI and Redoc try requests there), then any deployment (`make run`: default).
    "SERVERS": [
        {"url": "/", "description": "The origin that serves this document."},
        {
            "url": "{scheme}://{host}",
            "description": "A deployment of the service (default: `make run`).",
            "variables": {
                "scheme": {"enum": ["https", "http"], "default": "http"},
                "host": {"default": "localhost:8000", "description": "Host name and port."},
            },
        },
    ],
    "SERVE_INCLUDE_SCHEMA": False,
    "SERVE_PERMISSIONS": ["rest_framework.permissions.AllowAny"],
    "COMPONENT_SPLIT_REQUEST": True,
    "SCHEMA_PATH_PREFIX": r"/api/v[0-9]+",
    "SWAGGER_UI_DIST": "SIDECAR",
    # No badge from validator.swagger.io: the docs fetch nothing from another host.
    "SWAGGER_UI_SETTINGS": {"deepLinking": True, "validatorUrl": None},
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "games.api.live_messages.client_messages_hook",
        "core.problems.problem_headers_hook",
        "canasta_service.openapi.nullable_types_hook",
        "canasta_service.openapi.client_defaults_hook",
        "canasta_service.openapi.bounded_lists_hook",
        "canasta_service.deprecations.deprecated_routes_hook",
        "games.api.schema_links.game_links_hook",
    ],
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "ENUM_NAME_OVERRIDES": {
        "HealthStatusEnum": "canasta_service.health.HealthStatus",
        "CheckStatusEnum": "canasta_service.health.CheckStatus",
        "GameStatusEnum": "games.models.GameStatus",
        "BotLevelEnum": "games.models.BotLevel",
        "TimeoutOutcomeEnum": "games.models.TimeoutOutcome",
        "TableEventKindEnum": "games.models.TableEventKind",
        "RatingFormatEnum": "games.hooks.RATING_FORMATS",
        "FormatEnum": ["canasta-game"],  # the export document's format
        "KindEnum": ["player", "bot", "empty"],  # a seat's kind
        "TournamentFormatEnum": "competition.models.TournamentFormat",
        "TournamentStatusEnum": "competition.models.TournamentStatus",
        "TournamentTableStatusEnum": ["proposed", "pending", "playing", "finished", "void"],
        "TournamentEntryStatusEnum": ["active", "withdrawn", "disqualified", "eliminated"],
    },
}

# The live server's limits (games/realtime/limits.py, docs/live.md#limits): open live connections
# (sockets, event streams, waiting long-polls) per player across every live process, counted in
# Redis (REDIS_URL) or per process without it (0: no cap); messages a second on one socket.
LIVE_CONNECTIONS_PER_PLAYER_MAX = env_int(
    "LIVE_CONNECTIONS_PER_PLAYER_MAX", default=16, minimum=0, maximum=10_000
)
LIVE_SOCKET_MESSAGES_PER_SECOND = env_int(
    "LIVE_SOCKET_MESSAGES_PER_SECOND", default=10, minimum=0, maximum=10_000
)

# ----------------------------------------------------------------------------- Celery
# Only the environment-dependent part lives here; the fixed task policy (serialisation, time
# limits, acknowledgement, visibility timeout) is in canasta_service/celery.py.
# CELERY_BROKER_URL wins over REDIS_URL. With neither, there is no broker: tasks run eagerly,
# in-process, when they are sent (after the transaction commits, since services enqueue them
# with transaction.on_commit), and their exceptions propagate to the caller.
_BROKER_SCHEMES = ("redis", "rediss", "amqp", "amqps", "pyamqp", "memory")
REDIS_URL = env_url("REDIS_URL", schemes=("redis", "rediss"))
CELERY_BROKER_URL = env_url("CELERY_BROKER_URL", schemes=_BROKER_SCHEMES) or REDIS_URL
CELERY_TASK_ALWAYS_EAGER = CELERY_BROKER_URL is None
CELERY_TASK_EAGER_PROPAGATES = True

CELERY_TIMEZONE = TIME_ZONE
# The three queues (core/dispatch.py chooses each task's; docs/operations.md#queues): a worker
# consumes the ones named by -Q. TASK_QUEUE_* rename them (tests, deployments sharing a Redis).
TASK_QUEUES = {
    kind: env_str(f"TASK_QUEUE_{kind.upper()}", default=kind) or kind
    for kind in ("interactive", "bulk", "deliveries")
}
CELERY_TASK_ROUTES = ("core.dispatch.route",)
CELERY_TASK_DEFAULT_QUEUE = TASK_QUEUES["interactive"]

# Traces (canasta_service/tracing.py, docs/operations.md#traces): on when
# OTEL_EXPORTER_OTLP_ENDPOINT is set; TRACING_ENABLED=1 or 0 turns them on or off whatever it says.
TRACING_ENABLED: bool | None = (
    env_bool("TRACING_ENABLED", default=False) if env_str("TRACING_ENABLED") else None
)

# Without a broker (eager mode, `make run`) the timer's ETA task runs in this process: a
# daemon thread waits for the deadline and runs the task there (off in the test settings).
TURN_TIMER_IN_PROCESS = env_bool("TURN_TIMER_IN_PROCESS", default=CELERY_TASK_ALWAYS_EAGER)
# Turn timers (games/services/timers.py). Each expiry is a task with an ETA at the deadline; beat
# also sweeps every TURN_TIMER_SWEEP_SECONDS for passed deadlines whose task was lost (a dead
# worker).
# A sweep that waited a whole interval in the queue is dropped (expires): the next one covers it.
TURN_TIMER_SWEEP_SECONDS = env_int("TURN_TIMER_SWEEP_SECONDS", default=5, minimum=1, maximum=3600)
# The timer fires this long after the deadline it shows, so a move sent just before it wins.
TURN_TIMER_GRACE_MS = env_int("TURN_TIMER_GRACE_MS", default=1000, minimum=0, maximum=60_000)
# A seat handed to its stand-in bot goes back to its player by itself when they come back (a
# live connection to the game opened after being away) within this long of the hand-off; after
# it the player reclaims it with POST .../seat/reclaim/ (games.services.reclaim).
SEAT_RECLAIM_GRACE_SECONDS = env_int(
    "SEAT_RECLAIM_GRACE_SECONDS", default=300, minimum=0, maximum=86_400
)
# Bot turns whose task was lost are sent again (bots.tasks.bot_turns_sweep): every
# BOT_TURN_SWEEP_SECONDS, the games waiting on a bot with no event for BOT_TURN_STALL_SECONDS
# (more than a task's 60 s hard time limit, so a turn still being computed is left alone).
BOT_TURN_SWEEP_SECONDS = env_int("BOT_TURN_SWEEP_SECONDS", default=15, minimum=1, maximum=3600)
BOT_TURN_STALL_SECONDS = env_int("BOT_TURN_STALL_SECONDS", default=75, minimum=1, maximum=86400)
# Quick play (competition/services/matchmaking.py): beat runs the pairing every
# MATCHMAKING_PAIR_SECONDS; a run that waited a whole interval is dropped (the next one pairs).
# Without a broker there is no beat: MATCHMAKING_IN_PROCESS (on by default then) pairs in the
# web process when a player joins a queue and while they read their queue status.
MATCHMAKING_PAIR_SECONDS = env_int("MATCHMAKING_PAIR_SECONDS", default=2, minimum=1, maximum=60)
MATCHMAKING_IN_PROCESS = env_bool("MATCHMAKING_IN_PROCESS", default=CELERY_TASK_ALWAYS_EAGER)
# Quick play keeps apart two players who sat at a table together in the last
# QUICK_PLAY_REMATCH_AVOID_SECONDS while someone else fits (0: never). A rated result counts
# only after RATED_MIN_MOVES_PER_SIDE moves of each side's own, and at most RATED_SAME_PLAYERS_MAX
# times for the same two players in RATED_SAME_PLAYERS_WINDOW_SECONDS (0: no limit); the rest
# is recorded as not counted (docs/competitive.md).
QUICK_PLAY_REMATCH_AVOID_SECONDS = env_int(
    "QUICK_PLAY_REMATCH_AVOID_SECONDS", default=3600, minimum=0, maximum=7 * 86400
)
RATED_MIN_MOVES_PER_SIDE = env_int("RATED_MIN_MOVES_PER_SIDE", default=6, minimum=0, maximum=1000)
RATED_SAME_PLAYERS_MAX = env_int("RATED_SAME_PLAYERS_MAX", default=3, minimum=0, maximum=1000)
RATED_SAME_PLAYERS_WINDOW_SECONDS = env_int(
    "RATED_SAME_PLAYERS_WINDOW_SECONDS", default=86400, minimum=1, maximum=30 * 86400
)
# Proposals by agreement (games/services/proposals.py: pausing, turning the timer off): a player
# whose proposal was declined may not propose it again for PROPOSAL_COOLDOWN_SECONDS (429
# proposal_cooldown; 0: at once).
PROPOSAL_COOLDOWN_SECONDS = env_int(
    "PROPOSAL_COOLDOWN_SECONDS", default=300, minimum=0, maximum=86400
)
# Notifications (notifications/services/delivery.py): each delivery is a task, retried with
# exponential backoff (NOTIFICATION_RETRY_BASE_SECONDS * 2**(attempt - 1), at most
# NOTIFICATION_RETRY_MAX_SECONDS) up to NOTIFICATION_MAX_ATTEMPTS times; beat sweeps every
# NOTIFICATION_SWEEP_SECONDS for deliveries due for NOTIFICATION_SWEEP_GRACE_SECONDS whose task was
# lost. An attempt holds its delivery for NOTIFICATION_DELIVERY_LEASE_SECONDS (more than a task's
# 60 s hard time limit), so that no other worker sends it meanwhile. They travel on the
# deliveries queue (core/dispatch.py), so that slow endpoints never hold up bot turns.
NOTIFICATION_RETRY_BASE_SECONDS = env_int(
    "NOTIFICATION_RETRY_BASE_SECONDS", default=30, minimum=1, maximum=3600
)
NOTIFICATION_RETRY_MAX_SECONDS = env_int(
    "NOTIFICATION_RETRY_MAX_SECONDS", default=3600, minimum=1, maximum=86400
)
NOTIFICATION_MAX_ATTEMPTS = env_int("NOTIFICATION_MAX_ATTEMPTS", default=8, minimum=1, maximum=50)
# A retry further away than this is sent by the sweep, not as a countdown task (the broker's
# visibility timeout is an hour).
NOTIFICATION_RETRY_ETA_MAX = 1800
NOTIFICATION_SWEEP_SECONDS = env_int(
    "NOTIFICATION_SWEEP_SECONDS", default=30, minimum=1, maximum=3600
)
NOTIFICATION_SWEEP_GRACE_SECONDS = env_int(
    "NOTIFICATION_SWEEP_GRACE_SECONDS", default=60, minimum=0, maximum=3600
)
NOTIFICATION_DELIVERY_LEASE_SECONDS = env_int(
    "NOTIFICATION_DELIVERY_LEASE_SECONDS", default=90, minimum=1, maximum=3600
)
# One attempt (a webhook, a push: the name lookup, connecting, sending, the answer) ends by
# NOTIFICATION_ATTEMPT_SECONDS. Each endpoint has a circuit breaker: after
# NOTIFICATION_BREAKER_FAILURES failed attempts in a row it is open for
# NOTIFICATION_BREAKER_COOLDOWN_SECONDS (doubled by each further failure, at most
# NOTIFICATION_BREAKER_COOLDOWN_MAX_SECONDS): attempts due meanwhile are postponed, then one trial.
NOTIFICATION_ATTEMPT_SECONDS = env_int(
    "NOTIFICATION_ATTEMPT_SECONDS", default=5, minimum=1, maximum=60
)
NOTIFICATION_BREAKER_FAILURES = env_int(
    "NOTIFICATION_BREAKER_FAILURES", default=3, minimum=1, maximum=100
)
NOTIFICATION_BREAKER_COOLDOWN_SECONDS = env_int(
    "NOTIFICATION_BREAKER_COOLDOWN_SECONDS", default=30, minimum=1, maximum=3600
)
NOTIFICATION_BREAKER_COOLDOWN_MAX_SECONDS = env_int(
    "NOTIFICATION_BREAKER_COOLDOWN_MAX_SECONDS", default=900, minimum=1, maximum=1800
)
# Without a broker, deliveries are attempted by a daemon thread of the web process (never inside
# a request). On by default for the development server (DEBUG with no broker: `make run`); off
# otherwise, e.g. in the tests, which attempt deliveries themselves.
NOTIFICATION_DELIVERY_IN_PROCESS = env_bool(
    "NOTIFICATION_DELIVERY_IN_PROCESS", default=CELERY_TASK_ALWAYS_EAGER and DEBUG
)
# Webhooks: after this many deliveries in a row that failed for good, an endpoint is disabled
# with a notice to its owner. Hosts a webhook may reach over plain http, and at a private or
# loopback address (comma-separated; e.g. 127.0.0.1 for tests and local development): every
# other webhook is https to a public address. Links in notifications start with PUBLIC_URL
# (the web client's origin, e.g. https://canasta.example.com; unset: relative links).
WEBHOOK_DISABLE_AFTER_FAILURES = env_int(
    "WEBHOOK_DISABLE_AFTER_FAILURES", default=5, minimum=1, maximum=1000
)
WEBHOOK_ALLOW_HTTP_HOSTS = env_list("WEBHOOK_ALLOW_HTTP_HOSTS", default=[])
WEBHOOKS_PER_PLAYER_MAX = 10
PUBLIC_URL = (env_url("PUBLIC_URL", schemes=("http", "https")) or "").rstrip("/")
# Web Push (notifications/services/push.py): the VAPID key pair the server signs with, base64url as
# `npx web-push generate-vapid-keys` prints it (the private key's 32 bytes; the public key's
# 65-byte point, optional: derived from the private key), and the contact push services see
# (mailto: or https:). With no key, DEBUG uses a development pair derived from SECRET_KEY (said
# in the log); otherwise Web Push is off (subscribing answers 503 web_push_unavailable). A push
# lives at most WEBPUSH_TTL_SECONDS at its push service (until the deadline for a turn).
# WEBPUSH_ALLOW_HTTP_HOSTS: hosts a push endpoint may be on over plain http or at a private
# address (tests); every other endpoint is https to a public address.
WEBPUSH_VAPID_PRIVATE_KEY = env_str("WEBPUSH_VAPID_PRIVATE_KEY", default="") or ""
WEBPUSH_VAPID_PUBLIC_KEY = env_str("WEBPUSH_VAPID_PUBLIC_KEY", default="") or ""
WEBPUSH_VAPID_SUBJECT = (
    env_str("WEBPUSH_VAPID_SUBJECT", default="mailto:admin@localhost") or "mailto:admin@localhost"
)
if not WEBPUSH_VAPID_SUBJECT.startswith(("mailto:", "https://")):
    raise ImproperlyConfigured(
        f"Environment variable WEBPUSH_VAPID_SUBJECT={WEBPUSH_VAPID_SUBJECT!r} is invalid: "
        "expected a mailto: or https:// URL."
    )
WEBPUSH_TTL_SECONDS = env_int("WEBPUSH_TTL_SECONDS", default=604800, minimum=0, maximum=2419200)
WEBPUSH_ALLOW_HTTP_HOSTS = env_list("WEBPUSH_ALLOW_HTTP_HOSTS", default=[])
WEBPUSH_SUBSCRIPTIONS_PER_PLAYER_MAX = 10
# Native push (notifications/services/native_push.py). FCM: a Google service account's JSON key
# (FCM_SERVICE_ACCOUNT_FILE, or the JSON itself in FCM_SERVICE_ACCOUNT_JSON; FCM_PROJECT_ID
# overrides its project_id). APNs: the .p8 signing key (APNS_KEY_FILE), its APNS_KEY_ID, the
# APNS_TEAM_ID, and the app's bundle id(s) APNS_TOPIC (comma-separated, the first is the
# default). A platform without its settings is off (registering answers 503
# native_push_unavailable). FCM_ENDPOINT and APNS_ENDPOINT (blank: api.push.apple.com or the
# sandbox, per device) replace the providers' hosts, PUSH_TLS_CA_FILE the system's trust store,
# and NATIVE_PUSH_ALLOW_HOSTS lists hosts that may be at a private address (local receivers).
FCM_SERVICE_ACCOUNT_FILE = env_str("FCM_SERVICE_ACCOUNT_FILE", default="") or ""
FCM_SERVICE_ACCOUNT_JSON = env_str("FCM_SERVICE_ACCOUNT_JSON", default="") or ""
FCM_PROJECT_ID = env_str("FCM_PROJECT_ID", default="") or ""
FCM_ENDPOINT = env_str("FCM_ENDPOINT", default="https://fcm.googleapis.com") or ""
APNS_KEY_FILE = env_str("APNS_KEY_FILE", default="") or ""
APNS_KEY_ID = env_str("APNS_KEY_ID", default="") or ""
APNS_TEAM_ID = env_str("APNS_TEAM_ID", default="") or ""
APNS_TOPIC = env_list("APNS_TOPIC", default=[])
APNS_ENDPOINT = env_str("APNS_ENDPOINT", default="") or ""
PUSH_TLS_CA_FILE = env_str("PUSH_TLS_CA_FILE", default="") or ""
NATIVE_PUSH_ALLOW_HOSTS = env_list("NATIVE_PUSH_ALLOW_HOSTS", default=[])
NATIVE_PUSH_DEVICES_PER_PLAYER_MAX = 10
# Tournaments (competition/services/tournament_rounds.py): beat's sweep starts scheduled events,
# deals due tables (and tables whose task was lost) and closes arenas and robot duplicates.
# Without a broker, reading a tournament runs the sweep, at most once per this many seconds.
TOURNAMENT_SWEEP_SECONDS = env_int("TOURNAMENT_SWEEP_SECONDS", default=10, minimum=1, maximum=600)
CELERY_BEAT_SCHEDULE = {
    "matchmaking-pair": {
        "task": "games.matchmaking_pair",
        "schedule": float(MATCHMAKING_PAIR_SECONDS),
        "options": {"expires": float(MATCHMAKING_PAIR_SECONDS)},
    },
    "bot-turns-sweep": {
        "task": "bots.bot_turns_sweep",
        "schedule": float(BOT_TURN_SWEEP_SECONDS),
        "options": {"expires": float(BOT_TURN_SWEEP_SECONDS)},
    },
    "turn-timers-sweep": {
        "task": "games.turn_timers_sweep",
        "schedule": float(TURN_TIMER_SWEEP_SECONDS),
        "options": {"expires": float(TURN_TIMER_SWEEP_SECONDS)},
    },
    "notifications-sweep": {
        "task": "games.notifications_sweep",
        "schedule": float(NOTIFICATION_SWEEP_SECONDS),
        "options": {"expires": float(NOTIFICATION_SWEEP_SECONDS)},
    },
    "tournaments-sweep": {
        "task": "competition.tournaments_sweep",
        "schedule": float(TOURNAMENT_SWEEP_SECONDS),
        "options": {"expires": float(TOURNAMENT_SWEEP_SECONDS)},
    },
}

# Post-game reviews (bots/services/reviews.py): at most this many waiting per player; a claimed
# review whose worker died is taken again after REVIEW_LEASE_SECONDS (over the review task's
# 300 s hard limit); a task that finds every waiting review's requester busy tries again after
# REVIEW_RETRY_SECONDS; the reviewer picks among the REVIEW_CLAIM_WINDOW oldest waiting.
REVIEWS_PENDING_PER_PLAYER_MAX = env_int(
    "REVIEWS_PENDING_PER_PLAYER_MAX", default=3, minimum=1, maximum=100
)
# Without a broker (`make run`) a review is computed by a daemon thread of the web process, so
# the request that asks for it answers at once (202, pending); off, it is computed inside that
# request (the test settings).
REVIEWS_IN_PROCESS = env_bool("REVIEWS_IN_PROCESS", default=CELERY_TASK_ALWAYS_EAGER)
REVIEW_LEASE_SECONDS = 360
REVIEW_RETRY_SECONDS = 10
REVIEW_CLAIM_WINDOW = 1000
# The reviewer serves first whoever it served least in this window (players in turn).
REVIEW_FAIR_WINDOW_SECONDS = 3600

# ----------------------------------------------------------------------------- e-mail
# Notifications by e-mail go through Django's backend: the console by default (printed to
# stdout), SMTP when EMAIL_BACKEND=django.core.mail.backends.smtp.EmailBackend and EMAIL_HOST
# are set.
EMAIL_BACKEND = (
    env_str("EMAIL_BACKEND", default="django.core.mail.backends.console.EmailBackend")
    or "django.core.mail.backends.console.EmailBackend"
)
EMAIL_HOST = env_str("EMAIL_HOST", default="localhost") or "localhost"
EMAIL_PORT = env_int("EMAIL_PORT", default=25, minimum=1, maximum=65535)
EMAIL_HOST_USER = env_str("EMAIL_HOST_USER", default="") or ""
EMAIL_HOST_PASSWORD = env_str("EMAIL_HOST_PASSWORD", default="") or ""
EMAIL_USE_TLS = env_bool("EMAIL_USE_TLS", default=False)
EMAIL_USE_SSL = env_bool("EMAIL_USE_SSL", default=False)
EMAIL_TIMEOUT = 10
DEFAULT_FROM_EMAIL = (
    env_str("DEFAULT_FROM_EMAIL", default="canasta@localhost") or "canasta@localhost"
)

# ----------------------------------------------------------------------------- logging
LOG_LEVEL = (env_str("LOG_LEVEL", default="INFO") or "INFO").upper()
if LOG_LEVEL not in ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"):
    raise ImproperlyConfigured(
        f"Environment variable LOG_LEVEL={LOG_LEVEL!r} is invalid: "
        "expected DEBUG, INFO, WARNING, ERROR or CRITICAL."
    )

# One line per record on stdout, with the request id it belongs to: plain text (make run) or a
# JSON object (LOG_FORMAT=json, docker-compose); canasta_service/logs.py.
LOG_FORMAT = (env_str("LOG_FORMAT", default="plain") or "plain").lower()
if LOG_FORMAT not in ("plain", "json"):
    raise ImproperlyConfigured(
        f"Environment variable LOG_FORMAT={LOG_FORMAT!r} is invalid: expected plain or json."
    )
LOGGING = logging_config(LOG_FORMAT, LOG_LEVEL)

# ----------------------------------------------------------------------------- observability
# /metrics (canasta_service/metrics.py): open to a bearer token equal to METRICS_TOKEN; without
# it, 404 (open with DEBUG). A Celery worker serves its processes' series on WORKER_METRICS_PORT
# (0: not served). Several processes share their counts through PROMETHEUS_MULTIPROC_DIR (read
# by prometheus-client from the environment).
METRICS_TOKEN = env_str("METRICS_TOKEN", default="") or ""
WORKER_METRICS_PORT = env_int("WORKER_METRICS_PORT", default=0, minimum=0, maximum=65535)
# Error reports to Sentry when SENTRY_DSN is set (no personal data, no request bodies, no
# credentials: canasta_service.logs.event_scrub).
SENTRY_DSN = env_str("SENTRY_DSN", default="") or ""
SENTRY_ENVIRONMENT = env_str("SENTRY_ENVIRONMENT", default="") or None
if SENTRY_DSN:
    sentry_init(SENTRY_DSN, SENTRY_ENVIRONMENT)
