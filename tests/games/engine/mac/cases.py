"""A case for every refusal code of the mac family: how to provoke it, and what its message says
(merged into ``tests/games/engine/test_error_codes.py``'s CASES)."""

from __future__ import annotations

from collections.abc import Callable

from games.engine import EngineError

MAC_CASES: dict[str, tuple[Callable[[], EngineError], str]] = {}
