"""OpenAPI examples for the game endpoints (documentation only)."""

from __future__ import annotations

from http import HTTPStatus

from drf_spectacular.utils import OpenApiExample

PLAYER_CREATE = OpenApiExample("Sign up", value={"display_name": "Ada"}, request_only=True)
PLAYER_CREATED = OpenApiExample(
    "Signed up",
    value={"id": 7, "display_name": "Ada", "token": "9944b09199c62bcf9418ad846dd0e4bbdfc6ee4b"},
    response_only=True,
    status_codes=["201"],
)

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
]


def _problem(status: int, code: str, detail: str, **extra: object) -> OpenApiExample:
    return OpenApiExample(
        code,
        value={
            "type": f"urn:canasta:problem:{code}",
            "title": HTTPStatus(status).phrase,
            "status": status,
            "detail": detail,
            "code": code,
            "instance": "/api/v1/games/42/actions/",
            **extra,
        },
        response_only=True,
        status_codes=[str(status)],
    )


PROBLEMS = {
    400: _problem(400, "invalid_action", "'discard' needs a 'card'"),
    401: _problem(401, "not_authenticated", "Authentication credentials were not provided."),
    403: _problem(403, "not_your_turn", "It is not your turn to act."),
    404: _problem(404, "not_found", "There is no such game."),
    409: _problem(
        409,
        "stale_version",
        "The action was made against an older version; the game is at version 12.",
        current_version=12,
    ),
    422: _problem(422, "pile_frozen", "The pile is frozen: take it with a natural pair."),
    429: _problem(
        429, "throttled", "Request was throttled. Expected available in 12 seconds.", retry_after=12
    ),
}
