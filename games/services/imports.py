"""Import: a new game from an export document, replayed through the engine, one transaction."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from django.db import transaction
from django.utils import timezone

from accounts.models import Player
from games import errors
from games.engine import (
    GAME_STARTED,
    EngineError,
    GameState,
    LogEntry,
    LogRejected,
    Options,
    action_from_dict,
    action_to_dict,
    make_options,
    replay_log,
    rules_version_of,
    seed_commitment,
    state_digest,
)
from games.engine.history import TABLE_FACTS
from games.models import BotLevel, EventSource, Game, GameEvent, GameStatus, Seat
from games.selectors.log import options_stored, rules_version_check
from games.selectors.replay import EXPORT_FORMAT, EXPORT_FORMAT_VERSION
from games.selectors.verify import effects_differ
from games.services.bots import bot_turn_register
from games.services.lobby import join_code_new
from games.services.log import log_append_many
from games.services.projections import projections_write
from games.services.quotas import bot_tables_check, import_slot
from games.services.seating import seats_written


def _document_entries(document: dict[str, Any]) -> list[LogEntry]:
    """The document's events as log entries; a missing ``game_started`` (a hand-written
    teaching document) is supplied, missing seq numbers are counted."""
    events = document.get("events") or []
    if not isinstance(events, list):
        raise errors.ImportLogInvalid(None, "The document's events must be a list.")
    raw = list(events)
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
        seat, effects = item.get("seat"), item.get("effects")
        if seat is not None and type(seat) is not int:
            raise errors.ImportLogInvalid(seq, f"Event {seq}'s seat is not a whole number.")
        if effects is not None and not isinstance(effects, list):
            raise errors.ImportLogInvalid(seq, f"Event {seq}'s effects are not a list.")
        source = item.get("source") if item.get("source") in EventSource.values else None
        entries.append(
            LogEntry(
                seq=seq,
                seat=seat,
                type=kind,
                payload=payload,
                effects=effects,
                source=source or (EventSource.SYSTEM if seq == 1 else EventSource.PLAYER),
            )
        )
    return entries


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
    if rules_version != rules_version_of(options.family):
        # Each family plays under rules of its own: a log of another family's rules (or a
        # preset changed by hand) is not replayed under these.
        raise errors.RulesVersionUnsupported(rules_version, [rules_version_of(options.family)])
    listed = _document_entries(document)
    # The table's facts (timeouts, stand-ins, a concession) were about the people at the
    # original table: the new game replays the cards only, numbered afresh.
    entries = [
        replace(e, seq=n)
        for n, e in enumerate((e for e in listed if e.type not in TABLE_FACTS), start=1)
    ]
    committed = entries[0].payload.get("seed_commitment") or document.get("seed_commitment")
    if committed is not None and committed != seed_commitment(seed):
        raise errors.ImportSeedMismatch()
    steps: list[tuple[LogEntry, list[dict[str, Any]]]] = []
    state: GameState | None = None
    try:
        for step in replay_log(options, seed, entries):
            if step.entry.effects is not None:
                problem = effects_differ(step.entry.effects, step.effects)
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
    if isinstance(final, dict) and final.get("version") not in (None, len(listed)):
        raise errors.ImportFinalStateMismatch(
            f"The document says the log ends at event {final['version']}; it has {len(listed)}."
        )
    listed_seats = document.get("seats")
    seats = (
        [s for s in listed_seats if isinstance(s, dict)] if isinstance(listed_seats, list) else []
    )
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

    At most ``IMPORTS_CONCURRENT_MAX`` imports replay at once in the service (503
    ``imports_busy`` beyond); a game left unfinished is one of the creator's bot tables (409
    ``bot_tables_limit`` past ``BOT_TABLES_ACTIVE_MAX``). A refusal writes nothing.
    """
    with import_slot():
        return _game_import(creator=creator, document=document, seat=seat, is_public=is_public)


def _game_import(
    *, creator: Player, document: dict[str, Any], seat: int | None, is_public: bool
) -> ImportResult:
    plan = import_plan(document)
    players = plan.options.players
    if seat is not None and not 0 <= seat < players:
        raise errors.InvalidSeat(f"Seat {seat} does not exist: seats are 0 to {players - 1}.")
    wanted = {
        s["index"]: s["bot_level"]
        for s in plan.seats
        if type(s.get("index")) is int and s.get("bot_level") in BotLevel.values
    }
    levels = [None if i == seat else wanted.get(i, BotLevel.EASY) for i in range(players)]
    now = timezone.now()
    over = plan.state.game_over
    with transaction.atomic():
        if not over:
            bot_tables_check(creator)
        game = Game.objects.create(
            preset=plan.preset,
            options=options_stored(plan.options),
            status=GameStatus.FINISHED if over else GameStatus.ACTIVE,
            version=len(plan.steps),
            rules_version=plan.rules_version,
            seed=plan.seed,
            is_public=is_public,
            join_code=join_code_new(),
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
        log_append_many(
            game,
            [
                GameEvent(
                    game=game,
                    seq=entry.seq,
                    seat=entry.seat,
                    type=entry.type,
                    source=entry.source,
                    payload=_import_payload(entry, plan, levels, creator),
                    effects=effects,
                )
                for entry, effects in plan.steps
            ],
        )
        projections_write(game, plan.state)
        game.save()
        bot_turn_register(game, seats)
    return ImportResult(game, len(plan.steps), state_digest(plan.state))


def _import_payload(
    entry: LogEntry, plan: ImportPlan, levels: list[str | None], creator: Player
) -> dict[str, Any]:
    """The payload stored for an imported event: the action's canonical text form, or for
    ``game_started`` what the service records at a start."""
    if entry.seq == 1:
        return {
            "preset": plan.preset,
            "rules_version": plan.rules_version,
            "seed_commitment": seed_commitment(plan.seed),
            "seats": [
                {
                    "index": i,
                    "team": i % plan.options.teams,
                    "player": creator.pk if level is None else None,
                    "bot_level": level,
                    "bot_account": level is None and creator.is_bot,
                }
                for i, level in enumerate(levels)
            ],
        }
    assert entry.seat is not None
    return action_to_dict(action_from_dict(entry.payload, entry.seat))
