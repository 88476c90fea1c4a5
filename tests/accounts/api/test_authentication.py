"""Token authentication: one query for the token, its user and player; then the
per-process cache (``AUTH_TOKEN_CACHE_SECONDS``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.db import connection
from django.test.utils import CaptureQueriesContext
from rest_framework.authtoken.models import Token

from accounts.api import authentication
from accounts.api.authentication import token_cache
from accounts.models import Player
from games.services.players import player_rename
from tests.games.api.conftest import PlayerClient, problem

pytestmark = pytest.mark.django_db


def queries(client: PlayerClient, path: str = "/api/v1/players/me/") -> int:
    with CaptureQueriesContext(connection) as ctx:
        assert client.get(path).status_code == 200
    return len(ctx.captured_queries)


def test_a_token_is_looked_up_once_then_remembered(ada: PlayerClient) -> None:
    first = queries(ada)
    again = queries(ada)
    assert again == first - 1  # the token, its user and player: one query, paid once
    body = ada.get("/api/v1/players/me/").json()
    assert body["id"] == ada.player_id and body["display_name"] == "Ada"


def test_remembered_holders_get_instances_of_their_own(ada: PlayerClient) -> None:
    ada.get("/api/v1/players/me/")
    holder = token_cache.get(ada.token)
    assert holder is not None
    user_a, token_a = authentication._instances(ada.token, holder)
    user_b, _ = authentication._instances(ada.token, holder)
    assert user_a is not user_b and user_a.player is not user_b.player
    assert user_a.pk == token_a.user_id and user_a.player.pk == ada.player_id
    # other fields load on use
    assert user_a.username == User.objects.get(player__id=ada.player_id).username


def test_a_wrong_token_is_401_and_not_remembered(ada: PlayerClient) -> None:
    ada.credentials(HTTP_AUTHORIZATION="Token " + "0" * 40)
    for _ in range(2):
        problem(ada.get("/api/v1/players/me/"), 401, "authentication_failed")
    assert token_cache.get("0" * 40) is None


def test_a_deactivated_user_is_refused_at_once_in_this_process(ada: PlayerClient) -> None:
    assert ada.get("/api/v1/players/me/").status_code == 200
    user = User.objects.get(player__id=ada.player_id)
    user.is_active = False
    user.save()
    problem(ada.get("/api/v1/players/me/"), 401, "authentication_failed")


def test_a_renamed_player_is_seen_by_the_next_request(ada: PlayerClient) -> None:
    assert ada.get("/api/v1/players/me/").json()["display_name"] == "Ada"  # now remembered
    player_rename(Player.objects.get(pk=ada.player_id), "Ada Lovelace")
    assert ada.get("/api/v1/players/me/").json()["display_name"] == "Ada Lovelace"


def test_a_deleted_token_is_refused_at_once_in_this_process(ada: PlayerClient) -> None:
    assert ada.get("/api/v1/players/me/").status_code == 200
    Token.objects.filter(key=ada.token).delete()
    problem(ada.get("/api/v1/players/me/"), 401, "authentication_failed")


def test_a_sign_up_keeps_the_tokens_already_known(
    ada: PlayerClient, make_player: Callable[..., PlayerClient]
) -> None:
    ada.get("/api/v1/players/me/")
    make_player("Bob")
    assert token_cache.get(ada.token) is not None


def test_an_entry_expires(ada: PlayerClient, monkeypatch: pytest.MonkeyPatch) -> None:
    ada.get("/api/v1/players/me/")
    clock = authentication.time.monotonic() + 31
    monkeypatch.setattr(authentication.time, "monotonic", lambda: clock)
    assert token_cache.get(ada.token) is None
    first = queries(ada)
    assert queries(ada) == first - 1


def test_the_cache_can_be_turned_off(ada: PlayerClient, settings: Any) -> None:
    settings.AUTH_TOKEN_CACHE_SECONDS = 0
    first = queries(ada)
    assert queries(ada) == first
    assert token_cache.get(ada.token) is None


def test_the_cache_is_bounded() -> None:
    cache = authentication.TokenCache(max_entries=3)
    user = User(pk=1)
    for key in "abcd":
        cache.put(key, user, None, 30)
    assert cache.get("a") is None
    assert all(cache.get(k) is not None for k in "bcd")
