"""Abuse: rate limits, oversized and malformed bodies, and one player's token at another seat.

Every refusal must be a problem document with a stable code, and must leave the game exactly as
it was (version, log and snapshot). The suite runs with the sign-up, action and chat limits
off (test_settings.py); the tests here switch one on with a tiny rate.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from django.core.cache import cache
from rest_framework.test import APIClient
from rest_framework.throttling import ScopedRateThrottle

from tests.api.conftest import PlayerClient, problem
from tests.hardening.helpers import footprint, started_game

pytestmark = pytest.mark.django_db


@pytest.fixture
def rates(monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[..., None]]:
    """Set throttle rates for this test (DRF reads them once, into the throttle class)."""

    def set_rates(**scopes: str) -> None:
        merged = {**ScopedRateThrottle.THROTTLE_RATES, **scopes}
        monkeypatch.setattr(ScopedRateThrottle, "THROTTLE_RATES", merged)

    cache.clear()
    yield set_rates
    cache.clear()


def throttled(response: Any) -> dict[str, Any]:
    body = problem(response, 429, "throttled")
    assert body["retry_after"] > 0
    assert int(response["Retry-After"]) >= 1
    return body


# ============================================================================== rate limits
def test_sign_up_is_rate_limited_per_client(rates: Callable[..., None]) -> None:
    rates(signup="3/hour")
    anonymous = APIClient()
    for i in range(3):
        response = anonymous.post("/api/v1/players/", {"display_name": f"P{i}"}, format="json")
        assert response.status_code == 201, response.content
    throttled(anonymous.post("/api/v1/players/", {"display_name": "P4"}, format="json"))
    # Another address is counted apart.
    other = APIClient(REMOTE_ADDR="10.0.0.9")
    assert other.post("/api/v1/players/", {"display_name": "Q"}, format="json").status_code == 201


def test_actions_are_rate_limited_per_player_and_a_throttled_action_changes_nothing(
    make_player: Callable[..., PlayerClient], rates: Callable[..., None]
) -> None:
    game_id, (ada, bob) = started_game(make_player)
    rates(actions="2/minute")
    before = footprint(game_id)
    # Refused actions count too: the limit is on requests, not on moves.
    for _ in range(2):
        problem(bob.act(game_id, {"type": "draw"}, before[0]), 403, "not_your_turn")
    response = bob.act(game_id, {"type": "draw"}, before[0])
    throttled(response)
    assert footprint(game_id) == before
    # Ada has her own budget and her legal move goes through.
    response = ada.act(game_id, {"type": "draw"}, before[0])
    assert response.status_code == 201, response.content


def test_chat_is_rate_limited_per_player(
    make_player: Callable[..., PlayerClient], rates: Callable[..., None]
) -> None:
    game_id, (ada, _) = started_game(make_player)
    rates(chat="1/minute")
    url = f"/api/v1/games/{game_id}/chat/"
    first = ada.post(url, {"phrase": "good_luck"}, format="json")
    assert first.status_code == 201, first.content
    throttled(ada.post(url, {"phrase": "good_luck"}, format="json"))


# ============================================================================== bodies
def test_an_oversized_body_is_refused_before_it_is_parsed(
    make_player: Callable[..., PlayerClient], settings: Any
) -> None:
    game_id, (ada, _) = started_game(make_player)
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 4096
    before = footprint(game_id)
    padding = "x" * 10_000
    response = ada.post(
        f"/api/v1/games/{game_id}/actions/",
        {"action": {"type": "draw", "note": padding}, "expected_version": before[0]},
        format="json",
    )
    body = problem(response, 400, "body_too_large")
    assert body["max_body_bytes"] == 4096
    assert footprint(game_id) == before
    # Sign-up (no authentication) is covered by the same cap.
    response = APIClient().post("/api/v1/players/", {"display_name": padding}, format="json")
    problem(response, 400, "body_too_large")


MALFORMED: list[tuple[bytes, str, int, str]] = [
    (b"{", "application/json", 400, "malformed_body"),
    (
        b'{"action": {"type": "draw"}, "expected_version": 1',
        "application/json",
        400,
        "malformed_body",
    ),
    (b"\xff\xfe\x00", "application/json", 400, "malformed_body"),
    (b"[" * 50_000 + b"]" * 50_000, "application/json", 400, "malformed_body"),
    (b'{"a": ' * 20_000 + b"1" + b"}" * 20_000, "application/json", 400, "malformed_body"),
    (b"NaN", "application/json", 400, "malformed_body"),
    (b"[]", "application/json", 400, "invalid_request"),
    (b'"draw"', "application/json", 400, "invalid_request"),
    (b"null", "application/json", 400, "invalid_request"),
    (b'{"action": "draw", "expected_version": 1}', "application/json", 400, "invalid_action"),
    (
        b'{"action": {"type": "draw"}, "expected_version": -1}',
        "application/json",
        400,
        "invalid_request",
    ),
    (
        b'{"action": {"type": "draw"}, "expected_version": 1e400}',
        "application/json",
        400,
        "invalid_request",
    ),
    (
        b'{"action": {"type": "fly"}, "expected_version": 1}',
        "application/json",
        400,
        "invalid_action",
    ),
    (
        b'{"action": {"type": "discard", "card": "ZZ"}, "expected_version": 1}',
        "application/json",
        400,
        "invalid_action",
    ),
    (
        b'{"action": {"type": "meld", "melds": [[[[[]]]]]}, "expected_version": 1}',
        "application/json",
        400,
        "invalid_action",
    ),
    (b"action=draw", "application/x-www-form-urlencoded", 415, "unsupported_media_type"),
    (b"<xml/>", "text/xml", 415, "unsupported_media_type"),
]


@pytest.mark.parametrize(("raw", "content_type", "status", "code"), MALFORMED)
def test_a_malformed_body_gets_a_clear_problem_and_leaves_the_game_alone(
    make_player: Callable[..., PlayerClient], raw: bytes, content_type: str, status: int, code: str
) -> None:
    game_id, (ada, _) = started_game(make_player)
    before = footprint(game_id)
    # A plain client: the players' client also checks answers against openapi.yaml, which
    # lists 415 (DRF's generic answer to a non-JSON body) on no operation.
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {ada.token}")
    response = client.post(f"/api/v1/games/{game_id}/actions/", raw, content_type=content_type)
    body = problem(response, status, code)
    assert body["detail"]
    assert footprint(game_id) == before


# ============================================================================== seats
def test_a_token_acts_only_for_its_own_seat(make_player: Callable[..., PlayerClient]) -> None:
    game_id, (ada, bob) = started_game(make_player)
    outsider = make_player("Mallory")
    before = footprint(game_id)
    version = before[0]
    assert ada.game(game_id)["state"]["to_act"] == 0
    # Bob cannot play Ada's turn, whatever he puts in the body: a seat inside the action is
    # an unknown field, a seat beside it is ignored.
    problem(bob.act(game_id, {"type": "draw"}, version), 403, "not_your_turn")
    problem(bob.act(game_id, {"type": "draw", "seat": 0}, version), 400, "invalid_action")
    problem(
        bob.post(
            f"/api/v1/games/{game_id}/actions/",
            {"action": {"type": "draw"}, "expected_version": version, "seat": 0},
            format="json",
        ),
        403,
        "not_your_turn",
    )
    # Someone without a seat cannot act at all.
    problem(outsider.act(game_id, {"type": "draw"}, version), 403, "not_seated")
    # No token, a wrong token.
    problem(
        APIClient().post(f"/api/v1/games/{game_id}/actions/", {}, format="json"),
        401,
        "not_authenticated",
    )
    forged = APIClient()
    forged.credentials(HTTP_AUTHORIZATION="Token " + "0" * 40)
    problem(
        forged.post(f"/api/v1/games/{game_id}/actions/", {}, format="json"),
        401,
        "authentication_failed",
    )
    assert footprint(game_id) == before


def test_an_idempotency_key_is_private_to_its_player(
    make_player: Callable[..., PlayerClient],
) -> None:
    """Bob replaying Ada's request with Ada's key gets his own answer, never Ada's."""
    game_id, (ada, bob) = started_game(make_player)
    key = {"Idempotency-Key": "shared-key"}
    first = ada.act(game_id, {"type": "draw"}, 1, **key)
    assert first.status_code == 201, first.content
    after = footprint(game_id)
    replay = bob.act(game_id, {"type": "draw"}, 1, **key)
    assert replay.status_code != 201 and "Idempotent-Replayed" not in replay
    assert "hand" not in str(replay.content)
    assert footprint(game_id) == after
