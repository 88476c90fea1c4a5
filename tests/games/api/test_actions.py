"""POST /games/{id}/actions/, GET /games/{id}/events/ and GET /games/{id}/scorecard/."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from games.models import Game, GameEvent, IdempotencyRecord
from tests.games.api.conftest import PlayerClient, create_game, problem

pytestmark = pytest.mark.django_db


@pytest.fixture
def table(ada: PlayerClient, bob: PlayerClient) -> int:
    """A started two-player game: Ada (seat 0) is to draw at version 1."""
    game = create_game(ada, preset="two_player", options={"target_score": 1000})
    assert bob.post(f"/api/v1/games/{game['id']}/join/", {}, format="json").status_code == 200
    started = ada.post(f"/api/v1/games/{game['id']}/start/", {}, format="json").json()
    assert started["version"] == 1 and started["state"]["to_act"] == 0
    return int(game["id"])


def unchanged(game_id: int) -> Callable[[], None]:
    """A check that the game (version, snapshot, log) is as it is now."""
    before = Game.objects.get(pk=game_id)
    count = GameEvent.objects.filter(game_id=game_id).count()

    def check() -> None:
        after = Game.objects.get(pk=game_id)
        assert (after.version, after.snapshot) == (before.version, before.snapshot)
        assert GameEvent.objects.filter(game_id=game_id).count() == count

    return check


def test_a_legal_action_is_applied(ada: PlayerClient, table: int) -> None:
    response = ada.act(table, {"type": "draw"}, 1)
    assert response.status_code == 201, response.content
    body = response.json()
    assert body["event"]["seq"] == 2 and body["event"]["type"] == "draw"
    assert body["event"]["seat"] == 0 and body["event"]["payload"] == {"type": "draw"}
    drawn = next(e for e in body["event"]["effects"] if e["kind"] == "card_drawn")
    assert drawn["count"] == 2 and len(drawn["cards"]) == 2  # Ada sees her own draw
    assert body["game"]["version"] == 2 and body["game"]["state"]["phase"] == "play"
    assert ada.game(table)["version"] == 2


def test_stale_version_is_409_with_the_current_version(ada: PlayerClient, table: int) -> None:
    check = unchanged(table)
    body = problem(ada.act(table, {"type": "draw"}, 0), 409, "stale_version")
    assert body["current_version"] == 1
    check()


def test_not_your_turn_is_403(bob: PlayerClient, table: int) -> None:
    check = unchanged(table)
    problem(bob.act(table, {"type": "draw"}, 1), 403, "not_your_turn")
    check()


def test_a_spectator_cannot_act(make_player: Callable[..., PlayerClient], table: int) -> None:
    check = unchanged(table)
    problem(make_player("Eve").act(table, {"type": "draw"}, 1), 403, "not_seated")
    check()


@pytest.mark.parametrize(
    "action",
    [
        {"type": "fly"},
        {"type": "discard"},
        {"type": "discard", "card": "ZZ"},
        {"type": "draw", "extra": 1},
        "draw",
    ],
)
def test_unreadable_actions_are_400(ada: PlayerClient, table: int, action: Any) -> None:
    check = unchanged(table)
    problem(ada.act(table, action, 1), 400, "invalid_action")
    check()


def test_a_malformed_request_is_400(ada: PlayerClient, table: int) -> None:
    response = ada.post(
        f"/api/v1/games/{table}/actions/", {"action": {"type": "draw"}}, format="json"
    )
    body = problem(response, 400, "invalid_request")
    assert body["errors"][0]["field"] == "expected_version"


def test_an_illegal_action_is_422(ada: PlayerClient, table: int) -> None:
    check = unchanged(table)
    hand = ada.game(table)["state"]["hand"]
    problem(ada.act(table, {"type": "discard", "card": hand[0]}, 1), 422, "wrong_phase")
    check()
    assert ada.act(table, {"type": "draw"}, 1).status_code == 201
    natural = next(c for c in ada.game(table)["state"]["hand"] if c[0] not in "23" and c != "JK")
    problem(
        ada.act(table, {"type": "meld", "melds": [{"cards": [natural]}]}, 2), 422, "meld_too_small"
    )


def test_actions_before_the_start_are_409(ada: PlayerClient) -> None:
    game = create_game(ada)
    problem(ada.act(game["id"], {"type": "draw"}, 0), 409, "game_not_active")
    problem(ada.act(424242, {"type": "draw"}, 0), 404, "not_found")


def test_actions_after_the_end_are_422(
    ada: PlayerClient, table: int, replay_unverified: None
) -> None:
    Game.objects.filter(pk=table).update(status="finished")
    problem(ada.act(table, {"type": "draw"}, 1), 422, "game_over")


# ----------------------------------------------------------------------------- idempotency
def test_a_retry_with_the_same_key_returns_the_first_response(
    ada: PlayerClient, table: int
) -> None:
    first = ada.act(table, {"type": "draw"}, 1, **{"Idempotency-Key": "k-1"})
    assert first.status_code == 201
    again = ada.act(table, {"type": "draw"}, 1, **{"Idempotency-Key": "k-1"})
    assert again.status_code == 201
    assert again.json() == first.json()
    assert again["Idempotent-Replayed"] == "true"
    assert "Idempotent-Replayed" not in first
    assert GameEvent.objects.filter(game_id=table).count() == 2
    assert IdempotencyRecord.objects.count() == 1


def test_the_same_key_with_another_body_is_422(ada: PlayerClient, table: int) -> None:
    assert ada.act(table, {"type": "draw"}, 1, **{"Idempotency-Key": "k-2"}).status_code == 201
    check = unchanged(table)
    hand = ada.game(table)["state"]["hand"]
    response = ada.act(
        table, {"type": "discard", "card": hand[-1]}, 2, **{"Idempotency-Key": "k-2"}
    )
    problem(response, 422, "idempotency_key_reused")
    check()


def test_keys_belong_to_their_player(ada: PlayerClient, bob: PlayerClient, table: int) -> None:
    assert ada.act(table, {"type": "draw"}, 1, **{"Idempotency-Key": "same"}).status_code == 201
    hand = ada.game(table)["state"]["hand"]
    discard = ada.act(table, {"type": "discard", "card": hand[0]}, 2)
    assert discard.status_code in (201, 422)
    if discard.status_code == 201:
        response = bob.act(table, {"type": "draw"}, 3, **{"Idempotency-Key": "same"})
        assert response.status_code == 201 and "Idempotent-Replayed" not in response


def test_a_refused_request_leaves_no_record(ada: PlayerClient, table: int) -> None:
    problem(ada.act(table, {"type": "draw"}, 0, **{"Idempotency-Key": "k-3"}), 409, "stale_version")
    assert ada.act(table, {"type": "draw"}, 1, **{"Idempotency-Key": "k-3"}).status_code == 201


def test_an_overlong_key_is_400(ada: PlayerClient, table: int) -> None:
    problem(
        ada.act(table, {"type": "draw"}, 1, **{"Idempotency-Key": "k" * 256}),
        400,
        "invalid_request",
    )


# ----------------------------------------------------------------------------- events
def test_events_are_redacted_for_each_viewer(
    ada: PlayerClient, bob: PlayerClient, make_player: Callable[..., PlayerClient], table: int
) -> None:
    assert ada.act(table, {"type": "draw"}, 1).status_code == 201
    eve = make_player("Eve")

    mine = ada.get(f"/api/v1/games/{table}/events/?after=1").json()
    theirs = bob.get(f"/api/v1/games/{table}/events/?after=1").json()
    watcher = eve.get(f"/api/v1/games/{table}/events/?after=1").json()
    assert (mine["viewer"], theirs["viewer"], watcher["viewer"]) == (0, 1, None)
    for body in (mine, theirs, watcher):
        assert body["version"] == 2 and [e["seq"] for e in body["events"]] == [2]
    drawn = [
        next(e for e in body["events"][0]["effects"] if e["kind"] == "card_drawn")
        for body in (mine, theirs, watcher)
    ]
    assert len(drawn[0]["cards"]) == 2
    assert "cards" not in drawn[1] and "cards" not in drawn[2]
    assert drawn[1]["count"] == drawn[2]["count"] == 2

    deal = {
        name: next(
            e
            for e in c.get(f"/api/v1/games/{table}/events/").json()["events"][0]["effects"]
            if e["kind"] == "round_started"
        )
        for name, c in (("ada", ada), ("bob", bob), ("eve", eve))
    }
    assert len(deal["ada"]["hand"]) == 15 and len(deal["bob"]["hand"]) == 15
    assert "hand" not in deal["eve"]


def test_events_page_with_after_and_limit(ada: PlayerClient, table: int) -> None:
    assert ada.act(table, {"type": "draw"}, 1).status_code == 201
    page = ada.get(f"/api/v1/games/{table}/events/?limit=1").json()
    assert [e["seq"] for e in page["events"]] == [1] and page["has_more"] is True
    page = ada.get(f"/api/v1/games/{table}/events/?after=1&limit=1").json()
    assert [e["seq"] for e in page["events"]] == [2] and page["has_more"] is False
    assert ada.get(f"/api/v1/games/{table}/events/?after=2").json()["events"] == []
    problem(ada.get(f"/api/v1/games/{table}/events/?after=-1"), 400, "invalid_request")
    problem(ada.get(f"/api/v1/games/{table}/events/?limit=0"), 400, "invalid_request")
    problem(ada.get("/api/v1/games/424242/events/"), 404, "not_found")


# ----------------------------------------------------------------------------- scorecard
def test_scorecard_before_any_round_ends(ada: PlayerClient, table: int) -> None:
    card = ada.get(f"/api/v1/games/{table}/scorecard/").json()
    assert card["rounds"] == [] and card["totals"] == [0, 0]
    assert card["target_score"] == 1000 and card["winner_team"] is None
    assert card["teams"] == [{"team": 0, "seats": [0]}, {"team": 1, "seats": [1]}]
    problem(ada.get("/api/v1/games/424242/scorecard/"), 404, "not_found")


def test_an_action_on_a_private_game_is_404_to_an_outsider_and_403_to_a_looker_on(
    make_player: Callable[..., PlayerClient], ada: PlayerClient, bob: PlayerClient
) -> None:
    private = create_game(ada, preset="two_player", is_public=False)["id"]
    assert (
        bob.post(
            f"/api/v1/games/{private}/join/",
            {"join_code": ada.game(private)["join_code"]},
            format="json",
        ).status_code
        == 200
    )
    assert ada.post(f"/api/v1/games/{private}/start/", {}, format="json").status_code == 200
    public = create_game(ada, preset="two_player")["id"]
    assert bob.post(f"/api/v1/games/{public}/join/", {}, format="json").status_code == 200
    assert ada.post(f"/api/v1/games/{public}/start/", {}, format="json").status_code == 200
    eve = make_player("Eve")
    check_private, check_public = unchanged(private), unchanged(public)
    # the private game does not exist for her; at the public one she is not seated
    problem(eve.act(private, {"type": "draw"}, 1), 404, "not_found")
    problem(eve.act(public, {"type": "draw"}, 1), 403, "not_seated")
    check_private()
    check_public()
    assert ada.act(private, {"type": "draw"}, 1).status_code == 201


@pytest.mark.parametrize(
    "body",
    [
        {"action": {"type": "draw"}, "expected_version": 1},
        {"action": {"type": "draw"}, "expected_version": "1"},  # the serializer reads text
        {"action": {"type": "draw"}, "expected_version": 1, "extra": True},
        {"action": {"type": "draw"}},
        {"action": {"type": "draw"}, "expected_version": -1},
        {"action": {"type": "draw"}, "expected_version": True},
        {"action": {"type": "draw"}, "expected_version": None},
        {"expected_version": 1},
        [],
        "draw",
    ],
)
def test_an_action_request_is_read_as_the_serializer_reads_it(body: Any) -> None:
    from rest_framework.exceptions import ValidationError

    from games.api.serializers import ActionCreateSerializer
    from games.api.views import action_request_read

    serializer = ActionCreateSerializer(data=body)
    if serializer.is_valid():
        expected = serializer.validated_data
        assert action_request_read(body) == (expected["action"], expected["expected_version"])
    else:
        with pytest.raises(ValidationError) as refused:
            action_request_read(body)
        assert refused.value.detail == serializer.errors
