"""Schemathesis against the committed openapi.yaml, as a player seated at a game in play.

Every operation of the schema gets generated requests, valid and invalid (a bounded number per
operation, deterministic, so CI time stays around a minute); every answer must be no 5xx, a
documented status code and content type, and a body that conforms to the schema (the checks
and what is left out of them: tests/hardening/fuzzing.py). Path parameters named ``game_id``
are pointed at the fixture's game, so the generated bodies reach the game code rather than a
404. The links between operations are followed by test_schemathesis_stateful.py.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.core.wsgi import get_wsgi_application
from hypothesis import HealthCheck, settings

from tests.games.api.conftest import PlayerClient, create_game
from tests.hardening.fuzzing import connection_kept, excluded_checks, load_schema

schema = load_schema()
schema.app = get_wsgi_application()


@pytest.fixture
def seated(make_player: Callable[..., PlayerClient]) -> tuple[PlayerClient, int]:
    """Ada, seated at a started two-player game with Bob."""
    ada, bob = make_player("Ada"), make_player("Bob")
    game = create_game(ada, preset="two_player")
    assert bob.post(f"/api/v1/games/{game['id']}/join/", {}, format="json").status_code == 200
    assert ada.post(f"/api/v1/games/{game['id']}/start/", {}, format="json").status_code == 200
    return ada, game["id"]


@schema.parametrize()
@settings(suppress_health_check=list(HealthCheck), deadline=None)
def test_every_operation_conforms_and_never_fails(
    case: Any, seated: tuple[PlayerClient, int]
) -> None:
    player, game_id = seated
    if case.path_parameters and "game_id" in case.path_parameters:
        case.path_parameters["game_id"] = game_id
    with connection_kept():
        case.call_and_validate(
            headers={"Authorization": f"Token {player.token}"},
            excluded_checks=excluded_checks(case.operation.path),
        )
