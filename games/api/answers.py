"""The answer to an applied action, full or minimal (``POST .../actions/`` and the socket's
``action_result``).

Full, the default: ``{event, game, version, to_act}``: the event your action appended, the game
as you now see it (your legal actions in ``game.state.legal_actions``), and the game's version
and seat to act repeated at the top.

Minimal, asked with ``Prefer: return=minimal`` (RFC 7240; on the socket ``"return":
"minimal"``): ``{version, to_act, legal_actions, events}`` and no game: the events from your
action's up to ``version`` (the bots' turns that followed it, when they were played before the
answer), redacted for you as in ``GET .../events/``, and your own legal actions now (empty when
another seat is to act). A few hundred bytes instead of the whole game (bench/payload_bytes.py).
"""

from __future__ import annotations

from typing import Any

from accounts.models import Player
from games.models import Game
from games.selectors.events import game_events_list

PREFER_MINIMAL = "return=minimal"


def prefers_minimal(header: str | None) -> bool:
    """Whether a ``Prefer`` header (RFC 7240: comma-separated preferences, each ``name[=value]``
    with optional parameters after ``;``) asks for ``return=minimal``."""
    if not header:
        return False
    for preference in header.split(","):
        name, _, value = preference.split(";", 1)[0].partition("=")
        if name.strip().lower() == "return" and value.strip().strip('"').lower() == "minimal":
            return True
    return False


def _top(game: dict[str, Any]) -> tuple[int, int | None, list[Any]]:
    state = game.get("state") or {}
    to_act = state.get("to_act")
    return int(game["version"]), to_act, list(state.get("legal_actions") or [])


def answer_full(body: dict[str, Any]) -> dict[str, Any]:
    """An applied action's answer as it was built, with ``version`` and ``to_act`` on top."""
    version, to_act, _ = _top(body["game"])
    return {**body, "version": version, "to_act": to_act}


def answer_minimal(body: dict[str, Any], game: Game, player: Player) -> dict[str, Any]:
    """An applied action's answer without the game: version, seat to act, the player's own
    legal actions, and the events from the action's up to that version, as the player sees
    them."""
    version, to_act, legal = _top(body["game"])
    first = int(body["event"]["seq"])
    events = [body["event"]]
    if version > first:
        later = game_events_list(game=game, player=player, after=first, limit=version - first)
        events += later["events"]
    return {"version": version, "to_act": to_act, "legal_actions": legal, "events": events}


def action_answer_body(
    body: dict[str, Any], game: Game, player: Player, *, minimal: bool
) -> dict[str, Any]:
    """The answer of an applied action (status 201), full or minimal."""
    return answer_minimal(body, game, player) if minimal else answer_full(body)
