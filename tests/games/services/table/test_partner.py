"""Asking the partner to go out, through the API: the question is the action
``ask_partner``, the answer ``answer_partner`` (a bot partner answers by itself); both are in
the move log and the live stream, and a "yes" binds the asker for the rest of the turn.

The games are put in a position where going out is possible by writing the snapshot, so they
no longer replay from their logs: the replay verification after each test is off here.
"""

from __future__ import annotations

import pytest

from games.engine import GameState, make_options
from games.models import Game
from tests.games.api.conftest import PlayerClient, create_game, problem
from tests.games.engine.position import position

pytestmark = pytest.mark.django_db
REPLAY_VERIFY = False  # read by tests/games/selectors/replay/verify_plugin.py


def url(game_id: int, tail: str) -> str:
    return f"/api/v1/games/{game_id}/{tail}"


def _can_go_out_position(game_id: int, seat: int) -> None:
    """Put the game (4 players, ``seat`` to play after drawing) in a position where ``seat``
    can go out: its team has a canasta and the hand melds out with one discard."""
    hands = ["", "", "", ""]
    hands[seat] = "5H 5S 5D 9C"
    team = seat % 2
    melds: list[dict[str, str]] = [{}, {}]
    melds[team] = {"K": "KC KC KD KD KH KH KS"}
    state: GameState = position(
        make_options("classic", {}), hands, pile="4D", turn=seat, phase="play", melds=melds
    )
    Game.objects.filter(pk=game_id).update(snapshot=state.to_dict(), to_act=seat)


@pytest.mark.django_db(transaction=True)  # the bot answers after the commit
def test_ask_a_bot_partner_who_answers(ada: PlayerClient) -> None:
    game = create_game(
        ada, preset="classic", seat=0, bots=[{"seat": s, "level": "easy"} for s in (1, 2, 3)]
    )
    game_id = game["id"]
    ada.post(url(game_id, "start/"), {}, format="json")
    _can_go_out_position(game_id, 0)
    mine = ada.game(game_id)
    assert {"type": "ask_partner"} in mine["state"]["legal_actions"]
    asked = ada.act(game_id, {"type": "ask_partner"}, mine["version"])
    assert asked.status_code == 201, asked.content
    assert asked.json()["event"]["effects"][0]["kind"] == "partner_asked"
    # the bot partner (seat 2) answered at once, in the log and the stream alike
    events = ada.get(url(game_id, "events/"), {"after": mine["version"]}).json()["events"]
    assert [e["type"] for e in events[:2]] == ["ask_partner", "answer_partner"]
    answer = events[1]
    assert answer["seat"] == 2 and answer["source"] == "bot"
    allow = answer["payload"]["allow"]
    assert answer["effects"][0] == {"kind": "partner_answered", "seat": 2, "allow": allow}
    now = ada.game(game_id)
    assert now["state"]["to_act"] == 0
    assert now["state"]["permission"] == ("yes" if allow else "no")


def test_ask_a_human_partner_binding(ada: PlayerClient, bob: PlayerClient) -> None:
    game = create_game(
        ada, preset="classic", seat=0, bots=[{"seat": s, "level": "easy"} for s in (1, 3)]
    )
    game_id = game["id"]
    bob.post(url(game_id, "join/"), {"seat": 2}, format="json")
    ada.post(url(game_id, "start/"), {}, format="json")
    _can_go_out_position(game_id, 0)
    version = ada.game(game_id)["version"]
    assert ada.act(game_id, {"type": "ask_partner"}, version).status_code == 201
    partner = bob.game(game_id)
    assert partner["state"]["phase"] == "answer" and partner["state"]["to_act"] == 2
    assert partner["state"]["legal_actions"] == [
        {"type": "answer_partner", "allow": True},
        {"type": "answer_partner", "allow": False},
    ] or sorted(a["allow"] for a in partner["state"]["legal_actions"]) == [False, True]
    problem(ada.act(game_id, {"type": "discard", "card": "9C"}, version + 1), 403, "not_your_turn")
    said = bob.act(game_id, {"type": "answer_partner", "allow": True}, partner["version"])
    assert said.status_code == 201, said.content
    # "yes" binds: a discard that would not go out is refused
    mine = ada.game(game_id)
    assert mine["state"]["permission"] == "yes"
    problem(
        ada.act(game_id, {"type": "discard", "card": "5H"}, mine["version"]), 422, "must_go_out"
    )
