"""The rules a client offers at table creation: presets, options and the rule families.

The explanations are the rules engine's English texts (the engine imports no framework),
translated here into the request's language through the ``django`` catalogue, whose msgids they
are; names, values and codes stay as they are."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext

from games.engine import (
    ACTION_TYPES,
    PRESET_DESCRIPTIONS,
    PRESETS,
    RULES_VERSION,
    describe_options,
    rules_version_of,
)
from games.engine.options import (
    CLASSIC_OPTION_NAMES,
    FAMILIES,
    FAMILY_OVERRIDABLE,
    FAMILY_TARGET_RANGE,
)
from games.models import BotLevel
from games.selectors.log import options_stored
from games.selectors.timers import timer_rules

# The number options whose range in the families beside classic is not the classic one
# (games.engine.options: ``_check_value``).
FAMILY_RANGES: dict[str, tuple[int, int]] = {
    "target_score": FAMILY_TARGET_RANGE,
    "max_wilds_per_meld": (2, 2),
}


def option_range(name: str, family: str) -> tuple[int, int]:
    """The least and greatest value of the number option ``name`` in ``family``."""
    if family != "classic" and name in FAMILY_RANGES:
        return FAMILY_RANGES[name]
    spec = describe_options()[name]
    return spec["min"], spec["max"]


def family_ranges(family: str) -> dict[str, dict[str, int]]:
    """The number options whose range in ``family`` differs from the classic one."""
    out = {}
    for name, spec in describe_options().items():
        if "min" in spec:
            low, high = option_range(name, family)
            if (low, high) != (spec["min"], spec["max"]):
                out[name] = {"min": low, "max": high}
    return out


def family_overridable(family: str) -> list[str]:
    """The options a table of ``family`` may set apart from its preset, in option order."""
    if family == "classic":
        return list(CLASSIC_OPTION_NAMES)
    allowed = FAMILY_OVERRIDABLE[family]
    return [name for name in describe_options() if name in allowed]


def rules_get() -> dict[str, Any]:
    """Every preset's complete options and what it plays, each option explained, and each rule
    family with its presets, rules version and the options a table may change, and the turn
    timer's rules."""
    return {
        "rules_version": RULES_VERSION,
        "presets": {name: options_stored(opts) for name, opts in PRESETS.items()},
        "preset_descriptions": {name: gettext(text) for name, text in PRESET_DESCRIPTIONS.items()},
        "options": {
            name: {**spec, "description": gettext(spec["description"])}
            for name, spec in describe_options().items()
        },
        "families": {
            family: {
                "rules_version": rules_version_of(family),
                "presets": [name for name, opts in PRESETS.items() if opts.family == family],
                "overridable": family_overridable(family),
                "ranges": family_ranges(family),
            }
            for family in FAMILIES
        },
        "action_types": list(ACTION_TYPES),
        "bot_levels": list(BotLevel.values),
        "timers": timer_rules(),
    }
