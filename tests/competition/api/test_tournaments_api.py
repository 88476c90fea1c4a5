"""Tournaments over HTTP: an organiser runs a Swiss event that people and bots play through
the API; refusals change nothing; reviewed and bulk pairings; entry rules; a duplicate's
games stay hidden until its deal set is revealed."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest
from asgiref.sync import async_to_sync, sync_to_async
from django.test import AsyncClient
from django.utils import timezone

from accounts import scopes
from accounts.models import Player
from competition.models import TableStatus, Tournament, TournamentEntry, TournamentTable
from competition.services.tournament_rounds import tournaments_sweep
from tests.accounts.api.test_scopes import token_client
from tests.accounts.services.test_friends import befriend
from tests.games.api.conftest import PlayerClient, move, problem
from tests.games.api.schema_check import check_response
from tests.games.services.timers.clock import fake_clock

pytestmark = pytest.mark.django_db(transaction=True)

QUICK = {"preset": "two_player", "options": {"target_score": 1000}, "bot_level": "easy"}


def create(client: PlayerClient, **body: Any) -> dict[str, Any]:
    response = client.post(
        "/api/v1/tournaments/", {"name": "Club night", **QUICK, **body}, format="json"
    )
    assert response.status_code == 201, response.content
    return response.json()


def post(client: PlayerClient, path: str, body: dict[str, Any] | None = None) -> Any:
    return client.post(f"/api/v1/tournaments/{path}", body or {}, format="json")


def ok(response: Any, status: int = 200) -> dict[str, Any]:
    assert response.status_code == status, response.content
    return response.json()


def play_out(t_id: int, humans: list[PlayerClient], limit: int = 5000) -> None:
    """Each person plays their tournament games (simple legal moves) until the event ends."""
    for _ in range(limit):
        if Tournament.objects.get(pk=t_id).status == "finished":
            return
        moved = False
        for client in humans:
            nxt = ok(client.get(f"/api/v1/tournaments/{t_id}/next-game/"))
            table = nxt["table"]
            if table is None or table["game_id"] is None:
                continue
            game = client.game(table["game_id"])
            if game["status"] == "active" and game["state"]["to_act"] == game["your_seat"]:
                move(client, table["game_id"])
                moved = True
        if not moved:
            tournaments_sweep()
    raise AssertionError("the event did not end")


def test_an_organiser_runs_a_swiss_that_people_and_bots_play_through_the_api(
    make_player: Callable[..., PlayerClient],
) -> None:
    org, bob, cy = make_player("Org"), make_player("Bob"), make_player("Cy")
    t = create(org, format="swiss", rounds=2, description="Two rounds")
    assert t["status"] == "draft" and t["version"] == 1
    # A draft is the organiser's alone.
    problem(bob.get(f"/api/v1/tournaments/{t['id']}/"), 404, "not_found")
    ok(post(org, f"{t['id']}/entry/open/"))
    for player in (bob, cy):
        body = ok(post(player, f"{t['id']}/registration/"), 201)
        assert body["your_entry"]["players"] == [player.player_id]
    ok(post(org, f"{t['id']}/bots/", {"count": 2, "level": "easy"}))
    started = ok(post(org, f"{t['id']}/start/"))
    assert started["status"] == "running" and started["current_round"] == 1
    tables = ok(org.get(f"/api/v1/tournaments/{t['id']}/tables/"))
    assert tables["total"] == 2
    assert sorted(e["entry"] for r in tables["results"] for s in r["sides"] for e in s) == sorted(
        e["id"] for e in ok(org.get(f"/api/v1/tournaments/{t['id']}/standings/"))["results"]
    )
    play_out(t["id"], [bob, cy])
    standings = ok(org.get(f"/api/v1/tournaments/{t['id']}/standings/"))
    assert standings["status"] == "finished" and standings["total"] == 4
    assert [r["rank"] for r in standings["results"]] == [1, 2, 3, 4]
    assert sum(r["points"] for r in standings["results"]) == pytest.approx(4.0)
    points = [r["points"] for r in standings["results"]]
    assert points == sorted(points, reverse=True)
    log = ok(org.get(f"/api/v1/tournaments/{t['id']}/log/?limit=500"))
    kinds = [f["type"] for f in log["facts"]]
    assert kinds[0] == "created" and kinds[-1] == "finished"
    assert kinds.count("registered") == 4 and kinds.count("round_paired") == 2
    assert kinds.count("game_finished") == 4 and kinds.count("result") == 4
    verify = ok(bob.get(f"/api/v1/tournaments/{t['id']}/verify/"))
    assert verify["ok"] is True and verify["mismatched"] == [] and verify["facts"] == len(kinds)


def test_refusals_have_codes_and_change_nothing(make_player: Callable[..., PlayerClient]) -> None:
    org, bob = make_player("Org"), make_player("Bob")
    bad = org.post("/api/v1/tournaments/", {"name": "X", "format": "swiss", **QUICK}, format="json")
    assert problem(bad, 422, "tournament_setup_invalid")["setting"] == "rounds"
    pairs = org.post(
        "/api/v1/tournaments/",
        {"name": "X", "format": "swiss", "rounds": 2, "unit": "pair", **QUICK},
        format="json",
    )
    assert problem(pairs, 422, "tournament_setup_invalid")["setting"] == "unit"
    t = create(org, format="swiss", rounds=2)
    problem(post(bob, f"{t['id']}/entry/open/"), 404, "not_found")  # a draft: unseen
    ok(post(org, f"{t['id']}/entry/open/"))
    problem(post(bob, f"{t['id']}/entry/close/"), 403, "not_tournament_organiser")
    ok(post(bob, f"{t['id']}/registration/"), 201)
    before = Tournament.objects.get(pk=t["id"]).version
    problem(post(bob, f"{t['id']}/registration/"), 409, "already_registered")
    problem(post(org, f"{t['id']}/start/"), 409, "entrants_too_few")
    body = problem(post(org, f"{t['id']}/rounds/"), 409, "tournament_wrong_status")
    assert body["tournament_status"] == "open"
    assert Tournament.objects.get(pk=t["id"]).version == before
    # A token without tournament:write organises nothing; with it, it does.
    player_only = token_client(org, scopes.PLAY)
    refused = player_only.post(
        "/api/v1/tournaments/", {"name": "Y", "format": "arena", **QUICK}, format="json"
    )
    assert problem(refused, 403, "insufficient_scope")["needed"] == [scopes.TOURNAMENT_WRITE]
    organiser = token_client(org, scopes.TOURNAMENT_WRITE)
    made = organiser.post(
        "/api/v1/tournaments/",
        {"name": "Y", "format": "knockout", **QUICK},
        format="json",
    )
    assert made.status_code == 201, made.content


def test_an_organisers_unfinished_events_hold_a_limited_number_of_bots(
    make_player: Callable[..., PlayerClient], settings: Any
) -> None:
    """Bots entered 1,024 a call would otherwise fill the bulk queue with bot-only tables."""
    settings.TOURNAMENT_BOTS_ACTIVE_MAX = 6
    org, other = make_player("Org"), make_player("Other")
    first, second = create(org, format="swiss", rounds=2), create(org, format="knockout")
    ok(post(org, f"{first['id']}/bots/", {"count": 4, "level": "easy"}))
    before = Tournament.objects.get(pk=second["id"]).version
    refused = post(org, f"{second['id']}/bots/", {"count": 3, "level": "easy"})
    assert problem(refused, 409, "tournament_bots_limit")["detail"].startswith(
        "Your unfinished tournaments may have 6 bot entrants"
    )
    assert Tournament.objects.get(pk=second["id"]).version == before
    assert not TournamentEntry.objects.filter(tournament_id=second["id"]).exists()
    ok(post(org, f"{second['id']}/bots/", {"count": 2, "level": "easy"}))  # up to the limit
    problem(
        post(org, f"{second['id']}/bots/", {"count": 1, "level": "easy"}),
        409,
        "tournament_bots_limit",
    )
    # Another organiser's quota is their own; a cancelled event frees its places.
    theirs = create(other, format="swiss", rounds=2)
    ok(post(other, f"{theirs['id']}/bots/", {"count": 6, "level": "easy"}))
    ok(post(org, f"{first['id']}/cancel/"))
    ok(post(org, f"{second['id']}/bots/", {"count": 4, "level": "easy"}))


def test_creating_tournaments_is_rate_limited_per_organiser(
    make_player: Callable[..., PlayerClient], rates: Callable[..., None]
) -> None:
    rates(tournament_create="2/hour")
    org, other = make_player("Org"), make_player("Other")
    create(org, format="knockout")
    create(org, format="knockout")
    assert org.get("/api/v1/tournaments/?mine=true").status_code == 200  # reads are not counted
    count = Tournament.objects.count()
    refused = org.post(
        "/api/v1/tournaments/", {"name": "Third", "format": "knockout", **QUICK}, format="json"
    )
    assert problem(refused, 429, "throttled")["retry_after"] > 0
    assert int(refused["Retry-After"]) >= 1
    assert Tournament.objects.count() == count
    create(other, format="knockout")


def test_reviewed_pairings_wait_for_publishing_and_bulk_pairings_for_their_time(
    make_player: Callable[..., PlayerClient], monkeypatch: pytest.MonkeyPatch
) -> None:
    clock = fake_clock(monkeypatch)
    org = make_player("Org")
    t = create(org, format="swiss", rounds=3, pairing_review=True)
    ok(post(org, f"{t['id']}/entry/open/"))
    ok(post(org, f"{t['id']}/bots/", {"count": 4, "level": "easy"}))
    ok(post(org, f"{t['id']}/start/"))
    proposed = TournamentTable.objects.filter(tournament_id=t["id"], round=1)
    assert {r.status for r in proposed} == {TableStatus.PROPOSED}
    assert all(r.game_id is None for r in proposed)
    problem(post(org, f"{t['id']}/rounds/"), 409, "round_in_progress")
    ok(post(org, f"{t['id']}/rounds/discard/"))
    assert not TournamentTable.objects.filter(tournament_id=t["id"]).exists()
    # Bulk pairing of named entries, dealt at a time given.
    entries = [e["id"] for e in ok(org.get(f"/api/v1/tournaments/{t['id']}/standings/"))["results"]]
    due = clock.now + timedelta(minutes=10)
    made = ok(
        post(
            org,
            f"{t['id']}/rounds/",
            {
                "tables": [[[entries[0]], [entries[3]]], [[entries[1]], [entries[2]]]],
                "due_at": due.isoformat(),
            },
        ),
        201,
    )
    assert [t_["status"] for t_ in made["tables"]] == ["pending", "pending"]
    tournaments_sweep()
    assert TournamentTable.objects.filter(tournament_id=t["id"], game__isnull=False).count() == 0
    twice = post(org, f"{t['id']}/rounds/", {"tables": [[[entries[0]], [entries[0]]]]})
    problem(twice, 409, "round_in_progress")
    clock.to(due + timedelta(seconds=1))
    tournaments_sweep()
    dealt = TournamentTable.objects.filter(tournament_id=t["id"], round=1)
    assert all(r.game_id is not None for r in dealt)
    assert {(r.sides[0][0], r.sides[1][0]) for r in dealt} == {
        (entries[0], entries[3]),
        (entries[1], entries[2]),
    }
    # Round 2 is proposed by itself when round 1 ends, and published by the organiser.
    tournaments_sweep()
    assert {r.status for r in TournamentTable.objects.filter(tournament_id=t["id"], round=2)} == {
        TableStatus.PROPOSED
    }
    ok(post(org, f"{t['id']}/rounds/publish/"))
    assert all(
        r.game_id is not None
        for r in TournamentTable.objects.filter(tournament_id=t["id"], round=2)
    )


def test_entry_rules_admit_only_those_they_name(make_player: Callable[..., PlayerClient]) -> None:
    org, bob, cy = make_player("Org"), make_player("Bob"), make_player("Cy")
    invited = create(
        org,
        format="arena",
        ends_at=(timezone.now() + timedelta(hours=1)).isoformat(),
        invitation_only=True,
    )
    ok(post(org, f"{invited['id']}/entry/open/"))
    problem(post(bob, f"{invited['id']}/registration/"), 403, "entry_not_allowed")
    assert ok(post(org, f"{invited['id']}/invites/", {"players": [bob.player_id]}))["added"] == 1
    ok(post(bob, f"{invited['id']}/registration/"), 201)
    friends = create(org, format="swiss", rounds=1, friends_only=True)
    ok(post(org, f"{friends['id']}/entry/open/"))
    problem(post(cy, f"{friends['id']}/registration/"), 403, "entry_not_allowed")
    befriend(Player.objects.get(pk=org.player_id), Player.objects.get(pk=cy.player_id))
    ok(post(cy, f"{friends['id']}/registration/"), 201)
    rated = create(org, format="swiss", rounds=1, rating_min=1200)
    ok(post(org, f"{rated['id']}/entry/open/"))
    problem(post(cy, f"{rated['id']}/registration/"), 403, "entry_not_allowed")
    full = create(org, format="knockout", max_entries=2)
    ok(post(org, f"{full['id']}/entry/open/"))
    ok(post(bob, f"{full['id']}/registration/"), 201)
    ok(post(cy, f"{full['id']}/registration/"), 201)
    problem(post(org, f"{full['id']}/registration/"), 409, "tournament_full")
    # Pairs: the partner must be a friend.
    pairs = create(org, format="swiss", rounds=1, unit="pair", preset="classic")
    ok(post(org, f"{pairs['id']}/entry/open/"))
    lonely = post(bob, f"{pairs['id']}/registration/", {"partner": cy.player_id})
    assert problem(lonely, 422, "tournament_setup_invalid")["setting"] == "partner"
    body = ok(post(org, f"{pairs['id']}/registration/", {"partner": cy.player_id}), 201)
    assert body["your_entry"]["players"] == [org.player_id, cy.player_id]
    problem(
        post(cy, f"{pairs['id']}/registration/", {"partner": org.player_id}),
        409,
        "already_registered",
    )


def test_a_duplicate_board_stays_hidden_until_the_deal_set_is_revealed(
    make_player: Callable[..., PlayerClient],
) -> None:
    org, bob, cy = make_player("Org"), make_player("Bob"), make_player("Cy")
    ends = timezone.now() + timedelta(hours=1)
    t = create(org, format="duplicate", robot=True, boards_per_round=1, ends_at=ends.isoformat())
    assert len(t["deal_commitment"]) == 64 and t["deal_seeds"] is None
    ok(post(org, f"{t['id']}/entry/open/"))
    ok(post(bob, f"{t['id']}/registration/"), 201)
    ok(post(org, f"{t['id']}/start/"))
    ok(post(cy, f"{t['id']}/registration/"), 201)  # late entry while the day is open
    games = {
        c.player_id: ok(c.get(f"/api/v1/tournaments/{t['id']}/next-game/"))["table"]["game_id"]
        for c in (bob, cy)
    }
    # Bob gives up his board; Cy still plays the same cards.
    ok(bob.post(f"/api/v1/games/{games[bob.player_id]}/concede/", {}, format="json"))
    finished = bob.game(games[bob.player_id])
    assert finished["status"] == "finished" and finished["seed"] is None
    replay = ok(bob.get(f"/api/v1/games/{games[bob.player_id]}/replay/"))
    assert replay["full_information"] is False and replay["hands"] is None
    fairness = ok(bob.get(f"/api/v1/games/{games[bob.player_id]}/fairness/"))
    assert fairness["seed"] is None and fairness["revealed"] is False
    problem(cy.get(f"/api/v1/games/{games[bob.player_id]}/"), 404, "not_found")  # private
    # Bob's result (a score tells of the cards) is hidden from Cy, who has the board to play,
    # and from the organiser; Bob, who played it, sees it.
    base = f"/api/v1/tournaments/{t['id']}"

    def bobs_table(client: PlayerClient) -> dict[str, Any]:
        rows = ok(client.get(f"{base}/tables/"))["results"]
        return next(r for r in rows if r["game_id"] == games[bob.player_id])

    def bobs_fact(client: PlayerClient) -> dict[str, Any]:
        facts = ok(client.get(f"{base}/log/"))["facts"]
        return next(f["payload"] for f in facts if f["type"] == "game_finished")

    def bobs_board_row(client: PlayerClient) -> dict[str, Any]:
        rows = ok(client.get(f"{base}/boards/"))["boards"][0]["tables"]
        return next(r for r in rows if r["game_id"] == games[bob.player_id])

    for viewer in (cy, org):
        for row in (bobs_table(viewer), bobs_board_row(viewer), bobs_fact(viewer)):
            assert (row["scores"], row["winner_side"], row["result_hidden"]) == (None, None, True)
    seen = bobs_table(bob)
    assert seen["result_hidden"] is False and seen["winner_side"] == 1
    assert bobs_fact(bob)["scores"] == seen["scores"] == bobs_board_row(bob)["scores"]
    tournaments_sweep(now=ends + timedelta(seconds=1))  # the day is over; Cy still plays
    assert ok(org.get(f"/api/v1/tournaments/{t['id']}/"))["deal_seeds"] is None
    ok(cy.post(f"/api/v1/games/{games[cy.player_id]}/concede/", {}, format="json"))
    tournaments_sweep(now=ends + timedelta(seconds=2))
    body = ok(org.get(f"/api/v1/tournaments/{t['id']}/"))
    assert body["status"] == "finished" and len(body["deal_seeds"]) == 1
    seed = body["deal_seeds"][0]
    for player_id, game_id in games.items():
        client = bob if player_id == bob.player_id else cy
        assert client.game(game_id)["seed"] == seed
        fair = ok(client.get(f"/api/v1/games/{game_id}/fairness/"))
        assert fair["verified"] is True
    boards = ok(org.get(f"/api/v1/tournaments/{t['id']}/boards/"))
    assert boards["revealed"] and boards["boards"][0]["seed"] == seed
    assert bobs_table(cy)["scores"] == seen["scores"] and bobs_fact(org)["winner_side"] == 1
    assert len(boards["boards"][0]["tables"]) == 2
    assert ok(org.get(f"/api/v1/tournaments/{t['id']}/verify/"))["deals_verified"] is True


def test_a_standings_long_poll_answers_when_the_event_moves_on(
    make_player: Callable[..., PlayerClient], settings: Any
) -> None:
    settings.LIVE_WAIT_MAX_SECONDS = 20
    settings.TOURNAMENT_SWEEP_SECONDS = 600  # only the entry's wake-up can end the wait early
    org, bob = make_player("Org"), make_player("Bob")
    t = create(org, format="swiss", rounds=1)
    ok(post(org, f"{t['id']}/entry/open/"))
    version = ok(org.get(f"/api/v1/tournaments/{t['id']}/standings/"))["version"]
    path = f"/api/v1/tournaments/{t['id']}/standings/"

    async def scenario() -> tuple[Any, float, bool]:
        client = AsyncClient()
        started = time.monotonic()
        poll = asyncio.ensure_future(
            client.get(
                path,
                {"after_version": version, "wait": 20},
                headers={"Authorization": f"Token {org.token}"},
            )
        )
        await asyncio.sleep(0.5)
        waiting = not poll.done()
        joined = await sync_to_async(post)(bob, f"{t['id']}/registration/")
        assert joined.status_code == 201
        response = await asyncio.wait_for(poll, 25)
        return response, time.monotonic() - started, waiting

    response, took, waiting = async_to_sync(scenario)()
    assert waiting, "the long-poll answered before anything changed"
    check_response("GET", path, response)
    body = response.json()
    assert body["version"] == version + 1 and body["total"] == 1
    assert body["results"][0]["players"] == [bob.player_id]
    assert took < 10, "woken by the registration, not by the 20 s time-out"


def test_a_waiting_standings_long_poll_holds_one_of_the_players_live_connections(
    make_player: Callable[..., PlayerClient], settings: Any
) -> None:
    """At the cap of live connections, one more waiting long-poll is refused (429 with
    Retry-After); a read that does not wait is not counted; the place is freed after."""
    settings.LIVE_WAIT_MAX_SECONDS = 20
    settings.LIVE_CONNECTIONS_PER_PLAYER_MAX = 1
    org = make_player("Org")
    t = create(org, format="swiss", rounds=1)
    path = f"/api/v1/tournaments/{t['id']}/standings/"
    version = ok(org.get(path))["version"]
    auth = {"Authorization": f"Token {org.token}"}

    async def scenario() -> tuple[Any, Any, Any, Any]:
        client = AsyncClient()
        held = asyncio.ensure_future(
            client.get(path, {"after_version": version, "wait": 2}, headers=auth)
        )
        await asyncio.sleep(0.5)
        assert not held.done()
        over = await client.get(path, {"after_version": version, "wait": 2}, headers=auth)
        at_once = await client.get(path, headers=auth)
        first = await asyncio.wait_for(held, 10)
        again = await client.get(path, {"after_version": version, "wait": 1}, headers=auth)
        return over, at_once, first, again

    over, at_once, first, again = async_to_sync(scenario)()
    body = problem(over, 429, "too_many_live_connections")
    assert int(over["Retry-After"]) >= 1 and body["retry_after"] >= 1
    assert at_once.status_code == 200 and first.status_code == 200
    assert again.status_code == 200, again.content
