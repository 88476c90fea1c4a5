"""``describe_action``: a short text of an action for people (the hint's summary)."""

from __future__ import annotations

import pytest

from games.engine.render import card_symbol_text, describe_action


@pytest.mark.parametrize(
    ("action", "text"),
    [
        ({"type": "draw"}, "Draw from the stock"),
        ({"type": "discard", "card": "7H"}, "Discard 7\u2665"),
        ({"type": "discard", "card": "JK"}, "Discard Joker"),
        (
            {"type": "take_pile", "cards": ["QS", "QC"], "melds": []},
            "Take the pile with Q\u2660 Q\u2663",
        ),
        (
            {"type": "meld", "melds": [{"rank": "K", "cards": ["KH", "KD", "2C"]}]},
            "Meld K\u2665 K\u2666 2\u2663 (K)",
        ),
        ({"type": "answer_partner", "allow": True}, "Let your partner go out"),
        ({"type": "answer_partner", "allow": False}, "Tell your partner not yet"),
        ({"type": "decline_pile"}, "Decline the pile"),
        ({"type": "end_round"}, "End the round"),
    ],
)
def test_describe_action(action: dict[str, object], text: str) -> None:
    assert describe_action(action) == text


def test_card_symbol_text() -> None:
    assert [card_symbol_text(c) for c in ("10S", "AD", "3C", "JK")] == [
        "10\u2660",
        "A\u2666",
        "3\u2663",
        "Joker",
    ]
