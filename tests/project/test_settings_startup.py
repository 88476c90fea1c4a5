"""Start-up of the real settings module in a clean process, as a deployment would see it."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

# Variables the settings read; the parent's values (CI's DATABASE_URL, say) must not leak in.
SETTINGS_VARIABLES = (
    "DEBUG",
    "SECRET_KEY",
    "DATABASE_URL",
    "DATABASE_CONN_MAX_AGE",
    "REDIS_URL",
    "CELERY_BROKER_URL",
    "ALLOWED_HOSTS",
    "CORS_ALLOWED_ORIGINS",
    "CSRF_TRUSTED_ORIGINS",
    "LOG_LEVEL",
    "DATABASE_POOL_SIZE",
    "WEBAUTHN_ALLOW_INSECURE_ORIGIN",
)

PROBE = """
import django
from django.conf import settings
django.setup()
print(settings.DEBUG, settings.DATABASES["default"]["ENGINE"], settings.CELERY_TASK_ALWAYS_EAGER)
"""


def start(**variables: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in SETTINGS_VARIABLES}
    env.update(DJANGO_SETTINGS_MODULE="canasta_service.settings", **variables)
    return subprocess.run(
        [sys.executable, "-c", PROBE],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_debug_alone_is_enough_for_development() -> None:
    result = start(DEBUG="1")
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["True", "django.db.backends.sqlite3", "True"]


def test_production_posture_with_a_secret_key_and_a_broker() -> None:
    result = start(SECRET_KEY="s3cret", REDIS_URL="redis://127.0.0.1:6379/0")
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["False", "django.db.backends.sqlite3", "False"]


@pytest.mark.parametrize(
    ("variables", "named"),
    [
        ({}, "SECRET_KEY"),
        ({"DEBUG": "0"}, "SECRET_KEY"),
        ({"DEBUG": "maybe"}, "DEBUG"),
        ({"DEBUG": "1", "DATABASE_URL": "nonsense"}, "DATABASE_URL"),
        ({"DEBUG": "1", "REDIS_URL": "localhost:6379"}, "REDIS_URL"),
        ({"DEBUG": "1", "CORS_ALLOWED_ORIGINS": "not-a-url"}, "CORS_ALLOWED_ORIGINS"),
        ({"DEBUG": "1", "DATABASE_CONN_MAX_AGE": "forever"}, "DATABASE_CONN_MAX_AGE"),
        ({"DEBUG": "1", "LOG_LEVEL": "loud"}, "LOG_LEVEL"),
        (
            {"DEBUG": "1", "DATABASE_URL": "postgres://h/db", "DATABASE_POOL_SIZE": "8"},
            "DATABASE_POOL_SIZE",
        ),
        (
            {"DEBUG": "1", "WEBAUTHN_ALLOW_INSECURE_ORIGIN": "sometimes"},
            "WEBAUTHN_ALLOW_INSECURE_ORIGIN",
        ),
    ],
    ids=[
        "secret-key-missing",
        "debug-off-secret-key-missing",
        "debug-maybe",
        "database-url-nonsense",
        "redis-url-without-scheme",
        "cors-origin-not-a-url",
        "conn-max-age-not-int",
        "log-level-unknown",
        "pool-with-persistent-connections",
        "webauthn-insecure-origin-nonsense",
    ],
)
def test_bad_configuration_fails_at_start_up_naming_the_variable(
    variables: dict[str, str], named: str
) -> None:
    result = start(**variables)
    assert result.returncode != 0
    last_line = result.stderr.strip().splitlines()[-1]
    assert last_line.startswith("django.core.exceptions.ImproperlyConfigured:"), result.stderr
    assert named in last_line


def test_a_pool_of_postgresql_connections_for_asgi_serving() -> None:
    probe = (
        "import django\nfrom django.conf import settings\ndjango.setup()\n"
        "print(settings.DATABASES['default']['OPTIONS'].get('pool'))\n"
    )
    env = {k: v for k, v in os.environ.items() if k not in SETTINGS_VARIABLES}
    env.update(
        DJANGO_SETTINGS_MODULE="canasta_service.settings",
        DEBUG="1",
        DATABASE_URL="postgres://h/db",
        DATABASE_CONN_MAX_AGE="0",
        DATABASE_POOL_SIZE="8",
    )
    result = subprocess.run(
        [sys.executable, "-c", probe], cwd=ROOT, env=env, capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "{'min_size': 1, 'max_size': 8, 'timeout': 10}"
