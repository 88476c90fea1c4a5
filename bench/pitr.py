"""Backups and point-in-time restore, exercised: PostgreSQL clusters of their own and games in them.

Shared by the restore test (``tests/operations/test_backup_restore.py``) and the restore figures
(``bench.restore``). The clusters are initialised in a temporary directory and listen on a free
port of 127.0.0.1 (no Unix socket), so the PostgreSQL server the service uses is not touched.
PostgreSQL refuses to run as root: as root, every server command and the scripts of
``deploy/backup/`` run as the ``postgres`` user (``runuser``).

Two commands play into a cluster's database (``DATABASE_URL``), through the service's own code:

    python -m bench.pitr play --tables 4 --stop-file FILE
        two-player games played move by move through ``game_action_apply`` by two players
        (the built-in bot's choices), ``--tables`` at once, a new table when one finishes,
        until FILE exists
    python -m bench.pitr import --games 10000 --seed bench
        finished games played in memory by the built-in bot from fixed seeds, then written
        through the import service (``game_import``: replayed by the engine, every row as a
        game played here would have)
"""

from __future__ import annotations

import argparse
import contextlib
import os
import pwd
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
SCRIPTS = ROOT / "deploy" / "backup"
PRESET = "two_player"
OPTIONS = {"target_score": 1000}


# ----------------------------------------------------------------------------- the machine


def pg_bin() -> Path | None:
    """The directory of PostgreSQL's server programs (``PG_BIN``, else the newest of
    /usr/lib/postgresql/*/bin, else ``pg_config --bindir``), or None."""
    wanted = ("initdb", "pg_ctl", "postgres", "pg_basebackup", "psql")
    candidates: list[Path] = []
    if os.environ.get("PG_BIN"):
        candidates.append(Path(os.environ["PG_BIN"]))
    installed = Path("/usr/lib/postgresql").glob("*/bin")
    candidates += sorted(installed, key=lambda p: _version_key(p.parent.name), reverse=True)
    if shutil.which("pg_config"):
        out = subprocess.run(["pg_config", "--bindir"], capture_output=True, text=True)
        if out.returncode == 0:
            candidates.append(Path(out.stdout.strip()))
    for path in candidates:
        if all((path / name).is_file() for name in wanted):
            return path
    return None


def _version_key(name: str) -> tuple[int, ...]:
    return tuple(int(p) for p in name.split(".") if p.isdigit())


def run_as() -> list[str] | None:
    """The prefix that runs a command as the user PostgreSQL runs as: nothing for a user other
    than root; as root, ``runuser -u postgres --`` (None when there is no such user or tool)."""
    if os.geteuid() != 0:
        return []
    runuser = shutil.which("runuser")
    try:
        pwd.getpwnam("postgres")
    except KeyError:
        return None
    return [runuser, "-u", "postgres", "--"] if runuser else None


def missing() -> str | None:
    """Why clusters of our own cannot be run here, or None."""
    if pg_bin() is None:
        return "no PostgreSQL server programs (initdb, pg_ctl, postgres; PG_BIN=...)"
    if run_as() is None:
        return "running as root without a postgres user and runuser to run the server as"
    return None


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _owned(path: Path) -> None:
    """``path`` owned by the user the server runs as."""
    if os.geteuid() == 0:
        entry = pwd.getpwnam("postgres")
        os.chown(path, entry.pw_uid, entry.pw_gid)


@contextlib.contextmanager
def workspace(label: str) -> Iterator[Path]:
    """A new directory that the server's user owns (``PITR_TMP`` or the system's temporary
    directory), removed after the block."""
    path = Path(tempfile.mkdtemp(prefix=f"canasta-{label}-", dir=os.environ.get("PITR_TMP")))
    path.chmod(0o755)
    _owned(path)
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


def install_scripts(root: Path) -> Path:
    """A copy of deploy/backup's scripts in ``root/bin``, where the server's user can run them
    whatever the checkout's permissions (a checkout in root's home is closed to others)."""
    target = subdir(root, "bin")
    for source in sorted(SCRIPTS.glob("*.sh")):
        copy = target / source.name
        shutil.copyfile(source, copy)
        copy.chmod(0o755)
    target.chmod(0o755)
    return target


def subdir(parent: Path, name: str) -> Path:
    path = parent / name
    path.mkdir(mode=0o700)
    _owned(path)
    return path


def run(args: list[str], **kwargs: Any) -> subprocess.CompletedProcess[str]:
    """Run a command as the server's user; its output in the exception when it fails."""
    prefix = run_as()
    assert prefix is not None, missing()
    bindir = pg_bin()
    env = {**os.environ, "PG_BIN": str(bindir), "PGUSER": "postgres"}
    out = subprocess.run(
        [*prefix, *args], capture_output=True, text=True, env=env, cwd="/", **kwargs
    )
    if out.returncode != 0:
        raise RuntimeError(
            f"{' '.join(args)} exited {out.returncode}\n{out.stdout[-3000:]}\n{out.stderr[-3000:]}"
        )
    return out


def script(scripts: Path, name: str, *args: str) -> subprocess.CompletedProcess[str]:
    """One of the scripts of deploy/backup (installed in ``scripts``), as the server's user."""
    return run([str(scripts / name), *args])


# ----------------------------------------------------------------------------- clusters


@dataclass
class Cluster:
    """A PostgreSQL cluster in ``data`` listening on 127.0.0.1:``port``."""

    data: Path
    port: int
    settings: dict[str, str] = field(default_factory=dict)

    @property
    def bin(self) -> Path:
        path = pg_bin()
        assert path is not None, missing()
        return path

    def url(self, database: str = "postgres") -> str:
        return f"postgres://postgres@127.0.0.1:{self.port}/{database}"

    def conninfo(self) -> str:
        return f"host=127.0.0.1 port={self.port} user=postgres dbname=postgres"

    def initdb(self) -> None:
        run(
            [
                str(self.bin / "initdb"),
                "-D",
                str(self.data),
                "-U",
                "postgres",
                "-A",
                "trust",
                "-E",
                "UTF8",
                "--locale=C",
                "--no-sync",
            ]
        )
        lines = [f"{name} = '{value}'" for name, value in self.settings.items()]
        conf = self.data / "postgresql.conf"
        conf.write_text(conf.read_text() + "\n" + "\n".join(lines) + "\n")

    def start(self) -> None:
        options = f"-p {self.port} -c listen_addresses=127.0.0.1 -c unix_socket_directories=''"
        log = self.data.parent / f"{self.data.name}.log"
        run(
            [str(self.bin / "pg_ctl"), "-D", str(self.data), "-l", str(log), "-w", "-t", "120"]
            + ["-o", options, "start"]
        )

    def running(self) -> bool:
        prefix = run_as() or []
        status = subprocess.run(
            [*prefix, str(self.bin / "pg_ctl"), "-D", str(self.data), "status"],
            capture_output=True,
            cwd="/",
        )
        return status.returncode == 0

    def stop(self, mode: str = "fast") -> None:
        """Stop the server if it runs (``immediate``: no shutdown checkpoint)."""
        if self.data.is_dir() and self.running():
            run([str(self.bin / "pg_ctl"), "-D", str(self.data), "-m", mode, "-w", "stop"])

    def execute(self, sql: str, database: str = "postgres") -> list[tuple[Any, ...]]:
        import psycopg

        with psycopg.connect(self.url(database), autocommit=True) as conn:
            cursor = conn.execute(sql)
            return list(cursor.fetchall()) if cursor.description else []


def archiving_settings(archive: Path, scripts: Path) -> dict[str, str]:
    """A primary that archives every completed WAL segment with deploy/backup/archive-wal.sh
    (installed in ``scripts``)."""
    command = f"{scripts / 'archive-wal.sh'} %p %f {archive}"
    return {
        "wal_level": "replica",
        "archive_mode": "on",
        "archive_command": command,
        "max_wal_senders": "4",
        "shared_buffers": "64MB",
        "max_wal_size": "512MB",
        "fsync": "on",
    }


def wal_switch_archived(cluster: Cluster, timeout: float = 60) -> str:
    """Close the current WAL segment (``pg_switch_wal``) and wait until the archiver has
    copied it; the segment's name."""
    ((segment,),) = cluster.execute("select pg_walfile_name(pg_switch_wal())")
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        ((last, failed),) = cluster.execute(
            "select last_archived_wal, last_failed_wal from pg_stat_archiver"
        )
        if last is not None and last >= segment:
            return str(segment)
        time.sleep(0.1)
    raise RuntimeError(f"WAL segment {segment} not archived (last failure: {failed})")


def django_env(url: str) -> dict[str, str]:
    """The environment of a ``manage.py`` or ``bench.pitr`` process on ``url``: production
    settings, no broker or cache (tasks in-process, nothing leaves the process)."""
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("REDIS_URL", "CELERY_BROKER_URL", "CACHE_URL", "DATABASE_POOL_SIZE")
    }
    env.update(
        {
            "DATABASE_URL": url,
            "DJANGO_SETTINGS_MODULE": "canasta_service.settings",
            "DATABASE_CONN_MAX_AGE": "0",
            "DEBUG": "0",
            "SECRET_KEY": "pitr-only-not-a-secret",
            "LOG_LEVEL": "WARNING",
            "MATCHMAKING_IN_PROCESS": "0",
            "PYTHONUNBUFFERED": "1",
        }
    )
    return env


def manage(url: str, *args: str, timeout: float = 1800) -> subprocess.CompletedProcess[str]:
    """``manage.py ARGS`` against ``url`` in a process of its own."""
    return subprocess.run(
        [sys.executable, str(ROOT / "manage.py"), *args],
        env=django_env(url),
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


# The state that a restore must reproduce: per game its status, version, number of events and
# a digest of the whole log. Run inside the transaction that locks the two tables against
# writers, it is exactly what the restore point sees.
LOG_STATE_SQL = """
select g.id, g.status, g.version, count(e.id),
       md5(coalesce(string_agg(e.seq::text || ':' || coalesce(e.seat::text, '-') || ':' || e.type
           || ':' || e.payload::text || ':' || e.effects::text, '|' order by e.seq), ''))
from games_game g left join games_gameevent e on e.game_id = g.id
group by g.id order by g.id
"""


def log_state(cursor: Any) -> dict[int, tuple[str, int, int, str]]:
    cursor.execute(LOG_STATE_SQL)
    return {row[0]: (row[1], row[2], row[3], row[4]) for row in cursor.fetchall()}


def restore_point(
    cluster: Cluster, database: str, name: str
) -> dict[int, tuple[str, int, int, str]]:
    """Create the restore point ``name`` while no move can commit (the games and their logs
    locked against writers, in the order a move takes them), and return the games' state as
    of that point."""
    import psycopg

    with psycopg.connect(cluster.url(database)) as conn, conn.cursor() as cursor:
        cursor.execute("lock table games_game, games_gameevent in exclusive mode")
        state = log_state(cursor)
        cursor.execute("select pg_create_restore_point(%s)", [name])
    return state


# ----------------------------------------------------------------------------- playing


def _django(url: str) -> None:
    os.environ.update(django_env(url))
    for name in ("REDIS_URL", "CELERY_BROKER_URL", "CACHE_URL", "DATABASE_POOL_SIZE"):
        os.environ.pop(name, None)
    import django

    django.setup()


def play(tables: int, stop_file: Path) -> None:
    """Games between two players, move by move, ``tables`` at once, until ``stop_file``."""
    from django.db import DatabaseError

    from accounts.services.players import player_create
    from games.engine import GameState
    from games.models import Game
    from games.services.actions import game_action_apply
    from games.services.bots import bot_fallback_choose
    from games.services.lobby import game_create, game_join, game_start

    ada, _ = player_create(display_name="Ada")
    bob, _ = player_create(display_name="Bob")
    people = {0: ada, 1: bob}

    def table() -> int:
        game = game_create(creator=ada, preset=PRESET, options=OPTIONS, seat=0)
        game_join(player=bob, game_id=game.pk)
        return game_start(game_id=game.pk, player=ada).pk

    playing = [table() for _ in range(tables)]
    moves = 0
    while not stop_file.exists():
        for n, game_id in enumerate(playing):
            game = Game.objects.get(pk=game_id)
            if game.status != "active":
                playing[n] = table()
                continue
            state = GameState.from_dict(game.snapshot or {})
            try:
                game_action_apply(
                    game_id=game_id,
                    seat=None,
                    player=people[state.to_act],
                    action=bot_fallback_choose(state),
                    expected_version=game.version,
                )
            except DatabaseError as exc:  # a lock timeout or deadlock: the move is tried again
                print(f"move not applied in game {game_id}: {exc}", file=sys.stderr)
            moves += 1
    print(f"{moves} moves played")


def export_documents(count: int, seed: str) -> Iterator[dict[str, Any]]:
    """``count`` whole games played in memory by the built-in bot from fixed seeds, each as an
    export document without effects (the import recomputes them)."""
    from games.engine import (
        GAME_STARTED,
        action_from_dict,
        action_to_dict,
        apply,
        make_options,
        new_game,
        rules_version_of,
    )
    from games.selectors.replay import EXPORT_FORMAT, EXPORT_FORMAT_VERSION
    from games.services.bots import bot_fallback_choose

    options = make_options(PRESET, OPTIONS)
    for n in range(count):
        game_seed = f"{seed}:{n}"
        state = new_game(options, game_seed)
        events: list[dict[str, Any]] = [
            {"seq": 1, "seat": None, "type": GAME_STARTED, "payload": {}}
        ]
        while not state.game_over:
            seat = state.to_act
            action = action_from_dict(bot_fallback_choose(state), seat)
            apply(state, action)
            events.append(
                {
                    "seq": len(events) + 1,
                    "seat": seat,
                    "type": action.type,
                    "payload": action_to_dict(action),
                }
            )
        yield {
            "format": EXPORT_FORMAT,
            "format_version": EXPORT_FORMAT_VERSION,
            "rules_version": rules_version_of(options.family),
            "preset": PRESET,
            "options": OPTIONS,
            "seed": game_seed,
            "events": events,
        }


def import_games(count: int, seed: str) -> None:
    """``count`` finished games written through ``game_import``, a hundred per transaction."""
    from django.db import transaction

    from accounts.services.players import player_create
    from games.services.imports import game_import

    creator, _ = player_create(display_name="Importer")
    started = time.perf_counter()
    documents = export_documents(count, seed)
    done = 0
    while done < count:
        with transaction.atomic():
            for document in documents:
                game_import(creator=creator, document=document, seat=0)
                done += 1
                if done % 100 == 0:
                    break
        if done % 1000 == 0:
            print(f"{done} games imported in {time.perf_counter() - started:.0f} s", flush=True)
    print(f"{done} games imported in {time.perf_counter() - started:.1f} s")


def main() -> None:
    parser = argparse.ArgumentParser(description="Play games into DATABASE_URL.")
    commands = parser.add_subparsers(dest="command", required=True)
    playing = commands.add_parser("play", help="games played move by move until --stop-file")
    playing.add_argument("--tables", type=int, default=4)
    playing.add_argument("--stop-file", type=Path, required=True)
    importing = commands.add_parser("import", help="finished games through the import")
    importing.add_argument("--games", type=int, default=10_000)
    importing.add_argument("--seed", default="bench")
    args = parser.parse_args()
    _django(os.environ["DATABASE_URL"])
    if args.command == "play":
        play(args.tables, args.stop_file)
    else:
        import_games(args.games, args.seed)


if __name__ == "__main__":
    main()
