"""``python -m tests.hardening.fault_worker worker ...``: the project's Celery app for the fault
tests, with one hook: while the file ``$FAULT_DIR/slow`` exists, a bot turn writes
``$FAULT_DIR/running-<pid>`` and then sleeps before it thinks, so that a test can kill the
process (or the broker) in the middle of the task."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path
from typing import Any

from canasta_service.celery import app


def _install_hook() -> None:
    import django

    django.setup()
    from bots.services import turns as services

    original = services.bot_decision_compute
    fault_dir = Path(os.environ["FAULT_DIR"])

    def slow_compute(game_id: int, version: int) -> Any:
        if (fault_dir / "slow").exists():
            (fault_dir / f"running-{os.getpid()}").write_text(f"{game_id} {version}\n")
            time.sleep(float(os.environ.get("FAULT_SLOW_SECONDS", "3")))
        return original(game_id, version)

    services.bot_decision_compute = slow_compute


if __name__ == "__main__":
    _install_hook()
    app.start(sys.argv[1:])
