"""The command: start (or reach) the server, run the attacks, print the tables."""

from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from bench.attack import classic, identity, isolation
from bench.attack.common import TALLY, Accounts, Outcome, Target
from bench.attack.victim import Figures, Probe, Victim, figures

ROOT = Path(__file__).resolve().parents[2]
CLASSIC_FIRST = [n for n in classic.CLASSIC if n != "forwarded_for"]
ALL = [*CLASSIC_FIRST, *identity.IDENTITY, *isolation.ISOLATION, "forwarded_for"]


@contextmanager
def served(serving: str, layout: str) -> Iterator[Any]:
    """The serving of bench.harness with the rate limits on (as in production) and webhooks and
    push allowed to reach the attacks' receivers on 127.0.0.1."""
    from bench import harness
    from canasta_service.oidc_key import generate_pem

    env: dict[str, str | None] = {
        **{key: None for key in harness.UNLIMITED},  # every limit at its production default
        "WEBHOOK_ALLOW_HTTP_HOSTS": "127.0.0.1",
        "WEBPUSH_ALLOW_HTTP_HOSTS": "127.0.0.1",
        # The OpenID Connect provider on, for the redirect-URI attack (identity.oidc_redirect).
        "OIDC_PRIVATE_KEY": generate_pem(),
    }
    with harness.stack(serving=serving, env_overrides=env, worker_layout=layout) as stack:
        yield stack


def pids_of(stack: Any) -> dict[str, list[int]]:
    if stack is None:
        return {}
    server = stack.servers[0]
    found = {"live": [server.masters["live"]] if "live" in server.masters else []}
    found["deliveries"] = [
        pid for name, pid in stack.worker_pids.items() if name.startswith(("deliveries", "single"))
    ]
    return found


def settle(victim: Victim, seconds: float = 15.0) -> None:
    """Wait until the victim is not waiting on a bot (or ``seconds``)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and victim.waiting_since is not None:
        time.sleep(0.2)


def verify(stack: Any) -> tuple[bool, str]:
    done = subprocess.run(
        [sys.executable, "manage.py", "replay", "--all", "--verify"],
        cwd=ROOT,
        env=stack.env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    text = (done.stdout + done.stderr).strip().splitlines()
    return done.returncode == 0, (text[-1] if text else "")


def manage(stack: Any, argv: list[str]) -> str:
    """``manage.py <argv>`` with the served stack's environment: what it printed."""
    done = subprocess.run(
        [sys.executable, "manage.py", *argv],
        cwd=ROOT,
        env=stack.env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    return done.stdout + done.stderr


def fmt(seconds: float) -> str:
    return "-" if seconds != seconds else f"{seconds:.2f}"


def row(f: Figures) -> str:
    misses = f.misses()
    return (
        f"| {f.name} | {len(f.bot)}{' (+1 open)' if f.bot_pending else ''} | "
        f"{fmt(f.bot_p50)} / {fmt(f.bot_p95)} / {fmt(f.bot_max)} | "
        f"{fmt(f.api_p95)} / {fmt(f.api_max)} ({len(f.api)}, {f.api_errors} failed) | "
        f"{'n/a (short)' if f.short else 'PASS' if not misses else 'FAIL: ' + '; '.join(misses)} |"
    )


def run(args: argparse.Namespace, url: str, stack: Any) -> int:
    target = Target(url)
    accounts = Accounts(target, first=random.randrange(0, 200))
    names = args.only.split(",") if args.only else ALL
    deadline = time.monotonic() + args.time_limit
    outcomes: list[Outcome] = []
    database_url = args.database_url or (
        stack.env["DATABASE_URL"].replace("postgres://", "postgresql://") if stack else None
    )
    players = [accounts.new(f"Attacker{i}") for i in range(6)]
    ictx = identity.Ctx(
        target,
        quick=args.quick,
        mail_logs=sorted(stack.log_dir.glob("*.log")) if stack else [],
        manage=(lambda argv: manage(stack, argv)) if stack else None,
        first=random.randrange(0, 200) * 50,
    )
    if "enumeration" in names:
        identity.prepare(ictx)  # its known e-mails, long before it runs
    cctx = classic.Context(target, players, database_url)

    def attack_run(name: str, attack: Callable[[Any, Outcome], None], ctx: Any) -> None:
        out = Outcome(name)
        began = time.monotonic()
        if time.monotonic() > deadline:
            out.skipped = "the run's time limit was reached"
        else:
            try:
                attack(ctx, out)
            except Exception as exc:  # noqa: BLE001 - an attack that breaks is a failure
                out.failures.append(f"the attack broke: {type(exc).__name__}: {exc}")
        out.say(f"[{time.monotonic() - began:.1f} s]")
        outcomes.append(out)
        print(f"{name:19} {out.result}", flush=True)

    def classic_run(name: str) -> None:
        attack_run(name, classic.CLASSIC[name], cctx)

    for name in CLASSIC_FIRST:
        if name in names:
            classic_run(name)

    for name in identity.IDENTITY:
        if name in names:
            attack_run(name, identity.IDENTITY[name], ictx)

    rows: list[Figures] = []
    chosen = [n for n in isolation.ISOLATION if n in names]
    if chosen:
        victim = Victim(target, accounts.new("Victim"), args.victim_preset, args.victim_level)
        probe = Probe(target, accounts.new("Bystander"), victim)
        victim.start()
        if not victim.ready.wait(60):
            raise SystemExit(f"the victim's game did not start: {victim.errors[-3:]}")
        probe.start()
        ctx = isolation.Ctx(
            target,
            accounts,
            victim,
            args.seconds,
            cctx.finished_game,
            cctx.finished_document,
            pids_of(stack),
        )
        start = time.time()
        time.sleep(args.seconds)
        rows.append(figures("baseline (no attack)", victim, probe, start, time.time()))
        print(row(rows[-1]), flush=True)
        for name in chosen:
            out = Outcome(name)
            start, began = time.time(), time.monotonic()
            if time.monotonic() > deadline:
                out.skipped = "the run's time limit was reached"
            else:
                try:
                    isolation.ISOLATION[name](ctx, out)
                except Exception as exc:  # noqa: BLE001 - an attack that breaks is a failure
                    out.failures.append(f"the attack broke: {type(exc).__name__}: {exc}")
            end = time.time()
            out.say(f"[{time.monotonic() - began:.1f} s]")
            outcomes.append(out)
            print(f"{name:17} {out.result}", flush=True)
            if not out.skipped:
                settle(victim)
                label = f"{isolation.FINDING[name]}. {name}"
                rows.append(figures(label, victim, probe, start, end))
                print(row(rows[-1]), flush=True)
        victim.stop.set()
        probe.stop.set()
        if victim.errors:
            print(f"(the victim met {len(victim.errors)} errors, e.g. {victim.errors[:2]})")

    if "forwarded_for" in names:
        classic_run("forwarded_for")

    verified = True
    if stack is not None and not args.no_verify:
        verified, said = verify(stack)
        print(f"\nreplay --all --verify: {'ok' if verified else 'FAILED'} ({said})")
    errors = TALLY.server_errors
    print(
        f"answers: {sum(TALLY.statuses.values())} ({dict(sorted(TALLY.statuses.items()))}); "
        f"server errors: {errors}{' e.g. ' + '; '.join(TALLY.errors[:5]) if errors else ''}"
    )

    if rows:
        print(
            f"\nworker layout {args.worker_layout}, {args.seconds:.0f} s an attack, victim "
            f"{args.victim_preset} against {args.victim_level} bots; load average "
            f"{os.getloadavg()[0]:.1f}"
        )
        print(
            "| attack | bot moves | bot p50 / p95 / max (s) | API p95 / max (s) (reads) | targets |"
        )
        print("|---|---|---|---|---|")
        for f in rows:
            print(row(f))
    through = [o.name for o in outcomes if o.failures]
    missed = [f.name for f in rows if f.misses()]
    print(f"\n{len(outcomes) - len(through)} of {len(outcomes)} attacks held", end="")
    print(f"; got through: {', '.join(through)}" if through else "")
    if missed:
        print(
            f"latency targets missed: {', '.join(missed)}"
            + ("" if args.latency_targets else " (not failing: no --latency-targets)")
        )
    failed = bool(through) or errors > 0 or not verified
    if args.latency_targets and missed:
        failed = True
    return 1 if failed else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bench.attack",
        description=__import__("bench.attack", fromlist=["x"]).__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument("--url", help="a running server, e.g. http://127.0.0.1:8000")
    where.add_argument("--serve", choices=("production", "asgi", "wsgi"), help="start one")
    parser.add_argument("--database-url", help="the server's database, for killed_session")
    parser.add_argument("--only", help=f"comma-separated attacks (default: all: {', '.join(ALL)})")
    parser.add_argument("--seconds", type=float, default=30.0, help="each attack's time (30)")
    parser.add_argument("--quick", action="store_true", help="CI: 12 s an attack")
    parser.add_argument("--time-limit", type=float, default=1500.0, help="seconds (1500)")
    parser.add_argument(
        "--worker-layout",
        choices=("queues", "single"),
        default="queues",
        help="with --serve: Celery queues as docker-compose runs them, or one worker (before)",
    )
    parser.add_argument("--latency-targets", action="store_true", help="a missed target fails")
    parser.add_argument("--victim-preset", default="two_player")
    parser.add_argument("--victim-level", default="medium", choices=("easy", "medium", "hard"))
    parser.add_argument("--no-verify", action="store_true", help="skip replay --all --verify")
    args = parser.parse_args(argv)
    if args.quick:
        args.seconds = 12.0
    unknown = [n for n in (args.only.split(",") if args.only else []) if n not in ALL]
    if unknown:
        parser.error(f"unknown attacks: {', '.join(unknown)} (known: {', '.join(ALL)})")
    if args.url:
        return run(args, args.url, None)
    with served(args.serve, args.worker_layout) as stack:
        return run(args, stack.urls[0], stack)
