"""A game's log replayed: event 1 deals (``game_started``), each later event is one action
applied by the engine. Pure: the log entries come from the move log's rows or from an export
document, and nothing here knows where."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from .actions import action_from_dict
from .errors import EngineError
from .options import Options
from .rules import Event, apply, new_game
from .state import GameState
from .stored import effects_to_json

GAME_STARTED = "game_started"


@dataclass(frozen=True)
class LogEntry:
    """One event of a log, wherever it comes from (a ``GameEvent`` row or a document)."""

    seq: int
    seat: int | None
    type: str
    payload: dict[str, Any]
    effects: list[dict[str, Any]] | None = None  # as recorded (stored form), if known
    source: str = "player"


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


def json_roundtrip(value: Any) -> Any:
    """``value`` as it reads back from a JSON column (tuples become lists, keys text)."""
    return json.loads(json.dumps(value))


def replay_log(
    options: Options,
    seed: str,
    entries: Iterable[LogEntry],
    record: bool = True,
    passthrough: frozenset[str] = frozenset(),
) -> Iterator[LogStep]:
    """Every state of a log, in order: event 1 deals (``game_started``), each later event is one
    action applied by the engine, or an entry of a type in ``passthrough`` (a fact of the table,
    ``games.engine.history``), which leaves the state as it was. The yielded state is the same
    object, advanced in place; clone it to keep it. With ``record`` each step carries the engine
    events it caused (stored form). Raises ``LogRejected`` at the first event that does not
    apply or is out of order."""
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
            if entry.type in passthrough:
                yield LogStep(entry, state, [])
                continue
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
        yield LogStep(entry, state, json_roundtrip(effects_to_json(events)) if events else [])


def state_digest(state: GameState) -> str:
    """SHA-256 of the full state's canonical JSON: equal digests, equal states."""
    text = json.dumps(state.to_dict(), sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()
