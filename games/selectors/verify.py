"""The verifier: a game rebuilt from its log alone, compared with every cache stored beside it.

Reads under the game's row lock, so a game being played is seen between two moves. Used by
``manage.py replay --verify`` and by the test suite, which verifies every game its tests leave.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from django.db import transaction

from games import errors
from games.engine import GameState, LogRejected, json_roundtrip, replay_log, seed_commitment
from games.engine.view import player_view
from games.models import Game, GameStatus, GameTable, Meld, RoundScore, Seat
from games.selectors.log import entries_of, game_options, rules_version_check
from games.selectors.seating import seating_of


def effects_differ(recorded: list[dict[str, Any]], replayed: list[dict[str, Any]]) -> str | None:
    """How recorded effects disagree with the engine's (None when they agree). Private parts
    a redacted document left out are not compared; those it holds must match."""
    if len(recorded) != len(replayed):
        return f"it records {len(recorded)} effects, the engine produces {len(replayed)}"
    for i, (mine, theirs) in enumerate(zip(recorded, replayed, strict=True)):
        if not isinstance(mine, dict):
            return f"effect {i} is not an object"
        for key in ("kind", "seat", "public"):
            if json_roundtrip(mine.get(key)) != theirs[key]:
                return f"effect {i} ({theirs['kind']}) differs in {key!r}"
        private = mine.get("private") or {}
        if not isinstance(private, dict):
            return f"effect {i} has a malformed private part"
        for seat, part in private.items():
            if json_roundtrip(part) != theirs["private"].get(str(seat)):
                return f"effect {i} ({theirs['kind']}) differs in seat {seat}'s private part"
    return None


@dataclass
class VerifyReport:
    game_id: int
    events: int
    seconds: float
    problems: list[str]

    @property
    def ok(self) -> bool:
        return not self.problems


def _meld_rows(state: GameState) -> list[tuple[Any, ...]]:
    table = player_view(state, None, with_legal=False)
    return sorted(
        (
            t["team"],
            m["rank"],
            list(m["cards"]),
            m["natural_count"],
            m["wild_count"],
            m["is_canasta"],
        )
        for t in table["teams"]
        for m in t["melds"]
    )


def _score_rows(state: GameState) -> list[dict[str, Any]]:
    rows = []
    for record in state.rounds:
        for team, parts in enumerate(record["teams"]):
            rows.append(
                {
                    "round_no": record["round"],
                    "team": team,
                    "dealer": record["dealer"],
                    "reason": record["reason"],
                    "went_out": record["went_out"],
                    "concealed": record["concealed"],
                    "total": parts["total"],
                    "cumulative": record["scores"][team],
                    **{
                        name: parts["concealed" if name == "concealed_bonus" else name]
                        for name in RoundScore.COMPONENTS
                    },
                }
            )
    return rows


def _dict_diff(stored: dict[str, Any], rebuilt: dict[str, Any]) -> list[str]:
    return sorted(k for k in set(stored) | set(rebuilt) if stored.get(k) != rebuilt.get(k))


def _ending_problems(game: Game, state: GameState) -> list[str]:
    """Status, seat to act and winner against the log. A game may also end off the log: by a
    concession (recorded on its GameTable: the conceding team loses) or abandoned by timeouts."""
    conceded = (
        GameTable.objects.filter(game=game, conceded_seat__isnull=False)
        .values_list("conceded_team", flat=True)
        .first()
    )
    if conceded is not None and not state.game_over:
        problems = []
        if game.status != GameStatus.FINISHED or game.to_act is not None:
            problems.append(f"a conceded game is {game.status} with seat {game.to_act} to act")
        if game.winner_team is None or game.winner_team == conceded:
            problems.append(f"team {conceded} conceded, yet the winner is {game.winner_team}")
        return problems
    problems = []
    status = GameStatus.FINISHED if state.game_over else GameStatus.ACTIVE
    if game.status != status and game.status != GameStatus.ABANDONED:
        problems.append(f"status is {game.status}, the log says {status}")
    to_act = None if state.game_over else state.to_act
    if game.to_act != to_act:
        problems.append(f"to_act is {game.to_act}, the log says {to_act}")
    if game.winner_team != state.winner:
        problems.append(f"winner_team is {game.winner_team}, the log says {state.winner}")
    return problems


def game_verify(game: Game) -> VerifyReport:
    """Rebuild ``game`` from its log through the engine and compare with what is stored: the
    events' recorded effects, the snapshot, status / to_act / winner, the Meld projection, the
    RoundScore rows, and the seed commitments. Every disagreement is one line of ``problems``.

    Reads under the game's row lock, so a game being played is seen between two moves."""
    with transaction.atomic():
        locked = Game.objects.select_for_update().filter(pk=game.pk).first()
        if locked is None:
            return VerifyReport(game.pk, 0, 0.0, ["the game no longer exists"])
        return _game_verify(locked)


def _game_verify(game: Game) -> VerifyReport:
    started = time.perf_counter()
    problems: list[str] = []
    seats = list(Seat.objects.filter(game=game).select_related("player").order_by("index"))
    if game.seating != seating_of(seats):
        problems.append("the seating on the game row differs from its Seat rows")
    entries = entries_of(game)
    if game.status == GameStatus.LOBBY:
        if entries or game.snapshot:
            problems.append("a game in the lobby has events or a snapshot")
        return VerifyReport(game.pk, len(entries), time.perf_counter() - started, problems)
    try:
        rules_version_check(game.rules_version)
    except errors.RulesVersionUnsupported as exc:
        problems.append(exc.message)
        return VerifyReport(game.pk, len(entries), time.perf_counter() - started, problems)
    if len(entries) != game.version:
        problems.append(f"the log has {len(entries)} events, the game's version is {game.version}")
    state: GameState | None = None
    try:
        for step in replay_log(game_options(game), game.seed, entries):
            state = step.state
            if json_roundtrip(step.entry.effects) != step.effects:
                problem = effects_differ(step.entry.effects or [], step.effects)
                problem = problem or "a seat's private part is missing or extra"
                problems.append(f"event {step.entry.seq}: {problem}")
    except LogRejected as exc:
        problems.append(f"event {exc.seq} does not apply: [{exc.code}] {exc.message}")
        return VerifyReport(game.pk, len(entries), time.perf_counter() - started, problems)
    if state is None:
        problems.append("a started game has no events")
        return VerifyReport(game.pk, 0, time.perf_counter() - started, problems)
    rebuilt = json_roundtrip(state.to_dict())
    diff = _dict_diff(game.snapshot or {}, rebuilt)
    if diff:
        problems.append(f"snapshot differs from the log's state in {', '.join(diff)}")
    problems += _ending_problems(game, state)
    stored_melds = sorted(
        (m.team, m.rank, list(m.cards), m.natural_count, m.wild_count, m.is_canasta)
        for m in Meld.objects.filter(game=game)
    )
    if stored_melds != _meld_rows(state):
        problems.append("the Meld rows differ from the melds on the log's table")
    fields = ["round_no", "team", "dealer", "reason", "went_out", "concealed", "total"]
    fields += ["cumulative", *RoundScore.COMPONENTS]
    stored_scores = list(
        RoundScore.objects.filter(game=game).order_by("round_no", "team").values(*fields)
    )
    expected_scores = _score_rows(state)
    if stored_scores != expected_scores:
        bad = sorted(
            {r["round_no"] for r in stored_scores if r not in expected_scores}
            | {r["round_no"] for r in expected_scores if r not in stored_scores}
        )
        problems.append(f"the RoundScore rows differ from the log's rounds {bad}")
    payload = entries[0].payload if entries else {}
    if payload.get("seed_commitment") not in (None, seed_commitment(game.seed)):
        problems.append("the published seed commitment is not the hash of the game's seed")
    return VerifyReport(game.pk, len(entries), time.perf_counter() - started, problems)
