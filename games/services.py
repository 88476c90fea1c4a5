"""Writes: every change to a game goes through one of these functions.

Each service runs in one transaction and, once a game exists, locks its row
(``select_for_update``) before reading it, so concurrent requests for one game are serialised.
The move log (``GameEvent``) is the truth: an applied action appends exactly one event, and the
snapshot, the ``Meld`` projection and the ``RoundScore`` rows are rewritten from the engine state
in the same transaction. Work that must follow a commit (a bot's turn) is registered with
``transaction.on_commit``.

Refusals are ``ServiceError``s (``games.errors``); engine refusals are mapped by
``engine_error`` in one place.
"""

from __future__ import annotations

import hashlib
import json
import logging
import secrets
import threading
from collections import deque
from dataclasses import dataclass, field
from typing import Any

from django.contrib.auth import get_user_model
from django.db import IntegrityError, transaction
from django.utils import timezone
from rest_framework.authtoken.models import Token

from canasta_service.celery import app as celery_app
from canasta_service.prepared import PreparedInsert, PreparedQuery, PreparedUpdate
from games import errors
from games.engine import (
    RULES_VERSION,
    SUPPORTED_RULES_VERSIONS,
    EngineError,
    Event,
    GameState,
    action_from_dict,
    action_to_dict,
    apply,
    legal_actions,
    make_options,
    new_game,
    seed_commitment,
)
from games.engine.view import meld_view
from games.models import (
    BotLevel,
    EventSource,
    Game,
    GameEvent,
    GameStatus,
    IdempotencyRecord,
    Meld,
    Player,
    RoundScore,
    Seat,
)
from games.seating import seat_save, seats_of, seats_written
from games.selectors import action_response_build, json_ready
from games.timers import TimerOptions, game_touch, grace, turn_timer_arm

logger = logging.getLogger(__name__)

JOIN_CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"  # no 0/O, 1/I
JOIN_CODE_LENGTH = 8
IDEMPOTENCY_KEY_MAX_LENGTH = 255


# ============================================================================== players
def player_create(*, display_name: str) -> tuple[Player, str]:
    """A guest player: a user without a password, a display name and an API token."""
    user_model = get_user_model()
    with transaction.atomic():
        # No password: create_user stores an unusable one.
        user = user_model.objects.create_user(username=f"guest-{secrets.token_hex(8)}")
        player = Player.objects.create(user=user, display_name=display_name.strip())
        token = Token.objects.create(user=user)
    return player, token.key


# ============================================================================== lobby
def _join_code_new() -> str:
    return "".join(secrets.choice(JOIN_CODE_ALPHABET) for _ in range(JOIN_CODE_LENGTH))


# The creator is joined for the response; only the game row itself is locked. Every move runs
# this: compiled once per connection (canasta_service.prepared).
GAME_LOCKED = PreparedQuery(
    lambda pk: (
        Game.objects.select_for_update(of=("self",)).select_related("created_by").filter(pk=pk)
    ),
    int,
)


def _game_lock(game_id: int) -> Game:
    """The game row, locked until the end of the current transaction."""
    game = GAME_LOCKED.first(game_id)
    if game is None:
        raise errors.GameNotFound()
    return game


def _seat_check(game: Game, index: int) -> None:
    if not 0 <= index < game.players:
        raise errors.InvalidSeat(
            f"Seat {index} does not exist: this table has seats 0 to {game.players - 1}."
        )


@dataclass(frozen=True)
class BotSeatSpec:
    seat: int
    level: str = BotLevel.EASY


def game_create(
    *,
    creator: Player,
    preset: str,
    options: dict[str, Any] | None = None,
    is_public: bool = True,
    bots: list[BotSeatSpec] | None = None,
    seat: int | None = None,
    spectate: bool = False,
    timer: TimerOptions | None = None,
) -> Game:
    """A new table in the lobby.

    The number of seats is the options' ``players``. ``bots`` reserves seats for bots; the
    creator sits at ``seat`` (by default the lowest seat not given to a bot) unless ``spectate``.
    """
    try:
        opts = make_options(preset, options or {})
    except EngineError as exc:
        raise errors.engine_error(exc) from None
    bots = list(bots or [])
    bot_levels: dict[int, str] = {}
    for spec in bots:
        if not 0 <= spec.seat < opts.players:
            raise errors.InvalidSeat(
                f"Bot seat {spec.seat} does not exist: the table has seats 0 to {opts.players - 1}."
            )
        if spec.seat in bot_levels:
            raise errors.SeatTaken(f"Seat {spec.seat} is given to two bots.")
        bot_levels[spec.seat] = spec.level
    creator_seat: int | None = None
    if not spectate:
        if seat is None:
            free = [i for i in range(opts.players) if i not in bot_levels]
            if not free:
                raise errors.GameFull("Every seat is given to a bot; create it with spectate.")
            creator_seat = free[0]
        else:
            if not 0 <= seat < opts.players:
                raise errors.InvalidSeat(
                    f"Seat {seat} does not exist: the table has seats 0 to {opts.players - 1}."
                )
            if seat in bot_levels:
                raise errors.SeatTaken(f"Seat {seat} is given to a bot.")
            creator_seat = seat
    now = timezone.now()
    with transaction.atomic():
        game = Game.objects.create(
            preset=preset,
            options=opts.to_dict(),
            status=GameStatus.LOBBY,
            version=0,
            rules_version=RULES_VERSION,
            seed=secrets.token_hex(32),
            is_public=is_public,
            join_code=_join_code_new(),
            created_by=creator,
            **(timer or TimerOptions()).fields(),  # the turn timer (games.timers)
        )
        teams = opts.teams
        seats = Seat.objects.bulk_create(
            [
                Seat(
                    game=game,
                    index=i,
                    team=i % teams,
                    player=creator if i == creator_seat else None,
                    bot_level=bot_levels.get(i),
                    joined_at=now if (i == creator_seat or i in bot_levels) else None,
                )
                for i in range(opts.players)
            ]
        )
        seats_written(game, seats)
    return game


def game_join(
    *,
    player: Player,
    game_id: int | None = None,
    join_code: str | None = None,
    seat: int | None = None,
) -> Game:
    """Sit ``player`` at a table in the lobby: by id (public, or private with its code) or by
    join code alone. ``seat`` picks a seat, by default the lowest free one."""
    with transaction.atomic():
        if game_id is None:
            code = (join_code or "").strip().upper()
            found = Game.objects.filter(join_code=code).values_list("pk", flat=True).first()
            if found is None:
                raise errors.GameNotFound("No table has this join code.")
            game_id = found
        game = _game_lock(game_id)
        if not game.is_public and (join_code or "").strip().upper() != game.join_code:
            raise errors.JoinCodeInvalid()
        if game.status != GameStatus.LOBBY:
            raise errors.GameAlreadyStarted()
        seats = list(game.seats.select_for_update().order_by("index"))
        if any(s.player_id == player.pk for s in seats):
            raise errors.AlreadySeated()
        from games.table import join_block_check  # table builds on these services

        join_block_check(game, player)
        if seat is None:
            free = [s for s in seats if s.is_empty]
            if not free:
                raise errors.GameFull()
            target = free[0]
        else:
            _seat_check(game, seat)
            target = seats[seat]
            if not target.is_empty:
                raise errors.SeatTaken(f"Seat {seat} is already taken.")
        target.player = player
        target.joined_at = timezone.now()
        seat_save(game, target, ["player", "joined_at"])
    return game


def game_leave(*, game_id: int, player: Player) -> Game:
    """Give up one's seat before the game starts."""
    with transaction.atomic():
        game = _game_lock(game_id)
        seat = game.seats.filter(player=player).first()
        if seat is None:
            raise errors.NotSeated()
        if game.status != GameStatus.LOBBY:
            raise errors.GameAlreadyStarted("The game has started: seats can no longer be left.")
        seat.player = None
        seat.joined_at = None
        seat_save(game, seat, ["player", "joined_at"])
    return game


def game_start(
    *,
    game_id: int,
    player: Player,
    fill_with_bots: bool = False,
    bot_level: str = BotLevel.EASY,
) -> Game:
    """Deal the first round (the creator only). Empty seats are refused unless filled with bots.

    Appends event 1, ``game_started``, whose effects carry each seat's dealt hand privately.
    """
    with transaction.atomic():
        game = _game_lock(game_id)
        if game.created_by_id != player.pk:
            raise errors.NotGameCreator()
        if game.status != GameStatus.LOBBY:
            raise errors.GameAlreadyStarted()
        seats = list(game.seats.select_for_update().order_by("index"))
        empty = [s for s in seats if s.is_empty]
        if empty and not fill_with_bots:
            raise errors.SeatsEmpty(
                f"Seats {', '.join(str(s.index) for s in empty)} are empty; start with "
                "fill_with_bots or wait for players."
            )
        now = timezone.now()
        for s in empty:
            s.bot_level = bot_level
            s.joined_at = now
            seat_save(game, s, ["bot_level", "joined_at"])
        opts = make_options(game.preset, _overrides(game))
        events: list[Event] = []
        state = new_game(opts, game.seed, events)
        GameEvent.objects.create(
            game=game,
            seq=1,
            seat=None,
            type="game_started",
            source=EventSource.SYSTEM,
            payload={
                "preset": game.preset,
                "rules_version": game.rules_version,
                "seed_commitment": seed_commitment(game.seed),
                "seats": [
                    {"index": s.index, "team": s.team, "bot_level": s.bot_level} for s in seats
                ],
            },
            effects=effects_to_json(events),
        )
        game.status = GameStatus.ACTIVE
        game.started_at = now
        game.version = 1
        _projections_write(game, state)
        turn_timer_arm(game, seats)  # the first turn's deadline (games.timers)
        game.save()
        _bot_turn_register(game, seats)
    return game


def _overrides(game: Game) -> dict[str, Any]:
    """The stored options as overrides of the classic preset (they are complete)."""
    return dict(game.options)


# ============================================================================== actions
def rules_version_check(rules_version: str) -> None:
    """Refuse (``rules_version_unsupported``) a game pinned to rules this engine does not play."""
    if rules_version not in SUPPORTED_RULES_VERSIONS:
        raise errors.RulesVersionUnsupported(rules_version, sorted(SUPPORTED_RULES_VERSIONS))


@dataclass
class ActionResult:
    """What ``game_action_apply`` did.

    ``event`` is the appended event (None when an idempotent replay returned the first answer);
    ``body`` / ``status`` are the response document for the requesting player (built only when
    a player acted), ``replayed`` tells that they come from an earlier identical request.
    """

    game: Game
    event: GameEvent | None
    seat: int
    status: int = 201
    body: dict[str, Any] = field(default_factory=dict)
    replayed: bool = False


def request_hash(game_id: int, action: Any, expected_version: Any) -> str:
    canonical = json.dumps(
        {"game": game_id, "action": action, "expected_version": expected_version},
        sort_keys=True,
        separators=(",", ":"),
        default=str,
    )
    return hashlib.sha256(canonical.encode()).hexdigest()


# Every move writes these two rows: their SQL is built once per connection
# (canasta_service.prepared). A move changes only these columns of the game row (the rest are
# written by the lobby and table services).
EVENT_INSERT = PreparedInsert(GameEvent)
MOVE_UPDATE = PreparedUpdate(
    Game,
    [
        "version",
        "status",
        "finished_at",
        "snapshot",
        "to_act",
        "winner_team",
        "turn_deadline",
        "updated_at",
    ],
)


class _TimerWorkDue(Exception):
    """Raised inside ``game_action_apply``'s transaction when the requester's seat has a bot
    standing in for it or the turn timer is overdue: that work commits on its own first."""


def game_action_apply(
    *,
    game_id: int,
    seat: int | None,
    action: dict[str, Any],
    expected_version: int,
    player: Player | None = None,
    idempotency_key: str | None = None,
    source: str = EventSource.PLAYER,
) -> ActionResult:
    """Apply one action for ``seat`` (or, with ``seat=None``, for the seat ``player`` occupies).

    In one transaction, holding the game row lock: refuses a private game the player is not at
    (404 ``not_found``, as if it did not exist); replays the first answer of an earlier request
    with the same ``idempotency_key`` (another request under that key → 422
    ``idempotency_key_reused``); refuses a game not being played (409 ``game_not_active``, 422
    ``game_over``), a player without a seat (403 ``not_seated``), a stale ``expected_version``
    (409 ``stale_version`` with ``current_version``), and whatever the engine refuses (400 /
    403 ``not_your_turn`` / 422); otherwise appends the GameEvent (seq = version + 1), rewrites
    snapshot, melds and scores, stores the idempotency record and registers the next bot turn
    on commit. A refused action leaves the game unchanged.

    For a player's request, the timer's work comes first, as on every request that touches a
    game (``games.timers.game_touch``): the seat comes back from its stand-in bot and an overdue
    turn expires, each committed on its own, and the action is then tried against the result.
    """
    if idempotency_key is not None and len(idempotency_key) > IDEMPOTENCY_KEY_MAX_LENGTH:
        raise errors.ServiceError(
            f"The Idempotency-Key header may be at most {IDEMPOTENCY_KEY_MAX_LENGTH} characters.",
            code="invalid_request",
            status=400,
        )
    kwargs: dict[str, Any] = {
        "game_id": game_id,
        "seat": seat,
        "action": action,
        "expected_version": expected_version,
        "player": player,
        "idempotency_key": idempotency_key,
        "source": source,
    }
    try:
        return _action_apply(**kwargs, timer_work=player is not None and seat is None)
    except _TimerWorkDue:
        game = Game.objects.select_related("created_by").get(pk=game_id)
        game_touch(game, player)
        return _action_apply(**kwargs, timer_work=False)


def _action_apply(
    *,
    game_id: int,
    seat: int | None,
    action: dict[str, Any],
    expected_version: int,
    player: Player | None,
    idempotency_key: str | None,
    source: str,
    timer_work: bool,
) -> ActionResult:
    # The two inserts run without savepoints of their own (a savepoint is two more round trips
    # on every move): a unique violation rolls the whole transaction back and is mapped here.
    inserting = ""
    try:
        with transaction.atomic():
            game = _game_lock(game_id)
            seats = seats_of(game)  # from the game row (games.seating)
            mine = [s for s in seats if player is not None and s.player_id == player.pk]
            if (
                player is not None
                and not mine
                and not game.is_public
                and game.created_by_id != player.pk
            ):
                raise errors.GameNotFound()
            if timer_work and _timer_work_due(game, mine):
                raise _TimerWorkDue()
            fingerprint = ""
            if idempotency_key and player is not None:
                fingerprint = request_hash(game_id, action, expected_version)
                record = IdempotencyRecord.objects.filter(
                    player=player, key=idempotency_key
                ).first()
                if record is not None:
                    if record.request_hash != fingerprint:
                        raise errors.IdempotencyKeyReused()
                    return ActionResult(
                        game=game,
                        event=None,
                        seat=record.response_body.get("event", {}).get("seat", -1),
                        status=record.response_status,
                        body=record.response_body,
                        replayed=True,
                    )
            if seat is None:
                if not mine:
                    raise errors.NotSeated()
                seat = mine[0].index
            elif not 0 <= seat < len(seats) or (
                player is not None and seats[seat].player_id != player.pk
            ):
                raise errors.NotSeated("You may act only for the seat you occupy.")
            if game.status == GameStatus.FINISHED:
                raise errors.ServiceError(
                    "The game is over.",
                    code="game_over",
                    status=errors.engine_error_status("game_over"),
                )
            if game.status != GameStatus.ACTIVE:
                raise errors.GameNotActive()
            if expected_version != game.version:
                raise errors.StaleVersion(game.version)
            rules_version_check(game.rules_version)
            try:
                parsed = action_from_dict(action, seat)
                state = GameState.from_dict(game.snapshot or {})
                events: list[Event] = []
                apply(state, parsed, events)
            except EngineError as exc:
                raise errors.engine_error(exc) from None
            inserting = "event"  # unique (game, seq): a backstop behind the row lock
            event = GameEvent(
                game=game,
                seq=game.version + 1,
                seat=seat,
                type=parsed.type,
                source=source,
                payload=action_to_dict(parsed),
                effects=effects_to_json(events),
            )
            EVENT_INSERT.save(event)
            inserting = ""
            game.version = event.seq
            if state.game_over:
                game.status = GameStatus.FINISHED
                game.finished_at = timezone.now()
            _projections_write(game, state)
            turn_timer_arm(game, seats, acted=seat, source=source)  # next deadline (games.timers)
            MOVE_UPDATE.save(game)
            result = ActionResult(game=game, event=event, seat=seat)
            if player is not None:
                result.body = action_response_build(
                    game=game, event=event, player=player, seats=seats, state=state
                )
                if idempotency_key:
                    result.body = json_ready(result.body)  # the replay is the same document
                    # The same key may just have been used for another game (whose row lock
                    # this request does not hold): that request owns the key.
                    inserting = "idempotency record"
                    IdempotencyRecord.objects.create(
                        player=player,
                        game=game,
                        key=idempotency_key,
                        request_hash=fingerprint,
                        response_status=result.status,
                        response_body=result.body,
                    )
                    inserting = ""
            _bot_turn_register(game, seats)
    except IntegrityError:
        if inserting == "idempotency record":
            raise errors.IdempotencyKeyReused() from None
        if inserting == "event":
            latest = GameEvent.objects.filter(game_id=game_id).order_by("-seq").first()
            raise errors.StaleVersion(latest.seq if latest else expected_version) from None
        raise
    return result


def _timer_work_due(game: Game, mine: list[Seat]) -> bool:
    """Whether the requester's seat is played by its stand-in bot or the turn is overdue."""
    if game.status != GameStatus.ACTIVE:
        return False
    if any(s.stand_in for s in mine):
        return True
    return game.turn_deadline is not None and timezone.now() >= game.turn_deadline + grace()


def effects_to_json(events: list[Event]) -> list[dict[str, Any]]:
    """Engine events as stored in ``GameEvent.effects`` (private parts keyed by seat text)."""
    return [
        {
            "kind": e.kind,
            "seat": e.seat,
            "public": e.public,
            "private": {str(s): part for s, part in e.private.items()},
        }
        for e in events
    ]


def _projections_write(game: Game, state: GameState) -> None:
    """Snapshot, to_act, winner, Meld rows and RoundScore rows from ``state`` (same tx).

    The Meld rows are rewritten only when the melds differ from the previous snapshot's, and
    RoundScore rows added only when a round has ended since: most moves (a draw, a discard)
    change neither, and skip those queries.
    """
    previous = game.snapshot or {}
    game.snapshot = state.to_dict()
    game.to_act = None if state.game_over else state.to_act
    game.winner_team = state.winner
    if previous.get("melds") != game.snapshot["melds"]:
        before = _meld_rows(previous["melds"]) if previous else None
        _melds_write(game, before, _meld_rows(game.snapshot["melds"]))
    if len(previous.get("rounds", ())) != len(state.rounds):
        _round_scores_write(game, state)


MeldKey = tuple[int, str]
# A move that melds inserts or extends a meld or two: their SQL is built once per connection.
MELD_INSERT = PreparedInsert(Meld)
MELD_UPDATE = PreparedUpdate(Meld, Meld.VALUES, key=("game", "team", "rank"))


def _meld_rows(melds: list[list[list[Any]]]) -> dict[MeldKey, dict[str, Any]]:
    """The Meld rows a snapshot's ``melds`` (per team, [rank, cards] pairs) project to:
    (team, rank text) -> column values, as the table view shows each meld."""
    rows: dict[MeldKey, dict[str, Any]] = {}
    for team, team_melds in enumerate(melds):
        for rank, cards in team_melds:
            view = meld_view(rank, cards)
            rows[(team, view["rank"])] = {name: view[name] for name in Meld.VALUES}
    return rows


def _melds_write(
    game: Game, before: dict[MeldKey, dict[str, Any]] | None, wanted: dict[MeldKey, dict[str, Any]]
) -> None:
    """Bring the game's Meld rows from ``before`` (the previous snapshot's projection; None:
    read them) to ``wanted``, touching only the rows that differ."""
    if before is None:
        before = {
            (m.team, m.rank): {k: getattr(m, k) for k in Meld.VALUES}
            for m in Meld.objects.filter(game=game)
        }
    stale = [key for key in before if key not in wanted]
    if stale and not wanted:
        Meld.objects.filter(game=game).delete()  # a new round: the table is cleared
    else:
        for team, rank in stale:
            Meld.objects.filter(game=game, team=team, rank=rank).delete()
    added = [
        Meld(game=game, team=team, rank=rank, **values)
        for (team, rank), values in wanted.items()
        if (team, rank) not in before
    ]
    if len(added) == 1:
        MELD_INSERT.save(added[0])  # the common case: one new meld
    elif added:
        Meld.objects.bulk_create(added)
    for (team, rank), values in wanted.items():
        if (team, rank) in before and before[(team, rank)] != values:
            MELD_UPDATE.save(Meld(game=game, team=team, rank=rank, **values))


def _round_scores_write(game: Game, state: GameState) -> None:
    recorded = RoundScore.objects.filter(game=game).count() // max(1, state.options.teams)
    rows = [
        RoundScore(
            game=game,
            round_no=record["round"],
            team=team,
            dealer=record["dealer"],
            reason=record["reason"],
            went_out=record["went_out"],
            concealed=record["concealed"],
            total=parts["total"],
            cumulative=record["scores"][team],
            **{
                name: parts["concealed" if name == "concealed_bonus" else name]
                for name in RoundScore.COMPONENTS
            },
        )
        for record in state.rounds[recorded:]
        for team, parts in enumerate(record["teams"])
    ]
    if rows:
        RoundScore.objects.bulk_create(rows)


def game_replay_state(game: Game, upto: int | None = None) -> GameState:
    """The engine state rebuilt from the move log alone (up to seq ``upto`` if given).

    The log is the truth: for a started game this must equal ``game.snapshot``.
    """
    rules_version_check(game.rules_version)
    opts = make_options(game.preset, _overrides(game))
    state = new_game(opts, game.seed)
    events = game.events.filter(seq__gt=1).order_by("seq")
    if upto is not None:
        events = events.filter(seq__lte=upto)
    for event in events.only("seq", "seat", "payload"):
        assert event.seat is not None, "every action event has a seat"
        apply(state, action_from_dict(event.payload, event.seat))
    return state


# ============================================================================== bots
# After every commit that leaves a bot to act, ``bot_turn_schedule(game_id, version)`` runs.
# With a broker it sends ``bots.tasks.bot_turn_play`` to a worker. Without one (eager mode)
# the task would run inside the on_commit hook of the previous bot move, and a game of bots
# would nest one call per move; instead each thread drains a queue of pending bot turns in a
# loop, so a whole game of bots runs at constant stack depth.
_eager = threading.local()


def _bot_turn_register(game: Game, seats: list[Seat]) -> None:
    if game.status != GameStatus.ACTIVE or game.to_act is None:
        return
    if not seats[game.to_act].is_bot:
        return
    game_id, version = game.pk, game.version
    transaction.on_commit(lambda: bot_turn_schedule(game_id, version))


def bot_turn_schedule(game_id: int, version: int) -> None:
    """Have the bot to act in ``game_id`` play its turn at ``version`` (idempotent by version)."""
    if not celery_app.conf.task_always_eager:
        _bot_turn_send(game_id, version)
        return
    queue: deque[tuple[int, int]] | None = getattr(_eager, "queue", None)
    if queue is not None:  # a bot turn of this thread is running: its successor waits in line
        queue.append((game_id, version))
        return
    queue = _eager.queue = deque([(game_id, version)])
    try:
        while queue:
            gid, ver = queue.popleft()
            _bot_turn_send(gid, ver)
    finally:
        _eager.queue = None


def _bot_turn_send(game_id: int, version: int) -> None:
    try:
        from bots.tasks import bot_turn_play
    except ImportError:  # without the bots app the built-in bot plays, in-process
        bot_action_apply(game_id, version)
        return
    if celery_app.conf.task_always_eager:
        bot_turn_play.delay(game_id, version)
        return
    try:
        bot_turn_play.delay(game_id, version)
    except Exception:  # the move is committed; bots.tasks.bot_turns_sweep sends this turn again
        logger.exception("could not send the bot turn of game %s at %s", game_id, version)


# A simple legal bot: the first legal action of the most productive kind.
FALLBACK_PREFERENCE = (
    "take_pile",
    "meld",
    "draw",
    "answer_partner",
    "discard",
    "decline_pile",
    "end_round",
    "ask_partner",
)


def bot_fallback_choose(state: GameState) -> dict[str, Any]:
    """The built-in bot's choice: take the pile or meld when it can, else draw / discard."""
    options = legal_actions(state)
    best = min(options, key=lambda a: FALLBACK_PREFERENCE.index(a.type))
    return action_to_dict(best)


def bot_action_apply(
    game_id: int, version: int, action: dict[str, Any] | None = None
) -> ActionResult | None:
    """Play the bot seat to act at ``version``: ``action`` (a policy's choice) or the fallback.

    Idempotent: returns None and changes nothing when the game has moved past ``version``, is
    not being played, or a human is to act (a redelivered or duplicated task).
    """
    with transaction.atomic():
        game = _game_lock(game_id)
        if game.status != GameStatus.ACTIVE or game.version != version or game.to_act is None:
            return None
        seat = game.seats.get(index=game.to_act)
        if not seat.is_bot:
            return None
        if action is None:
            action = bot_fallback_choose(GameState.from_dict(game.snapshot or {}))
        return game_action_apply(
            game_id=game_id,
            seat=seat.index,
            action=action,
            expected_version=version,
            source=EventSource.BOT,
        )
