"""Engine events in their stored form: JSON-ready dicts, private parts keyed by seat text
(JSON object keys are text). The move log keeps effects in this form."""

from __future__ import annotations

from typing import Any

from .rules import Event


def effects_to_json(events: list[Event]) -> list[dict[str, Any]]:
    """Engine events as the move log stores them."""
    return [
        {
            "kind": e.kind,
            "seat": e.seat,
            "public": e.public,
            "private": {str(s): part for s, part in e.private.items()},
        }
        for e in events
    ]


def effects_from_json(effects: list[dict[str, Any]]) -> list[Event]:
    """The stored form back as engine events."""
    return [
        Event(
            kind=e["kind"],
            seat=e["seat"],
            public=dict(e["public"]),
            private={int(s): dict(part) for s, part in e["private"].items()},
        )
        for e in effects
    ]
