"""A stored game's log as entries for the engine's replay, and states rebuilt from it.

A game is pinned to the rules version it was started under (``Game.rules_version``); a game
whose version is not in the engine's ``SUPPORTED_RULES_VERSIONS`` is refused with
``rules_version_unsupported`` instead of being replayed under changed rules.
"""

from __future__ import annotations

from typing import Any

from games import errors
from games.engine import (
    OPTION_NAMES,
    SUPPORTED_RULES_VERSIONS,
    GameState,
    LogEntry,
    LogStep,
    Options,
    make_options,
    replay_log,
)
from games.engine.history import TABLE_FACTS
from games.models import Game


def rules_version_check(rules_version: str) -> None:
    """Refuse (``rules_version_unsupported``) a game pinned to rules this engine does not play."""
    if rules_version not in SUPPORTED_RULES_VERSIONS:
        raise errors.RulesVersionUnsupported(rules_version, sorted(SUPPORTED_RULES_VERSIONS))


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


def game_options(game: Game) -> Options:
    return make_options(game.preset, dict(game.options))


def options_stored(options: Options) -> dict[str, Any]:
    """The options as a game row keeps them (``Game.options``), from which ``game_options``
    rebuilds them with the preset: a classic game's as the engine writes them (without the
    variant families' options), another family's with every option, because the engine's form
    leaves out a family option at its classic default, which is not its preset's (``talons``
    turned off at a ``mac`` table would read back as the preset's on)."""
    if options.family == "classic":
        return options.to_dict()
    return {name: getattr(options, name) for name in OPTION_NAMES}


def game_state_at(game: Game, at: int) -> tuple[GameState, LogEntry]:
    """The state after event ``at`` rebuilt from the log (the game's rules version checked),
    and that event as logged (with its recorded effects)."""
    rules_version_check(game.rules_version)
    entries = entries_of(game, at, effects=False)
    last: LogStep | None = None
    for step in replay_log(
        game_options(game), game.seed, entries, record=False, passthrough=TABLE_FACTS
    ):
        last = step
    assert last is not None
    recorded = game.events.filter(seq=at).values_list("effects", flat=True).first()
    entry = last.entry
    return last.state, LogEntry(
        entry.seq, entry.seat, entry.type, entry.payload, recorded, entry.source
    )
