"""Scopes over HTTP: every API view declares what a token must hold for each method it serves,
a scoped token is let in only there (403 ``insufficient_scope`` with ``needed`` elsewhere), a
bot account's key plays but is kept from rated play, and the schema shows each operation's
scopes under the ``oauth2`` scheme."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from django.urls import URLPattern, URLResolver, get_resolver, reverse
from drf_spectacular.generators import EndpointEnumerator
from rest_framework.permissions import AllowAny
from rest_framework.test import APIClient
from rest_framework.views import APIView

from accounts import scopes
from accounts.api.scopes import ScopesGranted
from accounts.models import Player
from accounts.services.credentials import personal_token_create
from competition.models import QueueEntry
from games.models import Game
from tests.accounts.api.generated_schema import spec
from tests.games.api.conftest import PlayerClient, choose, problem

WRITE_METHODS = ("post", "put", "patch", "delete")


# ============================================================================== every view
def api_views(
    patterns: list[URLPattern | URLResolver] | None = None, prefix: str = ""
) -> Iterator[tuple[str, type[APIView]]]:
    """Every DRF view class routed under /api/v1/, with its route."""
    for entry in get_resolver().url_patterns if patterns is None else patterns:
        route = prefix + str(entry.pattern)
        if isinstance(entry, URLResolver):
            yield from api_views(entry.url_patterns, route)
            continue
        view = getattr(entry.callback, "cls", None)
        if route.startswith("api/v1/") and isinstance(view, type) and issubclass(view, APIView):
            yield route, view


def is_public(view: type[APIView]) -> bool:
    """Open to anyone and authenticating no one: no token ever reaches it."""
    return not view.authentication_classes and AllowAny in view.permission_classes


def test_every_api_view_declares_the_scopes_of_each_method_it_serves() -> None:
    routes = list(api_views())
    assert len(routes) > 50  # the walk found the API
    missing, unknown, unchecked = [], [], []
    for route, view in routes:
        if is_public(view):
            continue
        if ScopesGranted not in view.permission_classes:
            unchecked.append(route)
        # Every view serves OPTIONS (a read); the others it implements.
        wanted = {"read_scopes"} | {
            "write_scopes" for method in WRITE_METHODS if hasattr(view, method)
        }
        for name in sorted(wanted):
            declared = getattr(view, name, None)
            if not declared:
                missing.append(f"{route} {view.__name__}.{name}")
                continue
            unknown += [f"{route}: {s}" for s in declared if s not in scopes.SCOPES]
    assert missing == []
    assert unknown == []
    assert unchecked == []


def test_the_public_views_are_few_and_known() -> None:
    public = sorted({view.__name__ for _, view in api_views() if is_public(view)})
    assert public == [
        "HealthApi",
        "PlayerCreateApi",
        "PushKeyApi",
        "WorkerProbeCreateApi",
        "WorkerProbeDetailApi",
    ]


# ============================================================================== tokens
def token_client(player: PlayerClient | int, *granted: str) -> APIClient:
    """A client sending a personal access token of ``player`` with ``granted`` scopes."""
    player_id = player if isinstance(player, int) else player.player_id
    user = Player.objects.get(pk=player_id).user
    _, key = personal_token_create(user, name="a program", scopes_given=list(granted), days=None)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {key}")
    return client


def started_against_a_bot(player: APIClient) -> int:
    created = player.post(
        "/api/v1/games/",
        {"preset": "two_player", "seat": 0, "bots": [{"seat": 1, "level": "easy"}]},
        format="json",
    )
    assert created.status_code == 201, created.content
    game_id = int(created.json()["id"])
    started = player.post(f"/api/v1/games/{game_id}/start/", {}, format="json")
    assert started.status_code == 200, started.content
    return game_id


def first_move(player: APIClient, game_id: int) -> Any:
    game = player.get(f"/api/v1/games/{game_id}/").json()
    action = choose(game["state"]["legal_actions"])
    return player.post(
        f"/api/v1/games/{game_id}/actions/",
        {"action": action, "expected_version": game["version"]},
        format="json",
    )


def test_a_profile_read_token_reads_the_profile_but_plays_no_move(ada: PlayerClient) -> None:
    game_id = started_against_a_bot(ada)
    reader = token_client(ada, scopes.PROFILE_READ)
    me = reader.get("/api/v1/players/me/")
    assert me.status_code == 200, me.content
    assert me.json()["id"] == ada.player_id
    version = Game.objects.get(pk=game_id).version
    game = ada.game(game_id)
    refused = reader.post(
        f"/api/v1/games/{game_id}/actions/",
        {"action": choose(game["state"]["legal_actions"]), "expected_version": game["version"]},
        format="json",
    )
    body = problem(refused, 403, "insufficient_scope")
    assert body["needed"] == [scopes.PLAY, scopes.BOT_PLAY]
    assert Game.objects.get(pk=game_id).version == version  # nothing played
    # Reading the game is play too; changing the profile is profile:write.
    problem(reader.get(f"/api/v1/games/{game_id}/"), 403, "insufficient_scope")
    blocked = reader.put(f"/api/v1/players/me/blocked/{game_id}/")
    assert problem(blocked, 403, "insufficient_scope")["needed"] == [scopes.PROFILE_WRITE]
    # A method the view does not serve is 405, whatever the token holds.
    problem(reader.post("/api/v1/players/me/", {}, format="json"), 405, "method_not_allowed")


def test_a_play_token_plays_but_reaches_no_account_management(ada: PlayerClient) -> None:
    player = token_client(ada, scopes.PLAY)
    game_id = started_against_a_bot(player)
    assert first_move(player, game_id).status_code == 201
    assert player.get("/api/v1/players/me/").status_code == 200  # one's own profile
    for refused in (
        player.get("/api/v1/account/tokens/"),
        player.post("/api/v1/account/tokens/", {"name": "x", "scopes": ["play"]}, format="json"),
    ):
        assert problem(refused, 403, "insufficient_scope")["needed"] == [scopes.ACCOUNT_WRITE]
    settings = player.get("/api/v1/players/me/notifications/")
    assert problem(settings, 403, "insufficient_scope")["needed"] == [
        scopes.NOTIFICATIONS_WRITE,
        scopes.PROFILE_READ,
    ]
    other = player.get(f"/api/v1/players/{ada.player_id}/profile/")
    assert problem(other, 403, "insufficient_scope")["needed"] == [scopes.PROFILE_READ]


def sign_up_bot_account() -> tuple[APIClient, int]:
    created = APIClient().post(
        "/api/v1/players/", {"display_name": "Robo", "bot": True}, format="json"
    )
    assert created.status_code == 201, created.content
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {created.json()['token']}")
    return client, int(created.json()["id"])


def test_a_bot_account_key_plays_casual_games_and_no_rated_ones(ada: PlayerClient) -> None:
    robo, robo_id = sign_up_bot_account()
    game_id = started_against_a_bot(robo)
    assert first_move(robo, game_id).status_code == 201
    assert robo.get(f"/api/v1/games/{game_id}/events/").status_code == 200
    assert robo.get("/api/v1/players/me/").json()["is_bot"] is True
    # Kept from rated play by the rules, which say why.
    games = Game.objects.count()
    rated = robo.post("/api/v1/games/", {"preset": "two_player", "rated": True}, format="json")
    problem(rated, 422, "rated_humans_only")
    queued = robo.post("/api/v1/queue/", {"preset": "two_player"}, format="json")
    problem(queued, 403, "bot_account_not_allowed")
    assert Game.objects.count() == games and not QueueEntry.objects.exists()
    # What a person's play adds: hints, reviews, the queue's status, pausing.
    problem(robo.get(f"/api/v1/games/{game_id}/hint/"), 403, "insufficient_scope")
    problem(robo.post(f"/api/v1/games/{game_id}/pause/"), 403, "insufficient_scope")
    problem(robo.get("/api/v1/queue/"), 403, "insufficient_scope")


def test_a_persons_bot_play_token_opens_casual_tables_only(ada: PlayerClient) -> None:
    program = token_client(ada, scopes.BOT_PLAY)
    games = Game.objects.count()
    rated = program.post("/api/v1/games/", {"preset": "two_player", "rated": True}, format="json")
    assert problem(rated, 403, "insufficient_scope")["needed"] == [scopes.PLAY]
    queued = program.post("/api/v1/queue/", {"preset": "two_player"}, format="json")
    assert problem(queued, 403, "insufficient_scope")["needed"] == [scopes.PLAY]
    assert Game.objects.count() == games and not QueueEntry.objects.exists()
    game_id = started_against_a_bot(program)
    assert first_move(program, game_id).status_code == 201
    # A person's own key holds every scope: the same rated table is created.
    created = ada.post("/api/v1/games/", {"preset": "two_player", "rated": True}, format="json")
    assert created.status_code == 201, created.content


# ============================================================================== schema
def test_the_schema_describes_the_schemes_and_every_scope() -> None:
    schemes = spec()["components"]["securitySchemes"]
    assert set(schemes) == {"bearer", "guestKey", "cookieAuth", "oauth2"}
    assert schemes["bearer"]["type"] == "http" and schemes["bearer"]["scheme"] == "bearer"
    guest = schemes["guestKey"]
    assert (guest["type"], guest["in"], guest["name"]) == ("apiKey", "header", "Authorization")
    assert "Token " in guest["description"]
    assert schemes["cookieAuth"]["in"] == "cookie"
    flow = schemes["oauth2"]["flows"]["authorizationCode"]
    assert flow["authorizationUrl"] == reverse("idp:oidc:authorization") == "/identity/o/authorize"
    assert flow["tokenUrl"] == reverse("idp:oidc:token") == "/identity/o/api/token"
    assert flow["scopes"] == scopes.SCOPES


def test_each_operation_lists_the_scopes_its_view_declares() -> None:
    paths = spec()["paths"]
    checked = 0
    for path, _, method, callback in EndpointEnumerator().get_api_endpoints():
        operation = paths.get(path, {}).get(method.lower())
        if operation is None:  # left out of the schema
            continue
        view = callback.cls
        declared = getattr(view, "read_scopes" if method == "GET" else "write_scopes", ())
        security = operation["security"]
        listed = [r["oauth2"] for r in security if "oauth2" in r]
        if is_public(view):
            assert listed == [] and security == [{}], path
            continue
        # Alternatives: one requirement per scope (any one suffices).
        assert listed == [[name] for name in declared], (method, path)
        assert {"bearer": []} in security and {"guestKey": []} in security
        assert {"cookieAuth": []} in security
        checked += 1
    assert checked > 50
    me = paths["/api/v1/players/me/"]["get"]["security"]
    assert [r["oauth2"][0] for r in me if "oauth2" in r] == ["profile:read", "play", "bot:play"]
