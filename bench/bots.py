"""Bot turn latency through Celery and Redis, against a no-op task round trip in the same run.

A human (this script, through the API of a real gunicorn server) plays a two-player game
against a bot; a Celery worker plays the bot. For every human move that hands the turn to the
bot, the latency is the time from the human's committed event to the bot's first committed
event (both ``GameEvent.created_at``, written by the server and the worker on this machine);
the whole bot turn (to the event that hands the turn back) is reported too. Between bot turns,
a no-op task round trip is measured the same way: the time from sending
``games.record_worker_probe`` to its row in the database (one insert, no game logic).

    python -m bench.bots [--turns 60] [--level easy]

Figures only: nothing is asserted.
"""

from __future__ import annotations

import argparse
import os
import time
import uuid
from datetime import UTC, datetime

from bench.driver import choose
from bench.harness import django_setup, sign_up, stack, summary


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--turns", type=int, default=60, help="bot turns to time")
    parser.add_argument("--level", default="easy", choices=["easy", "medium", "hard"])
    args = parser.parse_args()

    first: list[float] = []
    whole: list[float] = []
    noop: list[float] = []
    with stack(web=1, workers=1) as s:
        django_setup(s)
        from canasta_service.celery import app
        from games.models import Game, GameEvent, WorkerProbe

        human = sign_up(s.urls[0], "human")

        def new_game() -> tuple[int, dict]:
            body = {"preset": "two_player", "bots": [{"seat": 1, "level": args.level}]}
            status, game, _ = human.post("/api/v1/games/", body)
            assert status == 201, game
            status, game, _ = human.post(f"/api/v1/games/{game['id']}/start/", {})
            assert status == 200, game
            return game["id"], game

        def wait_human(game_id: int, after: int, deadline: float) -> Game:
            while True:
                game = Game.objects.get(pk=game_id)
                if game.version > after and (game.to_act == 0 or game.status != "active"):
                    return game
                if time.monotonic() > deadline:
                    raise RuntimeError(f"the bot did not play in game {game_id}")
                time.sleep(0.002)

        def noop_round_trip() -> float:
            token = f"bench-noop-{uuid.uuid4().hex}"
            sent = datetime.now(UTC)
            app.send_task("games.record_worker_probe", args=[token])
            deadline = time.monotonic() + 30
            while (row := WorkerProbe.objects.filter(token=token).first()) is None:
                if time.monotonic() > deadline:
                    raise RuntimeError("the no-op task did not run")
                time.sleep(0.002)
            return (row.created_at - sent).total_seconds()

        game_id, game = new_game()
        while len(first) < args.turns:
            if game["status"] != "active":
                game_id, game = new_game()
                continue
            if game["state"]["to_act"] != 0:
                db = wait_human(game_id, game["version"] - 1, time.monotonic() + 60)
                status, game, _ = human.get(f"/api/v1/games/{game_id}/")
                continue
            action = choose(game["state"]["legal_actions"])
            status, body, _ = human.post(
                f"/api/v1/games/{game_id}/actions/",
                {"action": action, "expected_version": game["version"]},
            )
            assert status == 201, body
            game = body["game"]
            if game["status"] == "active" and game["state"]["to_act"] != 0:
                seq = body["event"]["seq"]
                db = wait_human(game_id, seq, time.monotonic() + 60)
                events = list(
                    GameEvent.objects.filter(game_id=game_id, seq__gte=seq, seq__lte=db.version)
                    .order_by("seq")
                    .values_list("created_at", flat=True)
                )
                first.append((events[1] - events[0]).total_seconds())
                whole.append((events[-1] - events[0]).total_seconds())
                noop.append(noop_round_trip())
                status, game, _ = human.get(f"/api/v1/games/{game_id}/")
    load = os.getloadavg()
    print(f"bot level {args.level}; {len(first)} bot turns; load average {load[0]:.1f}")
    print(f"bot first move after the human's move   {summary(first)}")
    print(f"whole bot turn (until the human's turn)  {summary(whole)}")
    print(f"no-op task round trip (send -> row)      {summary(noop)}")


if __name__ == "__main__":
    main()
