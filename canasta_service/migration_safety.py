"""The migration safety check: every migration of the project's apps is safe to apply while the
previous release keeps serving (docs/operations.md, "Deploys without downtime").

    python -m canasta_service.migration_safety [--baseline FILE] [--database ALIAS]

(``make check-migrations``). The SQL each migration runs on the configured database
(``sqlmigrate``; PostgreSQL when ``DATABASE_URL`` names one, as in CI) is read by
django-migration-linter: a NOT NULL column added without a database default, a rename, a
dropped column or table, an index built without CONCURRENTLY (PostgreSQL), a data migration that
cannot be reversed... fails the check; warnings count as failures. The migrations that predate
the check are accepted as they are, each with its reason, in
``canasta_service/migration_baseline.toml``; every other migration must pass.

The project's apps are the installed apps outside site-packages (third-party migrations are
their authors'). Exit status 1 when a migration fails or the baseline names one that does not
exist.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
import tomllib
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

BASELINE = Path(__file__).resolve().parent / "migration_baseline.toml"


class BaselineError(Exception):
    """The baseline file is wrong (no reason, a duplicate, a migration that does not exist)."""


def load_baseline(path: Path) -> dict[tuple[str, str], str]:
    """The accepted migrations: (app label, migration name) -> why it was accepted."""
    with path.open("rb") as handle:
        data = tomllib.load(handle)
    accepted: dict[tuple[str, str], str] = {}
    for entry in data.get("accepted", []):
        key = (str(entry["app"]), str(entry["migration"]))
        reason = str(entry.get("reason", "")).strip()
        if not reason:
            raise BaselineError(f"{path}: {key[0]}.{key[1]} is accepted without a reason")
        if key in accepted:
            raise BaselineError(f"{path}: {key[0]}.{key[1]} is listed twice")
        accepted[key] = reason
    return accepted


def project_apps() -> list[str]:
    """Labels of the installed apps that are not third-party packages."""
    from django.apps import apps

    return [
        config.label
        for config in apps.get_app_configs()
        if "site-packages" not in Path(config.path).parts
    ]


def check(baseline: Path = BASELINE, database: str = "default") -> bool:
    """Lint the project's migrations (Django set up); True when every one passes."""
    from django.db import connections
    from django.db.migrations.loader import MigrationLoader
    from django.db.migrations.operations.base import Operation
    from django_migration_linter import MigrationLinter

    class BaselineLinter(MigrationLinter):
        """django-migration-linter, skipping exactly the baseline's (app, migration) pairs."""

        def __init__(self, accepted: Iterable[tuple[str, str]], **options: Any) -> None:
            self.accepted = frozenset(accepted)
            super().__init__(**options)

        def should_ignore_migration(
            self,
            app_label: str,
            migration_name: str,
            operations: Iterable[Operation] = (),
            is_initial: bool = False,
        ) -> bool:
            if (app_label, migration_name) in self.accepted:
                return True
            return bool(
                super().should_ignore_migration(
                    app_label, migration_name, operations, is_initial=is_initial
                )
            )

    logging.getLogger("django_migration_linter").setLevel(logging.WARNING)
    accepted = load_baseline(baseline)
    on_disk = set(MigrationLoader(None, ignore_no_migrations=True).disk_migrations)
    missing = sorted(key for key in accepted if key not in on_disk)
    if missing:
        names = ", ".join(f"{app}.{name}" for app, name in missing)
        raise BaselineError(f"{baseline}: accepts migrations that do not exist: {names}")

    labels = project_apps()
    print(
        f"Checking the migrations of {', '.join(labels)} on {connections[database].vendor} "
        f"({len(accepted)} accepted in {baseline.name})"
    )
    linter = BaselineLinter(
        accepted,
        database=database,
        include_apps=labels,
        no_cache=True,
        all_warnings_as_errors=True,
    )
    linter.lint_all_migrations()
    linter.print_summary()
    return not linter.has_errors


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0] if __doc__ else None)
    parser.add_argument("--baseline", type=Path, default=BASELINE)
    parser.add_argument("--database", default="default")
    args = parser.parse_args(argv)

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "canasta_service.settings")
    import django

    django.setup()
    try:
        ok = check(args.baseline, args.database)
    except BaselineError as exc:
        print(exc, file=sys.stderr)
        return 1
    if not ok:
        print(
            "unsafe migration(s) above: split them (expand/contract), see docs/operations.md, "
            '"Deploys without downtime"',
            file=sys.stderr,
        )
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
