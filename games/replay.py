"""Replay and the move log as a feature: step through a game, export it, import it, verify it,
check that its dealing was fair.

The log is the truth. Every function here rebuilds engine states from the log (``GameEvent``
rows, or the events of an export document) through the engine's ``new_game`` and ``apply``;
the snapshot is never trusted, only compared. Hidden cards leave only through the engine's
player view (``player_view``, ``event_view``) until the game is finished; after that everyone
may see every hand at every step (``event_view_full``).

Reads (selectors): ``game_replay_get``, ``game_replay_steps``, ``game_export``,
``game_fairness_get``, ``game_verify``. Write (service): ``game_import``, one transaction.

A game is pinned to the rules version it was started under (``Game.rules_version``); a game
whose version is not in the engine's ``SUPPORTED_RULES_VERSIONS`` is refused with
``rules_version_unsupported`` instead of being replayed under changed rules.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from django.db import transaction
from django.utils import timezone

from games import errors
from games.engine import (
    EngineError,
    Event,
    GameState,
    Options,
    action_from_dict,
    action_to_dict,
    apply,
    make_options,
    new_game,
    seed_commitment,
)
from games.engine.cards import cards_text
from games.engine.fairness import check_game, published_deals, round_seeds
from games.engine.render import describe_event, describe_step, event_view_full, render_table
from games.engine.view import event_view, player_view
from games.models import (
    BotLevel,
    EventSource,
    Game,
    GameEvent,
    GameStatus,
    GameTable,
    Meld,
    Player,
    RoundScore,
    Seat,
)
from games.seating import seating_of, seats_written
from games.selectors import effects_from_json, seat_view, viewer_seat_get
from games.services import (
    _bot_turn_register,
    _join_code_new,
    _projections_write,
    effects_to_json,
    rules_version_check,
)
from games.table import spectator_horizon

EXPORT_FORMAT = "canasta-game"
EXPORT_FORMAT_VERSION = 1
GAME_STARTED = "game_started"


# ============================================================================== the log, replayed
@dataclass(frozen=True)
class LogEntry:
    """One event of a log, wherever it comes from (a ``GameEvent`` row or a document)."""

    seq: int
    seat: int | None
    type: str
    payload: dict[str, Any]
    effects: list[dict[str, Any]] | None = None  # as recorded (stored form), if known
    source: str = EventSource.PLAYER


@dataclass
class LogStep:
    """The state after one event and the engine events it caused (in stored JSON form)."""

    entry: LogEntry
    state: GameState
    effects: list[dict[str, Any]] = field(default_factory=list)


class LogRejected(Exception):
    """Event ``seq`` of a log does not apply: the engine's ``code`` and ``message``."""

    def __init__(self, seq: int, code: str, message: str) -> None:
        super().__init__(f"event {seq}: [{code}] {message}")
        self.seq = seq
        self.code = code
        self.message = message


def _json(value: Any) -> Any:
    """``value`` as it reads back from a JSON column (tuples become lists, keys text)."""
    return json.loads(json.dumps(value))


def entries_of(game: Game, upto: int | None = None, effects: bool = True) -> list[LogEntry]:
    """The game's log (up to seq ``upto``); without the recorded effects unless ``effects``."""
    rows = game.events.order_by("seq")
    if upto is not None:
        rows = rows.filter(seq__lte=upto)
    columns = ["seq", "seat", "type", "payload", "source"] + (["effects"] if effects else [])
    return [
        LogEntry(e["seq"], e["seat"], e["type"], e["payload"], e.get("effects"), e["source"])
        for e in rows.values(*columns)
    ]


def replay_log(
    options: Options, seed: str, entries: Iterable[LogEntry], record: bool = True
) -> Iterator[LogStep]:
    """Every state of a log, in order: event 1 deals (``game_started``), each later event is one
    action applied by the engine. The yielded state is the same object, advanced in place; clone
    it to keep it. With ``record`` each step carries the engine events it caused (stored form).
    Raises ``LogRejected`` at the first event that does not apply or is out of order."""
    state: GameState | None = None
    for expected, entry in enumerate(entries, start=1):
        if entry.seq != expected:
            raise LogRejected(entry.seq, "seq_out_of_order", f"expected event {expected} here")
        events: list[Event] | None = [] if record else None
        if expected == 1:
            if entry.type != GAME_STARTED:
                raise LogRejected(1, "invalid_action", "event 1 must be game_started")
            state = new_game(options, seed, events)
        else:
            assert state is not None
            if entry.type == GAME_STARTED:
                raise LogRejected(entry.seq, "invalid_action", "only event 1 is game_started")
            try:
                action = action_from_dict(
                    entry.payload, entry.seat if entry.seat is not None else -1
                )
                if action.type != entry.type:
                    raise LogRejected(
                        entry.seq,
                        "invalid_action",
                        f"the event's type {entry.type!r} is not its action's {action.type!r}",
                    )
                apply(state, action, events)
            except EngineError as exc:
                raise LogRejected(entry.seq, exc.code, exc.message) from None
        yield LogStep(entry, state, _json(effects_to_json(events)) if events else [])


def game_options(game: Game) -> Options:
    return make_options(game.preset, dict(game.options))


def game_state_at(game: Game, at: int) -> tuple[GameState, LogEntry]:
    """The state after event ``at`` rebuilt from the log (the game's rules version checked),
    and that event as logged (with its recorded effects)."""
    rules_version_check(game.rules_version)
    entries = entries_of(game, at, effects=False)
    last: LogStep | None = None
    for step in replay_log(game_options(game), game.seed, entries, record=False):
        last = step
    assert last is not None
    recorded = game.events.filter(seq=at).values_list("effects", flat=True).first()
    entry = last.entry
    return last.state, LogEntry(
        entry.seq, entry.seat, entry.type, entry.payload, recorded, entry.source
    )


def state_digest(state: GameState) -> str:
    """SHA-256 of the full state's canonical JSON: equal digests, equal states."""
    text = json.dumps(state.to_dict(), sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


# ============================================================================== replay at step N
def _started(game: Game) -> None:
    if game.status == GameStatus.LOBBY or game.version < 1:
        raise errors.GameNotActive("The game has not started: its log is empty.")


def _event_for(
    entry: LogEntry, effects: list[dict[str, Any]], viewer: int | None, full: bool
) -> list[dict[str, Any]]:
    """The effects of one event as the requester may see them (everything once ``full``)."""
    engine_events = effects_from_json(effects)
    if full:
        return [event_view_full(e) for e in engine_events]
    return [event_view(e, viewer) for e in engine_events]


def game_replay_get(*, game: Game, player: Player | None, at: int | None = None) -> dict[str, Any]:
    """The table after event ``at`` (default: the last), rebuilt from the log.

    While the game is running, as the requester's seat saw it then (a spectator sees no hand);
    once it is finished, every hand (``hands``) at every step.
    """
    _started(game)
    viewer = viewer_seat_get(game=game, player=player)
    horizon = spectator_horizon(game, viewer)  # a delayed spectator sees the game late
    at = horizon if at is None else at
    if not 1 <= at <= horizon:
        raise errors.ReplayStepOutOfRange(at, horizon)
    full = game.status == GameStatus.FINISHED
    state, entry = game_state_at(game, at)
    return {
        "game": game.pk,
        "at": at,
        "version": horizon,
        "status": game.status,
        "viewer": viewer,
        "full_information": full,
        "event": {
            "seq": entry.seq,
            "seat": entry.seat,
            "type": entry.type,
            "source": entry.source,
            "payload": entry.payload,
            "effects": _event_for(entry, entry.effects or [], viewer, full),
        },
        "state": player_view(state, viewer, with_legal=False),
        "hands": [cards_text(h) for h in state.hands] if full else None,
    }


def game_replay_steps(*, game: Game, player: Player | None) -> dict[str, Any]:
    """Every step of the log in one line each, for a timeline: who did what, as the requester
    saw it (everything once the game is finished). Read from the log; nothing is replayed."""
    viewer = viewer_seat_get(game=game, player=player)
    horizon = spectator_horizon(game, viewer)
    full = game.status == GameStatus.FINISHED
    steps = []
    for entry in entries_of(game, horizon):
        views = _event_for(entry, entry.effects or [], viewer, full)
        steps.append(
            {
                "seq": entry.seq,
                "seat": entry.seat,
                "type": entry.type,
                "source": entry.source,
                "text": "; ".join(describe_event(v) for v in views),
            }
        )
    return {
        "game": game.pk,
        "version": horizon,
        "status": game.status,
        "viewer": viewer,
        "full_information": full,
        "steps": steps,
    }


# ============================================================================== export
def _effects_for(effects: list[dict[str, Any]], viewer: int | None) -> list[dict[str, Any]]:
    """Stored effects with every private part removed except ``viewer``'s."""
    keep = None if viewer is None else str(viewer)
    return [
        {**e, "private": {s: part for s, part in e["private"].items() if s == keep}}
        for e in effects
    ]


def game_export(*, game: Game, player: Player | None, full: bool = False) -> dict[str, Any]:
    """The whole game as one JSON document (format ``canasta-game`` version 1).

    Configuration (preset, full options, rules version), the seats, and every event: the
    action as played (``payload``) and its effects in stored form. While the game is running
    the effects keep only the requester's own private parts and the seed is absent; once it is
    finished the seed is included, every private part too, and the document can be imported.
    ``full`` includes them whatever the status (an operator's export, for a bug report).
    """
    _started(game)
    viewer = viewer_seat_get(game=game, player=player)
    full = full or game.status == GameStatus.FINISHED
    horizon = game.version if full else spectator_horizon(game, viewer)
    state = GameState.from_dict(game.snapshot) if game.snapshot else None
    if horizon < game.version:
        state = game_state_at(game, horizon)[0]
    events = [
        {
            "seq": e.seq,
            "seat": e.seat,
            "type": e.type,
            "source": e.source,
            "payload": e.payload,
            "effects": e.effects if full else _effects_for(e.effects, viewer),
        }
        for e in game.events.filter(seq__lte=horizon).order_by("seq")
    ]
    seats = [
        {
            "index": s["index"],
            "team": s["team"],
            "kind": s["kind"],
            "display_name": s["player"]["display_name"] if s["player"] else None,
            "bot_level": s["bot_level"],
        }
        for s in (seat_view(s) for s in game.seats.select_related("player").order_by("index"))
    ]
    return {
        "format": EXPORT_FORMAT,
        "format_version": EXPORT_FORMAT_VERSION,
        "exported_at": timezone.now().isoformat(),
        "source_game": game.pk,
        "preset": game.preset,
        "options": game.options,
        "rules_version": game.rules_version,
        "status": game.status,
        "version": horizon,
        "seed_commitment": seed_commitment(game.seed),
        "seed": game.seed if full else None,
        "viewer": viewer,
        "redacted": not full,
        "seats": seats,
        "events": events,
        "final": {
            "version": horizon,
            "status": game.status,
            "scores": state.scores if state else None,
            "winner_team": game.winner_team,
            "rounds": len(state.rounds) if state else 0,
            "state_sha256": state_digest(state) if full and state else None,
        },
    }


# ============================================================================== import
def _document_entries(document: dict[str, Any]) -> list[LogEntry]:
    """The document's events as log entries; a missing ``game_started`` (a hand-written
    teaching document) is supplied, missing seq numbers are counted."""
    raw = list(document.get("events") or [])
    for index, item in enumerate(raw, start=1):
        if not isinstance(item, dict):
            raise errors.ImportLogInvalid(index, f"Event {index} is not an object.")
    if not raw or raw[0].get("type") != GAME_STARTED:
        raw.insert(0, {"seq": 1, "seat": None, "type": GAME_STARTED, "payload": {}})
    entries = []
    for index, item in enumerate(raw, start=1):
        seq = item.get("seq", index)
        payload = item.get("payload")
        if not isinstance(payload, dict):
            raise errors.ImportLogInvalid(seq, f"Event {seq} has no payload object.")
        kind = item.get("type") or payload.get("type")
        if not isinstance(kind, str) or not isinstance(seq, int):
            raise errors.ImportLogInvalid(seq, f"Event {seq} has no type or no whole-number seq.")
        if seq != index:
            raise errors.ImportLogInvalid(seq, f"Event {seq} is out of order: expected {index}.")
        source = item.get("source") if item.get("source") in EventSource.values else None
        entries.append(
            LogEntry(
                seq=seq,
                seat=item.get("seat"),
                type=kind,
                payload=payload,
                effects=item.get("effects"),
                source=source or (EventSource.SYSTEM if seq == 1 else EventSource.PLAYER),
            )
        )
    return entries


def _effects_differ(recorded: list[dict[str, Any]], replayed: list[dict[str, Any]]) -> str | None:
    """How recorded effects disagree with the engine's (None when they agree). Private parts
    a redacted document left out are not compared; those it holds must match."""
    if len(recorded) != len(replayed):
        return f"it records {len(recorded)} effects, the engine produces {len(replayed)}"
    for i, (mine, theirs) in enumerate(zip(recorded, replayed, strict=True)):
        if not isinstance(mine, dict):
            return f"effect {i} is not an object"
        for key in ("kind", "seat", "public"):
            if _json(mine.get(key)) != theirs[key]:
                return f"effect {i} ({theirs['kind']}) differs in {key!r}"
        private = mine.get("private") or {}
        if not isinstance(private, dict):
            return f"effect {i} has a malformed private part"
        for seat, part in private.items():
            if _json(part) != theirs["private"].get(str(seat)):
                return f"effect {i} ({theirs['kind']}) differs in seat {seat}'s private part"
    return None


@dataclass
class ImportPlan:
    """A document checked and replayed in memory, ready to be written."""

    options: Options
    seed: str
    rules_version: str
    preset: str
    steps: list[tuple[LogEntry, list[dict[str, Any]]]]
    state: GameState
    seats: list[dict[str, Any]]


def import_plan(document: dict[str, Any]) -> ImportPlan:
    """Check an export document and replay it through the engine, writing nothing.

    Refusals: ``import_format_unsupported``, ``rules_version_unsupported``,
    ``import_seed_missing``, ``import_seed_mismatch``, ``invalid_option`` (engine),
    ``import_log_invalid``, ``import_event_rejected`` (naming the first event that does not
    apply, with the engine's code and message), ``import_event_mismatch`` (an event records
    other effects than the engine's), ``import_final_state_mismatch``.
    """
    if (
        document.get("format") != EXPORT_FORMAT
        or document.get("format_version") != EXPORT_FORMAT_VERSION
    ):
        raise errors.ImportFormatUnsupported(
            f"Expected format {EXPORT_FORMAT!r} version {EXPORT_FORMAT_VERSION}."
        )
    rules_version = str(document.get("rules_version"))
    rules_version_check(rules_version)
    seed = document.get("seed")
    if not isinstance(seed, str) or not seed:
        raise errors.ImportSeedMissing()
    preset = str(document.get("preset") or "classic")
    try:
        overrides = document.get("options") or {}
        if not isinstance(overrides, dict):
            raise errors.ImportFormatUnsupported("The document's options must be an object.")
        options = make_options(preset, overrides)
    except EngineError as exc:
        raise errors.engine_error(exc) from None
    entries = _document_entries(document)
    committed = entries[0].payload.get("seed_commitment") or document.get("seed_commitment")
    if committed is not None and committed != seed_commitment(seed):
        raise errors.ImportSeedMismatch()
    steps: list[tuple[LogEntry, list[dict[str, Any]]]] = []
    state: GameState | None = None
    try:
        for step in replay_log(options, seed, entries):
            if step.entry.effects is not None:
                problem = _effects_differ(step.entry.effects, step.effects)
                if problem:
                    raise errors.ImportEventMismatch(step.entry.seq, problem)
            steps.append((step.entry, step.effects))
            state = step.state
    except LogRejected as exc:
        if exc.code == "seq_out_of_order":
            raise errors.ImportLogInvalid(exc.seq, exc.message) from None
        raise errors.ImportEventRejected(exc.seq, exc.code, exc.message) from None
    assert state is not None
    final = document.get("final") or {}
    digest = final.get("state_sha256") if isinstance(final, dict) else None
    if digest is not None and digest != state_digest(state):
        raise errors.ImportFinalStateMismatch()
    if isinstance(final, dict) and final.get("version") not in (None, len(steps)):
        raise errors.ImportFinalStateMismatch(
            f"The document says the log ends at event {final['version']}; it has {len(steps)}."
        )
    seats = [s for s in document.get("seats") or [] if isinstance(s, dict)]
    return ImportPlan(options, seed, rules_version, preset, steps, state, seats)


@dataclass(frozen=True)
class ImportResult:
    game: Game
    events: int
    final_state_sha256: str


def game_import(
    *,
    creator: Player,
    document: dict[str, Any],
    seat: int | None = None,
    is_public: bool = False,
) -> ImportResult:
    """A new game from an export document, replayed through the engine (``import_plan``).

    The new game has the document's preset, options, rules version and seed, and a log of the
    same actions with effects recomputed by the engine. It is finished when the log finishes
    it; otherwise it is active where the log leaves it and play goes on. ``creator`` sits at
    ``seat`` if given; every other seat is a bot (at the document's bot level, else easy).
    """
    plan = import_plan(document)
    players = plan.options.players
    if seat is not None and not 0 <= seat < players:
        raise errors.InvalidSeat(f"Seat {seat} does not exist: seats are 0 to {players - 1}.")
    wanted = {
        s.get("index"): s.get("bot_level")
        for s in plan.seats
        if s.get("bot_level") in BotLevel.values
    }
    levels = [None if i == seat else wanted.get(i, BotLevel.EASY) for i in range(players)]
    now = timezone.now()
    over = plan.state.game_over
    with transaction.atomic():
        game = Game.objects.create(
            preset=plan.preset,
            options=plan.options.to_dict(),
            status=GameStatus.FINISHED if over else GameStatus.ACTIVE,
            version=len(plan.steps),
            rules_version=plan.rules_version,
            seed=plan.seed,
            is_public=is_public,
            join_code=_join_code_new(),
            created_by=creator,
            started_at=now,
            finished_at=now if over else None,
            imported_from={
                "format": EXPORT_FORMAT,
                "format_version": EXPORT_FORMAT_VERSION,
                "source_game": document.get("source_game"),
                "exported_at": document.get("exported_at"),
            },
        )
        seats = Seat.objects.bulk_create(
            [
                Seat(
                    game=game,
                    index=i,
                    team=i % plan.options.teams,
                    player=creator if i == seat else None,
                    bot_level=levels[i],
                    joined_at=now,
                )
                for i in range(players)
            ]
        )
        seats_written(game, seats)
        GameEvent.objects.bulk_create(
            [
                GameEvent(
                    game=game,
                    seq=entry.seq,
                    seat=entry.seat,
                    type=entry.type,
                    source=entry.source,
                    payload=_import_payload(entry, plan, levels),
                    effects=effects,
                )
                for entry, effects in plan.steps
            ]
        )
        _projections_write(game, plan.state)
        game.save()
        _bot_turn_register(game, seats)
    return ImportResult(game, len(plan.steps), state_digest(plan.state))


def _import_payload(entry: LogEntry, plan: ImportPlan, levels: list[str | None]) -> dict[str, Any]:
    """The payload stored for an imported event: the action's canonical text form, or for
    ``game_started`` what the service records at a start."""
    if entry.seq == 1:
        return {
            "preset": plan.preset,
            "rules_version": plan.rules_version,
            "seed_commitment": seed_commitment(plan.seed),
            "seats": [
                {"index": i, "team": i % plan.options.teams, "bot_level": level}
                for i, level in enumerate(levels)
            ],
        }
    assert entry.seat is not None
    return action_to_dict(action_from_dict(entry.payload, entry.seat))


# ============================================================================== fairness
def game_fairness_get(*, game: Game, player: Player | None = None) -> dict[str, Any]:
    """The commitments published at each deal (to a delayed spectator, the deals it has seen);
    once the game is finished, the revealed seed, each round's seed and the check that they
    produce the dealt cards (``verify_deals``)."""
    _started(game)
    horizon = spectator_horizon(game, viewer_seat_get(game=game, player=player))
    rows = game.events.filter(seq__lte=horizon).order_by("seq").only("effects")
    effects = [e for row in rows for e in row.effects]
    deals = published_deals(effects)
    started = game.events.filter(seq=1).values_list("payload", flat=True).first() or {}
    published_commitment = started.get("seed_commitment") or seed_commitment(game.seed)
    finished = game.status == GameStatus.FINISHED
    rounds = [
        {
            "round": d["round"],
            "dealer": d["dealer"],
            "upcards": d["upcards"],
            "seed_commitment": d["seed_commitment"],
            "round_seed": None,
            "ok": None,
            "problem": None,
        }
        for d in deals
    ]
    body: dict[str, Any] = {
        "game": game.pk,
        "status": game.status,
        "revealed": finished,
        "seed_commitment": published_commitment,
        "seed": None,
        "rounds": rounds,
        "verified": None,
        "problems": [],
    }
    if finished:
        rules_version_check(game.rules_version)  # the deal is recomputed by this engine
        report = check_game(game_options(game), game.seed, deals, published_commitment)
        checks = {c.round: c for c in report.rounds}
        for entry, round_seed_text in zip(rounds, round_seeds(game.seed, len(rounds)), strict=True):
            entry["round_seed"] = round_seed_text
            check = checks.get(entry["round"])
            entry["ok"] = check.ok if check else False
            entry["problem"] = check.problem if check else "not checked"
        body.update(seed=game.seed, verified=report.ok, problems=report.problems)
    return body


# ============================================================================== verification
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
            if _json(step.entry.effects) != step.effects:
                problem = _effects_differ(step.entry.effects or [], step.effects)
                problem = problem or "a seat's private part is missing or extra"
                problems.append(f"event {step.entry.seq}: {problem}")
    except LogRejected as exc:
        problems.append(f"event {exc.seq} does not apply: [{exc.code}] {exc.message}")
        return VerifyReport(game.pk, len(entries), time.perf_counter() - started, problems)
    if state is None:
        problems.append("a started game has no events")
        return VerifyReport(game.pk, 0, time.perf_counter() - started, problems)
    rebuilt = _json(state.to_dict())
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


# ============================================================================== text and figures
def game_show_lines(game: Game, at: set[int] | None = None) -> Iterator[str]:
    """The game for a human with every card shown (an operator's tool): one line per event
    (``describe_step``), and the table (``render_table``) after each step in ``at`` or, when
    ``at`` is None, after every round end and after the last event."""
    rules_version_check(game.rules_version)
    yield (
        f"game {game.pk}: {game.preset}, {game.players} players, rules {game.rules_version}, "
        f"{game.status}, {game.version} events"
    )
    entries = entries_of(game)
    for step in replay_log(game_options(game), game.seed, entries, record=False):
        entry = step.entry
        views = [event_view_full(e) for e in effects_from_json(entry.effects or [])]
        yield describe_step(entry.seq, entry.seat, entry.type, views)
        ended = any(v["kind"] == "round_ended" for v in views)
        last = entry.seq == len(entries)
        if (at is not None and entry.seq in at) or (at is None and (ended or last)):
            yield render_table(step.state, show_hands=True)


@dataclass(frozen=True)
class BenchFigures:
    games: int
    events: int
    rebuild_seconds: float  # new_game + apply of every action, no events recorded
    replay_seconds: float  # replay_log with effects recorded, as verify and import do
    max_events: int
    rebuild_cpu: float  # the same two, in CPU time of this process (steady on a busy machine)
    replay_cpu: float


def replay_bench(
    play: Any, presets: Iterable[str], games_per_preset: int, seed: str = "bench"
) -> dict[str, BenchFigures]:
    """Play ``games_per_preset`` whole games per preset in memory with ``play`` (a function of
    the state returning an action's text form), then time rebuilding each from its log."""
    out = {}
    for preset in presets:
        options = make_options(preset, {})
        logs: list[list[LogEntry]] = []
        for n in range(games_per_preset):
            game_seed = f"{seed}:{preset}:{n}"
            state = new_game(options, game_seed)
            entries = [LogEntry(1, None, GAME_STARTED, {})]
            while not state.game_over:
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
