"""OpenAPI examples for the game endpoints (documentation only)."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiExample

GAME_CREATE = OpenApiExample(
    "A public classic table",
    value={"preset": "classic", "is_public": True},
    request_only=True,
)
GAME_CREATE_BOTS = OpenApiExample(
    "Two players against two bots, short game, private",
    value={
        "preset": "classic",
        "options": {"target_score": 1500},
        "is_public": False,
        "seat": 0,
        "bots": [{"seat": 1, "level": "easy"}, {"seat": 3, "level": "medium"}],
    },
    request_only=True,
)
GAME_START = OpenApiExample(
    "Start, giving empty seats to bots",
    value={"fill_with_bots": True, "bot_level": "easy"},
    request_only=True,
)

ACTIONS = [
    OpenApiExample(
        "Draw from the stock",
        value={"action": {"type": "draw"}, "expected_version": 1},
        request_only=True,
    ),
    OpenApiExample(
        "Meld",
        value={
            "action": {
                "type": "meld",
                "melds": [{"cards": ["QH", "QS", "2C"]}, {"cards": ["KD", "KD", "KS"]}],
            },
            "expected_version": 2,
        },
        request_only=True,
    ),
    OpenApiExample(
        "Take the pile with a natural pair",
        value={"action": {"type": "take_pile", "cards": ["9H", "9S"]}, "expected_version": 5},
        request_only=True,
    ),
    OpenApiExample(
        "Discard",
        value={"action": {"type": "discard", "card": "7H"}, "expected_version": 3},
        request_only=True,
    ),
    OpenApiExample(
        "Answer the partner's question",
        value={"action": {"type": "answer_partner", "allow": True}, "expected_version": 9},
        request_only=True,
    ),
    OpenApiExample(
        "Samba: a sequence, a lay-off on meld A3 and a second meld of nines",
        value={
            "action": {
                "type": "meld",
                "melds": [
                    {"kind": "sequence", "cards": ["4H", "5H", "6H"]},
                    {"rank": "K", "cards": ["KH", "KS"], "target": "A3"},
                    {"rank": "9", "cards": ["9C", "9D", "9S"], "new": True},
                ],
            },
            "expected_version": 14,
        },
        request_only=True,
    ),
    OpenApiExample(
        "Samba: merge two group melds of one rank",
        value={
            "action": {"type": "meld", "melds": [], "merge": ["A2", "A5"]},
            "expected_version": 20,
        },
        request_only=True,
    ),
    OpenApiExample(
        "Samba: take the pile with a natural pair onto meld A2",
        value={
            "action": {"type": "take_pile", "cards": ["9C", "9S"], "target": "A2"},
            "expected_version": 17,
        },
        request_only=True,
    ),
    OpenApiExample(
        "Modern American Canasta: draw, keeping a 3 for a Straight",
        value={"action": {"type": "draw", "keep_three": True}, "expected_version": 1},
        request_only=True,
    ),
    OpenApiExample(
        "Modern American Canasta: declare a special hand",
        value={
            "action": {"type": "declare_special_hand", "name": "garbage"},
            "expected_version": 2,
        },
        request_only=True,
    ),
]


# A two-player table right after Ada (seat 0) drew: her view (JSON-ready, checked against the
# schema by tests/games/api/test_schema_examples.py).
GAME_DETAIL_VALUE = {
    "id": 42,
    "preset": "two_player",
    "options": {
        "players": 2,
        "draw_count": 2,
        "canastas_to_go_out": 2,
        "target_score": 1000,
        "wild_ratio": "wilds_not_exceed_naturals",
        "pile_new_meld_needs_two_naturals": True,
        "pile_to_canasta": False,
        "one_card_pile_restriction": False,
        "red_three_reveal": "at_deal",
        "stock_exhausted": "play_on",
        "ask_partner_to_go_out": False,
        "first_upcard_black_three_turns": False,
        "red_three_discard": False,
        "max_wilds_per_meld": 3,
        "wild_canasta": False,
        "concealed_requires_canasta": True,
        "last_red_three": "meld_then_end",
    },
    "status": "active",
    "is_public": True,
    "rated": False,
    "hints": False,
    "version": 2,
    "rules_version": "1",
    "created_by": {"id": 1, "display_name": "Ada"},
    "created_at": "2026-01-05T18:02:11.000000Z",
    "started_at": "2026-01-05T18:03:40.000000Z",
    "finished_at": None,
    "join_code": "KC7PJ9R5",
    "your_seat": 0,
    "seats": [
        {
            "index": 0,
            "team": 0,
            "kind": "player",
            "player": {"id": 1, "display_name": "Ada"},
            "bot_level": None,
            "bot_account": False,
        },
        {
            "index": 1,
            "team": 1,
            "kind": "player",
            "player": {"id": 2, "display_name": "Bob"},
            "bot_level": None,
            "bot_account": False,
        },
    ],
    "seed_commitment": "a376ef37971d2e5bffcc9cda4ee252ad813d7daf352655c2f26ff121b580b982",
    "seed": None,
    "winner_team": None,
    "state": {
        "round": 1,
        "dealer": 1,
        "turn": 0,
        "to_act": 0,
        "phase": "play",
        "stock_count": 74,
        "pile": {
            "size": 1,
            "top": "AS",
            "frozen": False,
            "blocked": False,
            "frozen_for_viewer": True,
        },
        "hand_counts": [17, 15],
        "teams": [
            {
                "team": 0,
                "seats": [0],
                "score": 0,
                "opened": False,
                "initial_meld_minimum": 50,
                "melds": [],
                "canastas": 0,
                "red_threes": ["3D"],
            },
            {
                "team": 1,
                "seats": [1],
                "score": 0,
                "opened": False,
                "initial_meld_minimum": 50,
                "melds": [],
                "canastas": 0,
                "red_threes": [],
            },
        ],
        "permission": "none",
        "must_end_without_discard": False,
        "winner_team": None,
        "viewer": 0,
        "hand": [
            "4D",
            "4S",
            "5S",
            "5S",
            "6D",
            "6D",
            "8H",
            "8S",
            "9C",
            "9C",
            "9D",
            "9S",
            "10H",
            "10S",
            "JD",
            "QS",
            "AC",
        ],
        "legal_actions": [
            {"type": "discard", "card": "4D"},
            {"type": "discard", "card": "4S"},
            {"type": "discard", "card": "5S"},
        ],
    },
    "timer": {
        "enabled": False,
        "turn_seconds": None,
        "timeout_limit": 3,
        "timeout_outcome": "bot",
        "deadline": None,
        "server_time": "2026-01-05T18:03:52.000000Z",
        "seconds_left": None,
        "grace_ms": 1000,
        "seat": None,
        "seats": [
            {
                "index": 0,
                "timeouts": 0,
                "stand_in": False,
                "reclaim_url": None,
                "reconnect_until": None,
            },
            {
                "index": 1,
                "timeouts": 0,
                "stand_in": False,
                "reclaim_url": None,
                "reconnect_until": None,
            },
        ],
        "proposal": None,
    },
    "pause": {"paused": False, "paused_at": None, "remaining_seconds": None, "proposal": None},
    "rating_changes": None,
}
GAME_DETAIL = OpenApiExample(
    "Ada's view after her draw",
    value=GAME_DETAIL_VALUE,
    response_only=True,
    status_codes=["200"],
)
ACTION_RESULT = OpenApiExample(
    "Ada drew two cards",
    value={
        "event": {
            "seq": 2,
            "type": "draw",
            "seat": 0,
            "source": "player",
            "created_at": "2026-01-05T18:03:52.000000Z",
            "payload": {"type": "draw"},
            "effects": [{"kind": "card_drawn", "seat": 0, "count": 2, "cards": ["9D", "10S"]}],
        },
        "game": GAME_DETAIL_VALUE,
        "version": 2,
        "to_act": 0,
    },
    response_only=True,
    status_codes=["201"],
)
ACTION_RESULT_MINIMAL = OpenApiExample(
    "Ada drew two cards (Prefer: return=minimal)",
    value={
        "version": 2,
        "to_act": 0,
        "legal_actions": [{"type": "discard", "card": "9D"}, {"type": "discard", "card": "10S"}],
        "events": [
            {
                "seq": 2,
                "type": "draw",
                "seat": 0,
                "source": "player",
                "created_at": "2026-01-05T18:03:52.000000Z",
                "payload": {"type": "draw"},
                "effects": [{"kind": "card_drawn", "seat": 0, "count": 2, "cards": ["9D", "10S"]}],
            }
        ],
    },
    response_only=True,
    status_codes=["201"],
)
