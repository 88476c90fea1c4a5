"""Abuse: rate limits, oversized and malformed bodies, and one player's token at another seat.

Every refusal must be a problem document with a stable code, and must leave the game exactly as
it was (version, log and snapshot). The suite runs with the sign-up, action and chat limits
off (test_settings.py); the tests here switch one on with a tiny rate.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.test import override_settings
from rest_framework.test import APIClient

from core.proxies import client_address, trusted_proxies_parse
from tests.games.api.conftest import PlayerClient, problem
from tests.hardening.helpers import footprint, started_game

pytestmark = pytest.mark.django_db


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


def sign_up(client: APIClient, name: str, forwarded: str) -> Any:
    return client.post(
        "/api/v1/players/", {"display_name": name}, format="json", HTTP_X_FORWARDED_FOR=forwarded
    )


def test_a_forged_forwarded_for_header_buys_no_fresh_quota(rates: Callable[..., None]) -> None:
    """A client that names a new address in X-Forwarded-For on each request is still one
    client: with no trusted proxy configured the header is ignored."""
    rates(signup="3/hour")
    client = APIClient(REMOTE_ADDR="198.51.100.7")
    answers = [sign_up(client, f"P{i}", f"203.0.113.{i}").status_code for i in range(6)]
    assert answers == [201, 201, 201, 429, 429, 429]


@override_settings(TRUSTED_PROXIES=trusted_proxies_parse("TRUSTED_PROXIES", "127.0.0.1"))
def test_behind_a_trusted_proxy_each_client_is_counted_by_the_address_the_proxy_saw(
    rates: Callable[..., None],
) -> None:
    """nginx appends the address it saw to X-Forwarded-For: that hop is the client, whatever
    the client wrote to its left; two real clients have a quota each."""
    rates(signup="2/hour")
    proxy = APIClient(REMOTE_ADDR="127.0.0.1")
    first = [sign_up(proxy, f"A{i}", f"10.9.{i}.1, 203.0.113.5") for i in range(3)]
    assert [r.status_code for r in first] == [201, 201, 429]
    throttled(first[-1])
    assert sign_up(proxy, "B", "203.0.113.6").status_code == 201


@pytest.mark.parametrize(
    ("peer", "forwarded", "trusted", "client"),
    [
        ("198.51.100.7", "203.0.113.1", "", "198.51.100.7"),  # no proxy trusted
        ("198.51.100.7", "203.0.113.1", "127.0.0.1", "198.51.100.7"),  # peer is no proxy
        ("127.0.0.1", "203.0.113.1", "127.0.0.1", "203.0.113.1"),
        ("127.0.0.1", "forged, 203.0.113.1", "127.0.0.1", "203.0.113.1"),
        ("127.0.0.1", "9.9.9.9, 203.0.113.1, 10.0.0.2", "127.0.0.1,10.0.0.0/8", "203.0.113.1"),
        ("127.0.0.1", "", "127.0.0.1", "127.0.0.1"),
        ("127.0.0.1", "not-an-address", "127.0.0.1", "127.0.0.1"),
        ("::1", "2001:db8::5", "::1", "2001:db8::5"),
        ("::ffff:127.0.0.1", "[2001:db8::5]:443", "127.0.0.1", "2001:db8::5"),
        ("172.18.0.4", "203.0.113.1:5555", "172.16.0.0/12", "203.0.113.1"),
    ],
)
def test_the_client_address_trusts_only_configured_proxies(
    peer: str, forwarded: str, trusted: str, client: str
) -> None:
    meta = {"REMOTE_ADDR": peer, "HTTP_X_FORWARDED_FOR": forwarded}
    assert client_address(meta, trusted_proxies_parse("TRUSTED_PROXIES", trusted)) == client


def test_a_malformed_trusted_proxy_stops_the_start_up() -> None:
    with pytest.raises(ImproperlyConfigured, match="TRUSTED_PROXIES has 'nginx'"):
        trusted_proxies_parse("TRUSTED_PROXIES", "127.0.0.1, nginx")


@pytest.mark.skipif(
    not settings.CACHES["default"]["BACKEND"].endswith("RedisCache"),
    reason="needs REDIS_URL (the CI run on Redis)",
)
def test_throttle_counts_are_shared_through_redis(rates: Callable[..., None]) -> None:
    """With REDIS_URL set, the counts are in Redis: another process (here, a client of its
    own) sees the requests this one counted, so N web processes do not allow N times the
    limit."""
    import redis

    rates(signup="5/hour")
    client = APIClient(REMOTE_ADDR="198.51.100.8")
    assert sign_up(client, "R", "").status_code == 201
    other_process = redis.Redis.from_url(settings.CACHES["default"]["LOCATION"])
    keys = [k.decode() for k in other_process.scan_iter(match="canasta-cache:*throttle_signup*")]
    assert any(k.endswith("throttle_signup_198.51.100.8") for k in keys), keys


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


def test_socket_actions_share_the_players_action_count_with_http(
    make_player: Callable[..., PlayerClient], rates: Callable[..., None]
) -> None:
    """The socket's ``action`` messages count on the same quota as ``POST .../actions/``: a
    second transport gives no second budget."""
    from accounts.models import Player
    from games.api.socket import action_answer

    game_id, (ada, bob) = started_game(make_player)
    rates(actions="2/minute")
    before = footprint(game_id)
    for _ in range(2):
        problem(bob.act(game_id, {"type": "draw"}, before[0]), 403, "not_your_turn")
    answer = action_answer(
        game_id,
        Player.objects.get(pk=bob.player_id),
        {"action": {"type": "draw"}, "expected_version": before[0]},
    )
    assert (answer["status"], answer["body"]["code"]) == (429, "throttled")
    assert footprint(game_id) == before


def test_chat_is_rate_limited_per_player(
    make_player: Callable[..., PlayerClient], rates: Callable[..., None]
) -> None:
    game_id, (ada, _) = started_game(make_player)
    rates(chat="1/minute")
    url = f"/api/v1/games/{game_id}/chat/"
    first = ada.post(url, {"phrase": "good_luck"}, format="json")
    assert first.status_code == 201, first.content
    throttled(ada.post(url, {"phrase": "good_luck"}, format="json"))


def test_review_requests_are_rate_limited_and_reads_are_not(
    make_player: Callable[..., PlayerClient], rates: Callable[..., None]
) -> None:
    game_id, (ada, _) = started_game(make_player)
    rates(review="2/hour")
    url = f"/api/v1/games/{game_id}/review/"
    # No round has ended: refused, but counted (the limit is on requests).
    for _ in range(2):
        problem(ada.post(url, {"seat": 0}, format="json"), 409, "review_no_finished_round")
    throttled(ada.post(url, {"seat": 0}, format="json"))
    # Reading (which clients poll) is not limited by the review scope.
    for _ in range(3):
        problem(ada.get(url, {"seat": 0}), 404, "review_not_found")


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
    body = problem(response, 413, "body_too_large")
    assert body["max_body_bytes"] == 4096
    assert footprint(game_id) == before
    # Sign-up (no authentication) is covered by the same cap.
    response = APIClient().post("/api/v1/players/", {"display_name": padding}, format="json")
    problem(response, 413, "body_too_large")


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
