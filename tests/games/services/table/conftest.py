"""Fixtures for the at-the-table tests: the API tests' guest players, plus games set up for
them and a reader of Server-Sent Events through Django's async test client."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.test import AsyncClient

from tests.games.api.conftest import (  # noqa: F401 - fixtures re-exported for this folder
    PlayerClient,
    ada,
    bob,
    create_game,
    eager_bots,
    make_player,
    problem,
    two_player_game,
)


@pytest.fixture
def carol(make_player: Callable[..., PlayerClient]) -> PlayerClient:  # noqa: F811
    return make_player("Carol")


class TokenAsyncClient:
    """Django's AsyncClient sending ``player``'s token with every request."""

    def __init__(self, player: PlayerClient) -> None:
        self.client = AsyncClient()
        self.token = player.token

    async def get(
        self, path: str, data: dict[str, Any] | None = None, headers: dict[str, str] | None = None
    ) -> Any:
        merged = {"Authorization": f"Token {self.token}", **(headers or {})}
        return await self.client.get(path, data, headers=merged)


def async_client(player: PlayerClient) -> TokenAsyncClient:
    return TokenAsyncClient(player)


def sse_parse(text: str) -> list[dict[str, Any]]:
    """Frames of an event stream: each a dict of its fields (``comment`` for comments)."""
    frames = []
    for block in text.split("\n\n"):
        if not block.strip():
            continue
        frame: dict[str, Any] = {}
        for line in block.split("\n"):
            if line.startswith(":"):
                frame["comment"] = line[1:].strip()
                continue
            name, _, value = line.partition(": ")
            frame[name] = value
        frames.append(frame)
    return frames


async def sse_read(response: Any) -> list[dict[str, Any]]:
    """Read a streaming response to its end and parse it."""
    chunks = []
    async for chunk in response.streaming_content:
        chunks.append(chunk.decode() if isinstance(chunk, bytes) else chunk)
    return sse_parse("".join(chunks))
