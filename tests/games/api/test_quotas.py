"""What one player may keep the service busy with (games/services/quotas.py, the throttle scopes
of games/api): table creation and start, imports, pause and timer proposals per player; at most
``BOT_TABLES_ACTIVE_MAX`` unfinished tables where only bots play with their creator; at most
``IMPORTS_CONCURRENT_MAX`` imports replaying at once in the service.

Every refusal is a problem document with a stable code and changes nothing. The refused
requests go through a plain client (not checked against openapi.yaml, which documents these
answers once it is regenerated).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

import pytest
from django.core.cache import cache
from django.db import connection
from rest_framework.test import APIClient

from accounts.models import Player
from core.counters import slot_release, slot_take
from games import errors
from games.models import BotLevel, Game, GameEvent, GameStatus
from games.services.lobby import BotSeatSpec, game_create, game_start
from games.services.quotas import bot_tables_active_count
from tests.games.api.conftest import PlayerClient, create_game, problem
from tests.games.api.test_race import race
from tests.games.selectors.replay.conftest import advance, started_game

pytestmark = pytest.mark.django_db

Rates = Callable[..., None]


def plain(client: PlayerClient) -> APIClient:
    other = APIClient()
    other.credentials(HTTP_AUTHORIZATION=f"Token {client.token}")
    return other


def throttled(response: Any) -> None:
    body = problem(response, 429, "throttled")
    assert body["retry_after"] >= 1
    assert int(response["Retry-After"]) >= 1


def footprint(game_id: int) -> tuple[str, int, int]:
    game = Game.objects.get(pk=game_id)
    return game.status, game.version, GameEvent.objects.filter(game_id=game_id).count()


def bot_table(client: PlayerClient) -> int:
    """A two-player table in the lobby: ``client`` at seat 0, a bot at seat 1."""
    body = create_game(
        client, preset="two_player", options={"target_score": 1000}, bots=[{"seat": 1}], seat=0
    )
    return int(body["id"])


def start(client: Any, game_id: int) -> Any:
    return client.post(f"/api/v1/games/{game_id}/start/", {}, format="json")


# ============================================================================== rate limits
def test_table_creation_is_limited_per_player(
    make_player: Callable[..., PlayerClient], rates: Rates
) -> None:
    ada, bob = make_player("Ada"), make_player("Bob")
    rates(game_create="2/hour")
    create_game(ada, preset="two_player")
    create_game(ada, preset="two_player")
    before = Game.objects.count()
    throttled(plain(ada).post("/api/v1/games/", {"preset": "two_player"}, format="json"))
    assert Game.objects.count() == before
    # Listing the lobby is not limited; another player has a budget of their own.
    for _ in range(3):
        assert ada.get("/api/v1/games/").status_code == 200
    create_game(bob, preset="two_player")


def test_starting_tables_is_limited_per_player(
    make_player: Callable[..., PlayerClient], rates: Rates
) -> None:
    ada = make_player("Ada")
    tables = [bot_table(ada) for _ in range(3)]
    rates(game_start="2/hour")
    for game_id in tables[:2]:
        assert start(ada, game_id).status_code == 200
    throttled(start(plain(ada), tables[2]))
    assert footprint(tables[2]) == ("lobby", 0, 0)


def test_pause_steps_are_limited_per_player(
    make_player: Callable[..., PlayerClient], rates: Rates
) -> None:
    ada, bob = make_player("Ada"), make_player("Bob")
    game_id = create_game(ada, preset="two_player", options={"target_score": 1000})["id"]
    assert bob.post(f"/api/v1/games/{game_id}/join/", {}, format="json").status_code == 200
    assert start(ada, game_id).status_code == 200
    rates(proposals="2/hour")
    pause, decline = f"/api/v1/games/{game_id}/pause/", f"/api/v1/games/{game_id}/pause/decline/"
    assert ada.post(pause).status_code == 200
    assert ada.post(decline).status_code == 200
    before = footprint(game_id)
    throttled(plain(ada).post(pause))
    assert footprint(game_id) == before
    # Bob's budget is his own: he may still answer.
    assert bob.post(pause).status_code == 200


def test_timer_proposals_are_limited_per_player(
    make_player: Callable[..., PlayerClient], rates: Rates
) -> None:
    ada, bob = make_player("Ada"), make_player("Bob")
    body = create_game(ada, preset="two_player", options={"target_score": 1000}, turn_seconds=3600)
    game_id = body["id"]
    assert bob.post(f"/api/v1/games/{game_id}/join/", {}, format="json").status_code == 200
    assert start(ada, game_id).status_code == 200
    rates(proposals="1/hour")
    propose = f"/api/v1/games/{game_id}/timer/off/propose/"
    assert ada.post(propose).status_code == 200
    assert bob.post(f"/api/v1/games/{game_id}/timer/off/decline/").status_code == 200
    before = footprint(game_id)
    throttled(plain(ada).post(propose))
    assert footprint(game_id) == before


def finished_export(ada: PlayerClient) -> dict[str, Any]:
    game = advance(started_game(Player.objects.get(pk=ada.player_id), preset="two_player").pk)
    assert game.status == "finished"
    response = ada.get(f"/api/v1/games/{game.pk}/export/")
    assert response.status_code == 200, response.content
    document: dict[str, Any] = response.json()
    return document


def unfinished(document: dict[str, Any], events: int = 6) -> dict[str, Any]:
    """The document cut after its first ``events`` events: it imports as an active game."""
    return {**document, "events": document["events"][:events], "final": None}


def import_(client: Any, document: dict[str, Any]) -> Any:
    return client.post("/api/v1/games/import/", {"document": document, "seat": 0}, format="json")


def test_imports_are_limited_per_player(
    make_player: Callable[..., PlayerClient], rates: Rates
) -> None:
    ada = make_player("Ada")
    document = finished_export(ada)
    rates(**{"import": "1/hour"})
    assert import_(ada, document).status_code == 201
    before = Game.objects.count()
    throttled(import_(plain(ada), document))
    assert Game.objects.count() == before


# ============================================================================== bot tables
def test_a_player_keeps_at_most_the_cap_of_active_bot_tables(
    make_player: Callable[..., PlayerClient], settings: Any
) -> None:
    settings.BOT_TABLES_ACTIVE_MAX = 2
    ada, bob = make_player("Ada"), make_player("Bob")
    first, second, third = (bot_table(ada) for _ in range(3))
    assert start(ada, first).status_code == 200
    assert start(ada, second).status_code == 200
    body = problem(start(plain(ada), third), 409, "bot_tables_limit")
    assert "finish or concede" in body["detail"]
    assert footprint(third) == ("lobby", 0, 0)
    # A table where another person plays is not a bot table; nor is someone else's.
    shared = create_game(ada, preset="three_player", seat=0)["id"]
    assert bob.post(f"/api/v1/games/{shared}/join/", {}, format="json").status_code == 200
    shared_start = ada.post(f"/api/v1/games/{shared}/start/", {"fill_with_bots": True})
    assert shared_start.status_code == 200, shared_start.content
    assert start(bob, bot_table(bob)).status_code == 200
    # Conceding one frees a place.
    assert ada.post(f"/api/v1/games/{first}/concede/").status_code == 200
    assert start(ada, third).status_code == 200
    assert bot_tables_active_count(Player.objects.get(pk=ada.player_id)) == 2


def test_a_table_the_creator_only_watches_counts_too(
    make_player: Callable[..., PlayerClient], settings: Any
) -> None:
    """Lobby tables filled with bots at the start, the creator watching or seated."""
    settings.BOT_TABLES_ACTIVE_MAX = 1
    ada = make_player("Ada")
    player = Player.objects.get(pk=ada.player_id)
    watched = game_create(
        creator=player,
        preset="two_player",
        options={"target_score": 5000},
        bots=[BotSeatSpec(0, BotLevel.EASY), BotSeatSpec(1, BotLevel.EASY)],
        spectate=True,
    )
    # Started through the service with bot turns left unplayed: it stays active.
    game_start(game_id=watched.pk, player=player, bot_tables_capped=True)
    filled = create_game(ada, preset="two_player", seat=0)["id"]
    problem(
        plain(ada).post(f"/api/v1/games/{filled}/start/", {"fill_with_bots": True}),
        409,
        "bot_tables_limit",
    )
    assert footprint(filled) == ("lobby", 0, 0)


def test_an_unfinished_import_counts_as_a_bot_table(
    make_player: Callable[..., PlayerClient], settings: Any
) -> None:
    ada = make_player("Ada")
    document = finished_export(ada)
    settings.BOT_TABLES_ACTIVE_MAX = 1
    assert import_(ada, unfinished(document)).json()["game"]["status"] == "active"
    before = Game.objects.count()
    problem(import_(plain(ada), unfinished(document)), 409, "bot_tables_limit")
    assert Game.objects.count() == before
    # A finished game costs no bot turn: it imports.
    assert import_(ada, document).status_code == 201


def test_a_rematch_of_a_bot_table_counts(
    make_player: Callable[..., PlayerClient], settings: Any
) -> None:
    ada = make_player("Ada")
    player = Player.objects.get(pk=ada.player_id)
    done = advance(started_game(player, preset="two_player").pk)
    assert done.status == "finished"
    settings.BOT_TABLES_ACTIVE_MAX = 1
    assert start(ada, bot_table(ada)).status_code == 200
    problem(plain(ada).post(f"/api/v1/games/{done.pk}/rematch/"), 409, "bot_tables_limit")
    assert ada.get(f"/api/v1/games/{done.pk}/rematch/").json()["accepted_by"] == []


# ============================================================================== imports at once
def test_an_import_past_the_service_cap_is_refused_at_once_and_changes_nothing(
    make_player: Callable[..., PlayerClient], settings: Any
) -> None:
    """Two imports replaying elsewhere (their slots held in the shared cache, Redis where the
    service has it): a third is refused with 503 and Retry-After; once one ends, it goes."""
    settings.IMPORTS_CONCURRENT_MAX = 2
    ada = make_player("Ada")
    document = finished_export(ada)
    held = [slot_take(cache, "imports", 2, 60) for _ in range(2)]
    assert all(held)
    before = Game.objects.count()
    response = import_(plain(ada), document)
    body = problem(response, 503, "imports_busy")
    assert body["retry_after"] >= 1 and int(response["Retry-After"]) >= 1
    assert Game.objects.count() == before
    slot = held[0]
    assert slot is not None
    slot_release(cache, slot)
    assert import_(ada, document).status_code == 201
    # The import gave its slot back, and so does a refused one.
    wrong = {**document, "format_version": 99}
    problem(import_(plain(ada), wrong), 400, "import_format_unsupported")
    assert slot_take(cache, "imports", 2, 60) is not None


# ============================================================================== races
@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_concurrent_starts_never_pass_the_bot_table_cap(
    make_player: Callable[..., PlayerClient], settings: Any
) -> None:
    """Six bot tables started at the same moment (threads, PostgreSQL): the player's row lock
    counts them one after the other, so exactly the cap starts."""
    settings.BOT_TABLES_ACTIVE_MAX = 2
    ada = make_player("Ada")
    player = Player.objects.get(pk=ada.player_id)
    tables = [bot_table(ada) for _ in range(6)]
    connection.close()
    answers = race(
        [partial(game_start, game_id=t, player=player, bot_tables_capped=True) for t in tables]
    )
    started = [a for a in answers if isinstance(a, Game)]
    refused = [a for a in answers if isinstance(a, errors.BotTablesLimit)]
    assert (len(started), len(refused)) == (2, 4), answers
    assert Game.objects.filter(pk__in=tables, status=GameStatus.ACTIVE).count() == 2
    assert GameEvent.objects.filter(game_id__in=tables).values("game").distinct().count() == 2
