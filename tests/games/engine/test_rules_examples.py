"""docs/rules.md, the service's rule book: its tables are the engine's (options, presets, error
codes) and its worked examples (section 13) play as written."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from games.engine import (
    ERROR_CODES,
    OPTION_NAMES,
    PRESET_DESCRIPTIONS,
    PRESETS,
    Draw,
    Meld,
    action_from_dict,
    apply,
    describe_options,
    going_out_plan,
    legal_actions,
)

from .helpers import discard, hand, held, meld, meld_text, opts, position, refused, take

RULES = Path(__file__).resolve().parents[3] / "docs" / "rules.md"


def rules_text() -> str:
    return RULES.read_text()


def _value(value: Any) -> str:
    return ("true" if value else "false") if isinstance(value, bool) else str(value)


def options_table() -> str:
    rows = ["| option | default | values | what it does |", "|---|---|---|---|"]
    for name, spec in describe_options().items():
        if "choices" in spec:
            values = ", ".join(f"`{c}`" for c in spec["choices"])
        elif "min" in spec:
            values = f"{spec['min']} to {spec['max']}"
        else:
            values = "`true`, `false`"
        default = _value(spec["default"])
        rows.append(f"| `{name}` | `{default}` | {values} | {spec['description']} |")
    return "\n".join(rows)


def presets_tables() -> str:
    rows = ["| preset | what it plays |", "|---|---|"]
    rows += [f"| `{name}` | {text} |" for name, text in PRESET_DESCRIPTIONS.items()]
    rows += ["", "| option | " + " | ".join(f"`{n}`" for n in PRESETS) + " |"]
    rows.append("|---|" + "---|" * len(PRESETS))
    for option in OPTION_NAMES:
        cells = " | ".join(f"`{_value(getattr(p, option))}`" for p in PRESETS.values())
        rows.append(f"| `{option}` | {cells} |")
    return "\n".join(rows)


def test_the_options_table_is_the_engines() -> None:
    assert options_table() in rules_text(), "docs/rules.md section 9: regenerate the table"


def test_the_presets_tables_are_the_engines() -> None:
    assert presets_tables() in rules_text(), "docs/rules.md section 10: regenerate the tables"


def test_every_error_code_is_explained() -> None:
    section = rules_text().split("## 11. Refusals")[1].split("## 12.")[0]
    listed = re.findall(r"^\| `([a-z_]+)` \|", section, flags=re.MULTILINE)
    assert listed == list(ERROR_CODES)


def test_the_rule_book_stands_alone() -> None:
    text = rules_text()
    assert "../shared" not in text and "RULES.md" not in text and "reference/" not in text


# -- section 13, the worked examples -------------------------------------------------------------


def after_draw(hand_: str, scores: list[int] | None = None) -> Any:
    return position(opts(), [hand_, "", "", ""], pile="4D", phase="play", scores=scores)


def test_example_a_first_meld_in_two_actions() -> None:
    st = after_draw("AH AC 2D 5C 6H 7H 8C 9C 9C 9D 9H KD", scores=[1500, 0])
    one_action = st.clone()
    apply(
        one_action,
        action_from_dict(
            {
                "type": "meld",
                "melds": [{"cards": ["AH", "AC", "2D"]}, {"cards": ["9C", "9C", "9D"]}],
            },
            0,
        ),
    )
    assert one_action.opened[0]
    apply(st, action_from_dict({"type": "meld", "melds": [{"cards": ["AH", "AC", "2D"]}]}, 0))
    error = refused(st, discard(0, "KD"), "initial_meld_incomplete")
    assert "worth 60 of the 90 points it needs this turn" in error.message
    assert any(isinstance(a, Meld) for a in legal_actions(st))
    apply(st, action_from_dict({"type": "meld", "melds": [{"cards": ["9C", "9C", "9D"]}]}, 0))
    assert st.opened[0]
    apply(st, discard(0, "KD"))
    fours = after_draw("AH AC 2D 5C 6H 7H 8C 4C 4C 4D JC KD", scores=[1100, 0])
    refused(fours, meld(0, "4C 4C 4D 2D"), "initial_meld_below_minimum")


def test_example_taking_the_pile() -> None:
    opened = [{"A": "AH AS AD"}]
    st = position(opts(), ["6C 6C 7H 8D", "", "", ""], pile="9S 6D", melds=opened)
    apply(st, action_from_dict({"type": "take_pile", "cards": ["6C", "6C"]}, 0))
    assert meld_text(st, 0, "6") == "6C 6C 6D" and hand(st, 0) == held("7H 8D 9S")
    frozen = position(opts(), ["5H 2D 2D QS QD", "", "", ""], pile="2C 9S 5S", melds=opened)
    refused(frozen, take(0, "5H 2D"), "pile_frozen")
    apply(frozen, Draw(0))
    first = position(opts(), ["KS KC AH AS 2D 6H", "", "", ""], pile="4D KH")
    refused(first, take(0, "KS KC"), "initial_meld_below_minimum")
    apply(
        first,
        action_from_dict(
            {"type": "take_pile", "cards": ["KS", "KC"], "melds": [{"cards": ["AH", "AS", "2D"]}]},
            0,
        ),
    )
    assert first.opened[0]


def test_example_going_out_concealed_and_the_rounds_score() -> None:
    st = position(
        opts(),
        ["KH KS KD KC KH KS 2C 5H 5S 5D 9C", "AH 9S", "JK 7C 4D", "5C 6C 6D"],
        pile="4D",
        phase="play",
        melds=[{}, {"Q": "QC QC QD QD QH QH QS", "8": "8C 8D 2H"}],
        red_threes=["3H", "3D 3D"],
    )
    apply(st, meld(0, "KH KS KD KC KH KS 2C", "5H 5S 5D"))
    apply(st, discard(0, "9C"))
    record = st.rounds[-1]
    assert record["went_out"] == 0 and record["concealed"]
    ours, theirs = record["teams"]
    assert (ours["meld_cards"], ours["hand_cards"], ours["mixed_canastas"]) == (95, -60, 300)
    assert (ours["red_threes"], ours["going_out"], ours["concealed"]) == (100, 100, 100)
    assert ours["total"] == 635
    assert (theirs["meld_cards"], theirs["hand_cards"], theirs["natural_canastas"]) == (
        110,
        -45,
        500,
    )
    assert theirs["red_threes"] == 200 and theirs["total"] == 765


def test_example_concealed_with_the_partners_meld() -> None:
    st = position(
        opts(),
        ["KC KD KH KS KS 2C JK 5H 5S 5D 9C", "", "", ""],
        pile="4D",
        phase="play",
        melds=[{"K": "KC KD KH"}],
    )
    apply(st, meld(0, "KC KD KH KS KS 2C JK", "5H 5S 5D"))
    assert meld_text(st, 0, "K") == "2C JK KC KC KD KD KH KH KS KS"
    apply(st, discard(0, "9C"))
    assert st.rounds[-1]["concealed"]


def test_going_out_concealed_below_the_initial_minimum_is_refused() -> None:
    """A side that has not opened goes out concealed only with melds worth its minimum (50 at
    a score of 0): a natural canasta of fours is 35 points, so it is neither a way out nor a
    first meld, whatever the canastas it makes (rule book: the concealed melds must meet it)."""
    st = position(
        opts(),
        ["4C 4D 4H 4S 4C 4D 4H 9C", "AH 9S", "JK 7C 8D", "5C 6C 6D"],
        pile="KD",
        phase="play",
    )
    assert going_out_plan(st, 0) is None
    refused(st, meld(0, "4C 4D 4H 4S 4C 4D 4H"), "initial_meld_below_minimum")
