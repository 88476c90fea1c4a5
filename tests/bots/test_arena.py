"""The arena's process pool and fixed search budget: a match's results depend on its seeds only."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from bots import arena
from bots.arena import GameTask, build_parser, load_log, run_arena, run_from_args, run_one
from bots.policies import IsmctsPolicy, Observation, Policy, make_policy
from games.engine.actions import Action

TINY_SEARCH = "ismcts:max_candidates=3,max_plies=12"


def _games(log: Path) -> list[dict[str, Any]]:
    """The logged games without their decision times (which depend on the machine)."""
    rows = [json.loads(line) for line in log.read_text().splitlines()]
    for row in rows:
        del row["times"], row["cpu"]
    return rows


def test_results_do_not_depend_on_the_number_of_processes(tmp_path: Path) -> None:
    reports = {}
    for jobs in (1, 2):
        log = tmp_path / f"{jobs}.jsonl"
        report = run_arena(
            TINY_SEARCH,
            "easy",
            games=6,
            preset="two_player",
            seed=5,
            jobs=jobs,
            iterations=2,
            progress=False,
            log_path=str(log),
        )
        reports[jobs] = (report, _games(log))
    (one, games_one), (two, games_two) = reports[1], reports[2]
    assert games_one == games_two
    assert [g["game"] for g in games_two] == list(range(6))  # in game order, whoever finished first
    for key in ("n", "wins_a", "mean_diff", "decisions_a", "decisions_b"):
        assert one[key] == two[key], key
    # The seeds differ from game to game: not every deal gives the same scores.
    assert len({(g["score_a"], g["score_b"]) for g in games_one}) > 1


def test_a_fixed_iteration_budget_is_honoured_in_every_game(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    searched: list[int] = []

    def recording(name: str, **kwargs: Any) -> Policy:
        policy = make_policy(name, **kwargs)
        if isinstance(policy, IsmctsPolicy):
            policy.time_budget = 1e-9  # the clock alone would stop after at most one iteration
            choose = policy.choose

            def choose_and_count(obs: Observation) -> Action:
                action = choose(obs)
                searched.append(policy.last_iterations)
                return action

            policy.choose = choose_and_count  # type: ignore[method-assign]
        return policy

    monkeypatch.setattr(arena, "make_policy", recording)
    report = run_arena(
        TINY_SEARCH, "medium", games=2, preset="classic", jobs=1, iterations=3, progress=False
    )
    assert report["n"] == 2
    assert set(searched) <= {0, 3}  # 0: a decision with a single candidate is not searched
    assert searched.count(3) > 10


def test_a_game_is_the_same_whenever_it_is_played() -> None:
    task = GameTask("two_player", TINY_SEARCH, "medium", index=3, base_seed=9, iterations=2)
    first, again = run_one(task), run_one(task)
    assert (first.score_a, first.score_b, first.actions) == (
        again.score_a,
        again.score_b,
        again.actions,
    )
    assert first.index == 3


def test_command_line_flags() -> None:
    args = build_parser().parse_args(
        ["--a", "medium", "--b", "easy", "--hands", "2", "--preset", "classic,two_player"]
        + ["--processes", "2", "--iterations", "7", "--quiet"]
    )
    assert (args.hands, args.jobs, args.iterations, args.full) == (2, 2, 7, False)
    assert args.preset == ["classic", "two_player"]
    reports = run_from_args(args)
    assert [r.splitlines()[0] for r in reports] == [
        "medium (A) vs easy (B), preset classic, 2 hands",
        "medium (A) vs easy (B), preset two_player, 2 hands",
    ]
    legacy = build_parser().parse_args(["--games", "5", "--jobs", "1", "--hands"])
    assert (legacy.games, legacy.hands, legacy.jobs, legacy.full) == (5, 0, 1, False)
    with pytest.raises(SystemExit):
        build_parser().parse_args(["--preset", "classic,bridge"])


def test_a_resumed_match_plays_each_game_once_and_reports_them_all(tmp_path: Path) -> None:
    log = tmp_path / "match.jsonl"
    match: dict[str, Any] = {"preset": "two_player", "seed": 2, "jobs": 1, "progress": False}
    run_arena("medium", "easy", games=3, log_path=str(log), resume=True, **match)
    resumed = run_arena("medium", "easy", games=7, log_path=str(log), resume=True, **match)
    whole = run_arena("medium", "easy", games=7, **match)
    assert sorted(g["game"] for g in _games(log)) == list(range(7))
    for key in ("n", "wins_a", "mean_diff", "decisions_a", "cpu_decisions_b"):
        assert resumed[key] == whole[key], key


def test_a_match_killed_mid_line_resumes_with_that_game_played_again(tmp_path: Path) -> None:
    log = tmp_path / "match.jsonl"
    match: dict[str, Any] = {"preset": "two_player", "seed": 2, "jobs": 1, "progress": False}
    run_arena("medium", "easy", games=3, log_path=str(log), resume=True, **match)
    lines = log.read_text().splitlines(keepends=True)
    log.write_text("".join(lines[:2]) + lines[2][:40])  # the third game's line cut short
    assert sorted(r.index for r in load_log(str(log))) == [0, 1]
    resumed = run_arena("medium", "easy", games=4, log_path=str(log), resume=True, **match)
    whole = run_arena("medium", "easy", games=4, **match)
    assert sorted(g["game"] for g in _games(log)) == list(range(4))
    for key in ("n", "wins_a", "mean_diff"):
        assert resumed[key] == whole[key], key
