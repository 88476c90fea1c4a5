"""The arena plays the families beside classic with their own bots: each bot is handed only
what its seat knows, a match's results depend on its seeds only, and the command line runs it."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from bots import arena
from bots.arena import FamilyBot, GameTask, run_arena, run_from_args, run_one
from bots.policies.family_eval import seat_knowledge
from games.engine import GameState, apply, make_options, new_game
from games.engine.actions import Action


def _games(log: Path) -> list[dict[str, object]]:
    rows = [json.loads(line) for line in log.read_text().splitlines()]
    for row in rows:
        del row["times"], row["cpu"]
    return rows


@pytest.mark.parametrize("preset", ["mac", "samba"])
def test_a_family_match_does_not_depend_on_the_number_of_processes(
    tmp_path: Path, preset: str
) -> None:
    logs = []
    for jobs in (1, 2):
        log = tmp_path / f"{preset}-{jobs}.jsonl"
        run_arena(
            "hard",
            "medium",
            games=4,
            preset=preset,
            seed=2,
            jobs=jobs,
            iterations=1,
            progress=False,
            log_path=str(log),
        )
        logs.append(_games(log))
    assert logs[0] == logs[1]
    assert len(logs[0]) == 4


def test_the_command_line_runs_a_family_ladder_step(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["--preset", "mac", "--a", "hard", "--b", "medium", "--iterations", "1"]
    reports = run_from_args(arena.build_parser().parse_args([*argv, "--hands", "2", "--quiet"]))
    assert len(reports) == 1
    assert reports[0].startswith("hard (A) vs medium (B), preset mac, 2 hands")
    assert "95% Wilson CI" in reports[0] and "CPU p50" in reports[0]


def test_classic_policy_names_stand_for_family_levels() -> None:
    assert FamilyBot("heuristic", 1).name == "medium"
    assert FamilyBot("ismcts", 1).name == "hard"
    with pytest.raises(ValueError, match="unknown level"):
        FamilyBot("grandmaster", 1)


def test_every_family_bot_is_handed_only_what_its_seat_knows(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Each decision is made on ``seat_knowledge``: the stock and the other hands it holds are
    the same whatever the true hidden cards are."""
    handed: list[tuple[GameState, int]] = []
    original = FamilyBot.choose_for

    def spy(self: FamilyBot, known: GameState, seat: int) -> Action:
        handed.append((known.clone(), seat))
        return original(self, known, seat)

    monkeypatch.setattr(FamilyBot, "choose_for", spy)
    run_one(GameTask("samba", "medium", "easy", 0, 4))
    assert len(handed) > 20
    for known, seat in handed[:: max(1, len(handed) // 15)]:
        others = [s for s in range(4) if s != seat]
        # The other hands in seat order, then the stock: the unseen cards in sorted order.
        unseen = [c for s in others for c in known.hands[s]] + list(known.stock)
        assert unseen == sorted(unseen)


def test_seat_knowledge_is_blind_to_where_the_hidden_cards_lie() -> None:
    state = new_game(make_options("mac"), "knowledge")
    rng = random.Random(0)
    for _ in range(30):
        apply(
            state,
            arena.FamilyBot("medium", 1).choose_for(
                seat_knowledge(state, state.to_act), state.to_act
            ),
        )
    seat = state.to_act
    moved = state.clone()
    others = [s for s in range(4) if s != seat]
    pool = list(moved.stock) + [c for s in others for c in moved.hands[s]]
    rng.shuffle(pool)
    start = 0
    for s in others:
        n = len(moved.hands[s])
        moved.hands[s] = pool[start : start + n]
        start += n
    moved.stock = pool[start:]
    assert moved.to_dict() != state.to_dict()
    assert seat_knowledge(moved, seat).to_dict() == seat_knowledge(state, seat).to_dict()
    known = seat_knowledge(state, seat)
    assert known.hands[seat] == state.hands[seat] and known.melds == state.melds
    assert known.pile == state.pile and known.red_threes == state.red_threes
    assert sorted(known.all_cards()) == sorted(state.all_cards())
