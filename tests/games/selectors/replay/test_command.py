"""``manage.py replay``: verify games against their logs, show them as text, export, bench."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from games.models import Game, GameEvent, Meld, RoundScore, Seat
from games.selectors.verify import game_verify
from games.services.imports import game_import
from games.services.seating import seat_save
from tests.games.api.conftest import PlayerClient
from tests.games.selectors.replay.conftest import advance, player_of, started_game

pytestmark = pytest.mark.django_db
REPLAY_VERIFY = False  # games are damaged on purpose here


def run(*args: str) -> str:
    out = io.StringIO()
    call_command("replay", *args, stdout=out)
    return out.getvalue()


def failing(*args: str) -> str:
    out = io.StringIO()
    with pytest.raises(CommandError):
        call_command("replay", *args, stdout=out)
    return out.getvalue()


@pytest.fixture
def games(ada: PlayerClient) -> list[Game]:
    me = player_of(ada)
    running = advance(started_game(me, seat=0).pk, steps=30)
    finished = advance(started_game(me, preset="two_player", seat=None).pk)
    lobby = Game.objects.get(pk=ada.post("/api/v1/games/", {}, format="json").json()["id"])
    return [running, finished, lobby]


def test_verify_all_passes(games: list[Game]) -> None:
    out = run("--all", "--verify")
    for game in games:
        assert f"game {game.pk}: ok" in out
    assert "verified 3 game(s): 3 ok, 0 mismatched" in out
    assert "verified 1 game(s)" in run(str(games[0].pk))  # --verify is the default


def test_a_changed_snapshot_is_reported(games: list[Game]) -> None:
    running = games[0]
    snapshot = dict(running.snapshot or {})
    snapshot["hands"] = list(reversed(snapshot["hands"]))
    Game.objects.filter(pk=running.pk).update(snapshot=snapshot)
    out = failing("--all", "--verify")
    assert f"game {running.pk}: MISMATCH" in out and "snapshot differs" in out and "hands" in out
    assert "3 game(s): 2 ok, 1 mismatched" in out


def test_changed_projections_are_reported(games: list[Game]) -> None:
    finished = games[1]
    RoundScore.objects.filter(game=finished, round_no=1, team=0).update(total=12345)
    meld = Meld.objects.filter(game=finished).first()
    if meld is not None:
        meld.cards = meld.cards[:-1]
        meld.save()
    out = failing(str(finished.pk), "--verify")
    assert "RoundScore rows differ from the log's rounds [1]" in out
    if meld is not None:
        assert "Meld rows differ" in out


def test_a_seat_changed_behind_the_seating_is_reported(games: list[Game]) -> None:
    lobby = games[2]
    seat = Seat.objects.get(game=lobby, index=1)
    seat.bot_level = "hard"  # not through a service: Game.seating does not know
    seat.save()
    out = failing(str(lobby.pk), "--verify")
    assert "the seating on the game row differs from its Seat rows" in out
    seat_save(lobby, seat, ["bot_level"])  # what the services do to change a seat
    assert "verified 1 game(s): 1 ok" in run(str(lobby.pk))


def test_a_changed_log_is_reported(games: list[Game]) -> None:
    running = games[0]
    event = GameEvent.objects.get(game=running, seq=2)
    event.effects[0]["public"]["forged"] = 9
    event.save()
    assert "event 2: effect 0 (" in failing(str(running.pk))
    event.payload = {"type": "discard", "card": "JK"}
    event.save()
    out = failing(str(running.pk))
    assert "event 2 does not apply" in out


def test_other_stored_facts_are_compared(games: list[Game]) -> None:
    running, finished = games[0], games[1]
    Game.objects.filter(pk=running.pk).update(status="finished", winner_team=1)
    GameEvent.objects.filter(game=finished, seq=finished.version).delete()
    out = failing("--all")
    assert "status is finished, the log says active" in out
    assert "winner_team is 1, the log says None" in out
    assert f"the log has {finished.version - 1} events" in out


def test_show_prints_one_line_per_event_and_tables(games: list[Game]) -> None:
    finished = games[1]
    out = run(str(finished.pk), "--show")
    lines = out.splitlines()
    assert lines[0].startswith(f"game {finished.pk}: two_player, 2 players")
    steps = [line for line in lines if line.startswith("#")]
    assert len(steps) == finished.version
    assert steps[0].startswith("#1 table game_started: round 1 dealt") and "hands seat 0:" in out
    assert "drew 2 card(s) (" in out  # every card is shown
    rounds = finished.round_scores.count() // 2
    assert out.count("stock ") == rounds  # a table after each round end (the last ends it)
    some = run(str(games[0].pk), "--show", "--at", "3,10")
    assert some.count("stock ") == 2
    with pytest.raises(CommandError):
        call_command("replay", str(games[0].pk), "--show", "--at", "x")


def test_export_for_a_bug_report_and_import(games: list[Game], tmp_path: Path) -> None:
    running = games[0]
    path = tmp_path / "game.json"
    assert "30 events" not in run(str(running.pk), "--export", str(path))
    document = json.loads(path.read_text())
    assert document["seed"] == running.seed and not document["redacted"]
    result = game_import(creator=running.created_by, document=document, seat=0)
    assert result.game.status == "active" and result.events == running.version
    assert game_verify(result.game).ok
    with pytest.raises(CommandError):
        call_command("replay", "--export", str(path), str(running.pk), str(games[1].pk))


def test_errors_and_the_benchmark(games: list[Game]) -> None:
    with pytest.raises(CommandError):
        call_command("replay")
    with pytest.raises(CommandError):
        call_command("replay", "999999")
    out = run("--bench", "1", str(games[1].pk))
    assert "ms/game" in out and f"game {games[1].pk} (two_player" in out


def test_a_conceded_game_verifies_and_its_ending_is_checked(games: list[Game]) -> None:
    from games.services.table import game_concede

    running = games[0]
    game_concede(game_id=running.pk, player=running.created_by)
    assert f"game {running.pk}: ok (finished" in run(str(running.pk))
    Game.objects.filter(pk=running.pk).update(winner_team=0)  # Ada's own team (seat 0)
    assert "winner_team is 0, the log says 1" in failing(str(running.pk))
