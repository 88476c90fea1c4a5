"""The migration safety check (`make check-migrations`, canasta_service/migration_safety.py):
the project's migrations pass it, the baseline is exact, and a new unsafe migration fails it.

Each check runs in a clean process on the database the suite uses (PostgreSQL in CI's second
run: the SQL is PostgreSQL's, the rules too).
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from django.db.migrations.loader import MigrationLoader

from canasta_service.migration_safety import BASELINE, BaselineError, load_baseline

ROOT = Path(__file__).resolve().parents[2]

INITIAL = """
from django.db import migrations, models


class Migration(migrations.Migration):
    initial = True
    dependencies = []
    operations = [
        migrations.CreateModel(
            name="Thing",
            fields=[
                ("id", models.BigAutoField(primary_key=True, serialize=False)),
                ("label", models.CharField(max_length=20, null=True)),
            ],
        ),
    ]
"""

NULLABLE_COLUMN = """
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("probe_app", "0001_initial")]
    operations = [
        migrations.AddField("thing", "note", models.CharField(max_length=20, null=True)),
    ]
"""

DB_DEFAULT_COLUMN = """
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("probe_app", "0002_nullable")]
    operations = [
        migrations.AddField("thing", "level", models.IntegerField(db_default=0)),
    ]
"""

NOT_NULL_WITHOUT_DEFAULT = """
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("probe_app", "0002_nullable")]
    operations = [
        migrations.AddField("thing", "level", models.IntegerField()),
    ]
"""

SETTINGS = """
from canasta_service.settings import *  # noqa: F403

INSTALLED_APPS = [*INSTALLED_APPS, "probe_app"]  # noqa: F405
"""


def run_check(
    tmp_path: Path, settings: str = "canasta_service.settings"
) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "DJANGO_SETTINGS_MODULE"}
    env.update(DEBUG="1", DJANGO_SETTINGS_MODULE=settings)
    env["PYTHONPATH"] = os.pathsep.join([str(tmp_path), str(ROOT)])
    if not env.get("DATABASE_URL", "").startswith("postgres"):
        env["DATABASE_URL"] = f"sqlite:///{tmp_path / 'check.sqlite3'}"
    else:  # the check only writes SQL out: any database of the server that surely exists
        env["DATABASE_URL"] = env["DATABASE_URL"].rsplit("/", 1)[0] + "/postgres"
    return subprocess.run(
        [sys.executable, "-m", "canasta_service.migration_safety"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=240,
    )


def probe_app(tmp_path: Path, migrations: dict[str, str]) -> str:
    """A throw-away app in tmp_path with these migrations; returns the settings module's name."""
    package = tmp_path / "probe_app"
    (package / "migrations").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "migrations" / "__init__.py").write_text("")
    for name, source in {"0001_initial": INITIAL, **migrations}.items():
        (package / "migrations" / f"{name}.py").write_text(textwrap.dedent(source))
    (tmp_path / "probe_settings.py").write_text(SETTINGS)
    return "probe_settings"


def test_the_project_migrations_pass(tmp_path: Path) -> None:
    result = run_check(tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Erroneous migrations: 0/" in result.stdout
    # Every app of the project is checked, third-party apps are not.
    first = result.stdout.splitlines()[0]
    for app in ("accounts", "games", "competition", "notifications", "bots"):
        assert app in first
    assert "allauth" not in first and "admin" not in first


def test_a_not_null_column_without_default_fails(tmp_path: Path) -> None:
    settings = probe_app(
        tmp_path, {"0002_nullable": NULLABLE_COLUMN, "0003_level": NOT_NULL_WITHOUT_DEFAULT}
    )
    result = run_check(tmp_path, settings)
    assert result.returncode == 1, result.stdout + result.stderr
    assert "(probe_app, 0003_level)... ERR" in result.stdout
    assert "NOT NULL constraint on columns" in result.stdout
    # The safe step before it passes: what fails is the unsafe migration, not the app.
    assert "(probe_app, 0002_nullable)... OK" in result.stdout
    assert "Deploys without downtime" in result.stderr


@pytest.mark.postgres
def test_a_column_with_a_database_default_passes_on_postgresql(tmp_path: Path) -> None:
    settings = probe_app(
        tmp_path, {"0002_nullable": NULLABLE_COLUMN, "0003_level": DB_DEFAULT_COLUMN}
    )
    result = run_check(tmp_path, settings)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "(probe_app, 0003_level)... OK" in result.stdout


def test_every_accepted_migration_exists_and_has_a_reason() -> None:
    accepted = load_baseline(BASELINE)
    on_disk = set(MigrationLoader(None, ignore_no_migrations=True).disk_migrations)
    assert accepted
    for key, reason in accepted.items():
        assert key in on_disk, key
        assert len(reason) > 20, key


def test_a_baseline_entry_without_a_reason_is_refused(tmp_path: Path) -> None:
    baseline = tmp_path / "baseline.toml"
    baseline.write_text('[[accepted]]\napp = "games"\nmigration = "0005_turn_timers"\n')
    with pytest.raises(BaselineError, match="without a reason"):
        load_baseline(baseline)
