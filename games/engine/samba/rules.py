"""Placeholder until the family's rules land."""

from typing import Any


class _Rules:
    families = ("samba", "bolivia")

    def __getattr__(self, name: str) -> Any:
        raise NotImplementedError(name)


RULES: Any = _Rules()
