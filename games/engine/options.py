"""Game configuration: a preset plus validated option overrides (RULES.md section 9)."""

from __future__ import annotations

from dataclasses import dataclass, fields, replace
from typing import Any

from .errors import InvalidOptions

WILD_RATIOS = ("naturals_exceed_wilds", "wilds_not_exceed_naturals")
RED_THREE_REVEALS = ("on_turn", "at_deal")
STOCK_EXHAUSTED = ("end_round", "play_on")
LAST_RED_THREE = ("meld_then_end", "end_now")


@dataclass(frozen=True, slots=True)
class Options:
    players: int = 4
    draw_count: int = 1
    canastas_to_go_out: int = 1
    target_score: int = 5000
    wild_ratio: str = "naturals_exceed_wilds"
    pile_new_meld_needs_two_naturals: bool = False
    pile_to_canasta: bool = True
    one_card_pile_restriction: bool = False
    red_three_reveal: str = "on_turn"
    stock_exhausted: str = "end_round"
    ask_partner_to_go_out: bool = True
    first_upcard_black_three_turns: bool = False
    red_three_discard: bool = False
    max_wilds_per_meld: int = 3
    wild_canasta: bool = False
    concealed_requires_canasta: bool = True
    last_red_three: str = "meld_then_end"

    @property
    def teams(self) -> int:
        return 2 if self.players == 4 else self.players

    @property
    def hand_size(self) -> int:
        return {4: 11, 3: 13, 2: 15}[self.players]

    @property
    def partnership(self) -> bool:
        return self.players == 4

    @property
    def can_ask_partner(self) -> bool:
        return self.players == 4 and self.ask_partner_to_go_out

    def to_dict(self) -> dict[str, Any]:
        # Every field is a scalar: no need for asdict's deep copy.
        return {name: getattr(self, name) for name in OPTION_NAMES}


PRESETS: dict[str, Options] = {
    "classic": Options(),
    "hoyle": Options(
        wild_ratio="wilds_not_exceed_naturals",
        one_card_pile_restriction=True,
        red_three_reveal="at_deal",
        stock_exhausted="play_on",
    ),
    "two_player": Options(
        players=2,
        draw_count=2,
        canastas_to_go_out=2,
        target_score=2500,
        wild_ratio="wilds_not_exceed_naturals",
        pile_new_meld_needs_two_naturals=True,
        pile_to_canasta=False,
        red_three_reveal="at_deal",
        stock_exhausted="play_on",
        ask_partner_to_go_out=False,
    ),
    "three_player": Options(players=3, ask_partner_to_go_out=False),
}
DEFAULT_PRESET = "classic"

_CHOICES: dict[str, tuple[str, ...]] = {
    "wild_ratio": WILD_RATIOS,
    "red_three_reveal": RED_THREE_REVEALS,
    "stock_exhausted": STOCK_EXHAUSTED,
    "last_red_three": LAST_RED_THREE,
}
_RANGES: dict[str, tuple[int, int]] = {
    "players": (2, 4),
    "draw_count": (1, 2),
    "canastas_to_go_out": (1, 2),
    "target_score": (1000, 10000),
    "max_wilds_per_meld": (3, 4),
}
_TYPES: dict[str, type] = {f.name: type(getattr(Options(), f.name)) for f in fields(Options)}
OPTION_NAMES: tuple[str, ...] = tuple(_TYPES)


def describe_options() -> dict[str, dict[str, Any]]:
    """Every option with its type, allowed values and classic default (for docs and clients)."""
    out: dict[str, dict[str, Any]] = {}
    for name, kind in _TYPES.items():
        entry: dict[str, Any] = {"type": kind.__name__, "default": getattr(Options(), name)}
        if name in _CHOICES:
            entry["choices"] = list(_CHOICES[name])
        if name in _RANGES:
            entry["min"], entry["max"] = _RANGES[name]
        out[name] = entry
    return out


def _check_value(name: str, value: Any) -> None:
    kind = _TYPES[name]
    if kind is bool:
        if not isinstance(value, bool):
            raise InvalidOptions(name, f"option '{name}' must be true or false")
    elif kind is int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise InvalidOptions(name, f"option '{name}' must be a whole number")
    elif not isinstance(value, str):
        raise InvalidOptions(name, f"option '{name}' must be text")
    if name in _CHOICES and value not in _CHOICES[name]:
        raise InvalidOptions(name, f"option '{name}' must be one of {', '.join(_CHOICES[name])}")
    if name in _RANGES:
        low, high = _RANGES[name]
        if not low <= value <= high:
            raise InvalidOptions(name, f"option '{name}' must be between {low} and {high}")


def make_options(preset: str = DEFAULT_PRESET, overrides: dict[str, Any] | None = None) -> Options:
    """Build validated options from a preset name and overrides; errors name the bad option."""
    if preset not in PRESETS:
        raise InvalidOptions(
            "preset", f"unknown preset '{str(preset)[:32]}'; choose one of {', '.join(PRESETS)}"
        )
    overrides = dict(overrides or {})
    for name, value in overrides.items():
        if name not in _TYPES:
            raise InvalidOptions(name, f"unknown option '{str(name)[:40]}'")
        _check_value(name, value)
    return replace(PRESETS[preset], **overrides)


_FROM_DICT_CACHE: dict[tuple[tuple[str, type, Any], ...], Options] = {}
_FROM_DICT_CACHE_SIZE = 512


def options_from_dict(data: dict[str, Any]) -> Options:
    """Rebuild stored options (every field present); validates like make_options.

    Every stored game state carries its options, and a game has few distinct ones: the
    validated ``Options`` (immutable) are remembered by their items."""
    try:
        # The type is part of the key: True == 1, but only one of them is a valid draw_count.
        key = tuple((name, type(value), value) for name, value in sorted(data.items()))
        hash(key)
    except TypeError:  # an unhashable value is invalid: let the validation say which
        return make_options(DEFAULT_PRESET, dict(data))
    known = _FROM_DICT_CACHE.get(key)
    if known is None:
        known = make_options(DEFAULT_PRESET, dict(data))
        if len(_FROM_DICT_CACHE) >= _FROM_DICT_CACHE_SIZE:
            _FROM_DICT_CACHE.clear()
        _FROM_DICT_CACHE[key] = known
    return known
