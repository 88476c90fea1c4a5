"""Ratings against players of known strength: do the ratings order the bot levels, and how fast?

Players of each level (``--per-level``, 2 by default, of ``easy``, ``medium`` and ``hard``; see
``bots.policies``) each play by their level's policy, and play rated two-player games against
each other THROUGH THE SERVICES, as people at a rated table do: ``game_create(rated=True)``,
``game_join``, ``game_start``, then ``move_apply`` for the player to act until the game is over;
a policy sees what its seat may (``bots.services.turns.bot_observation_build``: the seat's player
view and the round's events as it saw them). The ratings change in the game's final transaction (the
rating service, ``competition.services.ratings``), exactly as for people. Each round of the schedule
pairs the players at random (same-level pairs included). ``--seed`` fixes the pairing and the
policies' choices; the deals are the service's own (random), so two runs differ.

After every game the script reads every player's rating and takes each level's mean shown
rating (``round(1000 + 40 (mu - 3 sigma))``; a player not yet rated shows 1000). The order is
correct when the means rise strictly with the level (easy < medium < hard); convergence is the
number of games after which it stayed correct to the end of the run (for the whole order and
for each pair of neighbouring levels). Also printed: the means at
checkpoints, the wins between levels, and the share of pairs of players of different levels
whose ratings are in the right order.

Hard (ISMCTS) thinks 0.8 s per searched decision in play; here its budget is ``--hard-budget``
(seconds, default 0.02) so that a default run stays short. With a small budget it leaves the
heuristic's move less often, so it plays closer to medium (the measured ladder, README "Bots",
is at 0.8 s).

The database is a fresh SQLite file in a temporary directory (in /dev/shm when there is one;
migrated first, removed after); no broker, so nothing leaves the process.

    python -m bench.rating_sim [--games 48] [--per-level 2] [--levels easy,medium,hard]
                               [--hard-budget 0.02] [--seed 1] [--every 6]

Figures only: nothing is asserted.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


def database_setup(directory: Path) -> None:
    """Django on a fresh SQLite file in ``directory``, migrated; no broker, cache or Redis."""
    for name in ("REDIS_URL", "CELERY_BROKER_URL", "CACHE_URL", "DATABASE_POOL_SIZE"):
        os.environ.pop(name, None)
    os.environ.update(
        {
            "DJANGO_SETTINGS_MODULE": "canasta_service.settings",
            "DATABASE_URL": f"sqlite:///{directory}/rating_sim.sqlite3",
            "DATABASE_CONN_MAX_AGE": "0",
            "DEBUG": "0",
            "SECRET_KEY": "rating-sim-only",
            "LOG_LEVEL": "WARNING",
        }
    )
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", interactive=False, verbosity=0)


@dataclass
class SimPlayer:
    """A player of a known level, who always plays by that level's policy."""

    player: Any  # games.models.Player
    level: str
    policy: Any  # bots.policies.Policy


@dataclass
class Tally:
    """What the run measured, game by game."""

    levels: list[str]
    means: list[dict[str, float]] = field(default_factory=list)  # after each game
    pairs_right: list[float] = field(default_factory=list)  # after each game
    wins: Counter[tuple[str, str]] = field(default_factory=Counter)  # (winner, loser) levels
    draws: int = 0
    moves: int = 0
    seconds_deciding: float = 0.0

    def order_correct(self, means: dict[str, float]) -> bool:
        values = [means[level] for level in self.levels]
        return all(a < b for a, b in zip(values, values[1:], strict=False))

    def converged_after(self) -> int | None:
        """Games after which the levels' order was correct and stayed so (None: wrong at the
        end)."""
        return _stayed_from([self.order_correct(m) for m in self.means])

    def pair_converged_after(self, lower: str, higher: str) -> int | None:
        """Games after which ``lower``'s mean stayed below ``higher``'s (None: not at the end)."""
        return _stayed_from([m[lower] < m[higher] for m in self.means])

    def players_sorted_after(self) -> int | None:
        """Games after which every player rated above every player of a weaker level, and
        stayed so (None: not at the end)."""
        return _stayed_from([share == 1.0 for share in self.pairs_right])


def _stayed_from(flags: list[bool]) -> int | None:
    """The first game (1-based) from which every flag is true, or None if the last is false."""
    if not flags or not flags[-1]:
        return None
    games = len(flags)
    while games > 0 and flags[games - 1]:
        games -= 1
    return games + 1


def pairs_right_share(shown: dict[int, int], players: list[SimPlayer], levels: list[str]) -> float:
    """The share of pairs of players of different levels whose ratings are in level order."""
    rank = {level: i for i, level in enumerate(levels)}
    pairs = right = 0
    for a in players:
        for b in players:
            if rank[a.level] < rank[b.level]:
                pairs += 1
                right += shown[a.player.pk] < shown[b.player.pk]
    return right / pairs if pairs else 1.0


def players_make(
    levels: list[str], per_level: int, seed: int, hard_budget: float
) -> list[SimPlayer]:
    from accounts.services.players import player_create
    from bots.policies import make_policy

    out: list[SimPlayer] = []
    for level in levels:
        for k in range(per_level):
            player, _ = player_create(display_name=f"{level}-{k + 1}")
            budget = hard_budget if level == "hard" else 0.0
            policy = make_policy(level, seed=seed * 1000 + len(out), budget=budget)
            out.append(SimPlayer(player=player, level=level, policy=policy))
    return out


def rated_game_play(first: SimPlayer, second: SimPlayer, tally: Tally) -> Any:
    """One rated two-player game through the services, ``first`` at seat 0; the finished game."""
    from bots.services.turns import bot_observation_build
    from games.engine import action_to_dict
    from games.models import Game, GameStatus
    from games.services.lobby import game_create, game_join, game_start
    from games.services.moves import move_apply

    game = game_create(creator=first.player, preset="two_player", rated=True, seat=0)
    game_join(player=second.player, game_id=game.pk, seat=1)
    game_start(game_id=game.pk, player=first.player)
    by_seat = {0: first, 1: second}
    while True:
        game = Game.objects.get(pk=game.pk)
        if game.status != GameStatus.ACTIVE:
            return game
        if game.to_act is None:
            raise RuntimeError(f"game {game.pk} is active with nobody to act")
        mover = by_seat[game.to_act]
        observation = bot_observation_build(game, game.to_act)
        started = time.perf_counter()
        action = action_to_dict(mover.policy.choose(observation))
        tally.seconds_deciding += time.perf_counter() - started
        move_apply(
            game_id=game.pk,
            seat=None,
            player=mover.player,
            action=action,
            expected_version=game.version,
        )
        tally.moves += 1


def ratings_shown(players: list[SimPlayer]) -> dict[int, int]:
    """Every player's shown two-player rating now (a player not yet rated shows the start)."""
    from competition.models import Rating, RatingFormat
    from competition.selectors.ratings import DEFAULT_MU, DEFAULT_SIGMA, rating_shown

    rows = {
        r.player_id: rating_shown(r.mu, r.sigma)
        for r in Rating.objects.filter(
            format=RatingFormat.TWO_PLAYER, player__in=[p.player for p in players]
        )
    }
    start = rating_shown(DEFAULT_MU, DEFAULT_SIGMA)
    return {p.player.pk: rows.get(p.player.pk, start) for p in players}


def level_means(
    shown: dict[int, int], players: list[SimPlayer], levels: list[str]
) -> dict[str, float]:
    """Each level's mean shown rating."""
    return {
        level: statistics.fmean(shown[p.player.pk] for p in players if p.level == level)
        for level in levels
    }


def final_table(players: list[SimPlayer], tally: Tally) -> None:
    from competition.models import Rating, RatingFormat
    from competition.selectors.ratings import rating_shown

    rows = {
        r.player_id: r
        for r in Rating.objects.filter(
            format=RatingFormat.TWO_PLAYER, player__in=[p.player for p in players]
        )
    }
    print("\nplayers at the end (two_player ratings):")
    print(f"  {'player':<10} {'rating':>6} {'mu':>6} {'sigma':>6} {'games':>5} {'wins':>4}")
    unrated_display = 0.0  # mu - 3 sigma at the start
    for p in sorted(
        players,
        key=lambda p: -(rows[p.player.pk].display if p.player.pk in rows else unrated_display),
    ):
        r = rows.get(p.player.pk)
        if r is None:
            print(f"  {p.player.display_name:<10} {'-':>6} (no rated game)")
            continue
        print(
            f"  {p.player.display_name:<10} {rating_shown(r.mu, r.sigma):>6} {r.mu:>6.2f} "
            f"{r.sigma:>6.2f} {r.games:>5} {r.wins:>4}"
        )
    share = pairs_right_share(ratings_shown(players), players, tally.levels)
    print(f"pairs of players of different levels in level order: {share:.0%}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=48, help="rated games to play (48)")
    parser.add_argument("--per-level", type=int, default=2, help="players per level (2)")
    parser.add_argument(
        "--levels",
        default="easy,medium,hard",
        help="levels, weakest first (easy,medium,hard)",
    )
    parser.add_argument(
        "--hard-budget",
        type=float,
        default=0.02,
        help="seconds per searched decision of hard (0.02; 0.8 in play)",
    )
    parser.add_argument("--seed", type=int, default=1, help="seeds the pairing and the policies")
    parser.add_argument("--every", type=int, default=6, help="print the means every N games (6)")
    args = parser.parse_args()
    levels = [level.strip() for level in args.levels.split(",") if level.strip()]
    from bots.policies import LEVELS  # pure Python: no Django needed yet

    known = list(LEVELS)
    if len(levels) < 2 or len(set(levels)) != len(levels) or set(levels) - set(known):
        parser.error(f"--levels: two or more of {', '.join(known)}, each once")
    if args.per_level < 1 or args.games < 1 or args.every < 1 or args.hard_budget <= 0:
        parser.error("--games, --per-level, --every and --hard-budget must be positive")

    # In memory when the system has a tmpfs: the run measures ratings, not disk flushes.
    shm = Path("/dev/shm")
    with tempfile.TemporaryDirectory(
        prefix="rating-sim-", dir=shm if shm.is_dir() else None
    ) as tmp:
        database_setup(Path(tmp))
        players = players_make(levels, args.per_level, args.seed, args.hard_budget)
        tally = Tally(levels=levels)
        rng = random.Random(args.seed)
        schedule: list[tuple[SimPlayer, SimPlayer]] = []
        width = max(len(level) for level in levels)
        print(
            f"rated two_player games through the services: {args.per_level} players per level "
            f"({', '.join(levels)}), hard budget {args.hard_budget} s per searched decision, "
            f"{args.games} games, seed {args.seed}"
        )
        header = "  ".join(f"{level:>{max(width, 6)}}" for level in levels)
        print(f"\n{'games':>5}  {header}  order  pairs in order")
        started = time.perf_counter()
        for played in range(1, args.games + 1):
            if not schedule:  # a new round: everyone paired at random
                order = players[:]
                rng.shuffle(order)
                schedule = [(order[i], order[i + 1]) for i in range(0, len(order) - 1, 2)]
            first, second = schedule.pop(0)
            game = rated_game_play(first, second, tally)
            if game.winner_team is None:
                tally.draws += 1
            else:
                winner, loser = (first, second) if game.winner_team == 0 else (second, first)
                tally.wins[(winner.level, loser.level)] += 1
            shown = ratings_shown(players)
            means = level_means(shown, players, levels)
            tally.means.append(means)
            tally.pairs_right.append(pairs_right_share(shown, players, levels))
            if played % args.every == 0 or played == args.games:
                row = "  ".join(f"{means[level]:>{max(width, 6)}.0f}" for level in levels)
                mark = "correct" if tally.order_correct(means) else "-"
                pairs = f"{tally.pairs_right[-1]:.0%}"
                print(f"{played:>5}  {row}  {mark:<7}  {pairs:>5}", flush=True)
        elapsed = time.perf_counter() - started

        print("\nmean shown rating over the run (each level's mean after every game):")
        for level in levels:
            over_run = statistics.fmean(m[level] for m in tally.means)
            second_half = statistics.fmean(m[level] for m in tally.means[len(tally.means) // 2 :])
            print(
                f"  {level:<{width}}  whole run {over_run:7.1f}   second half {second_half:7.1f}"
                f"   at the end {tally.means[-1][level]:7.1f}"
            )
        final = tally.means[-1]
        ordered = sorted(levels, key=lambda level: final[level])
        text = ordered[0]
        for lower, higher in zip(ordered, ordered[1:], strict=False):
            text += f" {'<' if final[lower] < final[higher] else '='} {higher}"
        print(f"order at the end (lowest first): {text}")
        converged = tally.converged_after()
        if converged is None:
            print("convergence: the order is not correct at the end of the run")
        else:
            print(
                f"convergence: the levels' order was correct from game {converged} on "
                f"(of {args.games})"
            )
        for lower, higher in zip(levels, levels[1:], strict=False):
            after = tally.pair_converged_after(lower, higher)
            print(
                f"  {lower} below {higher}: "
                + (f"from game {after} on" if after is not None else "not at the end")
            )
        sorted_after = tally.players_sorted_after()
        print(
            "every player above every player of a weaker level: "
            + (
                f"from game {sorted_after} on"
                if sorted_after is not None
                else f"not at the end ({tally.pairs_right[-1]:.0%} of the pairs)"
            )
        )
        print("\nwins between levels (winner vs loser: games):")
        for (won, lost), count in sorted(tally.wins.items()):
            if won != lost:
                print(f"  {won} beat {lost}: {count}")
        for a in levels:
            for b in levels:
                if levels.index(a) < levels.index(b):
                    up, down = tally.wins[(b, a)], tally.wins[(a, b)]
                    if up + down:
                        print(f"  {b} vs {a}: {b} won {up}/{up + down} ({up / (up + down):.0%})")
        if tally.draws:
            print(f"  draws: {tally.draws}")
        final_table(players, tally)
        print(
            f"\n{args.games} games, {tally.moves} moves in {elapsed:.0f} s "
            f"({elapsed / args.games:.2f} s a game; policies {tally.seconds_deciding:.0f} s, "
            f"services and observations {elapsed - tally.seconds_deciding:.0f} s)"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
