"""gunicorn's hooks for the api and live servers, for Prometheus's multiprocess mode
(canasta_service/metrics.py): ``gunicorn -c python:canasta_service.gunicorn_conf ...``.

``PROMETHEUS_MULTIPROC_DIR`` is emptied when the server starts (counts of a previous run would
be summed with this one's), and a worker that exits has its live gauges removed (a dead
process's followers are not followers). Without the variable neither hook does anything.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any


def _directory() -> Path | None:
    value = os.environ.get("PROMETHEUS_MULTIPROC_DIR")
    return Path(value) if value else None


def on_starting(server: Any) -> None:
    directory = _directory()
    if directory is None:
        return
    directory.mkdir(parents=True, exist_ok=True)
    for entry in directory.iterdir():
        if entry.is_dir():
            shutil.rmtree(entry)
        else:
            entry.unlink()


def child_exit(server: Any, worker: Any) -> None:
    if _directory() is None:
        return
    from prometheus_client import multiprocess

    multiprocess.mark_process_dead(worker.pid)
