"""Whole games played through HTTP to the target score, with bots (run in-process)."""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from typing import Any

import pytest

from games.engine.view import player_view
from games.models import Game, Meld, RoundScore
from games.selectors.games import game_replay_state
from tests.games.api.conftest import PlayerClient, create_game, play_until, snapshot_of

# Bots play after each commit (transaction.on_commit): the tests must really commit.
pytestmark = pytest.mark.django_db(transaction=True)


def finished(game: dict[str, Any]) -> bool:
    return bool(game["status"] == "finished")


def check_finished_game(client: PlayerClient, game_id: int) -> dict[str, Any]:
    """A finished game is consistent everywhere: log, snapshot, projections, scorecard."""
    body = client.game(game_id)
    assert body["status"] == "finished" and body["finished_at"]
    assert body["state"]["phase"] == "game_over" and body["state"]["legal_actions"] == []
    # the seed is revealed and matches the commitment published at the start
    assert hashlib.sha256(body["seed"].encode()).hexdigest() == body["seed_commitment"]

    game = Game.objects.get(pk=game_id)
    snapshot = snapshot_of(game)
    assert game_replay_state(game) == snapshot  # the log is the truth
    assert game.events.count() == game.version
    assert list(game.events.values_list("seq", flat=True)) == list(range(1, game.version + 1))
    table = player_view(snapshot, None, with_legal=False)
    assert sorted((m.team, m.rank, tuple(m.cards)) for m in Meld.objects.filter(game=game)) == (
        sorted(
            (t["team"], m["rank"], tuple(m["cards"])) for t in table["teams"] for m in t["melds"]
        )
    )

    card = client.get(f"/api/v1/games/{game_id}/scorecard/").json()
    assert card["status"] == "finished"
    assert len(card["rounds"]) == len(snapshot.rounds) >= 1
    assert RoundScore.objects.filter(game=game).count() == len(snapshot.rounds) * len(card["teams"])
    assert card["totals"] == snapshot.scores == [t["score"] for t in body["state"]["teams"]]
    assert card["winner_team"] == body["winner_team"] == snapshot.winner
    assert card["totals"][card["winner_team"]] >= card["target_score"]
    assert card["totals"][card["winner_team"]] == max(card["totals"])
    running = [0] * len(card["teams"])
    for entry in card["rounds"]:
        for team in entry["teams"]:
            assert sum(team[p] for p in RoundScore.COMPONENTS) == team["total"]
            running[team["team"]] += team["total"]
            assert team["cumulative"] == running[team["team"]]

    log = client.get(f"/api/v1/games/{game_id}/events/?limit=500").json()
    assert log["events"][-1]["effects"][-1]["kind"] == "game_ended"
    return card


def test_four_bots_play_a_whole_game(ada: PlayerClient) -> None:
    game = create_game(
        ada,
        preset="classic",
        options={"target_score": 1000},
        spectate=True,
        bots=[{"seat": i, "level": "easy"} for i in range(4)],
    )
    started = ada.post(f"/api/v1/games/{game['id']}/start/", {}, format="json")
    assert started.status_code == 200
    assert started.json()["status"] == "finished"  # eager bots: the whole game ran
    check_finished_game(ada, game["id"])
    assert ada.game(game["id"])["state"]["hand"] is None  # a spectator, even at the end


def test_two_players_and_two_bots_play_to_the_target(ada: PlayerClient, bob: PlayerClient) -> None:
    game = create_game(
        ada, options={"target_score": 1000}, bots=[{"seat": 1}, {"seat": 3, "level": "easy"}]
    )
    assert bob.post(f"/api/v1/games/{game['id']}/join/", {}, format="json").json()["your_seat"] == 2
    assert ada.post(f"/api/v1/games/{game['id']}/start/", {}, format="json").status_code == 200
    play_until([ada, bob], game["id"], finished)
    card = check_finished_game(ada, game["id"])
    assert card["teams"] == [{"team": 0, "seats": [0, 2]}, {"team": 1, "seats": [1, 3]}]


def test_fill_with_bots_at_the_start_of_a_three_player_game(
    make_player: Callable[..., PlayerClient],
) -> None:
    cid = make_player("Cid")
    game = create_game(cid, preset="three_player", options={"target_score": 1000})
    started = cid.post(
        f"/api/v1/games/{game['id']}/start/", {"fill_with_bots": True}, format="json"
    ).json()
    assert [s["kind"] for s in started["seats"]] == ["player", "bot", "bot"]
    play_until([cid], game["id"], finished)
    check_finished_game(cid, game["id"])
