"""Restore figures: base backup, point-in-time restore and verification of a database of games.

    python -m bench.restore [--games 10000] [--after 200]

Builds a PostgreSQL cluster of its own that archives its WAL (deploy/backup/archive-wal.sh;
a temporary directory, a free port: no other server is touched), migrates the project's schema
into it and writes ``--games`` finished games through the import service (``bench.pitr
import``: played in memory by the built-in bot from fixed seeds, each replayed by the engine as
it is written). Backups, with deploy/backup/base-backup.sh (gzip-compressed tar, WAL streamed):

- backup A, of the empty schema, before any game;
- backup B, after the ``--games`` games.

Then ``--after`` more games, a restore point, ``--after`` more games that the restore must leave
out, a WAL switch, and the source server is stopped. Each backup is restored with
deploy/backup/restore.sh into a new cluster up to the restore point (from A the whole day's WAL
is replayed; from B only what followed it), the games counted against those at the point, and
every game verified from its log (``manage.py replay --all --verify``). Prints sizes and times;
fails if a restore has other games than the point had or a game does not verify.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

import psycopg

from bench import pitr

TARGET = "bench_target"


def size(path: Path) -> int:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file())


def mib(n: int) -> str:
    return f"{n / 2**20:,.1f} MiB"


def import_games(cluster: pitr.Cluster, games: int, seed: str) -> float:
    t0 = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "bench.pitr", "import", "--games", str(games), "--seed", seed],
        env=pitr.django_env(cluster.url("canasta")),
        cwd=pitr.ROOT,
        check=True,
    )
    return time.perf_counter() - t0


def backup(cluster: pitr.Cluster, scripts: Path, out: Path, label: str) -> tuple[Path, float]:
    t0 = time.perf_counter()
    made = pitr.script(
        scripts, "base-backup.sh", "-d", cluster.conninfo(), "-o", str(out), "-l", label
    )
    return Path(made.stdout.strip().splitlines()[-1]), time.perf_counter() - t0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=10_000, help="games before backup B")
    parser.add_argument("--after", type=int, default=200, help="games either side of the point")
    args = parser.parse_args()
    why = pitr.missing()
    if why:
        sys.exit(f"cannot run: {why}")

    with pitr.workspace("restore-bench") as root:
        scripts = pitr.install_scripts(root)
        archive = pitr.subdir(root, "archive")
        backups = pitr.subdir(root, "backups")
        source = pitr.Cluster(
            root / "source", pitr.free_port(), pitr.archiving_settings(archive, scripts)
        )
        restored: list[pitr.Cluster] = []
        try:
            source.initdb()
            source.start()
            source.execute("create database canasta")
            migrated = pitr.manage(source.url("canasta"), "migrate", "--noinput", "-v", "0")
            if migrated.returncode:
                sys.exit(migrated.stderr)
            backup_a, took_a = backup(source, scripts, backups, "empty")
            print(f"backup A (empty schema): {took_a:.1f} s, {mib(size(backup_a))}", flush=True)

            took = import_games(source, args.games, "bench")
            ((events,),) = source.execute("select count(*) from games_gameevent", "canasta")
            ((db_size,),) = source.execute("select pg_database_size('canasta')")
            print(
                f"{args.games:,} games ({events:,} events) imported in {took:.0f} s; "
                f"database {mib(db_size)}",
                flush=True,
            )
            backup_b, took_b = backup(source, scripts, backups, "full")
            print(f"backup B ({args.games:,} games): {took_b:.1f} s, {mib(size(backup_b))}")

            import_games(source, args.after, "before-point")
            at_target = pitr.restore_point(source, "canasta", TARGET)
            import_games(source, args.after, "after-point")
            pitr.wal_switch_archived(source)
            ((total,),) = source.execute("select count(*) from games_game", "canasta")
            source.stop()
            print(
                f"restore point at {len(at_target):,} games; {total:,} games at the end; "
                f"WAL archive {mib(size(archive))} in {len(list(archive.iterdir()))} files",
                flush=True,
            )

            for name, chosen in (("B", backup_b), ("A", backup_a)):
                cluster = pitr.Cluster(root / f"restored-{name}", pitr.free_port())
                restored.append(cluster)
                t0 = time.perf_counter()
                pitr.script(
                    scripts,
                    "restore.sh",
                    *("-b", str(chosen), "-D", str(cluster.data), "-a", str(archive)),
                    *("-p", str(cluster.port), "--target-name", TARGET),
                )
                took_restore = time.perf_counter() - t0
                with psycopg.connect(cluster.url("canasta")) as conn, conn.cursor() as cursor:
                    same = pitr.log_state(cursor) == at_target
                t0 = time.perf_counter()
                verified = pitr.manage(cluster.url("canasta"), "replay", "--all", "--verify")
                took_verify = time.perf_counter() - t0
                summary = verified.stdout.strip().splitlines()[-1:] or [verified.stderr[-500:]]
                print(
                    f"restore from backup {name} to the point: restore + recovery "
                    f"{took_restore:.1f} s; data directory {mib(size(cluster.data))}; games and "
                    f"logs as at the point: {'yes' if same else 'NO'}; verify "
                    f"{took_verify:.0f} s ({summary[0]})",
                    flush=True,
                )
                cluster.stop()
                if not same or verified.returncode:
                    sys.exit("the restore does not match the restore point")
        finally:
            for cluster in [source, *restored]:
                cluster.stop("immediate")
    print(f"load average {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
