"""``python manage.py replay``: rebuild games from their move logs through the rules engine.

    replay GAME_ID [GAME_ID ...] --verify   compare with the snapshot, melds and score rows
    replay --all --verify                   every game in the database
    replay GAME_ID --show [--at 12,40]      one line per event, the table after chosen steps
                                            (default: after every round end and the last event)
    replay GAME_ID --fairness               the seed commitments; after the end, check that the
                                            revealed seed produces every dealt card
    replay GAME_ID --export FILE            the whole game as an importable document, seed and
                                            every card included (an operator's tool: bug reports)
    replay --bench [N]                      figures: how long replaying a whole game takes

``--verify`` is the default. Exits non-zero when a verification or a fairness check fails.
"""

from __future__ import annotations

import json
import time
from argparse import ArgumentParser
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from core.errors import ServiceError
from games.engine import (
    GAME_STARTED,
    PRESETS,
    LogEntry,
    LogRejected,
    action_from_dict,
    action_to_dict,
    apply,
    make_options,
    new_game,
    replay_log,
)
from games.models import Game, GameStatus
from games.selectors.replay import game_export, game_fairness_get, game_replay_get, game_show_lines
from games.selectors.verify import game_verify
from games.services.bots import bot_fallback_choose


def _steps(text: str) -> set[int]:
    try:
        return {int(part) for part in text.split(",") if part.strip()}
    except ValueError:
        raise CommandError(f"--at wants event numbers separated by commas, not {text!r}") from None


@dataclass(frozen=True)
class BenchFigures:
    games: int
    events: int
    rebuild_seconds: float  # new_game + apply of every action, no events recorded
    replay_seconds: float  # replay_log with effects recorded, as verify and import do
    max_events: int
    rebuild_cpu: float  # the same two, in CPU time of this process (steady on a busy machine)
    replay_cpu: float


# A game the player has not finished after this many actions is timed as far as it went (the
# built-in bot may never reach the target of Modern American Canasta, whose penalties can keep
# both sides below it).
BENCH_ACTIONS_MAX = 4000


def replay_bench(
    play: Any, presets: Iterable[str], games_per_preset: int, seed: str = "bench"
) -> dict[str, BenchFigures]:
    """Play ``games_per_preset`` whole games per preset in memory with ``play`` (a function of
    the state returning an action's text form; at most ``BENCH_ACTIONS_MAX`` actions a game),
    then time rebuilding each from its log."""
    out = {}
    for preset in presets:
        options = make_options(preset, {})
        logs: list[list[LogEntry]] = []
        for n in range(games_per_preset):
            game_seed = f"{seed}:{preset}:{n}"
            state = new_game(options, game_seed)
            entries = [LogEntry(1, None, GAME_STARTED, {})]
            while not state.game_over and len(entries) <= BENCH_ACTIONS_MAX:
                seat = state.to_act
                action = action_from_dict(play(state), seat)
                apply(state, action)
                entries.append(
                    LogEntry(len(entries) + 1, seat, action.type, action_to_dict(action))
                )
            logs.append(entries)
        t0, c0 = time.perf_counter(), time.process_time()
        for n, entries in enumerate(logs):
            state = new_game(options, f"{seed}:{preset}:{n}")
            for e in entries[1:]:
                apply(state, action_from_dict(e.payload, e.seat if e.seat is not None else -1))
        t1, c1 = time.perf_counter(), time.process_time()
        for n, entries in enumerate(logs):
            for _ in replay_log(options, f"{seed}:{preset}:{n}", entries):
                pass
        t2, c2 = time.perf_counter(), time.process_time()
        out[preset] = BenchFigures(
            games=len(logs),
            events=sum(len(e) for e in logs),
            rebuild_seconds=t1 - t0,
            replay_seconds=t2 - t1,
            max_events=max(len(e) for e in logs),
            rebuild_cpu=c1 - c0,
            replay_cpu=c2 - c1,
        )
    return out


class Command(BaseCommand):
    help = "Rebuild games from their move logs: verify, show, check fairness, export, benchmark."

    def add_arguments(self, parser: ArgumentParser) -> None:
        parser.add_argument("game_ids", nargs="*", type=int, metavar="GAME_ID")
        parser.add_argument("--all", action="store_true", help="Every game in the database.")
        parser.add_argument(
            "--verify",
            action="store_true",
            help="Rebuild and compare with the stored snapshot, Meld and RoundScore rows.",
        )
        parser.add_argument("--show", action="store_true", help="Print the game as text.")
        parser.add_argument("--at", type=_steps, help="With --show: tables after these events.")
        parser.add_argument("--fairness", action="store_true", help="Check the dealing.")
        parser.add_argument("--export", metavar="FILE", help="Write the game as a document.")
        parser.add_argument(
            "--bench",
            nargs="?",
            const=20,
            type=int,
            metavar="N",
            help="Play N games per preset in memory (default 20) and time their replay; with "
            "game ids or --all also time verifying those games.",
        )

    def handle(self, *args: Any, **opts: Any) -> None:
        ids: list[int] = opts["game_ids"]
        if opts["all"]:
            ids = list(Game.objects.order_by("pk").values_list("pk", flat=True))
        games = self._games(ids)
        if opts["bench"] is not None:
            self._bench(opts["bench"], games)
            return
        if not ids and not opts["all"]:
            raise CommandError("Name a GAME_ID (or --all, or --bench).")
        failed = 0
        if opts["export"]:
            if len(games) != 1:
                raise CommandError("--export takes exactly one game.")
            self._export(games[0], opts["export"])
        if opts["show"]:
            for game in games:
                self._show(game, opts["at"])
        if opts["fairness"]:
            failed += sum(not self._fairness(game) for game in games)
        if opts["verify"] or not (opts["show"] or opts["fairness"] or opts["export"]):
            failed += self._verify(games)
        if failed:
            raise CommandError(f"{failed} check(s) failed")

    def _games(self, ids: list[int]) -> list[Game]:
        found = {g.pk: g for g in Game.objects.filter(pk__in=ids)}
        missing = [i for i in ids if i not in found]
        if missing:
            raise CommandError(f"No game {', '.join(map(str, missing))}.")
        return [found[i] for i in ids]

    # -------------------------------------------------------------------------- modes
    def _verify(self, games: list[Game]) -> int:
        bad = 0
        for game in games:
            report = game_verify(game)
            took = f"{report.events} events, {report.seconds * 1000:.0f} ms"
            if report.ok:
                self.stdout.write(f"game {game.pk}: ok ({game.status}, {took})")
                continue
            bad += 1
            self.stdout.write(f"game {game.pk}: MISMATCH ({game.status}, {took})")
            for problem in report.problems:
                self.stdout.write(f"  - {problem}")
        self.stdout.write(f"verified {len(games)} game(s): {len(games) - bad} ok, {bad} mismatched")
        return bad

    def _show(self, game: Game, at: set[int] | None) -> None:
        try:
            for line in game_show_lines(game, at):
                self.stdout.write(line)
        except ServiceError as exc:
            raise CommandError(f"game {game.pk}: {exc.message}") from None
        except LogRejected as exc:
            raise CommandError(f"game {game.pk}: {exc}") from None

    def _fairness(self, game: Game) -> bool:
        if game.status == GameStatus.LOBBY:
            self.stdout.write(f"game {game.pk}: not started, nothing was dealt")
            return True
        body = game_fairness_get(game=game)
        self.stdout.write(
            f"game {game.pk} ({game.status}): seed commitment {body['seed_commitment']}"
        )
        for r in body["rounds"]:
            verdict = (
                "" if r["ok"] is None else ("  ok" if r["ok"] else f"  FAILED: {r['problem']}")
            )
            self.stdout.write(
                f"  round {r['round']}: commitment {r['seed_commitment']}"
                + (f"  seed {r['round_seed']}" if r["round_seed"] else "")
                + verdict
            )
        if not body["revealed"]:
            self.stdout.write("  the seed is revealed when the game ends; then run this again")
            return True
        self.stdout.write(f"  seed {body['seed']}")
        for problem in body["problems"]:
            self.stdout.write(f"  - {problem}")
        self.stdout.write(f"  fair dealing {'verified' if body['verified'] else 'NOT verified'}")
        return bool(body["verified"])

    def _export(self, game: Game, path: str) -> None:
        document = game_export(game=game, player=None, full=True)
        text = json.dumps(document, indent=1, sort_keys=True)
        if path == "-":
            self.stdout.write(text)
        else:
            with open(path, "w", encoding="utf-8") as out:
                out.write(text + "\n")
            self.stdout.write(f"game {game.pk}: {len(document['events'])} events written to {path}")

    def _bench(self, per_preset: int, games: list[Game]) -> None:
        def play(state: Any) -> dict[str, Any]:
            return bot_fallback_choose(state)

        self.stdout.write(
            f"replaying whole games from their logs ({per_preset} games per preset, played in "
            "memory by the built-in bot)"
        )
        figures = replay_bench(play, list(PRESETS), per_preset)
        for preset, f in figures.items():
            per_game = f.events / f.games
            self.stdout.write(
                f"  {preset:13s} {f.games} games, {per_game:4.0f} events/game (max "
                f"{f.max_events}): rebuild {f.rebuild_seconds / f.games * 1000:6.2f} ms/game "
                f"({f.rebuild_cpu / f.games * 1000:.2f} CPU, "
                f"{f.rebuild_cpu / f.events * 1e6:.1f} us/event); with effects "
                f"{f.replay_seconds / f.games * 1000:6.2f} ms/game "
                f"({f.replay_cpu / f.games * 1000:.2f} CPU)"
            )
        for game in games:
            if game.version < 1:
                continue
            t0, c0 = time.perf_counter(), time.process_time()
            report = game_verify(game)
            t1, c1 = time.perf_counter(), time.process_time()
            game_replay_get(game=game, player=None, at=game.version)
            t2, c2 = time.perf_counter(), time.process_time()
            self.stdout.write(
                f"  game {game.pk} ({game.preset}, {report.events} events): verify (read the "
                f"log, rebuild, compare) {(t1 - t0) * 1000:.0f} ms ({(c1 - c0) * 1000:.0f} ms "
                f"CPU); replay at the last event (read, rebuild, view) {(t2 - t1) * 1000:.0f} ms "
                f"({(c2 - c1) * 1000:.0f} ms CPU)"
            )
