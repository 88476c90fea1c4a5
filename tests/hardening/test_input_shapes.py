"""Input the service cannot store or read is refused with a code, never a 500.

- A NUL character (U+0000), which PostgreSQL's ``text`` and ``jsonb`` reject, anywhere a
  request carries text: the path (path parameters), the query string, a JSON body (any
  string or key, at any depth, an import document's included). 400 ``invalid_request`` whose
  ``errors`` name the field (code ``null_characters_not_allowed``), and nothing changes.
- Any JSON value where an import document expects an event member or a document member: the
  import's own refusals (``import_*``, ``invalid_option``, ...), never another exception.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.db import connection
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rest_framework.test import APIClient

from accounts.models import Player
from core.errors import ServiceError
from games.engine import action_to_dict, apply, legal_actions, make_options, new_game
from games.models import Game, GameEvent
from games.services.imports import import_plan
from tests.games.api.conftest import PlayerClient, create_game, problem
from tests.hardening.helpers import footprint, started_game

NUL = "\x00"


def refused(response: Any, field: str | None) -> None:
    body = problem(response, 400, "invalid_request")
    assert body["errors"] == [
        {
            "field": field,
            "code": "null_characters_not_allowed",
            "message": body["errors"][0]["message"],
        }
    ]
    assert "Null characters" in body["errors"][0]["message"]


def plain(client: PlayerClient) -> APIClient:
    """The same player without the schema check (a 400 on a path is not an operation's)."""
    other = APIClient()
    other.credentials(HTTP_AUTHORIZATION=f"Token {client.token}")
    return other


@pytest.fixture
def game_id(make_player: Callable[..., PlayerClient]) -> int:
    game_id, _ = started_game(make_player)
    return game_id


def stored() -> tuple[int, int, int]:
    return Game.objects.count(), GameEvent.objects.count(), Player.objects.count()


# ============================================================================== path and query
@pytest.mark.django_db
@pytest.mark.parametrize(
    "method, path, field",
    [
        ("post", "/api/v1/games/join/%00/", None),
        ("post", "/api/v1/games/join/AB%00CD/", None),
        ("get", "/api/v1/games/%00/", None),
        ("get", "/api/v1/players/%00/profile/", None),
        ("get", "/api/v1/games/?preset=%00", "preset"),
        ("get", "/api/v1/games/?mine=true&page=1%00", "page"),
        ("get", "/api/v1/games/?%00=1", None),
        ("get", "/api/v1/games/{game}/events/?after=%00", "after"),
        ("get", "/api/v1/games/{game}/stream/?last_event_id=1-0%00", "last_event_id"),
        ("get", "/api/v1/games/{game}/replay/?upto=%00", "upto"),
        ("get", "/api/v1/games/{game}/timer/?after=%00", "after"),
        ("get", "/api/v1/games/{game}/table/events/?after=1%00", "after"),
        ("get", "/%00", None),
    ],
)
def test_a_nul_in_the_path_or_query_is_refused(
    make_player: Callable[..., PlayerClient], game_id: int, method: str, path: str, field: Any
) -> None:
    client = plain(make_player("Eve"))
    before, game = stored(), footprint(game_id)
    response = getattr(client, method)(path.replace("{game}", str(game_id)))
    refused(response, field)
    assert "%00" in response.json()["instance"] or "?" in path
    assert stored() == before and footprint(game_id) == game


# ============================================================================== JSON bodies
@pytest.mark.django_db
@pytest.mark.parametrize(
    "path, body, field",
    [
        ("/api/v1/games/", {"preset": "classic\x00"}, "preset"),
        ("/api/v1/games/", {"preset": "classic", "options": {"target\x00": 1}}, "options"),
        ("/api/v1/games/join/{code}/", {"seat": 1, "note": "\x00"}, "note"),
        ("/api/v1/games/{game}/join/", {"join_code": "AB\x00"}, "join_code"),
        ("/api/v1/games/{game}/actions/", {"action": {"type": "draw\x00"}}, "action.type"),
        (
            "/api/v1/games/{game}/actions/",
            {"action": {"type": "discard", "card": "QH"}, "expected_version": 1, "\x00": 0},
            None,
        ),
        ("/api/v1/games/{game}/chat/", {"phrase": "hello\x00"}, "phrase"),
        ("/api/v1/games/{game}/start/", [[[[["\x00"]]]]], "0.0.0.0.0"),
        ("/api/v1/games/{game}/start/", "\x00", None),
    ],
)
def test_a_nul_in_a_json_body_is_refused(
    make_player: Callable[..., PlayerClient], path: str, body: Any, field: Any
) -> None:
    ada, bob = make_player("Ada"), plain(make_player("Bob"))
    game = create_game(ada, preset="two_player")
    before, kept = stored(), footprint(game["id"])
    url = path.replace("{game}", str(game["id"])).replace("{code}", game["join_code"])
    refused(bob.post(url, body, format="json"), field)
    assert stored() == before and footprint(game["id"]) == kept


@pytest.mark.django_db
def test_a_nul_deep_in_a_body_is_found() -> None:
    nested: Any = "\x00"
    for _ in range(300):
        nested = {"a": [nested]}
    response = APIClient().post("/api/v1/players/", {"display_name": nested}, format="json")
    body = problem(response, 400, "invalid_request")
    assert body["errors"][0]["field"] == "display_name" + ".a.0" * 300


@pytest.mark.django_db
def test_a_display_name_with_a_nul_is_refused_as_before() -> None:
    before = stored()
    response = APIClient().post("/api/v1/players/", {"display_name": "Ada\x00"}, format="json")
    refused(response, "display_name")
    assert stored() == before


@pytest.fixture
def export(make_player: Callable[..., PlayerClient]) -> tuple[PlayerClient, dict[str, Any]]:
    """A finished game's export document and a player to import it."""
    ada = make_player("Ada")
    game = create_game(ada, preset="two_player", seat=0, bots=[{"seat": 1, "level": "easy"}])
    assert ada.post(f"/api/v1/games/{game['id']}/start/", {}, format="json").status_code == 200
    assert ada.post(f"/api/v1/games/{game['id']}/concede/").status_code == 200
    response = ada.get(f"/api/v1/games/{game['id']}/export/")
    assert response.status_code == 200, response.content
    document: dict[str, Any] = response.json()
    return ada, document


@pytest.mark.django_db
@pytest.mark.parametrize(
    "change, field",
    [
        (lambda d: d.update(source_game="\x00"), "document.source_game"),
        (lambda d: d.update(exported_at="2026\x00"), "document.exported_at"),
        (lambda d: d["events"][1]["payload"].update(type="draw\x00"), "document.events.1.payload"),
        (lambda d: d["events"][0]["payload"].update(note="\x00"), "document.events.0.payload.note"),
        (lambda d: d["seats"][0].update({"\x00": 1}), "document.seats.0"),
        (lambda d: d.update(seed=d["seed"] + "\x00"), "document.seed"),
    ],
)
def test_a_nul_in_an_import_document_is_refused(
    export: tuple[PlayerClient, dict[str, Any]],
    change: Callable[[dict[str, Any]], None],
    field: str,
) -> None:
    ada, document = export
    change(document)
    before = stored()
    response = plain(ada).post("/api/v1/games/import/", {"document": document}, format="json")
    body = problem(response, 400, "invalid_request")
    assert body["errors"][0]["code"] == "null_characters_not_allowed"
    assert body["errors"][0]["field"].startswith(field)
    assert stored() == before


@pytest.mark.postgres
@pytest.mark.django_db
def test_on_postgresql_no_nul_reaches_the_database(
    export: tuple[PlayerClient, dict[str, Any]],
) -> None:
    """PostgreSQL refuses NUL in text and jsonb (a 500 before these checks); here it never
    sees one."""
    assert connection.vendor == "postgresql"
    ada, document = export
    client = plain(ada)
    before = stored()
    refused(client.post("/api/v1/games/join/%00/", {}, format="json"), None)
    refused(client.get("/api/v1/games/?preset=two_player&page_size=%00"), "page_size")
    response = client.post(
        "/api/v1/games/import/",
        {"document": {**document, "source_game": "\x00"}},
        format="json",
    )
    refused(response, "document.source_game")
    assert stored() == before
    # the same document without the NUL imports
    response = client.post("/api/v1/games/import/", {"document": document}, format="json")
    assert response.status_code == 201, response.content


# ============================================================================== import shapes
json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-3, 200)
    | st.floats(allow_nan=False)
    | st.text(max_size=5)
    | st.sampled_from(["draw", "discard", "game_started", "easy", "QH", "two_player", "1"]),
    lambda children: (
        st.lists(children, max_size=3)
        | st.dictionaries(st.text(max_size=5) | st.sampled_from(["index", "type"]), children)
    ),
    max_leaves=8,
)
EVENT_MEMBERS = ["seq", "seat", "type", "payload", "effects", "source"]
DOCUMENT_MEMBERS = [
    "format",
    "format_version",
    "preset",
    "options",
    "rules_version",
    "seed",
    "seed_commitment",
    "seats",
    "events",
    "final",
]


def teaching_document() -> dict[str, Any]:
    """A document written with a seed: a few legal moves of a two-player game."""
    seed = "shapes"
    state = new_game(make_options("two_player", {}), seed)
    events = []
    for seq in range(2, 8):
        action = legal_actions(state)[0]
        events.append(
            {
                "seq": seq,
                "seat": state.to_act,
                "type": action.type,
                "payload": action_to_dict(action),
            }
        )
        apply(state, action)
    return {
        "format": "canasta-game",
        "format_version": 1,
        "preset": "two_player",
        "rules_version": "1",
        "seed": seed,
        "seats": [{"index": 0, "bot_level": "easy"}, {"index": 1, "bot_level": "hard"}],
        "events": events,
    }


def planned(document: dict[str, Any]) -> None:
    try:
        import_plan(document)
    except ServiceError as exc:
        assert exc.status in (400, 422), exc


def test_the_teaching_document_imports() -> None:
    assert import_plan(teaching_document()).state is not None


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    event=st.integers(0, 5),
    member=st.sampled_from(EVENT_MEMBERS),
    value=json_values,
)
def test_any_json_value_as_an_event_member(event: int, member: str, value: Any) -> None:
    document = teaching_document()
    document["events"][event][member] = value
    planned(document)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    event=st.integers(0, 5), payload=st.dictionaries(st.sampled_from(["type", "card"]), json_values)
)
def test_any_json_value_as_an_events_action(event: int, payload: dict[str, Any]) -> None:
    document = teaching_document()
    document["events"][event]["payload"] = payload
    planned(document)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(member=st.sampled_from(DOCUMENT_MEMBERS), value=json_values)
def test_any_json_value_as_a_document_member(member: str, value: Any) -> None:
    document = teaching_document()
    document[member] = value
    planned(document)
