"""A game's whole log, folded: the engine's state plus the facts of the table around it.

The move log holds two kinds of entries in one ordered sequence: the engine's actions (event 1,
``game_started``, deals; each action after it is applied by the rules) and the table's facts,
which change no card: a turn lost to the timer, a seat handed to a stand-in bot and given back,
the timer turned off, the game paused and resumed by agreement, a concession, an abandonment,
a rated game's rating changes.
``GameRecord.fold`` rebuilds from the log alone everything a game is: its state, who sits where
(and for whom a bot stands in), the turn timer's switch, whether it is paused, and how and why
it ended. Everything else stored about a game is a cache of this, and the replay verifier
compares them.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from .actions import ACTION_TYPES
from .log import GAME_STARTED, LogEntry, LogStep, replay_log
from .options import Options
from .state import GameState

# The table's facts (entry types besides game_started and the engine's actions).
TURN_TIMED_OUT = "turn_timed_out"
SEAT_HANDED_TO_BOT = "seat_handed_to_bot"
SEAT_RETURNED = "seat_returned"
GAME_ABANDONED = "game_abandoned"
TIMER_OFF_PROPOSED = "timer_off_proposed"
TIMER_OFF_ACCEPTED = "timer_off_accepted"
TIMER_OFF_DECLINED = "timer_off_declined"
TIMER_TURNED_OFF = "timer_turned_off"
GAME_CONCEDED = "game_conceded"
# A rated game's result applied to its players' ratings (after the entry that ended it).
RATINGS_CHANGED = "ratings_changed"
# Correspondence play: a seat proposes to pause the game (a vacation), the others accept or one
# declines; once every seat with a player agreed it is paused, until a seated player resumes
# it. Nobody may act in between and no deadline runs.
PAUSE_PROPOSED = "pause_proposed"
PAUSE_ACCEPTED = "pause_accepted"
PAUSE_DECLINED = "pause_declined"
GAME_PAUSED = "game_paused"
GAME_RESUMED = "game_resumed"

# The turn timer's part of the log (what GET /games/{id}/timer/ lists).
TIMER_FACTS: tuple[str, ...] = (
    TURN_TIMED_OUT,
    SEAT_HANDED_TO_BOT,
    SEAT_RETURNED,
    GAME_ABANDONED,
    TIMER_OFF_PROPOSED,
    TIMER_OFF_ACCEPTED,
    TIMER_OFF_DECLINED,
    TIMER_TURNED_OFF,
)
# Pausing by agreement and resuming (games.services.pause).
PAUSE_FACTS: tuple[str, ...] = (
    PAUSE_PROPOSED,
    PAUSE_ACCEPTED,
    PAUSE_DECLINED,
    GAME_PAUSED,
    GAME_RESUMED,
)
TABLE_FACTS: frozenset[str] = frozenset(
    (*TIMER_FACTS, *PAUSE_FACTS, GAME_CONCEDED, RATINGS_CHANGED)
)
ENTRY_TYPES: frozenset[str] = frozenset((GAME_STARTED, *ACTION_TYPES, *TABLE_FACTS))

# How a game ended.
ENDED_PLAYED_OUT = "played_out"
ENDED_CONCEDED = "conceded"
ENDED_ABANDONED = "abandoned"


@dataclass
class SeatRecord:
    """One seat as the log says: who sits there, its run of timeouts, its stand-in."""

    index: int
    team: int
    player: int | None
    bot_level: str | None
    timeouts: int = 0
    stand_in: bool = False


@dataclass
class GameRecord:
    """Everything the log says of a game (``fold``)."""

    state: GameState
    seats: list[SeatRecord]
    timer_on: bool = True  # False once the log has ``timer_turned_off``
    proposal: dict[str, Any] | None = None  # a pending proposal to turn the timer off
    paused: bool = False  # between ``game_paused`` and ``game_resumed``
    pause_proposal: dict[str, Any] | None = None  # a pending proposal to pause the game
    ended: str | None = None  # ENDED_*, None while the game goes on
    winner: int | None = None
    conceded_seat: int | None = None
    conceded_team: int | None = None
    steps: list[LogStep] = field(default_factory=list)

    @property
    def status(self) -> str:
        """``active``, ``finished`` (played out or conceded) or ``abandoned``."""
        if self.ended == ENDED_ABANDONED:
            return "abandoned"
        return "finished" if self.ended else "active"

    @property
    def to_act(self) -> int | None:
        return None if self.ended else self.state.to_act

    @classmethod
    def fold(
        cls,
        options: Options,
        seed: str,
        entries: Iterable[LogEntry],
        *,
        record: bool = False,
        keep_steps: bool = False,
    ) -> GameRecord:
        """Replay ``entries`` (the engine checks every action; ``LogRejected`` at the first that
        does not apply) and fold the table's facts. ``record``: each step carries the engine
        events it caused; ``keep_steps``: the steps are kept (their states are one object,
        advanced in place)."""
        game: GameRecord | None = None
        for step in replay_log(options, seed, entries, record=record, passthrough=TABLE_FACTS):
            entry = step.entry
            if game is None:
                game = cls(step.state, _seats_of_start(entry.payload, options))
            if keep_steps:
                game.steps.append(step)
            game._apply(entry)
        if game is None:
            raise ValueError("an empty log")
        return game

    def _apply(self, entry: LogEntry) -> None:
        seat = self.seats[entry.seat] if entry.seat is not None else None
        payload = entry.payload
        if entry.type in ACTION_TYPES:
            if seat is not None and entry.source == "player":
                seat.timeouts = 0  # the player's own move ends their run of timeouts
            if self.state.game_over:
                self.ended, self.winner = ENDED_PLAYED_OUT, self.state.winner
        elif entry.type == TURN_TIMED_OUT and seat is not None:
            seat.timeouts = int(payload.get("consecutive", seat.timeouts + 1))
        elif entry.type == SEAT_HANDED_TO_BOT and seat is not None:
            seat.stand_in = True
        elif entry.type == SEAT_RETURNED and seat is not None:
            seat.stand_in, seat.timeouts = False, 0
        elif entry.type == GAME_ABANDONED:
            self.ended, self.winner = ENDED_ABANDONED, None
        elif entry.type == GAME_CONCEDED and seat is not None:
            self.ended = ENDED_CONCEDED
            self.paused, self.pause_proposal = False, None  # a paused game may be conceded
            self.winner = payload.get("winner_team")
            self.conceded_seat, self.conceded_team = seat.index, seat.team
        elif entry.type == TIMER_OFF_PROPOSED and seat is not None:
            self.proposal = {"proposed_by": seat.index, "accepted": [seat.index]}
        elif entry.type == TIMER_OFF_ACCEPTED and seat is not None and self.proposal:
            self.proposal["accepted"] = sorted({*self.proposal["accepted"], seat.index})
        elif entry.type == TIMER_OFF_DECLINED:
            self.proposal = None
        elif entry.type == PAUSE_PROPOSED and seat is not None:
            self.pause_proposal = {"proposed_by": seat.index, "accepted": [seat.index]}
        elif entry.type == PAUSE_ACCEPTED and seat is not None and self.pause_proposal:
            accepted = {*self.pause_proposal["accepted"], seat.index}
            self.pause_proposal["accepted"] = sorted(accepted)
        elif entry.type == PAUSE_DECLINED:
            self.pause_proposal = None
        elif entry.type == GAME_PAUSED:
            self.paused, self.pause_proposal = True, None
        elif entry.type == GAME_RESUMED:
            self.paused = False
        elif entry.type == TIMER_TURNED_OFF:
            self.timer_on, self.proposal = False, None
            for s in self.seats:  # without a timer nothing plays for an absent player
                s.timeouts, s.stand_in = 0, False


def _seats_of_start(payload: dict[str, Any], options: Options) -> list[SeatRecord]:
    """The seats as ``game_started`` records them (a log without them: bots of no level)."""
    listed = {s.get("index"): s for s in payload.get("seats") or [] if isinstance(s, dict)}
    return [
        SeatRecord(
            index=i,
            team=int(listed.get(i, {}).get("team", i % options.teams)),
            player=listed.get(i, {}).get("player"),
            bot_level=listed.get(i, {}).get("bot_level"),
        )
        for i in range(options.players)
    ]
