"""Reading an action's text form: any JSON value is either an action or ``invalid_action``.

An action arrives as decoded JSON (an HTTP body, a socket message, an import document's event),
so its type and each member may be any JSON value. ``action_from_dict`` must answer every one
of them with an action or its own ``InvalidAction``, never a ``TypeError`` or ``KeyError``.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.engine import ACTION_TYPES, InvalidAction, action_from_dict, action_to_dict

# Any JSON value (what a decoder can hand over), a few levels deep.
json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False)
    | st.text(max_size=6)
    | st.sampled_from(["QH", "2C", "JK", "K", "W", "3", *ACTION_TYPES]),
    lambda children: (
        st.lists(children, max_size=4)
        | st.dictionaries(st.text(max_size=6) | st.sampled_from(["rank", "cards"]), children)
    ),
    max_leaves=12,
)
members = st.sampled_from(["type", "cards", "melds", "card", "allow"])


def read(data: Any) -> None:
    """Read ``data``; a refusal must be the engine's own, and an action must round-trip."""
    try:
        action = action_from_dict(data, 0)
    except InvalidAction as exc:
        assert exc.code == "invalid_action" and exc.message
        return
    assert action_from_dict(action_to_dict(action), 0) == action


@settings(max_examples=300, deadline=None)
@given(data=json_values)
def test_any_json_value_as_an_action(data: Any) -> None:
    read(data)


@settings(max_examples=500, deadline=None)
@given(
    kind=st.sampled_from(ACTION_TYPES) | json_values,
    fields=st.dictionaries(members, json_values, max_size=4),
)
def test_any_json_value_as_an_actions_members(kind: Any, fields: dict[str, Any]) -> None:
    read({"type": kind, **fields})


@settings(max_examples=300, deadline=None)
@given(
    kind=st.sampled_from(["meld", "take_pile"]),
    groups=st.lists(
        json_values
        | st.fixed_dictionaries({}, optional={"rank": json_values, "cards": json_values}),
        max_size=3,
    ),
)
def test_any_json_value_as_a_meld_group(kind: str, groups: list[Any]) -> None:
    read({"type": kind, "melds": groups})


@pytest.mark.parametrize(
    "data",
    [
        {"type": []},
        {"type": {}},
        {"type": ["draw"]},
        {"type": {"draw": 1}},
        {"type": "meld", "melds": [{"rank": [], "cards": ["QH", "QS", "QD"]}]},
        {"type": "meld", "melds": [{"rank": {}, "cards": ["QH", "QS", "QD"]}]},
        {"type": "discard", "card": []},
        {"type": "discard", "card": {"QH": 1}},
        {"type": "take_pile", "cards": [[]], "melds": None},
        {"type": "take_pile", "cards": "QH QS"},
        {"type": "answer_partner", "allow": []},
    ],
)
def test_reported_shapes_are_invalid_actions(data: dict[str, Any]) -> None:
    with pytest.raises(InvalidAction):
        action_from_dict(data, 0)


def test_a_deeply_nested_value_is_not_echoed() -> None:
    """A refusal names at most a short prefix of what was sent, never its full text."""
    nested: Any = "QH"
    for _ in range(200):
        nested = [nested]
    with pytest.raises(InvalidAction) as refused:
        action_from_dict({"type": "meld", "melds": [{"rank": nested, "cards": ["QH"]}]}, 0)
    assert len(refused.value.message) < 200
