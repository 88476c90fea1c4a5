"""The Canasta rules engine: pure Python, standard library only.

A game is its options, its seed and its list of actions; ``replay`` rebuilds any state from them.
"""

from .actions import (
    ACTION_TYPES,
    Action,
    AnswerPartner,
    AskPartner,
    DeclareSpecialHand,
    DeclinePile,
    Discard,
    Draw,
    EndRound,
    Meld,
    MeldGroup,
    TakePile,
    action_from_dict,
    action_to_dict,
)
from .cards import card_text, cards_text, parse_card, parse_cards
from .errors import ERROR_CODES, EngineError, IllegalAction, InvalidAction, InvalidOptions
from .going_out import going_out_plan
from .legal import legal_actions
from .log import (
    GAME_STARTED,
    LogEntry,
    LogRejected,
    LogStep,
    json_roundtrip,
    replay_log,
    state_digest,
)
from .options import (
    CLASSIC_PRESETS,
    OPTION_NAMES,
    PRESET_DESCRIPTIONS,
    PRESETS,
    Options,
    describe_options,
    make_options,
)
from .rules import Event, apply, new_game, replay, score_round
from .state import (
    RULES_VERSION,
    SUPPORTED_RULES_VERSIONS,
    GameState,
    round_seed,
    rules_version_of,
    seed_commitment,
)
from .stored import effects_from_json, effects_to_json

# The families beside classic register their rules on import (``family.py``).
from . import mac, samba  # noqa: E402, F401  isort: skip

__all__ = [
    "GAME_STARTED",
    "LogEntry",
    "LogRejected",
    "LogStep",
    "json_roundtrip",
    "replay_log",
    "state_digest",
    "ACTION_TYPES",
    "ERROR_CODES",
    "OPTION_NAMES",
    "PRESETS",
    "CLASSIC_PRESETS",
    "PRESET_DESCRIPTIONS",
    "RULES_VERSION",
    "SUPPORTED_RULES_VERSIONS",
    "Action",
    "AnswerPartner",
    "AskPartner",
    "DeclareSpecialHand",
    "DeclinePile",
    "Discard",
    "Draw",
    "EndRound",
    "EngineError",
    "Event",
    "GameState",
    "IllegalAction",
    "InvalidAction",
    "InvalidOptions",
    "Meld",
    "MeldGroup",
    "Options",
    "TakePile",
    "action_from_dict",
    "action_to_dict",
    "apply",
    "card_text",
    "cards_text",
    "describe_options",
    "effects_from_json",
    "effects_to_json",
    "going_out_plan",
    "legal_actions",
    "make_options",
    "new_game",
    "parse_card",
    "parse_cards",
    "replay",
    "round_seed",
    "rules_version_of",
    "score_round",
    "seed_commitment",
]
