"""100 long-polling clients and 100 event streams wait on one game, served by ONE uvicorn
worker under gunicorn (the production serving model), while moves go through; every client
learns of every move, in order, exactly once. The figures are printed (run with -s), and
``python -m tests.table.live_bench`` prints them for other sizes."""

from __future__ import annotations

import json

from tests.table import live_bench


def test_100_waiting_clients_while_moves_go_through() -> None:
    figures = live_bench.main(["--clients", "100", "--streams", "100", "--moves", "5"])
    print(json.dumps(figures, indent=2))
    assert figures["client_error_count"] == 0, figures["client_errors"]
    assert figures["all_waiting_before_first_move"], "a client was answered before any move"
    assert figures["clients_with_every_event_in_order_once"] == 200
    assert figures["notifications"] == 200 * 5
    assert figures["health_status"] == 200
    assert figures["health_seconds_while_waiting"] < 2, "the worker is free while clients wait"
    assert figures["move_seconds_max"] < 30
