"""Settings of the live benchmark's server: production settings, and for its SQLite file the
concurrency setup SQLite needs with many clients at once (PostgreSQL, as in production, needs
none): WAL, so readers never hold a writer back, and IMMEDIATE transactions, so that a move's
transaction waits for the write lock at its start instead of failing ("database is locked") when
another write (a presence update) slips in between its read and its write."""

from canasta_service.settings import *  # noqa: F403
from canasta_service.settings import DATABASES

if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    DATABASES["default"].setdefault("OPTIONS", {}).update(
        {"transaction_mode": "IMMEDIATE", "timeout": 20, "init_command": "PRAGMA journal_mode=WAL;"}
    )
