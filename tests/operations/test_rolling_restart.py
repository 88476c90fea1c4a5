"""A rolling restart under load: two nodes behind nginx, every process replaced one at a time.

Two nodes (each an API server, a live server and a Celery worker on its own ports; one
PostgreSQL database of the test's own and an empty Redis database index) behind one nginx of
deploy/nginx.conf's shape whose upstreams list both nodes (``bench.nodes``). A few clients play
games through nginx (one of them against a bot, whose turns go through the workers), each move
with an ``Idempotency-Key`` and sent again, with the same key, on a connection error or a 502
from nginx; each game has a follower on the event stream, reconnecting with ``Last-Event-ID``.
Meanwhile the workers, then the live servers, then the API servers are replaced one by one as
a deploy does (docs/operations.md, "Rolling restarts"): SIGTERM, the process drains and exits,
a new one starts on the same port and answers its health check before the next is touched.

Then no move failed, every acknowledged move is in the log exactly once and nothing else of the
clients' seats is, every follower saw every seq of its game exactly once and in order, and every
game replays to its snapshot (``bench.check``).
"""

from __future__ import annotations

import os
import re
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import pytest

from bench import harness, nodes
from tests.conftest import database_url, in_ci

pytestmark = [pytest.mark.postgres, pytest.mark.slow]

TABLES = 4  # the fourth against a bot


def _servers() -> tuple[str, str, frozenset[int]]:
    """(the PostgreSQL server's URL without a database, the Redis server's without an index,
    the Redis indexes the test run uses) of the test settings; skipped, or failed under
    CI=true, when one or nginx is missing."""
    from django.conf import settings
    from django.db import connection

    why = ""
    redis_url = settings.REDIS_URL or ""
    if not redis_url:
        why = "needs REDIS_URL=redis://..."
    try:
        harness.nginx_binary()
    except RuntimeError as exc:
        why = why or str(exc)
    if why:
        if in_ci():
            pytest.fail(f"{why} (CI=true: the rolling restart must run, not be skipped)")
        pytest.skip(why)
    pg = database_url(connection.settings_dict).rsplit("/", 1)[0]
    parts = urlsplit(redis_url)
    redis = urlunsplit(parts._replace(path="", query=""))
    taken = re.split(r"[,\s]+", os.environ.get("TEST_REDIS_DBS", "") + " " + parts.path.strip("/"))
    return pg, redis, frozenset(int(i) for i in taken if i.isdigit())


@pytest.fixture
def two_nodes(tmp_path: Path) -> Iterator[nodes.Cluster]:
    pg, redis, taken = _servers()
    cluster = nodes.Cluster(
        nodes=2,
        name=f"canasta_rolling_restart_{uuid.uuid4().hex[:8]}",
        pg_url=pg,
        redis_base=redis,
        avoid_redis_dbs=taken,
        log_dir=tmp_path / "logs",
        # A live server's streams are cut 2 s after its SIGTERM (production allows more): games
        # last seconds here, so streams are cut mid-game and must resume.
        graceful_seconds=2,
    )
    try:
        cluster.start()
        yield cluster
    finally:
        cluster.stop()  # every process, the database, the Redis index


def test_replacing_every_process_one_by_one_loses_no_move_and_no_event(
    two_nodes: nodes.Cluster,
) -> None:
    cluster = two_nodes
    replaced: list[tuple[str, int, int, int, int]] = []  # kind, node, old pid, new pid, acks
    results_box: list[nodes.Results] = []

    def roll() -> None:
        time.sleep(2)
        for kind in ("worker", "live", "api"):
            for node in cluster.members:
                old = node.procs[kind].pid
                cluster.replace(node, kind)
                acks = len(results_box[0].acks) if results_box else -1
                replaced.append((kind, node.index, old, node.procs[kind].pid, acks))
                time.sleep(1)
        time.sleep(2)

    results, _, _, _, _ = nodes.drive(cluster, TABLES, 0, during=roll, on_start=results_box.append)
    versions = nodes.settle_followers(cluster, results)
    problems = nodes.verify(cluster, results, versions)
    print(
        f"{len(results.acks)} moves acknowledged, answers {dict(results.statuses)}, "
        f"{results.retries} requests sent again, "
        f"{sum(f.reconnects for f in results.followers)} stream reconnects "
        f"({sum(f.resumes for f in results.followers)} after some events), "
        f"{len(results.followers)} followers; replaced (kind, node, acks by then): "
        f"{[(kind, index, acks) for kind, index, _, _, acks in replaced]}"
    )

    # Every process was replaced, one at a time, by another on the same port.
    assert [(kind, index) for kind, index, *_ in replaced] == [
        (kind, index) for kind in ("worker", "live", "api") for index in (0, 1)
    ]
    assert all(old != new for _, _, old, new, _ in replaced)
    # The load went on through the restarts: moves were acknowledged while each kind of
    # process was being replaced, and after the last replacement.
    acks = [count for *_, count in replaced[1::2]] + [len(results.acks)]
    assert all(later > earlier for earlier, later in zip(acks, acks[1:], strict=False)), acks
    assert replaced[0][4] > 0
    # No failed move: every answer an acknowledgment, or (a bot table) 409 because the bot
    # moved first; a retry answered as a replay counts as the acknowledgment it is.
    assert set(results.statuses) <= {201, 409}, results.statuses
    assert not results.refused_humans, results.refused_humans
    assert not problems, "\n".join(problems)
    # The live servers' restarts cut followers' streams mid-game, and they resumed.
    assert sum(f.resumes for f in results.followers) >= 1
    assert len(results.acks) > 50
