"""Replay as a feature: step through a game, its timeline, its export document, the fairness of
its dealing, and the operator's text rendering.

The log is the truth. Every function here rebuilds engine states from the log through the
engine's replay; the snapshot is never trusted. Hidden cards leave only through the engine's
player view (``player_view``, ``event_view``) until the game is finished; after that everyone
may see every hand at every step (``event_view_full``).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from django.utils import timezone

from accounts.models import Player
from games import errors
from games.engine import (
    GameState,
    LogEntry,
    effects_from_json,
    replay_log,
    seed_commitment,
    state_digest,
)
from games.engine.cards import cards_text
from games.engine.fairness import check_game, published_deals, round_seeds
from games.engine.history import TABLE_FACTS
from games.engine.render import describe_event, describe_step, event_view_full, render_table
from games.engine.view import event_view, player_view
from games.models import Game, GameStatus
from games.selectors.games import seat_view, viewer_seat_get
from games.selectors.horizon import spectator_horizon
from games.selectors.log import entries_of, game_options, game_state_at, rules_version_check
from games.selectors.reveal import game_revealed

EXPORT_FORMAT = "canasta-game"
EXPORT_FORMAT_VERSION = 1


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
    full = game_revealed(game)
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
    full = game_revealed(game)
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
    full = full or game_revealed(game)
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
            "bot_account": s["bot_account"],
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
    finished = game_revealed(game)
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
    for step in replay_log(
        game_options(game), game.seed, entries, record=False, passthrough=TABLE_FACTS
    ):
        entry = step.entry
        views = [event_view_full(e) for e in effects_from_json(entry.effects or [])]
        yield describe_step(entry.seq, entry.seat, entry.type, views)
        ended = any(v["kind"] == "round_ended" for v in views)
        last = entry.seq == len(entries)
        if (at is not None and entry.seq in at) or (at is None and (ended or last)):
            yield render_table(step.state, show_hands=True)
