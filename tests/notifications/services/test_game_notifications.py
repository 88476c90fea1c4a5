"""Who is notified of what, as a game is played (``notifications.services.game_notifications``): the
game started, your turn (after a player's, a bot's or the timer's move), your partner asks to
go out, a chat message, game over. Never a bot, never the player who acted, and nothing for a
move that was rolled back. The outbox writes a notification only for a player with an endpoint
(here an e-mail address)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.db import transaction

from accounts.models import Player
from accounts.services.players import player_create
from games.engine import GameState, action_to_dict, legal_actions, make_options
from games.models import Game, GameStatus
from games.services.actions import game_action_apply
from games.services.deadlines import TimerOptions
from games.services.lobby import BotSeatSpec, game_create, game_join, game_start
from games.services.table import chat_mute_set, chat_send, game_concede
from games.services.timers import turn_timers_sweep
from notifications.models import Notification, NotificationKind
from notifications.services.notifications import preferences_set
from tests.games.api.conftest import eager_bots  # noqa: F401 - fixture: bots play in-process
from tests.games.engine.position import position
from tests.games.services.timers.conftest import after_deadline, play_turn, timed_table

pytestmark = pytest.mark.django_db

# What a notification's payload holds: the common fields and its kind's public facts.
COMMON = {"kind", "player_id", "game_id", "game_version", "title", "text", "url"}


@pytest.fixture(autouse=True)
def nothing_delivered(monkeypatch: pytest.MonkeyPatch) -> None:
    """The tests check what the outbox writes; no delivery leaves after a commit."""
    monkeypatch.setattr("notifications.services.notifications.deliveries_send", lambda ids: None)


def reachable(*players: Player) -> None:
    for player in players:
        preferences_set(player.pk, email=f"{player.display_name.lower()}@example.com")


def told(game_id: int, since: int = 0) -> list[tuple[str, int, int | None]]:
    """(kind, player, event_seq) of the game's notifications after id ``since``, in order."""
    return list(
        Notification.objects.filter(game_id=game_id, pk__gt=since)
        .order_by("pk")
        .values_list("kind", "player_id", "event_seq")
    )


def last_id() -> int:
    return Notification.objects.order_by("-pk").values_list("pk", flat=True).first() or 0


def human_table(**timer: Any) -> tuple[Game, Player, Player]:
    """A started two-player game of Ada (seat 0) and Bob (seat 1), both reachable."""
    ada, bob = player_create(display_name="Ada")[0], player_create(display_name="Bob")[0]
    reachable(ada, bob)
    game = game_create(
        creator=ada,
        preset="two_player",
        seat=0,
        options={"target_score": 1000},
        timer=TimerOptions(**timer) if timer else None,
    )
    game_join(player=bob, game_id=game.pk)
    game_start(game_id=game.pk, player=ada)
    game.refresh_from_db()
    return game, ada, bob


# ============================================================================== game started
def test_the_start_is_told_to_every_seat_with_a_player_and_to_no_bot() -> None:
    game, ada, bob = human_table()
    assert sorted(told(game.pk)) == sorted(
        [
            (NotificationKind.GAME_STARTED, ada.pk, 1),
            (NotificationKind.GAME_STARTED, bob.pk, 1),
        ]
    )
    cy, dee = player_create(display_name="Cy")[0], player_create(display_name="Dee")[0]
    reachable(cy, dee)
    table = game_create(creator=cy, preset="classic", seat=0, bots=[BotSeatSpec(1), BotSeatSpec(3)])
    game_join(player=dee, game_id=table.pk, seat=2)
    game_start(game_id=table.pk, player=cy)
    assert sorted(p for _, p, _ in told(table.pk)) == sorted([cy.pk, dee.pk])
    note = Notification.objects.get(game_id=table.pk, player=dee)
    assert set(note.payload) == COMMON and note.payload["game_version"] == 1


# ============================================================================== your turn
def test_your_turn_goes_to_the_next_player_only_when_the_turn_passes() -> None:
    game, ada, bob = human_table(turn_seconds=3600)
    seat = game.to_act
    assert seat is not None
    actor, other = (ada, bob) if seat == 0 else (bob, ada)
    since = last_id()
    game_action_apply(
        game_id=game.pk, seat=seat, action={"type": "draw"}, expected_version=game.version
    )
    assert told(game.pk, since) == []  # the same turn goes on
    state = GameState.from_dict(Game.objects.get(pk=game.pk).snapshot or {})
    discard = next(a for a in legal_actions(state) if a.type == "discard")
    game.refresh_from_db()
    game_action_apply(
        game_id=game.pk,
        seat=seat,
        action=action_to_dict(discard),
        expected_version=game.version,
        player=actor,
    )
    game.refresh_from_db()
    assert told(game.pk, since) == [(NotificationKind.YOUR_TURN, other.pk, game.version)]
    note = Notification.objects.get(game=game, kind=NotificationKind.YOUR_TURN)
    assert set(note.payload) == COMMON | {"deadline"}  # public facts only: no card
    assert game.turn_deadline is not None
    assert note.payload["deadline"] == game.turn_deadline.isoformat()
    assert note.payload["url"].endswith(f"/#/game/{game.pk}")


def test_a_bots_move_tells_the_human_it_is_their_turn(
    django_capture_on_commit_callbacks: Callable[..., Any],
) -> None:
    ada = player_create(display_name="Ada")[0]
    reachable(ada)
    game = game_create(creator=ada, preset="two_player", seat=0, bots=[BotSeatSpec(1)])
    with django_capture_on_commit_callbacks(execute=True):
        game_start(game_id=game.pk, player=ada)
    for _ in range(3):
        game.refresh_from_db()
        assert game.to_act == 0
        since = last_id()
        with django_capture_on_commit_callbacks(execute=True):
            play_turn(game.pk, 0)  # the bot answers at once (eager)
        game.refresh_from_db()
        # after the bot's turn: one "your turn" for Ada, at the version the bot left
        assert told(game.pk, since) == [(NotificationKind.YOUR_TURN, ada.pk, game.version)]
        assert game.events.get(seq=game.version).source == "bot"
    assert {p for _, p, _ in told(game.pk)} == {ada.pk}


def test_the_timers_move_tells_the_next_player_and_not_the_absent_one() -> None:
    table = timed_table(turn_seconds=60)
    ada, bob = table.players
    reachable(ada, bob)
    game = table.game()
    absent = game.to_act
    assert absent is not None
    since = last_id()
    assert turn_timers_sweep(now=after_deadline(game)) == 1
    game.refresh_from_db()
    waiting = table.players[1 - absent]
    assert told(game.pk, since) == [(NotificationKind.YOUR_TURN, waiting.pk, game.version)]


# ============================================================================== go out
def _can_go_out_position(game_id: int, seat: int, *, scores: list[int] | None = None) -> None:
    """``seat`` (to play, after drawing) can go out: its team has the canastas it needs and its
    hand melds out with one discard (the snapshot is written: the game no longer replays)."""
    game = Game.objects.get(pk=game_id)
    options = make_options(game.preset, dict(game.options))
    hands = [""] * options.players
    hands[seat] = "5H 5S 5D 9C"
    team = seat % options.teams
    melds: list[dict[str, str]] = [{} for _ in range(options.teams)]
    melds[team] = {"K": "KC KC KD KD KH KH KS", "Q": "QC QC QD QD QH QH QS"}
    state = position(options, hands, pile="4D", turn=seat, phase="play", melds=melds, scores=scores)
    Game.objects.filter(pk=game_id).update(snapshot=state.to_dict(), to_act=seat)


def test_asking_to_go_out_tells_the_partner_and_the_answer_tells_the_asker(
    replay_unverified: None,
) -> None:
    ada, bob = player_create(display_name="Ada")[0], player_create(display_name="Bob")[0]
    reachable(ada, bob)
    game = game_create(creator=ada, preset="classic", seat=0, bots=[BotSeatSpec(1), BotSeatSpec(3)])
    game_join(player=bob, game_id=game.pk, seat=2)
    game_start(game_id=game.pk, player=ada)
    _can_go_out_position(game.pk, 0)
    game.refresh_from_db()
    since = last_id()
    game_action_apply(
        game_id=game.pk,
        seat=None,
        action={"type": "ask_partner"},
        expected_version=game.version,
        player=ada,
    )
    game.refresh_from_db()
    assert game.to_act == 2
    assert told(game.pk, since) == [(NotificationKind.GO_OUT_ASKED, bob.pk, game.version)]
    note = Notification.objects.get(game=game, kind=NotificationKind.GO_OUT_ASKED)
    assert "Ada" in note.payload["text"]
    since = last_id()
    game_action_apply(
        game_id=game.pk,
        seat=None,
        action={"type": "answer_partner", "allow": True},
        expected_version=game.version,
        player=bob,
    )
    game.refresh_from_db()
    assert told(game.pk, since) == [(NotificationKind.YOUR_TURN, ada.pk, game.version)]


# ============================================================================== chat
def test_a_chat_message_is_told_to_the_other_seated_players_who_did_not_hide_it() -> None:
    ada, bob, cy = (player_create(display_name=n)[0] for n in ("Ada", "Bob", "Cy"))
    reachable(ada, bob, cy)
    game = game_create(creator=ada, preset="three_player", seat=0)
    game_join(player=bob, game_id=game.pk, seat=1)
    game_join(player=cy, game_id=game.pk, seat=2)
    game_start(game_id=game.pk, player=ada)
    since = last_id()
    event = chat_send(game_id=game.pk, player=ada, phrase="good_luck")
    assert sorted(told(game.pk, since)) == sorted(
        [(NotificationKind.CHAT, bob.pk, event.seq), (NotificationKind.CHAT, cy.pk, event.seq)]
    )
    note = Notification.objects.get(game=game, kind=NotificationKind.CHAT, player=bob)
    assert note.payload["phrase"] == "good_luck" and set(note.payload) == COMMON | {"phrase"}
    chat_mute_set(game=game, player=cy, seat=0, muted=True)  # Cy hides Ada's chat
    since = last_id()
    event = chat_send(game_id=game.pk, player=ada, phrase="have_fun")
    assert told(game.pk, since) == [(NotificationKind.CHAT, bob.pk, event.seq)]
    since = last_id()
    event = chat_send(game_id=game.pk, player=cy, phrase="hello")  # Cy still speaks
    assert sorted(told(game.pk, since)) == sorted(
        [(NotificationKind.CHAT, ada.pk, event.seq), (NotificationKind.CHAT, bob.pk, event.seq)]
    )


# ============================================================================== game over
def test_a_concession_tells_the_others_the_game_is_over() -> None:
    game, ada, bob = human_table()
    since = last_id()
    game = game_concede(game_id=game.pk, player=ada)
    assert told(game.pk, since) == [(NotificationKind.GAME_OVER, bob.pk, game.version)]
    note = Notification.objects.get(game=game, kind=NotificationKind.GAME_OVER)
    assert note.payload["winner_team"] == 1 and "won" in note.payload["text"]


def test_an_abandonment_by_the_timer_tells_every_player() -> None:
    table = timed_table(turn_seconds=60, timeout_limit=1, timeout_outcome="abandon")
    ada, bob = table.players
    reachable(ada, bob)
    game = table.game()
    since = last_id()
    assert turn_timers_sweep(now=after_deadline(game)) == 1
    game.refresh_from_db()
    assert game.status == GameStatus.ABANDONED
    assert sorted(told(game.pk, since)) == sorted(
        [
            (NotificationKind.GAME_OVER, ada.pk, game.version),
            (NotificationKind.GAME_OVER, bob.pk, game.version),
        ]
    )
    assert "abandoned" in Notification.objects.filter(game=game).last().payload["text"]  # type: ignore[union-attr]


def test_the_last_move_tells_the_other_players_the_game_is_over(replay_unverified: None) -> None:
    game, ada, bob = human_table()
    _can_go_out_position(game.pk, 0, scores=[990, 0])
    since = last_id()
    for _ in range(4):  # meld the fives, discard the last card: out, and over the target
        game.refresh_from_db()
        if game.status != GameStatus.ACTIVE:
            break
        state = GameState.from_dict(game.snapshot or {})
        options = legal_actions(state)
        action = next((a for a in options if a.type == "meld"), None) or next(
            a for a in options if a.type == "discard"
        )
        game_action_apply(
            game_id=game.pk,
            seat=None,
            action=action_to_dict(action),
            expected_version=game.version,
            player=ada,
        )
    game.refresh_from_db()
    assert game.status == GameStatus.FINISHED and game.winner_team == 0
    assert told(game.pk, since) == [(NotificationKind.GAME_OVER, bob.pk, game.version)]


# ============================================================================== rollback
def test_a_rolled_back_move_tells_nobody() -> None:
    game, ada, bob = human_table()
    seat = game.to_act
    assert seat is not None
    since, version = last_id(), game.version
    with pytest.raises(RuntimeError), transaction.atomic():
        play_turn(game.pk, seat)  # would tell the other player it is their turn ...
        assert len(told(game.pk, since)) == 1
        raise RuntimeError("... but the transaction is rolled back")
    assert told(game.pk, since) == [] and Game.objects.get(pk=game.pk).version == version


def test_nobody_is_told_without_an_endpoint() -> None:
    ada, bob = player_create(display_name="Ada")[0], player_create(display_name="Bob")[0]
    game = game_create(creator=ada, preset="two_player", seat=0)
    game_join(player=bob, game_id=game.pk)
    game_start(game_id=game.pk, player=ada)
    game.refresh_from_db()
    assert game.to_act is not None
    play_turn(game.pk, game.to_act)
    chat_send(game_id=game.pk, player=ada, phrase="hello")
    game_concede(game_id=game.pk, player=bob)
    assert told(game.pk) == []
