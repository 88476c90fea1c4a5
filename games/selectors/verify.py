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
from games.engine import GameState, LogRejected, json_roundtrip, seed_commitment
from games.engine.history import ENTRY_TYPES, GameRecord
from games.engine.view import player_view
from games.models import Game, GameStatus, Meld, RoundScore, Seat
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
            m.get("id") or "",
            list(m["cards"]),
            m["natural_count"],
            m["wild_count"],
            m["is_canasta"],
        )
        for t in table["teams"]
        for m in t["melds"]
    )


def _score_rows(state: GameState) -> list[dict[str, Any]]:
    classic = state.options.family == "classic"
    return [
        RoundScore.values_of(record, team, classic)
        for record in state.rounds
        for team in range(len(record["teams"]))
    ]


def _dict_diff(stored: dict[str, Any], rebuilt: dict[str, Any]) -> list[str]:
    return sorted(k for k in set(stored) | set(rebuilt) if stored.get(k) != rebuilt.get(k))


def _ending_problems(game: Game, record: GameRecord) -> list[str]:
    """Status, seat to act and winner against the log (played out, conceded or abandoned)."""
    problems = []
    if game.status != record.status:
        problems.append(f"status is {game.status}, the log says {record.status}")
    if game.to_act != record.to_act:
        problems.append(f"to_act is {game.to_act}, the log says {record.to_act}")
    if game.winner_team != record.winner:
        problems.append(f"winner_team is {game.winner_team}, the log says {record.winner}")
    return problems


def _seat_problems(game: Game, seats: list[Seat], record: GameRecord) -> list[str]:
    """The Seat rows, the seating on the game row, the timer's fields and the pause against the
    log."""
    problems = []
    logged = [
        (s.index, s.team, s.player, s.bot_level, s.timeouts, s.stand_in) for s in record.seats
    ]
    stored = [(s.index, s.team, s.player_id, s.bot_level, s.timeouts, s.stand_in) for s in seats]
    if stored != logged:
        problems.append("the Seat rows differ from who sits where by the log")
    if game.seating != seating_of(seats):
        problems.append("the seating on the game row differs from its Seat rows")
    if not record.timer_on and game.turn_seconds is not None:
        problems.append("the log turned the timer off, the game still has turn_seconds")
    proposal = game.timer_proposal or None
    stored_proposal = (
        {"proposed_by": proposal["proposed_by"], "accepted": sorted(proposal["accepted"])}
        if proposal
        else None
    )
    if stored_proposal != record.proposal:
        problems.append("the pending timer proposal differs from the log's")
    if record.ended is None and (game.paused_at is not None) != record.paused:
        problems.append(f"paused is {game.paused_at is not None}, the log says {record.paused}")
    pause = game.pause_proposal or None
    stored_pause = (
        {"proposed_by": pause["proposed_by"], "accepted": sorted(pause["accepted"])}
        if pause
        else None
    )
    if stored_pause != record.pause_proposal:
        problems.append("the pending pause proposal differs from the log's")
    return problems


def game_verify(game: Game) -> VerifyReport:
    """Rebuild ``game`` from its log alone and compare with what is stored: the events'
    recorded effects, the snapshot, status / to_act / winner (played out, conceded, abandoned),
    the Seat rows and the seating copy (stand-ins, timeouts), the timer's switch and pending
    proposal, the pause and its pending proposal, the Meld projection, the RoundScore rows, and
    the seed commitments. Every disagreement is one line of ``problems``.

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
    entries = entries_of(game)
    if game.status == GameStatus.LOBBY:
        if game.seating != seating_of(seats):
            problems.append("the seating on the game row differs from its Seat rows")
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
    if not entries:
        problems.append("a started game has no events")
        return VerifyReport(game.pk, 0, time.perf_counter() - started, problems)
    unknown = sorted({e.type for e in entries} - ENTRY_TYPES)
    if unknown:
        problems.append(f"the log has events of unknown types {unknown}")
    try:
        record = GameRecord.fold(
            game_options(game), game.seed, entries, record=True, keep_steps=True
        )
    except LogRejected as exc:
        problems.append(f"event {exc.seq} does not apply: [{exc.code}] {exc.message}")
        return VerifyReport(game.pk, len(entries), time.perf_counter() - started, problems)
    for step in record.steps:
        if json_roundtrip(step.entry.effects) != step.effects:
            problem = effects_differ(step.entry.effects or [], step.effects)
            problem = problem or "a seat's private part is missing or extra"
            problems.append(f"event {step.entry.seq}: {problem}")
    state = record.state
    rebuilt = json_roundtrip(state.to_dict())
    diff = _dict_diff(game.snapshot or {}, rebuilt)
    if diff:
        problems.append(f"snapshot differs from the log's state in {', '.join(diff)}")
    problems += _ending_problems(game, record)
    problems += _seat_problems(game, seats, record)
    stored_melds = sorted(
        (m.team, m.rank, m.meld_id, list(m.cards), m.natural_count, m.wild_count, m.is_canasta)
        for m in Meld.objects.filter(game=game)
    )
    if stored_melds != _meld_rows(state):
        problems.append("the Meld rows differ from the melds on the log's table")
    fields = ["round_no", "team", "dealer", "reason", "went_out", "concealed", "total"]
    fields += ["cumulative", *RoundScore.COMPONENTS, "parts"]
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
