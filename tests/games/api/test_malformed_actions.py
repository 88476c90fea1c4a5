"""A malformed action, over HTTP or inside an import document, is refused with a code.

Any JSON value may stand where an action, its type or one of its members belongs; the answer
is 400 ``invalid_action`` (an import names the event: 422 ``import_event_rejected``, 400
``import_log_invalid``) and the game is exactly as it was: never a 500.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from games.models import Game
from tests.games.api.conftest import PlayerClient, problem
from tests.games.selectors.replay.conftest import advance, player_of, started_game
from tests.hardening.helpers import footprint

pytestmark = pytest.mark.django_db

MALFORMED = [
    {"type": []},
    {"type": {}},
    {"type": ["discard"], "card": "QH"},
    {"type": {"type": "draw"}},
    {"type": None},
    {"type": 7},
    {"type": "meld", "melds": [{"rank": [], "cards": ["QH", "QS", "QD"]}]},
    {"type": "meld", "melds": [{"rank": {"a": 1}, "cards": ["QH", "QS", "QD"]}]},
    {"type": "meld", "melds": {"rank": "Q"}},
    {"type": "meld", "melds": [[["QH"]]]},
    {"type": "take_pile", "cards": [{}], "melds": []},
    {"type": "discard", "card": ["QH"]},
    {"type": "answer_partner", "allow": {}},
]


@pytest.mark.parametrize("action", MALFORMED, ids=[str(i) for i in range(len(MALFORMED))])
def test_a_malformed_action_is_invalid_action(ada: PlayerClient, action: dict[str, Any]) -> None:
    game = started_game(player_of(ada), preset="two_player", seat=0)
    before = footprint(game.pk)
    body = problem(ada.act(game.pk, action, game.version), 400, "invalid_action")
    assert body["detail"]
    assert footprint(game.pk) == before


@pytest.mark.parametrize("action", [[], "draw", 3, None, [{"type": "draw"}]])
def test_an_action_that_is_not_an_object(ada: PlayerClient, action: Any) -> None:
    game = started_game(player_of(ada), preset="two_player", seat=0)
    before = footprint(game.pk)
    response = ada.act(game.pk, action, game.version)
    assert response.status_code == 400, response.content
    assert response.json()["code"] in ("invalid_action", "invalid_request")
    assert footprint(game.pk) == before


# ============================================================================== import documents
@pytest.fixture
def document(ada: PlayerClient) -> dict[str, Any]:
    game = advance(started_game(player_of(ada), preset="two_player", seat=0).pk)
    assert game.status == "finished"
    response = ada.get(f"/api/v1/games/{game.pk}/export/")
    assert response.status_code == 200, response.content
    body: dict[str, Any] = response.json()
    return body


def imported(client: PlayerClient, document: dict[str, Any]) -> Any:
    return client.post("/api/v1/games/import/", {"document": document}, format="json")


@pytest.mark.parametrize("kind", [[], {}, ["draw"], {"draw": True}])
def test_a_malformed_action_type_in_an_import_names_its_event(
    ada: PlayerClient, document: dict[str, Any], kind: Any
) -> None:
    games = Game.objects.count()
    bad = copy.deepcopy(document)
    bad["events"][2]["payload"]["type"] = kind
    body = problem(imported(ada, bad), 422, "import_event_rejected")
    assert (body["seq"], body["engine_code"]) == (3, "invalid_action")
    assert Game.objects.count() == games


@pytest.mark.parametrize(
    "where, value",
    [
        ("seat", []),
        ("seat", {}),
        ("seat", "0"),
        ("seat", 1.5),
        ("seat", True),
        ("effects", 5),
        ("effects", "x"),
        ("effects", {"kind": "drew"}),
        ("effects", [[]]),
    ],
)
def test_a_malformed_event_member_in_an_import_is_refused(
    ada: PlayerClient, document: dict[str, Any], where: str, value: Any
) -> None:
    games = Game.objects.count()
    bad = copy.deepcopy(document)
    bad["events"][2][where] = value
    response = imported(ada, bad)
    assert response.status_code in (400, 422), response.content
    assert response.json()["code"] in (
        "import_log_invalid",
        "import_event_rejected",
        "import_event_mismatch",
    )
    assert Game.objects.count() == games


@pytest.mark.parametrize("index", [[], {}, [0], {"a": 1}])
def test_a_malformed_seat_index_in_an_import_is_ignored(
    ada: PlayerClient, document: dict[str, Any], index: Any
) -> None:
    changed = copy.deepcopy(document)
    changed["seats"][1]["index"] = index
    changed["seats"][1]["bot_level"] = "hard"
    response = imported(ada, changed)
    assert response.status_code == 201, response.content
