"""Backups and point-in-time restore with the scripts of deploy/backup, end to end.

A PostgreSQL cluster of the test's own (a temporary directory, a free port; the server the
service uses is not touched) archives its WAL with ``archive-wal.sh``; the project's schema is
migrated into it and games are played into it by another process. A base backup
(``base-backup.sh``) is taken while they are played; later, with the games locked against
moves for an instant, a restore point is created and the games' logs recorded. Play goes on,
new tables are opened, the source server is stopped; ``restore.sh`` then restores the backup
into a new cluster up to the restore point, and the games there must be exactly those at the
point, each with exactly its log up to it, and replay from their logs (``replay --all
--verify``).
"""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import psycopg
import pytest

from bench import pitr
from tests.conftest import in_ci

pytestmark = [pytest.mark.postgres, pytest.mark.slow]

TARGET = "canasta_test_target"
WAIT_SECONDS = 120


@dataclass
class Lab:
    root: Path
    scripts: Path
    archive: Path
    backups: Path
    clusters: list[pitr.Cluster] = field(default_factory=list)
    players: list[subprocess.Popen[str]] = field(default_factory=list)

    def cluster(self, name: str, settings: dict[str, str] | None = None) -> pitr.Cluster:
        cluster = pitr.Cluster(self.root / name, pitr.free_port(), settings or {})
        self.clusters.append(cluster)
        return cluster


@pytest.fixture
def lab() -> Iterator[Lab]:
    why = pitr.missing()
    if why is not None:
        if in_ci():
            pytest.fail(f"{why} (CI=true: PostgreSQL must be installed, not skipped)")
        pytest.skip(why)
    with pitr.workspace("pitr-test") as root:
        lab = Lab(
            root,
            pitr.install_scripts(root),
            pitr.subdir(root, "archive"),
            pitr.subdir(root, "backups"),
        )
        try:
            yield lab
        finally:
            for player in lab.players:
                if player.poll() is None:
                    player.kill()
                    player.communicate()
            for cluster in lab.clusters:
                try:
                    cluster.stop("immediate")
                except Exception as exc:  # the next cluster is stopped all the same
                    print(f"could not stop the cluster in {cluster.data}: {exc}", file=sys.stderr)


def wait_until(condition: Callable[[], bool], player: subprocess.Popen[str], what: str) -> None:
    deadline = time.monotonic() + WAIT_SECONDS
    while not condition():
        if player.poll() is not None:
            out, err = player.communicate()
            pytest.fail(f"the player stopped (exit {player.returncode}) before {what}:\n{err}")
        if time.monotonic() > deadline:
            pytest.fail(f"not within {WAIT_SECONDS} s: {what}")
        time.sleep(0.2)


def test_a_restore_to_a_restore_point_has_exactly_the_games_played_until_then(lab: Lab) -> None:
    source = lab.cluster("source", pitr.archiving_settings(lab.archive, lab.scripts))
    source.initdb()
    source.start()
    source.execute("create database canasta")
    url = source.url("canasta")
    migrated = pitr.manage(url, "migrate", "--noinput", "-v", "0")
    assert migrated.returncode == 0, migrated.stderr

    def count(sql: str) -> int:
        return int(source.execute(sql, "canasta")[0][0])

    def events() -> int:
        return count("select count(*) from games_gameevent")

    stop = lab.root / "stop-playing"
    player = subprocess.Popen(
        [sys.executable, "-m", "bench.pitr", "play", "--tables", "3", "--stop-file", str(stop)],
        env=pitr.django_env(url),
        cwd=pitr.ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    lab.players.append(player)
    wait_until(lambda: events() >= 150, player, "150 moves before the backup")

    # The base backup, taken while the games are played.
    made = pitr.script(
        lab.scripts, "base-backup.sh", "-d", source.conninfo(), "-o", str(lab.backups), "-l", "t"
    )
    backup = Path(made.stdout.strip().splitlines()[-1])
    assert backup.parent == lab.backups and (backup / "SHA256SUMS").is_file()
    after_backup = events()
    wait_until(
        lambda: (
            events() >= after_backup + 300
            and count("select count(*) from games_game where status = 'finished'") >= 1
        ),
        player,
        "300 more moves and a finished game after the backup",
    )

    at_target = pitr.restore_point(source, "canasta", TARGET)
    moves_at_target = sum(logged for _, _, logged, _ in at_target.values())
    last_game = max(at_target)
    wait_until(
        lambda: (
            events() >= moves_at_target + 150
            and count(f"select count(*) from games_game where id > {last_game}") >= 1
        ),
        player,
        "150 more moves and a new table after the restore point",
    )
    stop.touch()
    out, err = player.communicate(timeout=WAIT_SECONDS)
    assert player.returncode == 0, err
    with psycopg.connect(url) as conn, conn.cursor() as cursor:
        at_end = pitr.log_state(cursor)
    pitr.wal_switch_archived(source)
    # From here on only the backup and the archive are left.
    source.stop()

    # What the restore must leave out is there to leave out: games played on after the point
    # (some unfinished at it) and tables opened after it.
    assert moves_at_target > after_backup
    assert set(at_end) > set(at_target)
    assert any(at_end[game][2] > logged for game, (_, _, logged, _) in at_target.items())
    assert any(status == "finished" for status, _, _, _ in at_target.values())
    assert any(status == "active" for status, _, _, _ in at_target.values())

    restored = lab.cluster("restored")
    done = pitr.script(
        lab.scripts,
        "restore.sh",
        *("-b", str(backup), "-D", str(restored.data), "-a", str(lab.archive)),
        *("-p", str(restored.port), "--target-name", TARGET, "--timeout", str(WAIT_SECONDS)),
    )
    assert "promoted" in done.stdout
    assert restored.execute("select pg_is_in_recovery()") == [(False,)]
    restored.execute("create table written_after_restore (n int)", "canasta")

    with psycopg.connect(restored.url("canasta")) as conn, conn.cursor() as cursor:
        assert pitr.log_state(cursor) == at_target
        cursor.execute("select count(*) from games_gameevent")
        assert cursor.fetchone() == (moves_at_target,)

    replayed = pitr.manage(restored.url("canasta"), "replay", "--all", "--verify")
    assert replayed.returncode == 0, replayed.stdout[-3000:] + replayed.stderr[-3000:]
    games = len(at_target)
    assert f"verified {games} game(s): {games} ok, 0 mismatched" in replayed.stdout


def test_a_restore_refuses_a_bad_backup_or_an_unreached_target_and_keeps_to_its_own_files(
    lab: Lab,
) -> None:
    source = lab.cluster("source", pitr.archiving_settings(lab.archive, lab.scripts))
    source.initdb()
    source.start()
    made = pitr.script(
        lab.scripts, "base-backup.sh", "-d", source.conninfo(), "-o", str(lab.backups)
    )
    backup = Path(made.stdout.strip().splitlines()[-1])
    pitr.wal_switch_archived(source)
    source.stop()

    # A restore point the archive never recorded: recovery ends before it, the server stops
    # and the script says so rather than promoting a database of the wrong moment.
    nowhere = lab.cluster("nowhere")
    with pytest.raises(RuntimeError, match="did not start|stopped during recovery") as refused:
        pitr.script(
            lab.scripts,
            "restore.sh",
            *("-b", str(backup), "-D", str(nowhere.data), "-a", str(lab.archive)),
            *("-p", str(nowhere.port), "--target-name", "never_created", "--timeout", "60"),
        )
    assert "recovery ended before configured recovery target was reached" in str(refused.value)

    # A cluster configured outside its data directory (Debian's /etc/postgresql/...): the
    # configuration copied, pointed at the new directory, never at the original's files.
    config = pitr.subdir(lab.root, "etc")
    original = lab.root / "original-that-must-not-be-used"
    (config / "postgresql.conf").write_text(
        f"data_directory = '{original}/main'\n"
        f"hba_file = '{original}/pg_hba.conf'\n"
        f"ident_file = '{original}/pg_ident.conf'\n"
        f"external_pid_file = '{original}/main.pid'\n"
        "port = 5432\n"
        "include_dir = 'conf.d'\n"
    )
    (config / "pg_hba.conf").write_text("host all all 127.0.0.1/32 trust\n")
    (config / "pg_ident.conf").write_text("")
    (config / "conf.d").mkdir()
    (config / "conf.d" / "memory.conf").write_text("work_mem = '7MB'\n")
    configured = lab.cluster("configured")
    pitr.script(
        lab.scripts,
        "restore.sh",
        *("-b", str(backup), "-D", str(configured.data), "-a", str(lab.archive)),
        *("-p", str(configured.port), "--config-from", str(config), "--timeout", "60"),
    )
    assert configured.execute("show data_directory") == [(str(configured.data),)]
    assert configured.execute("show work_mem") == [("7MB",)]
    assert configured.execute("select pg_is_in_recovery()") == [(False,)]
    assert not original.exists()
    configured.stop()

    # One changed byte in the backup: refused before anything is unpacked.
    pitr.run(["sh", "-c", f"echo >> {backup / 'backup.info'}"])
    changed = lab.cluster("changed")
    with pytest.raises(RuntimeError, match="FAILED"):
        pitr.script(
            lab.scripts,
            "restore.sh",
            *("-b", str(backup), "-D", str(changed.data), "-a", str(lab.archive)),
            *("-p", str(changed.port), "--timeout", "60"),
        )
    assert not changed.data.exists()
