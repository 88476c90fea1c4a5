"""The serving model the live endpoints rely on: an ASGI server, and a middleware chain that
stays async (one sync-only middleware would put every request, waiting ones included, in a
thread of its own for its whole life)."""

from __future__ import annotations

from pathlib import Path

from django.conf import settings
from django.utils.module_loading import import_string

from games.api.live import GameEventListWaitApi, GameStreamApi
from games.api.table import TableEventListApi

ROOT = Path(__file__).resolve().parents[2]


def test_every_middleware_is_async_capable() -> None:
    sync_only = [
        path
        for path in settings.MIDDLEWARE
        if not getattr(import_string(path), "async_capable", False)
    ]
    assert sync_only == [], f"sync-only middleware keeps a thread per waiting client: {sync_only}"


def test_waiting_views_are_async() -> None:
    for view in (GameEventListWaitApi, GameStreamApi, TableEventListApi):
        assert view.view_is_async, view


def test_production_serves_asgi_with_uvicorn_workers() -> None:
    compose = (ROOT / "docker-compose.yml").read_text()
    assert "canasta_service.asgi:application" in compose
    assert "uvicorn_worker.UvicornWorker" in compose
    dockerfile = (ROOT / "Dockerfile").read_text()
    assert "canasta_service.asgi:application" in dockerfile
