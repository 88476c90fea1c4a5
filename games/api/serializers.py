"""Request and response shapes of the game API; each becomes a named OpenAPI component.

Responses are built by selectors as plain dicts; these serializers describe them for the schema
(and render them). Requests are validated here for their shape; the engine validates what only
it can judge (option values, actions), with its stable codes.
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from games.engine import ACTION_TYPES, PRESETS, describe_options
from games.engine.history import GAME_CONCEDED, TIMER_FACTS
from games.models import BotLevel, EventSource, GameStatus, TimeoutOutcome
from games.services.deadlines import TIMEOUT_LIMIT_MAX, TURN_SECONDS_MAX, TURN_SECONDS_MIN

Base = serializers.Serializer[Any]


# ============================================================================== players
class PlayerCreateSerializer(Base):
    display_name = serializers.CharField(
        min_length=1, max_length=40, help_text="The name other players see."
    )


class PlayerRefSerializer(Base):
    id = serializers.IntegerField()
    display_name = serializers.CharField()


class PlayerCreatedSerializer(Base):
    id = serializers.IntegerField()
    display_name = serializers.CharField()
    token = serializers.CharField(
        help_text="API token: send it as `Authorization: Token <token>` on every other call."
    )


class PlayerMeSerializer(Base):
    id = serializers.IntegerField()
    display_name = serializers.CharField()
    created_at = serializers.DateTimeField()


# ============================================================================== options
_OPTION_FIELD_TYPES = {"int": serializers.IntegerField, "bool": serializers.BooleanField}


def _option_fields(required: bool) -> dict[str, serializers.Field[Any, Any, Any, Any]]:
    out: dict[str, serializers.Field[Any, Any, Any, Any]] = {}
    for name, spec in describe_options().items():
        text = f"Default (classic): `{spec['default']}`."
        if "choices" in spec:
            out[name] = serializers.ChoiceField(
                choices=spec["choices"], required=required, help_text=text
            )
        elif spec["type"] in _OPTION_FIELD_TYPES:
            kwargs: dict[str, Any] = {"required": required, "help_text": text}
            if "min" in spec:
                kwargs.update(min_value=spec["min"], max_value=spec["max"])
            out[name] = _OPTION_FIELD_TYPES[spec["type"]](**kwargs)
        else:
            out[name] = serializers.CharField(required=required, help_text=text)
    return out


GameOptionsSerializer = type(
    "GameOptionsSerializer",
    (Base,),
    {
        "__doc__": "The complete rule options of a game (RULES.md section 9).",
        **_option_fields(required=True),
    },
)
GameOptionOverridesSerializer = type(
    "GameOptionOverridesSerializer",
    (Base,),
    {
        "__doc__": "Options that differ from the preset; any subset of the option names.",
        **_option_fields(required=False),
    },
)


class OptionDescriptionSerializer(Base):
    type = serializers.ChoiceField(choices=["int", "bool", "str"])
    default = serializers.JSONField(help_text="The classic default.")
    choices = serializers.ListField(child=serializers.CharField(), required=False)
    min = serializers.IntegerField(required=False)
    max = serializers.IntegerField(required=False)


class RulesSerializer(Base):
    rules_version = serializers.CharField()
    presets = serializers.DictField(
        child=GameOptionsSerializer(), help_text="Each preset's complete options, by name."
    )
    options = serializers.DictField(
        child=OptionDescriptionSerializer(), help_text="Each option's type, range and default."
    )
    action_types = serializers.ListField(child=serializers.CharField())
    bot_levels = serializers.ListField(child=serializers.CharField())


# ============================================================================== actions
class MeldGroupSerializer(Base):
    rank = serializers.CharField(
        required=False,
        allow_null=True,
        help_text="3, 4..10, J, Q, K, A or W; needed only for a group of wild cards alone.",
    )
    cards = serializers.ListField(child=serializers.CharField(), help_text='e.g. ["QH","QS","2C"]')


class ActionSerializer(Base):
    """A command in text form. Fields by type: `draw`, `ask_partner`, `decline_pile`,
    `end_round`: none; `discard`: `card`; `answer_partner`: `allow`; `meld`: `melds`;
    `take_pile`: `cards` (from the hand, used with the top card) and optional `melds`.
    Cards are written rank + suit (`QH`, `10S`, `2C`) or `JK` for a joker."""

    type = serializers.ChoiceField(choices=list(ACTION_TYPES))
    card = serializers.CharField(required=False, help_text="For `discard`.")
    allow = serializers.BooleanField(required=False, help_text="For `answer_partner`.")
    cards = serializers.ListField(
        child=serializers.CharField(), required=False, help_text="For `take_pile`."
    )
    melds = MeldGroupSerializer(many=True, required=False, help_text="For `meld`, `take_pile`.")


@extend_schema_field(ActionSerializer)
class ActionField(serializers.JSONField):
    """An action as JSON; the rules engine reads it (``invalid_action`` when unreadable)."""


class ActionCreateSerializer(Base):
    action = ActionField(help_text="The action to apply, for the seat you occupy.")
    expected_version = serializers.IntegerField(
        min_value=0,
        help_text="The game `version` the action was chosen against; another version → 409 "
        "`stale_version`.",
    )


# ============================================================================== the table
class SeatSerializer(Base):
    index = serializers.IntegerField()
    team = serializers.IntegerField()
    kind = serializers.ChoiceField(choices=["player", "bot", "empty"])
    player = PlayerRefSerializer(allow_null=True)
    bot_level = serializers.ChoiceField(choices=BotLevel.choices, allow_null=True)


class MeldViewSerializer(Base):
    rank = serializers.CharField()
    cards = serializers.ListField(child=serializers.CharField())
    natural_count = serializers.IntegerField()
    wild_count = serializers.IntegerField()
    is_canasta = serializers.BooleanField()
    canasta_kind = serializers.ChoiceField(choices=["natural", "mixed"], allow_null=True)


class TeamViewSerializer(Base):
    team = serializers.IntegerField()
    seats = serializers.ListField(child=serializers.IntegerField())
    score = serializers.IntegerField(help_text="Cumulative score before this round.")
    opened = serializers.BooleanField(help_text="Whether the team has made its initial meld.")
    initial_meld_minimum = serializers.IntegerField()
    melds = MeldViewSerializer(many=True)
    canastas = serializers.IntegerField()
    red_threes = serializers.ListField(child=serializers.CharField())


class PileViewSerializer(Base):
    size = serializers.IntegerField()
    top = serializers.CharField(allow_null=True)
    frozen = serializers.BooleanField()
    blocked = serializers.BooleanField()
    frozen_for_viewer = serializers.BooleanField(allow_null=True)


class TableViewSerializer(Base):
    """The table as one seat (or a spectator) may see it: your hand, every other hand as a
    count, the stock as a count, the pile's top card."""

    round = serializers.IntegerField()
    dealer = serializers.IntegerField()
    turn = serializers.IntegerField(help_text="Whose turn it is.")
    to_act = serializers.IntegerField(help_text="The seat that must act now (-1 at game end).")
    phase = serializers.ChoiceField(choices=["draw", "play", "answer", "game_over"])
    stock_count = serializers.IntegerField()
    pile = PileViewSerializer()
    hand_counts = serializers.ListField(child=serializers.IntegerField())
    teams = TeamViewSerializer(many=True)
    permission = serializers.ChoiceField(choices=["none", "asked", "yes", "no"])
    must_end_without_discard = serializers.BooleanField()
    winner_team = serializers.IntegerField(allow_null=True)
    viewer = serializers.IntegerField(allow_null=True, help_text="Your seat; null: spectator.")
    hand = serializers.ListField(
        child=serializers.CharField(), allow_null=True, help_text="Your cards; null: spectator."
    )
    legal_actions = ActionSerializer(
        many=True,
        help_text="Actions you may send now (empty unless you are to act). Melds and pile "
        "takes are listed canonically per rank; other valid combinations are accepted too.",
    )


# ============================================================================== turn timer
class TimerSeatSerializer(Base):
    index = serializers.IntegerField()
    timeouts = serializers.IntegerField(help_text="Consecutive turns this seat lost to the timer.")
    stand_in = serializers.BooleanField(
        help_text="A bot plays this seat until its player makes a request again."
    )


class TimerOffProposalSerializer(Base):
    proposed_by = serializers.IntegerField(help_text="The seat that proposed it.")
    accepted = serializers.ListField(child=serializers.IntegerField())
    waiting_for = serializers.ListField(
        child=serializers.IntegerField(), help_text="Seats with a player still to accept."
    )
    proposed_at = serializers.DateTimeField()


class TurnTimerSerializer(Base):
    """The turn timer. Draw a countdown from `deadline` and `server_time` (not the client's
    clock). When the deadline passes (plus `grace_ms`) the seat's turn is completed for it
    (logged with source `timer`); after `timeout_limit` consecutive timeouts the seat is played
    by a bot until its player is back, or the game is abandoned (`timeout_outcome`)."""

    enabled = serializers.BooleanField()
    turn_seconds = serializers.IntegerField(allow_null=True, help_text="Null: no timer.")
    timeout_limit = serializers.IntegerField(help_text="0: timeouts never hand the seat over.")
    timeout_outcome = serializers.ChoiceField(choices=TimeoutOutcome.choices)
    deadline = serializers.DateTimeField(
        allow_null=True, help_text="When the seat to act loses its turn; null: none running."
    )
    server_time = serializers.DateTimeField(help_text="The server's time of this response.")
    seconds_left = serializers.FloatField(allow_null=True)
    grace_ms = serializers.IntegerField(
        help_text="The timer fires this long after the deadline; a move sent before wins."
    )
    seat = serializers.IntegerField(allow_null=True, help_text="The seat the deadline is for.")
    seats = TimerSeatSerializer(many=True)
    proposal = TimerOffProposalSerializer(
        allow_null=True, help_text="A pending proposal to turn the timer off."
    )


@extend_schema_field(OpenApiTypes.OBJECT)
class TimerPayloadField(serializers.JSONField):
    pass


class TimerEventSerializer(Base):
    seq = serializers.IntegerField()
    type = serializers.CharField(help_text="One of: " + ", ".join(TIMER_FACTS) + ".")
    seat = serializers.IntegerField(allow_null=True)
    at_version = serializers.IntegerField(help_text="The game's version when it happened.")
    payload = TimerPayloadField(
        help_text="For `turn_timed_out`: deadline, via (task, sweep or request), consecutive, "
        "events (first and last seq of the moves the timer played)."
    )
    created_at = serializers.DateTimeField()


class TimerDetailSerializer(Base):
    game = serializers.IntegerField()
    version = serializers.IntegerField()
    timer = TurnTimerSerializer()
    events = TimerEventSerializer(many=True, help_text="The timer's log, oldest first.")
    has_more = serializers.BooleanField()


class GameDetailSerializer(Base):
    id = serializers.IntegerField()
    preset = serializers.CharField()
    options = GameOptionsSerializer()
    status = serializers.ChoiceField(choices=GameStatus.choices)
    is_public = serializers.BooleanField()
    version = serializers.IntegerField(
        help_text="Seq of the last event; send it as `expected_version` with an action."
    )
    rules_version = serializers.CharField()
    created_by = PlayerRefSerializer()
    created_at = serializers.DateTimeField()
    started_at = serializers.DateTimeField(allow_null=True)
    finished_at = serializers.DateTimeField(allow_null=True)
    join_code = serializers.CharField(
        allow_null=True, help_text="Shown to the creator and seated players only."
    )
    your_seat = serializers.IntegerField(allow_null=True)
    seats = SeatSerializer(many=True)
    seed_commitment = serializers.CharField(
        allow_null=True, help_text="SHA-256 of the game's seed, published at the start."
    )
    seed = serializers.CharField(
        allow_null=True, help_text="The seed itself, revealed once the game is finished."
    )
    winner_team = serializers.IntegerField(allow_null=True)
    state = TableViewSerializer(allow_null=True, help_text="Null until the game starts.")
    timer = TurnTimerSerializer(help_text="The turn timer (deadline and server time).")


class GameSummarySerializer(Base):
    id = serializers.IntegerField()
    preset = serializers.CharField()
    players = serializers.IntegerField()
    target_score = serializers.IntegerField()
    status = serializers.ChoiceField(choices=GameStatus.choices)
    is_public = serializers.BooleanField()
    free_seats = serializers.IntegerField()
    version = serializers.IntegerField()
    created_by = PlayerRefSerializer()
    created_at = serializers.DateTimeField()
    seats = SeatSerializer(many=True)


class BotSeatSerializer(Base):
    seat = serializers.IntegerField(min_value=0, max_value=3)
    level = serializers.ChoiceField(choices=BotLevel.choices, default=BotLevel.EASY)


@extend_schema_field(GameOptionOverridesSerializer)
class OptionOverridesField(serializers.DictField):
    """A free object for validation (the engine judges names and values, naming a refused one
    in ``invalid_option``); the schema shows the option fields."""


class GameCreateSerializer(Base):
    preset = serializers.ChoiceField(choices=list(PRESETS), default="classic")
    options = OptionOverridesField(
        required=False, help_text="Overrides of the preset's options; any subset of them."
    )
    players = serializers.IntegerField(
        required=False,
        min_value=2,
        max_value=4,
        help_text="Number of seats; shorthand for `options.players` (default: the preset's).",
    )
    is_public = serializers.BooleanField(
        default=True, help_text="Public tables are listed; private ones need the join code."
    )
    bots = BotSeatSerializer(many=True, required=False, help_text="Seats played by bots.")
    seat = serializers.IntegerField(
        required=False,
        min_value=0,
        max_value=3,
        help_text="Your seat (default: the lowest seat not given to a bot).",
    )
    spectate = serializers.BooleanField(
        default=False, help_text="Take no seat (for example to watch a table of bots)."
    )
    turn_seconds = serializers.IntegerField(
        required=False,
        allow_null=True,
        min_value=TURN_SECONDS_MIN,
        max_value=TURN_SECONDS_MAX,
        help_text="Turn timer: seconds per turn (null or absent: no timer).",
    )
    timeout_limit = serializers.IntegerField(
        default=3,
        min_value=0,
        max_value=TIMEOUT_LIMIT_MAX,
        help_text="Consecutive timeouts of a seat before `timeout_outcome` (0: never).",
    )
    timeout_outcome = serializers.ChoiceField(
        choices=TimeoutOutcome.choices,
        default=TimeoutOutcome.BOT,
        help_text="`bot`: a bot plays the seat until its player is back; `abandon`: the game "
        "is abandoned.",
    )

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        options = dict(attrs.get("options") or {})
        if "players" in attrs:
            if "players" in options and options["players"] != attrs["players"]:
                raise serializers.ValidationError(
                    {"players": "differs from options.players; give one of them"}
                )
            options["players"] = attrs["players"]
        attrs["options"] = options
        return attrs


class GameListParamsSerializer(Base):
    """Query parameters of the table list (validation only)."""

    preset = serializers.ChoiceField(choices=list(PRESETS), required=False)
    players = serializers.IntegerField(required=False, min_value=2, max_value=4)
    seats_free = serializers.IntegerField(required=False, min_value=1, max_value=4)
    mine = serializers.BooleanField(required=False, default=False)


class GameEventParamsSerializer(Base):
    """Query parameters of the event list (validation only)."""

    after = serializers.IntegerField(required=False, default=0, min_value=0)
    limit = serializers.IntegerField(required=False, default=200, min_value=1, max_value=500)


class GameJoinSerializer(Base):
    join_code = serializers.CharField(
        required=False, max_length=16, help_text="Needed for a private table."
    )
    seat = serializers.IntegerField(
        required=False, min_value=0, max_value=3, help_text="Default: the lowest free seat."
    )


class GameJoinByCodeSerializer(Base):
    seat = serializers.IntegerField(
        required=False, min_value=0, max_value=3, help_text="Default: the lowest free seat."
    )


class GameStartSerializer(Base):
    fill_with_bots = serializers.BooleanField(
        default=False, help_text="Give every empty seat to a bot (otherwise empty seats → 409)."
    )
    bot_level = serializers.ChoiceField(choices=BotLevel.choices, default=BotLevel.EASY)


# ============================================================================== events
# game_started, the engine's actions, then the facts of the table (games.engine.history).
EVENT_TYPES = ["game_started", *ACTION_TYPES, *TIMER_FACTS, GAME_CONCEDED]
EFFECT_KINDS = (
    "`round_started` (round, dealer, first_seat, upcards, pile_frozen, stock_count, "
    "hand_counts, seed_commitment; your `hand` privately), `card_drawn` (count; your `cards`), "
    "`red_three_revealed` (card, replacements; your `drawn`), `card_discarded` (card), "
    "`melded` (melds), `pile_taken` (top, with, melds, cards_to_hand, red_threes; your `cards`), "
    "`pile_declined`, `partner_asked` (partner), `partner_answered` (allow), `round_ended` "
    "(round, reason, went_out, teams' score components, scores, every hand), `game_ended` "
    "(winner_team, scores)."
)


@extend_schema_field(OpenApiTypes.OBJECT)
class EffectField(serializers.JSONField):
    pass


class GameEventSerializer(Base):
    seq = serializers.IntegerField()
    type = serializers.ChoiceField(choices=EVENT_TYPES)
    seat = serializers.IntegerField(allow_null=True, help_text="The acting seat.")
    source = serializers.ChoiceField(choices=EventSource.choices)  # type: ignore[assignment]
    created_at = serializers.DateTimeField()
    payload = EffectField(
        help_text="For an action: the action as sent (see Action). For `game_started`: preset, "
        "rules_version, seed_commitment and seats (index, team, player id or bot_level). For a "
        "fact of the table (a turn timed out, a seat handed to a stand-in bot or returned, the "
        "timer turned off, a concession, an abandonment): its details; it has no effects."
    )
    effects = serializers.ListField(
        child=EffectField(),
        help_text="What happened, each with `kind`, `seat` and public fields, plus the fields "
        "only you may see. Kinds: " + EFFECT_KINDS,
    )


class GameEventListSerializer(Base):
    game = serializers.IntegerField()
    version = serializers.IntegerField()
    viewer = serializers.IntegerField(allow_null=True, help_text="Your seat; null: spectator.")
    events = GameEventSerializer(many=True)
    has_more = serializers.BooleanField(help_text="More events follow: ask again with `after`.")


class ActionResultSerializer(Base):
    event = GameEventSerializer(help_text="The event your action appended.")
    game = GameDetailSerializer(help_text="The game after your action, as you see it.")


# ============================================================================== scorecard
class TeamRoundScoreSerializer(Base):
    team = serializers.IntegerField()
    meld_cards = serializers.IntegerField(help_text="Value of the cards in the team's melds.")
    hand_cards = serializers.IntegerField(help_text="Minus the value of cards left in hand.")
    natural_canastas = serializers.IntegerField(help_text="500 each.")
    mixed_canastas = serializers.IntegerField(help_text="300 each.")
    wild_canastas = serializers.IntegerField(help_text="1000 each (option wild_canasta).")
    red_threes = serializers.IntegerField(
        help_text="100 each, 800 for all four; negative if the team has no meld."
    )
    going_out = serializers.IntegerField(help_text="100 for going out.")
    concealed_bonus = serializers.IntegerField(help_text="100 more for going out concealed.")
    total = serializers.IntegerField(help_text="The round's total.")
    cumulative = serializers.IntegerField(help_text="The team's score after this round.")


class ScorecardRoundSerializer(Base):
    round = serializers.IntegerField()
    dealer = serializers.IntegerField()
    reason = serializers.CharField(help_text="went_out, stock_exhausted or last_red_three.")
    went_out = serializers.IntegerField(allow_null=True)
    concealed = serializers.BooleanField()
    teams = TeamRoundScoreSerializer(many=True)


class ScorecardTeamSerializer(Base):
    team = serializers.IntegerField()
    seats = serializers.ListField(child=serializers.IntegerField())


class ScorecardSerializer(Base):
    game = serializers.IntegerField()
    status = serializers.ChoiceField(choices=GameStatus.choices)
    target_score = serializers.IntegerField()
    teams = ScorecardTeamSerializer(many=True)
    rounds = ScorecardRoundSerializer(many=True)
    totals = serializers.ListField(child=serializers.IntegerField())
    winner_team = serializers.IntegerField(allow_null=True)
