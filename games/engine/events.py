"""What happened at the table: each event has a public part and, where cards are hidden,
private parts per seat."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(slots=True)
class Event:
    """Something that happened. ``public`` is for everyone; ``private[seat]`` only for that seat."""

    kind: str
    seat: int | None
    public: dict[str, Any]
    private: dict[int, dict[str, Any]] = field(default_factory=dict)


Events = list[Event] | None
