"""What authenticating a request costs: ``python -m bench.auth``.

For each database (SQLite in a file; PostgreSQL too when ``DATABASE_URL`` names one) it times

- ``authenticate``: the configured DRF authentication (the first of
  ``DEFAULT_AUTHENTICATION_CLASSES``) on a ``RequestFactory`` request, with a guest key
  (``Authorization: Token``) and, where the tree has device sessions, with a Bearer access key;
- ``GET /players/me/``: the whole request through Django's test client (middleware, the view,
  its queries), with the same keys;

and prints microseconds per request (median and p95 over ``--n`` calls, after a warm-up).

``--compare <tree>`` runs the same measurements in another checkout as well (its own code, in
a subprocess with that tree first on ``sys.path``), side by side: e.g. the implementation
before keys were hashed and looked up at every request (DRF's ``TokenAuthentication`` with a
per-process cache)::

    git worktree add /tmp/before cf2c5e4
    python -m bench.auth --compare /tmp/before
    git worktree remove /tmp/before

A tree without ``accounts.services.credentials`` gets a DRF ``Token`` for its guest.
Each measurement runs on a database of its own (a new SQLite file; a new PostgreSQL database,
dropped after), migrated first.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

ROOT = Path(__file__).resolve().parents[1]
WORKER = "__bench_auth_worker__"


# ============================================================================== in the tree
def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q / 100 * (len(ordered) - 1)))]


def _figures(samples: list[float]) -> dict[str, float]:
    micro = [s * 1e6 for s in samples]
    return {"median": statistics.median(micro), "p95": _percentile(micro, 95), "n": len(micro)}


def worker(n: int, full: int) -> dict[str, Any]:
    """Runs inside the measured tree (its code first on sys.path, its settings)."""
    import django

    django.setup()
    from django.core.management import call_command
    from django.test import Client, RequestFactory
    from django.test.utils import setup_test_environment
    from rest_framework.request import Request
    from rest_framework.settings import api_settings

    setup_test_environment()
    call_command("migrate", verbosity=0, interactive=False)

    made = Client().post(
        "/api/v1/players/", {"display_name": "Bench"}, content_type="application/json"
    )
    if made.status_code != 201:
        raise SystemExit(f"sign-up answered {made.status_code}: {made.content[:200]!r}")
    from django.contrib.auth import get_user_model

    user = get_user_model().objects.get(player__id=made.json()["id"])
    headers: dict[str, str] = {}
    try:
        from accounts.services import credentials  # the tree with hashed keys
    except ImportError:
        from rest_framework.authtoken.models import Token

        token, _ = Token.objects.get_or_create(user=user)
        headers["guest key (Token)"] = f"Token {token.key}"
    else:
        headers["guest key (Token)"] = f"Token {made.json()['token']}"
        keys = credentials.device_session_open(user, device="bench")
        headers["access key (Bearer)"] = f"Bearer {keys.access_key}"

    authentication = api_settings.DEFAULT_AUTHENTICATION_CLASSES[0]()
    factory = RequestFactory()
    client = Client()
    rows: list[dict[str, Any]] = []
    for label, header in headers.items():
        samples: list[float] = []
        for i in range(n + 50):
            request = Request(factory.get("/api/v1/players/me/", HTTP_AUTHORIZATION=header))
            started = time.perf_counter()
            found = authentication.authenticate(request)
            took = time.perf_counter() - started
            if found is None or found[0].pk != user.pk:
                raise SystemExit(f"{label}: authenticate gave {found!r}")
            if i >= 50:
                samples.append(took)
        rows.append({"what": f"authenticate, {label}", **_figures(samples)})
        samples = []
        for i in range(full + 20):
            started = time.perf_counter()
            answer = client.get("/api/v1/players/me/", HTTP_AUTHORIZATION=header)
            took = time.perf_counter() - started
            if answer.status_code != 200:
                raise SystemExit(f"{label}: GET /players/me/ answered {answer.status_code}")
            if i >= 20:
                samples.append(took)
        rows.append({"what": f"GET /players/me/, {label}", **_figures(samples)})
    return {"class": type(authentication).__qualname__, "rows": rows}


# ============================================================================== the driver
def _postgres_database(url: str, name: str, create: bool) -> str:
    """Create (or drop) database ``name`` on the server of ``url``; its URL."""
    import psycopg

    parts = urlsplit(url.replace("postgresql://", "postgres://", 1))
    admin = urlunsplit(parts._replace(scheme="postgresql", path="/postgres"))
    with psycopg.connect(admin, autocommit=True) as conn:
        if create:
            conn.execute(f'CREATE DATABASE "{name}"')
        else:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    return urlunsplit(parts._replace(path=f"/{name}"))


def measure(tree: Path, database: str, n: int, full: int, redis: str = "") -> dict[str, Any]:
    """Run ``worker`` in ``tree`` (a subprocess with the tree first on sys.path); with
    ``redis``, REDIS_URL is set (the key cache of accounts/services/key_cache.py is on)."""
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("CACHE_URL", "REDIS_URL", "DJANGO_SETTINGS_MODULE", "PYTHONPATH")
    }
    env.update(
        PYTHONPATH=str(tree),
        DJANGO_SETTINGS_MODULE="canasta_service.settings",
        DEBUG="0",
        SECRET_KEY=env.get("SECRET_KEY") or "bench-auth-" + "x" * 40,
        DATABASE_URL=database,
        THROTTLE_SIGNUP="off",
        LOG_LEVEL="WARNING",
    )
    if redis:
        env["REDIS_URL"] = redis
    code = (
        "import json, runpy, sys\n"
        f"ns = runpy.run_path({str(Path(__file__).resolve())!r}, run_name={WORKER!r})\n"
        f"print('RESULT ' + json.dumps(ns['worker']({n}, {full})))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=tree, env=env, capture_output=True, text=True
    )
    for line in done.stdout.splitlines():
        if line.startswith("RESULT "):
            return dict(json.loads(line[7:]))
    raise SystemExit(
        f"the measurement in {tree} failed:\n{done.stdout[-2000:]}{done.stderr[-4000:]}"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bench.auth",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--n", type=int, default=2000, help="authenticate calls per key (2000)")
    parser.add_argument("--full", type=int, default=500, help="whole requests per key (500)")
    parser.add_argument("--compare", type=Path, help="another checkout, measured as well")
    parser.add_argument(
        "--database-url",
        default=os.environ.get("DATABASE_URL", ""),
        help="a PostgreSQL server to measure on too (default: DATABASE_URL)",
    )
    parser.add_argument(
        "--redis",
        default="",
        help="a Redis URL: this tree is measured again with it (each process remembers keys)",
    )
    args = parser.parse_args(argv)
    trees: list[tuple[str, Path, str]] = [("this tree", ROOT, "")]
    if args.redis:
        trees.append(("this tree, with Redis", ROOT, args.redis))
    if args.compare:
        if not (args.compare / "manage.py").exists():
            parser.error(f"--compare {args.compare}: no manage.py there")
        trees.insert(0, (f"{args.compare}", args.compare.resolve(), ""))
    postgres = args.database_url if args.database_url.startswith(("postgres", "postgresql")) else ""

    print(
        f"python -m bench.auth --n {args.n} --full {args.full}"
        + (f" --compare {args.compare}" if args.compare else "")
        + (f" --redis {args.redis}" if args.redis else "")
    )
    print("| tree | database | authentication class | what | median µs | p95 µs |")
    print("|---|---|---|---|---|---|")
    for label, tree, redis in trees:
        with tempfile.TemporaryDirectory(prefix="bench-auth-") as folder:
            bases = [("SQLite", f"sqlite:///{folder}/db.sqlite3", None)]
            if postgres:
                name = f"bench_auth_{os.getpid()}_{len(label)}_{int(time.time())}"
                bases.append(("PostgreSQL", _postgres_database(postgres, name, True), name))
            for base, url, created in bases:
                try:
                    result = measure(tree, url, args.n, args.full, redis)
                finally:
                    if created:
                        _postgres_database(postgres, created, False)
                for row in result["rows"]:
                    print(
                        f"| {label} | {base} | {result['class']} | {row['what']} | "
                        f"{row['median']:.0f} | {row['p95']:.0f} |",
                        flush=True,
                    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
