"""GET /games/{id}/replay/?at=last: the table after the last event, as the default gives it."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from games.models import GameTable
from tests.games.api.conftest import PlayerClient, problem
from tests.games.selectors.replay.conftest import advance, player_of, started_game

pytestmark = pytest.mark.django_db

ROOT = Path(__file__).resolve().parents[3]


def test_at_last_is_the_last_event(ada: PlayerClient) -> None:
    game = advance(started_game(player_of(ada), seat=0).pk, steps=5)
    url = f"/api/v1/games/{game.pk}/replay/"
    last = ada.get(f"{url}?at=last")
    assert last.status_code == 200, last.content
    body = last.json()
    assert body["at"] == body["version"] == game.version == 6
    assert body == ada.get(url).json() == ada.get(f"{url}?at={game.version}").json()
    assert ada.get(f"{url}?at=2").json()["at"] == 2


def test_at_last_for_a_delayed_spectator_is_the_last_event_it_may_see(
    ada: PlayerClient, bob: PlayerClient
) -> None:
    game = started_game(player_of(ada), seat=0)
    GameTable.objects.update_or_create(game=game, defaults={"spectator_delay": 3})
    game = advance(game.pk, steps=6)
    body = bob.get(f"/api/v1/games/{game.pk}/replay/?at=last").json()
    assert body["at"] == body["version"] == game.version - 3


@pytest.mark.parametrize("bad", ["0", "-1", "Last", "first", "last1", "2.5", ""])
def test_other_values_are_refused(ada: PlayerClient, bad: str) -> None:
    game = advance(started_game(player_of(ada), seat=0).pk, steps=2)
    response = ada.get(f"/api/v1/games/{game.pk}/replay/", {"at": bad})
    if bad == "":  # an empty parameter is no parameter
        assert response.status_code == 200 and response.json()["at"] == game.version
        return
    body = problem(response, 400, "invalid_request")
    assert [e["field"] for e in body["errors"]] == ["at"]


def test_the_schema_documents_last() -> None:
    spec = yaml.safe_load((ROOT / "openapi.yaml").read_text())
    operation = spec["paths"]["/api/v1/games/{game_id}/replay/"]["get"]
    (at,) = [p for p in operation["parameters"] if p["name"] == "at"]
    assert at["in"] == "query" and not at.get("required", False)
    kinds = at["schema"]["oneOf"]
    assert {"type": "integer", "minimum": 1} in kinds
    assert {"type": "string", "enum": ["last"]} in kinds
