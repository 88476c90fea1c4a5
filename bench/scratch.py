"""A scratch database for the benchmarks that call the services in their own process
(``bench.pairing``, ``bench.ratings``): a new database on the PostgreSQL server of
``DATABASE_URL`` (dropped after), or a temporary SQLite file; and Django set up on it, migrated,
with no broker or cache (tasks run in-process, nothing leaves the process)."""

from __future__ import annotations

import os
import tempfile
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit


@contextmanager
def scratch_database(label: str) -> Iterator[str]:
    """The URL of a fresh database named after ``label``, removed after the block."""
    given = os.environ.get("DATABASE_URL", "")
    if not given.startswith(("postgres://", "postgresql://")):
        shm = Path("/dev/shm")
        with tempfile.TemporaryDirectory(
            prefix=f"bench-{label}-", dir=shm if shm.is_dir() else None
        ) as tmp:
            yield f"sqlite:///{tmp}/{label}.sqlite3"
        return
    import psycopg

    parts = urlsplit(given)
    name = f"bench_{label}_{uuid.uuid4().hex[:8]}"
    admin = urlunsplit(parts._replace(path="/postgres"))
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    try:
        yield urlunsplit(parts._replace(path=f"/{name}"))
    finally:
        from django.db import connections

        connections.close_all()
        with psycopg.connect(admin, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def django_setup(url: str, label: str) -> None:
    """Django on ``url``, migrated; no broker or cache, no pairing but the benchmark's own."""
    os.environ.update(
        {
            "DATABASE_URL": url,
            "DJANGO_SETTINGS_MODULE": "canasta_service.settings",
            "DATABASE_CONN_MAX_AGE": "0",
            "DEBUG": "0",
            "LOG_LEVEL": "WARNING",
            "MATCHMAKING_IN_PROCESS": "0",
        }
    )
    os.environ.setdefault("SECRET_KEY", f"bench-{label}-only")
    for name in ("REDIS_URL", "CELERY_BROKER_URL", "CACHE_URL", "DATABASE_POOL_SIZE"):
        os.environ.pop(name, None)
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", interactive=False, verbosity=0)
