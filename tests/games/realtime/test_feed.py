"""The feed of a game in one process (games/realtime/feed.py): one read per change whatever
the number of followers, items redacted once per kind of viewer and shared, every item once
and in order from any cursor, muted chat per follower, a delayed spectator's horizon, and a
follower whose seat changes re-joining as its new kind of viewer."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from functools import partial
from typing import Any

import pytest
from asgiref.sync import async_to_sync, sync_to_async
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.models import Game
from games.realtime.feed import End, Subscriber, Sync, feeds_stop, follow, subscribe
from games.selectors.live import Cursor, LiveItem
from tests.games.api.conftest import PlayerClient, create_game, move, to_act
from tests.games.api.test_leak import cards_in, states_of, visible, within
from tests.games.services.table.conftest import two_player_game

pytestmark = pytest.mark.django_db(transaction=True)


def run(scenario: Callable[[], Awaitable[Any]]) -> Any:
    """Run ``scenario`` on a loop of its own, stopping the feeds it started before the loop
    closes (a feed left to the loop's closing would end only when idle)."""

    async def then_stop() -> Any:
        try:
            return await scenario()
        finally:
            await feeds_stop()

    return async_to_sync(then_stop)()


async def _until(sub: Subscriber, count: int) -> list[LiveItem]:
    """Take from ``sub`` until ``count`` items came (bounded)."""
    got: list[LiveItem] = []
    for _ in range(50):
        got += sub.take()
        if len(got) >= count:
            return got
        await sub.wait(0.2)
    return got


def _dealt_hand(item: LiveItem) -> bool:
    """The item shows its viewer a hand dealt (the private part of ``round_started``)."""
    return any(
        e.get("kind") == "round_started" and "hand" in e for e in item.data["event"]["effects"]
    )


def test_many_followers_one_read_per_move_and_shared_items(
    ada: PlayerClient, bob: PlayerClient, make_player: Any
) -> None:
    game_id = two_player_game(ada, bob)
    watchers = [make_player(f"W{i}") for i in range(3)]

    async def scenario() -> None:
        version = (await sync_to_async(ada.game)(game_id))["version"]
        at = Cursor(version, 0)
        subs = [await subscribe(game_id, p.player_id, at) for p in [ada, bob] * 10]
        subs += [await subscribe(game_id, w.player_id, at) for w in watchers * 5]
        feed = subs[0].feed
        assert all(s.feed is feed for s in subs)
        reads = feed.reads
        actor = await sync_to_async(to_act)([ada, bob], game_id)
        await sync_to_async(move)(actor, game_id)
        got = [await _until(s, 1) for s in subs]
        assert all(len(g) == 1 and g[0].data["version"] == version + 1 for g in got)
        assert feed.reads - reads <= 2, "one read per change, not one per follower"
        # one object per kind of viewer: ada's, bob's, the spectators'
        assert len({id(g[0]) for g in got}) == 3
        for s in subs:
            s.leave()

    run(scenario)


def test_no_item_shows_a_card_its_viewer_could_not_see(
    ada: PlayerClient, bob: PlayerClient, make_player: Any
) -> None:
    """The leak scanner's check (tests/games/api/test_leak.py) on what the feed gives each kind of
    viewer: every card an item names was on the table, in the viewer's hand, in the action
    or shown at a round's end."""
    game_id = two_player_game(ada, bob)
    eve = make_player("Eve")
    for _ in range(6):
        move(to_act([ada, bob], game_id), game_id)
    game = Game.objects.get(pk=game_id)
    truth = {
        event.seq: (event, before, after, shown) for event, before, after, shown in states_of(game)
    }

    async def received(player_id: int) -> list[LiveItem]:
        frames = follow(game_id, player_id, Cursor(), 0)
        return [f async for f in frames if isinstance(f, LiveItem)]

    for player_id in [ada.player_id, bob.player_id, eve.player_id]:
        viewer = next((e["index"] for e in game.seating if e["player"] == player_id), None)
        items = run(partial(received, player_id))
        assert [i.data["event"]["seq"] for i in items] == list(range(1, game.version + 1))
        for item in items:
            event, before, after, shown = truth[item.data["event"]["seq"]]
            allowed = visible(before, viewer) | visible(after, viewer) | shown
            allowed |= cards_in(event.payload)
            for effect in item.data["event"]["effects"]:
                assert not within(cards_in(effect), allowed), (viewer, event.seq, effect)
        assert _dealt_hand(items[0]) is (viewer is not None)


@settings(
    max_examples=10,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(data=st.data())
def test_from_any_cursor_every_item_once_in_order(
    ada: PlayerClient, bob: PlayerClient, data: st.DataObject
) -> None:
    """Followers joining at random cursors while moves and chat happen each receive exactly
    what a fresh read from their cursor gives, once, in order."""
    game_id = two_player_game(ada, bob)
    step = st.tuples(
        st.sampled_from(["move", "chat", "join"]), st.integers(0, 100), st.integers(0, 3)
    )
    plan = data.draw(st.lists(step, min_size=3, max_size=8))

    async def scenario() -> None:
        subs: list[tuple[Cursor, Subscriber, list[LiveItem]]] = []
        chats = 0
        for step, share, number in plan:
            if step == "move":
                actor = await sync_to_async(to_act)([ada, bob], game_id)
                await sync_to_async(move)(actor, game_id)
            elif step == "chat":
                who = [ada, bob][number % 2]
                chats += 1
                await sync_to_async(who.post)(
                    f"/api/v1/games/{game_id}/chat/", {"phrase": "hello"}, format="json"
                )
            else:
                game = await sync_to_async(ada.game)(game_id)
                # a cursor a client can hold: at most what exists of each log
                start = Cursor(game["version"] * share // 100, min(number, chats))
                sub = await subscribe(game_id, ada.player_id, start)
                subs.append((start, sub, []))
            for _, sub, got in subs:
                got += sub.take()
        for start, sub, got in subs:
            frames = follow(game_id, ada.player_id, start, 0)
            fresh = [f for f in [f async for f in frames] if isinstance(f, LiveItem)]
            for _ in range(50):
                got += sub.take()
                if len(got) >= len(fresh):
                    break
                await sub.wait(0.1)
            sub.leave()
            assert [i.id for i in got] == [i.id for i in fresh], start
            assert [i.data for i in got] == [i.data for i in fresh]

    run(scenario)


def test_muted_chat_is_dropped_for_who_muted_only(ada: PlayerClient, bob: PlayerClient) -> None:
    game_id = two_player_game(ada, bob)
    bob_seat = bob.game(game_id)["your_seat"]
    assert (
        ada.post(
            f"/api/v1/games/{game_id}/chat/mute/", {"seat": bob_seat, "muted": True}, format="json"
        ).status_code
        == 200
    )

    async def scenario() -> tuple[list[LiveItem], list[LiveItem]]:
        version = (await sync_to_async(ada.game)(game_id))["version"]
        a = await subscribe(game_id, ada.player_id, Cursor(version, 0))
        b = await subscribe(game_id, bob.player_id, Cursor(version, 0))
        await sync_to_async(bob.post)(
            f"/api/v1/games/{game_id}/chat/", {"phrase": "oops"}, format="json"
        )
        await sync_to_async(ada.post)(
            f"/api/v1/games/{game_id}/chat/", {"phrase": "thanks"}, format="json"
        )
        got_b = await _until(b, 2)
        got_a = await _until(a, 1)
        a.leave()
        b.leave()
        return got_a, got_b

    got_a, got_b = run(scenario)
    assert [i.data["event"]["data"]["phrase"] for i in got_b] == ["oops", "thanks"]
    assert [i.data["event"]["data"]["phrase"] for i in got_a] == ["thanks"]
    assert got_a[0].id == got_b[1].id, "the cursor moved past the muted message"


def test_a_delayed_spectator_gets_moves_that_many_late(ada: PlayerClient, make_player: Any) -> None:
    game = create_game(ada, preset="two_player", seat=0, bots=[{"seat": 1, "level": "easy"}])
    game_id = game["id"]
    ada.patch(f"/api/v1/games/{game_id}/table/", {"spectator_delay": 3}, format="json")
    ada.post(f"/api/v1/games/{game_id}/start/", {}, format="json")
    eve = make_player("Eve")

    async def scenario() -> tuple[int, int, int]:
        sub = await subscribe(game_id, eve.player_id, Cursor())
        for _ in range(5):
            await sync_to_async(move)(ada, game_id)
        live = (await sync_to_async(ada.game)(game_id))["version"]
        got: list[LiveItem] = []
        for _ in range(40):
            got += [i for i in sub.take() if i.name == "game_event"]
            if got and got[-1].data["version"] >= live - 3:
                break
            await sub.wait(0.1)
        await sub.wait(0.5)  # nothing beyond the horizon follows
        got += [i for i in sub.take() if i.name == "game_event"]
        sub.leave()
        return got[-1].data["version"], live, len({i.id for i in got})

    last_seen, live, distinct = run(scenario)
    assert last_seen == live - 3
    assert distinct == last_seen, "every move up to the horizon, once"


def test_a_follower_who_sits_down_follows_as_a_seat(ada: PlayerClient, bob: PlayerClient) -> None:
    game = create_game(ada, preset="two_player", seat=0)
    game_id = game["id"]

    async def scenario() -> list[Any]:
        frames = follow(game_id, bob.player_id, Cursor(), 20)
        assert isinstance(await anext(frames), Sync)
        await sync_to_async(bob.post)(f"/api/v1/games/{game_id}/join/", {}, format="json")
        await sync_to_async(ada.post)(f"/api/v1/games/{game_id}/start/", {}, format="json")
        got: list[Any] = []
        async for f in frames:
            got.append(f)
            if isinstance(f, LiveItem) and f.data["event"]["type"] == "game_started":
                break
        await frames.aclose()
        return got

    got = run(scenario)
    started = [
        f for f in got if isinstance(f, LiveItem) and f.data["event"]["type"] == "game_started"
    ]
    assert len(started) == 1
    assert _dealt_hand(started[0]), "the deal shows bob his own hand"


def test_the_game_ending_ends_every_follower(ada: PlayerClient, bob: PlayerClient) -> None:
    game_id = two_player_game(ada, bob)

    async def scenario() -> Any:
        frames = follow(game_id, bob.player_id, Cursor(10**6, 10**6), 20)
        assert isinstance(await anext(frames), Sync)
        await sync_to_async(ada.post)(f"/api/v1/games/{game_id}/concede/")
        last = None
        async for f in frames:
            last = f
        return last

    assert isinstance(run(scenario), End)


def test_a_client_ahead_in_one_log_gets_ids_from_its_own_position(
    ada: PlayerClient, bob: PlayerClient
) -> None:
    """A client that has the chat (``table_after=2``) but none of the moves joins while the
    feed has not read that chat yet: the moves it is sent are numbered from its position, as
    a fresh read from there numbers them, never below what it holds."""
    game_id = two_player_game(ada, bob)

    async def scenario() -> tuple[list[str], list[str]]:
        first = await subscribe(game_id, ada.player_id, Cursor(10**6, 10**6))
        for phrase in ("hello", "thanks"):
            await sync_to_async(ada.post)(
                f"/api/v1/games/{game_id}/chat/", {"phrase": phrase}, format="json"
            )
        sub = await subscribe(game_id, ada.player_id, Cursor(0, 2))
        got = await _until(sub, 1)
        sub.leave()
        first.leave()
        fresh = follow(game_id, ada.player_id, Cursor(0, 2), 0)
        expected = [f.id async for f in fresh if isinstance(f, LiveItem)]
        return [i.id for i in got], expected

    got, expected = run(scenario)
    assert got == expected == ["1-2"]


def test_silent_followers_hear_a_heartbeat_within_the_keepalive_from_one_shared_timer(
    ada: PlayerClient, bob: PlayerClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Followers that wait share one timer (no timer per wait); each hears ``Idle`` at most
    ``KEEPALIVE_SECONDS`` after its last frame, and not before ``KEEPALIVE_SECONDS -
    HEARTBEAT_TICK_SECONDS``."""
    import asyncio

    from games.realtime import feed

    monkeypatch.setattr(feed, "KEEPALIVE_SECONDS", 0.6)
    monkeypatch.setattr(feed, "HEARTBEAT_TICK_SECONDS", 0.2)
    game_id = two_player_game(ada, bob)

    async def scenario() -> tuple[list[list[float]], list[str]]:
        loop = asyncio.get_running_loop()
        version = (await sync_to_async(ada.game)(game_id))["version"]
        at = Cursor(version, 0)
        started = loop.time()
        gaps: list[list[float]] = [[] for _ in range(6)]

        async def follower(i: int) -> list[str]:
            kinds = []
            last = loop.time()
            async for followed in follow(game_id, (ada, bob)[i % 2].player_id, at, 3.0):
                kinds.append(type(followed).__name__)
                if isinstance(followed, feed.Idle):
                    gaps[i].append(loop.time() - last)
                last = loop.time()
                if len(gaps[i]) == 3:
                    return kinds
            return kinds

        tasks = [loop.create_task(follower(i)) for i in range(6)]
        await asyncio.sleep(0.3)
        beats = feed.heartbeats_of(loop)
        assert beats.timer is not None and len(beats.waiting) == 6  # six waits, one timer
        results = await asyncio.gather(*tasks)
        assert loop.time() - started < 3.0
        return gaps, [k for r in results for k in r][:3]

    gaps, kinds = run(scenario)
    assert kinds[0] == "Sync"
    for follower_gaps in gaps:
        assert len(follower_gaps) == 3
        assert all(0.35 <= g <= 0.75 for g in follower_gaps), follower_gaps
