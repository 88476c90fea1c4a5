"""Export a game as one document and import it into a new game that replays to the same state;
a document that does not replay is refused, naming the first event that does not apply."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from games.engine import GameState, make_options, new_game, state_digest
from games.models import Game
from games.selectors.verify import game_verify
from tests.games.api.conftest import PlayerClient, problem
from tests.games.selectors.replay.conftest import advance, player_of, started_game

pytestmark = pytest.mark.django_db


def export(client: PlayerClient, game_id: int) -> dict[str, Any]:
    response = client.get(f"/api/v1/games/{game_id}/export/")
    assert response.status_code == 200, response.content
    return response.json()


def import_(client: PlayerClient, document: dict[str, Any], **body: Any) -> Any:
    return client.post("/api/v1/games/import/", {"document": document, **body}, format="json")


@pytest.fixture
def finished(ada: PlayerClient) -> Game:
    game = advance(started_game(player_of(ada), preset="two_player", seat=0).pk)
    assert game.status == "finished"
    return game


def test_a_finished_game_round_trips(ada: PlayerClient, bob: PlayerClient, finished: Game) -> None:
    document = export(bob, finished.pk)
    assert document["format"] == "canasta-game" and document["format_version"] == 1
    assert document["seed"] == finished.seed and not document["redacted"]
    assert document["rules_version"] == finished.rules_version
    assert len(document["events"]) == finished.version
    assert document["seats"][0]["display_name"] == "Ada"
    assert document["seats"][1]["kind"] == "bot" and document["seats"][1]["bot_level"] == "easy"

    response = import_(bob, document)
    assert response.status_code == 201, response.content
    body = response.json()
    copy_ = Game.objects.get(pk=body["game"]["id"])
    assert copy_.pk != finished.pk and copy_.status == "finished"
    assert copy_.created_by_id == bob.player_id
    assert (copy_.imported_from or {})["source_game"] == finished.pk
    assert body["events"] == finished.version == copy_.version
    assert body["game"]["seed"] == finished.seed  # a finished game: the seed is public
    original = GameState.from_dict(finished.snapshot or {})
    assert GameState.from_dict(copy_.snapshot or {}) == original
    assert body["final_state_sha256"] == state_digest(original)
    assert game_verify(copy_).ok
    again = export(bob, copy_.pk)
    assert [e["payload"] for e in again["events"][1:]] == [
        e["payload"] for e in document["events"][1:]
    ]
    started, original_start = again["events"][0]["payload"], document["events"][0]["payload"]
    for key in ("preset", "rules_version", "seed_commitment"):
        assert started[key] == original_start[key]
    assert [e["effects"] for e in again["events"]] == [e["effects"] for e in document["events"]]
    assert [s["kind"] for s in again["seats"]] == ["bot", "bot"]


def test_a_running_game_is_exported_redacted_and_cannot_be_imported(ada: PlayerClient) -> None:
    game = advance(started_game(player_of(ada), seat=0).pk, steps=20)
    document = export(ada, game.pk)
    assert document["seed"] is None and document["redacted"] and document["viewer"] == 0
    assert document["final"]["state_sha256"] is None
    for event in document["events"]:
        for effect in event["effects"]:
            assert set(effect["private"]) <= {"0"}
    problem(import_(ada, document), 422, "import_seed_missing")


def test_the_first_event_that_does_not_apply_is_named(ada: PlayerClient, finished: Game) -> None:
    document = export(ada, finished.pk)
    bad = copy.deepcopy(document)
    seq = next(e["seq"] for e in bad["events"] if e["type"] == "discard" and e["seq"] > 10)
    target = bad["events"][seq - 1]
    target["payload"] = {"type": "discard", "card": "JK"}
    target["effects"] = None
    body = problem(import_(ada, bad), 422, "import_event_rejected")
    assert body["seq"] == seq and body["engine_code"] in ("card_not_in_hand", "invalid_action")
    assert body["engine_message"] and str(seq) in body["detail"]
    assert Game.objects.count() == 1  # nothing was created


def test_an_action_by_the_wrong_seat_is_named(ada: PlayerClient, finished: Game) -> None:
    document = export(ada, finished.pk)
    document["events"][1]["seat"] = 1 - document["events"][1]["seat"]
    body = problem(import_(ada, document), 422, "import_event_rejected")
    assert body["seq"] == 2 and body["engine_code"] == "not_your_turn"


def test_tampering_is_refused(ada: PlayerClient, finished: Game) -> None:
    document = export(ada, finished.pk)

    other_seed = copy.deepcopy(document)
    other_seed["seed"] = "0" * 64
    problem(import_(ada, other_seed), 422, "import_seed_mismatch")

    effects = copy.deepcopy(document)
    effects["events"][2]["effects"][0]["public"]["count"] = 7
    assert problem(import_(ada, effects), 422, "import_event_mismatch")["seq"] == 3

    private = copy.deepcopy(document)
    dealt = private["events"][0]["effects"][0]["private"]["1"]["hand"]
    dealt[0], dealt[-1] = dealt[-1], "JK"
    assert problem(import_(ada, private), 422, "import_event_mismatch")["seq"] == 1

    final = copy.deepcopy(document)
    final["final"]["state_sha256"] = "0" * 64
    problem(import_(ada, final), 422, "import_final_state_mismatch")

    shortened = copy.deepcopy(document)
    shortened["events"] = shortened["events"][:-1]
    problem(import_(ada, shortened), 422, "import_final_state_mismatch")

    gap = copy.deepcopy(document)
    del gap["events"][4]
    assert problem(import_(ada, gap), 400, "import_log_invalid")["seq"] == 6

    assert Game.objects.count() == 1


def test_malformed_documents(ada: PlayerClient, finished: Game) -> None:
    document = export(ada, finished.pk)
    problem(import_(ada, {**document, "format": "chess-pgn"}), 400, "import_format_unsupported")
    problem(import_(ada, {**document, "format_version": 2}), 400, "import_format_unsupported")
    problem(import_(ada, {**document, "events": "none"}), 400, "invalid_request")
    problem(import_(ada, {**document, "events": [1, 2]}), 400, "invalid_request")
    problem(import_(ada, [1, 2]), 400, "invalid_request")  # type: ignore[arg-type]
    body = problem(import_(ada, {**document, "options": {"players": 9}}), 400, "invalid_option")
    assert body["option"] == "players"
    older = import_(ada, {**document, "rules_version": "0"})
    old = problem(older, 422, "rules_version_unsupported")
    assert old["rules_version"] == "0"
    assert old["supported_rules_versions"] == ["1", "bolivia-1", "mac-1", "samba-1"]
    problem(import_(ada, document, seat=2), 400, "invalid_seat")


def test_a_teaching_document_with_a_seed_loads_a_position(ada: PlayerClient) -> None:
    """A hand-written document: a preset, a seed and a few actions, no effects."""
    seed = "teaching: a frozen pile"
    state = new_game(make_options("two_player", {}), seed)
    first = state.to_act
    hand = state.hands[first]

    document = {
        "format": "canasta-game",
        "format_version": 1,
        "preset": "two_player",
        "rules_version": "1",
        "seed": seed,
        "events": [{"seat": first, "payload": {"type": "draw"}}],
    }
    response = import_(ada, document, seat=first)
    assert response.status_code == 201, response.content
    body = response.json()
    assert body["events"] == 2 and body["game"]["status"] == "active"
    assert body["game"]["your_seat"] == first
    assert body["game"]["state"]["to_act"] == first and body["game"]["state"]["phase"] == "play"
    assert len(body["game"]["state"]["hand"]) == len(hand) + 2
    game = Game.objects.get(pk=body["game"]["id"])
    assert game_verify(game).ok
    # the importer plays on from the loaded position
    card = body["game"]["state"]["hand"][0]
    response = ada.act(game.pk, {"type": "discard", "card": card}, game.version)
    assert response.status_code == 201, response.content
