"""The move log in the OpenAPI document: each effect kind, each event type and its payload as a
component of its own, and the unions over them (``Effect``, a ``oneOf`` discriminated by
``kind``; ``GameEvent`` and ``ReplayEvent``, discriminated by ``type``).

The selectors build events as plain dicts; the fields here describe them for the schema and
pass them through unchanged when rendered. An effect is what a viewer may see of one engine
event (``games.engine.view.event_view``): its public members plus the viewer's own private ones,
which others never receive (their descriptions say so). tests/games/api/test_event_schemas.py checks
the components against the engine and against played games.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from drf_spectacular.extensions import (
    OpenApiSerializerExtension,
    OpenApiSerializerFieldExtension,
)
from drf_spectacular.plumbing import ResolvedComponent
from drf_spectacular.serializers import PolymorphicProxySerializerExtension
from drf_spectacular.utils import PolymorphicProxySerializer
from rest_framework import serializers

from games.engine import ACTION_TYPES, GAME_STARTED, PRESETS
from games.engine.history import (
    GAME_ABANDONED,
    GAME_CONCEDED,
    GAME_PAUSED,
    GAME_RESUMED,
    PAUSE_ACCEPTED,
    PAUSE_DECLINED,
    PAUSE_FACTS,
    PAUSE_PROPOSED,
    RATINGS_CHANGED,
    SEAT_HANDED_TO_BOT,
    SEAT_RETURNED,
    TIMER_FACTS,
    TIMER_OFF_ACCEPTED,
    TIMER_OFF_DECLINED,
    TIMER_OFF_PROPOSED,
    TIMER_TURNED_OFF,
    TURN_TIMED_OUT,
)
from games.hooks import RATING_FORMATS
from games.models import BotLevel, EventSource

Base = serializers.Serializer[Any]

# game_started, the engine's actions, then the facts of the table (games.engine.history).
EVENT_TYPES: list[str] = [
    GAME_STARTED,
    *ACTION_TYPES,
    *TIMER_FACTS,
    *PAUSE_FACTS,
    GAME_CONCEDED,
    RATINGS_CHANGED,
]


def camel(name: str) -> str:
    return "".join(part.capitalize() for part in name.split("_"))


# ============================================================================== named enums
class EnumRefField(serializers.CharField):
    """A string from a fixed set, documented as the enum component ``component`` (shared by
    every field that names it). A discriminator is one of a single value."""

    def __init__(self, component: str, values: Sequence[str], **kwargs: Any) -> None:
        self.component = component
        self.values = list(values)
        super().__init__(**kwargs)


class EnumRefFieldExtension(OpenApiSerializerFieldExtension):
    target_class = EnumRefField

    def map_serializer_field(self, auto_schema: Any, direction: Any) -> dict[str, Any]:
        field: EnumRefField = self.target
        component = ResolvedComponent(
            name=field.component,
            type=ResolvedComponent.SCHEMA,
            schema={"type": "string", "enum": field.values},
            object=field.component,
        )
        auto_schema.registry.register_on_missing(component)
        ref: dict[str, Any] = component.ref
        return ref


class DiscriminatedUnion(PolymorphicProxySerializer):
    """A ``oneOf`` component discriminated by ``resource_type_field_name``, with a
    description."""

    def __init__(self, *, description: str, **kwargs: Any) -> None:
        self.description = description
        super().__init__(**kwargs)


class DiscriminatedUnionExtension(PolymorphicProxySerializerExtension):
    target_class = "games.api.event_schemas.DiscriminatedUnion"
    priority = 0  # before drf-spectacular's own (-1)

    def map_serializer(self, auto_schema: Any, direction: Any) -> dict[str, Any]:
        schema: dict[str, Any] = super().map_serializer(auto_schema, direction)
        return {"description": self.target.description, **schema}


def tag(value: str, **kwargs: Any) -> EnumRefField:
    """The discriminator of one event type or effect kind: enum component ``<Value>TypeEnum``
    (events, payloads) or ``<Value>KindEnum`` (effects)."""
    suffix = "TypeEnum" if value in EVENT_TYPES else "KindEnum"
    return EnumRefField(camel(value) + suffix, [value], help_text=f"`{value}`", **kwargs)


def event_type_field(**kwargs: Any) -> EnumRefField:
    """Any event type (enum component ``EventTypeEnum``)."""
    return EnumRefField("EventTypeEnum", EVENT_TYPES, **kwargs)


def source_field() -> serializers.ChoiceField:
    return serializers.ChoiceField(
        choices=EventSource.choices,
        help_text="Who acted: a `player`, a `bot` (a bot's seat, or a stand-in for a player), "
        "the `timer` (a turn completed for a seat), or the `system`.",
    )


def _cards(help_text: str, **kwargs: Any) -> serializers.ListField:
    return serializers.ListField(child=serializers.CharField(), help_text=help_text, **kwargs)


_CARD = "Rank + suit (`QH`, `10S`, `2C`) or `JK`."


MELD_KINDS = ["group", "sequence", "wild"]


class LoggedMeldSerializer(Base):
    """A group of cards laid down, as the log records it."""

    rank = serializers.CharField(
        help_text="The meld's rank: 3, 4..10, J, Q, K, A, or W (wilds); a sequence's lowest rank."
    )
    cards = _cards("The cards put on it.")
    kind = EnumRefField(
        "MeldKindEnum",
        MELD_KINDS,
        required=False,
        help_text="Samba and Bolivia: `sequence` (one suit, consecutive ranks) or `wild` (wild "
        "cards alone, Bolivia); absent: a group of one rank.",
    )
    target = serializers.CharField(
        required=False,
        help_text="Samba and Bolivia: the id of the side's meld the cards were laid off on (`A3`).",
    )
    new = serializers.BooleanField(
        required=False,
        help_text="Samba and Bolivia: true when the group started a new meld beside one of its "
        "rank.",
    )


# ============================================================================== effects
_SEAT = "The seat it happened to."
_YOURS = (
    "Only for the seat it happened to (and for everyone in the replay of a finished game): "
    "absent for every other seat and for spectators."
)


class RoundStartedEffectSerializer(Base):
    """A round was dealt."""

    kind = tag("round_started")
    seat = serializers.IntegerField(allow_null=True, help_text="Always null: the table deals.")
    round = serializers.IntegerField(min_value=1, help_text="The round's number, from 1.")
    dealer = serializers.IntegerField(min_value=0, max_value=3, help_text="The dealing seat.")
    first_seat = serializers.IntegerField(min_value=0, max_value=3, help_text="Who plays first.")
    upcards = _cards("The cards turned up to start the pile; the last is its top.")
    pile_frozen = serializers.BooleanField(help_text="A wild card or red three came up.")
    stock_count = serializers.IntegerField(min_value=0, help_text="Cards left in the stock.")
    hand_counts = serializers.ListField(
        child=serializers.IntegerField(min_value=0), help_text="Each seat's number of cards."
    )
    seed_commitment = serializers.CharField(help_text="SHA-256 of the round's seed.")
    hand = _cards(
        "Your dealt hand. Only for a seated viewer: absent for spectators, and in the replay of a "
        "finished game (see `hands`).",
        required=False,
    )
    hands = serializers.ListField(
        child=serializers.ListField(child=serializers.CharField()),
        required=False,
        help_text="Every seat's dealt hand, by seat. Only in the replay of a finished game.",
    )


class CardDrawnEffectSerializer(Base):
    """Cards were drawn from the stock."""

    kind = tag("card_drawn")
    seat = serializers.IntegerField(help_text=_SEAT)
    count = serializers.IntegerField(min_value=0, help_text="How many cards were drawn.")
    cards = _cards("The cards drawn. " + _YOURS, required=False)


class RedThreeRevealedEffectSerializer(Base):
    """A red three went from the hand to the team's area and was replaced from the stock (in
    Modern American Canasta any 3, to the team's threes area)."""

    kind = tag("red_three_revealed")
    seat = serializers.IntegerField(help_text=_SEAT)
    card = serializers.CharField(help_text="The red three (Modern American Canasta: the 3).")
    replacements = serializers.IntegerField(
        min_value=0, max_value=1, help_text="0 when the stock was empty."
    )
    drawn = _cards("The replacement drawn. " + _YOURS, required=False)


class CardDiscardedEffectSerializer(Base):
    kind = tag("card_discarded")
    seat = serializers.IntegerField(help_text=_SEAT)
    card = serializers.CharField(help_text=_CARD)


_IDS = (
    "Samba and Bolivia: the id of the meld each group went to, in the order of `melds` (a new "
    "meld's id is given here); absent in the other families."
)


class MeldedEffectSerializer(Base):
    kind = tag("melded")
    seat = serializers.IntegerField(help_text=_SEAT)
    melds = LoggedMeldSerializer(many=True, help_text="The groups laid down.")
    ids = serializers.ListField(child=serializers.CharField(), required=False, help_text=_IDS)


class PileTakenEffectSerializer(Base):
    """The discard pile was taken."""

    kind = tag("pile_taken")
    seat = serializers.IntegerField(help_text=_SEAT)
    top = serializers.CharField(help_text="The top card, melded at once.")
    with_ = _cards("The cards from the hand used with the top card (empty: laid off on a meld).")
    melds = LoggedMeldSerializer(many=True, help_text="Further melds made with the take.")
    cards_to_hand = serializers.IntegerField(
        min_value=0, help_text="How many of the pile's other cards went to the hand."
    )
    red_threes = _cards("Red threes in the pile, put in the team's area.")
    cards = _cards("The cards that went to the hand. " + _YOURS, required=False)
    target = serializers.CharField(
        required=False,
        help_text="Samba and Bolivia: the id of the meld the top card went to; absent in the "
        "other families.",
    )
    ids = serializers.ListField(
        child=serializers.CharField(),
        required=False,
        help_text="Samba and Bolivia: the id of the meld of the top card, then of each group "
        "of `melds`, in order; absent in the other families.",
    )

    def get_fields(self) -> dict[str, Any]:
        fields = super().get_fields()  # `with` is a Python keyword
        return {"with" if name == "with_" else name: field for name, field in fields.items()}


class PileDeclinedEffectSerializer(Base):
    """The seat chose not to take the pile (stock exhausted, `play_on`)."""

    kind = tag("pile_declined")
    seat = serializers.IntegerField(help_text=_SEAT)


class PartnerAskedEffectSerializer(Base):
    kind = tag("partner_asked")
    seat = serializers.IntegerField(help_text=_SEAT)
    partner = serializers.IntegerField(min_value=0, max_value=3, help_text="The seat asked.")


class PartnerAnsweredEffectSerializer(Base):
    kind = tag("partner_answered")
    seat = serializers.IntegerField(help_text="The partner who answered.")
    allow = serializers.BooleanField(help_text="Whether the seat may go out.")


_MAC = "Modern American Canasta only"
_SAMBA = "Samba and Bolivia only"


def _part(text: str, only: str | None = None) -> serializers.IntegerField:
    if only is None:
        return serializers.IntegerField(help_text=text)
    return serializers.IntegerField(required=False, help_text=f"{text} ({only}).")


class RoundScoreSerializer(Base):
    """One team's score components for a round (RULES.md section 8; the variant families
    count some of their own, VARIANTS.md)."""

    meld_cards = _part("The cards in the team's melds.")
    hand_cards = _part("Minus the cards left in the team's hands.")
    natural_canastas = _part("500 each.")
    mixed_canastas = _part("300 each.")
    wild_canastas = _part(
        "1000 each (option `wild_canasta`); Modern American Canasta 2000 to 3000 each, by "
        "its cards; a bolivia 2500."
    )
    red_threes = serializers.IntegerField(
        required=False,
        help_text="100 each, 800 for all four; negative if the team has no meld (Samba and "
        "Bolivia: 1000 for all six, negative below two canastas). Absent in Modern American "
        "Canasta (see `threes`).",
    )
    going_out = _part("100 for going out (Samba and Bolivia: 200).")
    concealed = serializers.IntegerField(
        required=False,
        help_text="The bonus for going out concealed (always 0 in Samba and Bolivia); absent "
        "in Modern American Canasta.",
    )
    sequence_canastas = _part("1500 for each samba or escalera", _SAMBA)
    hand_penalties = _part("-1500 for each player left holding three aces or three sevens", _MAC)
    sevens_canastas = _part("2500 for each natural canasta of sevens", _MAC)
    aces_canastas = _part("2500 for each natural canasta of aces", _MAC)
    incomplete_melds = _part(
        "-2500 for each incomplete sevens or aces meld, -2000 for an incomplete wild meld", _MAC
    )
    threes = _part(
        "The threes area: by colour 100, 300, 500, 1000 for 1 to 4; added with two "
        "canastas, nothing with one, subtracted with none",
        _MAC,
    )
    special_hand = _part("The special hand the team declared (then its only score)", _MAC)
    total = _part("The round's total.")


class RoundEndedEffectSerializer(Base):
    """A round ended and was scored; every hand is shown."""

    kind = tag("round_ended")
    seat = serializers.IntegerField(allow_null=True, help_text="Who went out; null: nobody.")
    round = serializers.IntegerField(min_value=1, help_text="The round's number.")
    dealer = serializers.IntegerField(min_value=0, max_value=3, help_text="Who dealt it.")
    reason = EnumRefField(
        "RoundEndReasonEnum",
        ["went_out", "stock_exhausted", "last_red_three", "last_three", "special_hand"],
        help_text="A seat went out, the stock ran out, or its last card was a red three; in "
        "Modern American Canasta the last card drawn was a 3 (`last_three`), or a seat "
        "declared a special hand.",
    )
    went_out = serializers.IntegerField(allow_null=True, help_text="Who went out; null: nobody.")
    concealed = serializers.BooleanField(help_text="Went out without having melded before.")
    teams = RoundScoreSerializer(many=True, help_text="Each team's score for the round.")
    scores = serializers.ListField(
        child=serializers.IntegerField(), help_text="Each team's score after the round."
    )
    hands = serializers.ListField(
        child=serializers.ListField(child=serializers.CharField()),
        help_text="Every seat's hand as the round ended.",
    )
    special_hands = serializers.ListField(
        child=serializers.CharField(allow_null=True),
        required=False,
        help_text="Modern American Canasta: the special hand each team declared this round, by "
        "team (null: none); absent in the other families.",
    )


class TalonDrawnEffectSerializer(Base):
    """Modern American Canasta: a talon was taken from the stock after the initial meld."""

    kind = tag("talon_drawn")
    seat = serializers.IntegerField(help_text=_SEAT)
    count = serializers.IntegerField(min_value=0, help_text="How many cards the talon held.")
    cards = _cards("The talon's cards. " + _YOURS, required=False)


class SpecialHandDeclaredEffectSerializer(Base):
    """Modern American Canasta: a seat laid its whole hand face up as a special hand; the
    round ends."""

    kind = tag("special_hand_declared")
    seat = serializers.IntegerField(help_text=_SEAT)
    name = serializers.CharField(help_text="The special hand's name (`garbage`, `pairs` ...).")
    cards = _cards("The hand, laid face up.")


class MeldsMergedEffectSerializer(Base):
    """Samba and Bolivia: a group meld joined another of the side's group melds of its rank."""

    kind = tag("melds_merged")
    seat = serializers.IntegerField(help_text=_SEAT)
    into = serializers.CharField(help_text="The meld that took the cards (`A2`).")
    from_ = serializers.CharField(help_text="The meld whose cards moved; its id is retired.")

    def get_fields(self) -> dict[str, Any]:
        fields = super().get_fields()  # `from` is a Python keyword
        return {"from" if name == "from_" else name: field for name, field in fields.items()}


class StockExhaustedEffectSerializer(Base):
    """Modern American Canasta: the stock ran out (the round ends)."""

    kind = tag("stock_exhausted")
    seat = serializers.IntegerField(allow_null=True, help_text="Always null.")


class GameEndedEffectSerializer(Base):
    kind = tag("game_ended")
    seat = serializers.IntegerField(allow_null=True, help_text="Always null.")
    winner_team = serializers.IntegerField(min_value=0, help_text="The team that won.")
    scores = serializers.ListField(
        child=serializers.IntegerField(), help_text="Each team's final score."
    )


EFFECTS: dict[str, type[Base]] = {
    "round_started": RoundStartedEffectSerializer,
    "card_drawn": CardDrawnEffectSerializer,
    "red_three_revealed": RedThreeRevealedEffectSerializer,
    "card_discarded": CardDiscardedEffectSerializer,
    "melded": MeldedEffectSerializer,
    "pile_taken": PileTakenEffectSerializer,
    "pile_declined": PileDeclinedEffectSerializer,
    "partner_asked": PartnerAskedEffectSerializer,
    "partner_answered": PartnerAnsweredEffectSerializer,
    "round_ended": RoundEndedEffectSerializer,
    "game_ended": GameEndedEffectSerializer,
    "talon_drawn": TalonDrawnEffectSerializer,
    "special_hand_declared": SpecialHandDeclaredEffectSerializer,
    "melds_merged": MeldsMergedEffectSerializer,
    "stock_exhausted": StockExhaustedEffectSerializer,
}
EFFECT = DiscriminatedUnion(
    description="What an event caused, by `kind`, as you may see it. A member only the seat "
    "concerned may see is absent for everyone else (its description says so); the replay of a "
    "finished game shows every one.",
    component_name="Effect",
    serializers=EFFECTS,
    resource_type_field_name="kind",
)


class UnionField(serializers.JSONField):
    """A value documented as ``union`` (the selector's dict, passed through when rendered)."""

    union: DiscriminatedUnion


class UnionFieldExtension(OpenApiSerializerFieldExtension):
    """Without a description, ``$ref`` to the union's component; with one, the union written
    out (``oneOf`` its members, with its discriminator): a ``$ref`` takes no description beside
    it in OpenAPI 3.0, a ``oneOf`` of one is refused by linters, and generators read drf-
    spectacular's ``allOf: [$ref]`` as inheriting from the union and drop the discriminator
    from the type (openapi-typescript: ``Omit<GameEvent, "type">``)."""

    target_class = "games.api.event_schemas.UnionField"
    match_subclasses = True

    def map_serializer_field(self, auto_schema: Any, direction: Any) -> dict[str, Any]:
        union = self.target.union
        if not self.target.help_text:
            ref: dict[str, Any] = auto_schema.resolve_serializer(union, direction).ref
            return ref
        schema = DiscriminatedUnionExtension(union).map_serializer(auto_schema, direction)
        del schema["description"]  # the field's own is added
        return schema


class EffectField(UnionField):
    """One effect as the viewer may see it."""

    union = EFFECT


# ============================================================================== payloads
class GameStartedSeatSerializer(Base):
    index = serializers.IntegerField(min_value=0, max_value=3, help_text="The seat.")
    team = serializers.IntegerField(min_value=0, help_text="The seat's team.")
    player = serializers.IntegerField(allow_null=True, help_text="The player's id; null: a bot.")
    bot_level = serializers.ChoiceField(
        choices=BotLevel.choices, allow_null=True, help_text="The bot's level; null: a player."
    )
    bot_account = serializers.BooleanField(
        required=False,
        help_text="The player is a bot account (an outside program playing through the API); "
        "absent in logs from before bot accounts: false.",
    )


class GameStartedPayloadSerializer(Base):
    preset = serializers.ChoiceField(choices=list(PRESETS), help_text="The game's preset.")
    rules_version = serializers.CharField(help_text="The rules the game is played under.")
    rated = serializers.BooleanField(
        required=False,
        help_text="A rated game (its result changes ratings); absent in logs from before rated "
        "play: not rated.",
    )
    hints = serializers.BooleanField(
        required=False,
        help_text="Hints on: the seat to act may ask for a suggested move; absent in logs from "
        "before hints: off.",
    )
    seed_commitment = serializers.CharField(help_text="SHA-256 of the game's seed.")
    seats = GameStartedSeatSerializer(many=True, help_text="Who sits where as the game starts.")


def _action_payload(kind: str, doc: str, **fields: serializers.Field[Any, Any, Any, Any]) -> Any:
    return type(
        f"{camel(kind)}PayloadSerializer",
        (Base,),
        {"__doc__": doc, "__module__": __name__, "type": tag(kind), **fields},
    )


_MELDS = "Each group: its rank and the cards from the hand."
DrawPayloadSerializer = _action_payload(
    "draw",
    "Draw from the stock.",
    keep_three=serializers.BooleanField(
        required=False,
        help_text="Modern American Canasta: a 3 was kept in the hand for a Straight; absent: "
        "false.",
    ),
)
TakePilePayloadSerializer = _action_payload(
    "take_pile",
    "Take the discard pile.",
    cards=_cards("The cards from the hand used with the top card."),
    melds=LoggedMeldSerializer(many=True, help_text=_MELDS),
    target=serializers.CharField(
        required=False,
        help_text="Samba and Bolivia: the side's meld the top card went to (`A2`).",
    ),
)
MeldPayloadSerializer = _action_payload(
    "meld",
    "Lay down melds.",
    melds=LoggedMeldSerializer(many=True, help_text=_MELDS),
    merge=serializers.ListField(
        child=serializers.CharField(),
        required=False,
        min_length=2,
        max_length=2,
        help_text="Samba and Bolivia: two of the side's group melds of one rank; the second "
        "joined the first.",
    ),
)
DeclareSpecialHandPayloadSerializer = _action_payload(
    "declare_special_hand",
    "Declare a special hand (Modern American Canasta).",
    name=serializers.CharField(help_text="The special hand's name."),
)
DiscardPayloadSerializer = _action_payload(
    "discard", "Discard a card.", card=serializers.CharField(help_text=_CARD)
)
AskPartnerPayloadSerializer = _action_payload("ask_partner", "Ask the partner to go out.")
AnswerPartnerPayloadSerializer = _action_payload(
    "answer_partner",
    "Answer the partner.",
    allow=serializers.BooleanField(help_text="Whether the partner may go out."),
)
DeclinePilePayloadSerializer = _action_payload("decline_pile", "Leave the pile.")
EndRoundPayloadSerializer = _action_payload("end_round", "End the round (no discard possible).")


class TurnTimedOutPayloadSerializer(Base):
    deadline = serializers.DateTimeField(help_text="The deadline that passed.")
    via = EnumRefField(
        "TimeoutViaEnum",
        ["task", "sweep", "request"],
        help_text="What noticed it: the timer's task, the periodic sweep, or a request.",
    )
    consecutive = serializers.IntegerField(min_value=1, help_text="The seat's run of timeouts.")


class StandInPayloadSerializer(Base):
    """For `seat_handed_to_bot` and `game_abandoned`."""

    consecutive = serializers.IntegerField(min_value=1, help_text="The seat's run of timeouts.")


class SeatReturnedPayloadSerializer(Base):
    reason = EnumRefField(
        "SeatReturnReasonEnum",
        ["action", "request", "timer_off", "reclaimed", "reconnected"],
        help_text="The player acted, made a request, the timer was turned off, the player "
        "reclaimed the seat (`POST .../seat/reclaim/`: also ends a run of timeouts without a "
        "stand-in), or opened a live connection within the grace after the hand-off.",
    )


class EmptyPayloadSerializer(Base):
    """No members (a proposal to turn the timer off or to pause the game, its acceptance or
    refusal)."""


class EmptyPayloadExtension(OpenApiSerializerExtension):
    """An object without members (drf-spectacular leaves out a serializer without fields)."""

    target_class = EmptyPayloadSerializer

    def map_serializer(self, auto_schema: Any, direction: Any) -> dict[str, Any]:
        return {
            "type": "object",
            "description": EmptyPayloadSerializer.__doc__,
            "properties": {},
            "additionalProperties": False,
        }


class TimerTurnedOffPayloadSerializer(Base):
    seats = serializers.ListField(
        child=serializers.IntegerField(), help_text="The seats with a player, who all agreed."
    )
    turn_seconds = serializers.IntegerField(allow_null=True, help_text="The turn time it had.")


class GamePausedPayloadSerializer(Base):
    seats = serializers.ListField(
        child=serializers.IntegerField(), help_text="The seats with a player, who all agreed."
    )
    remaining_seconds = serializers.IntegerField(
        allow_null=True,
        help_text="What was left of the turn (restored on resume); null: no deadline ran.",
    )


class GameResumedPayloadSerializer(Base):
    remaining_seconds = serializers.IntegerField(
        allow_null=True,
        help_text="The time the turn gets back from now; null: no deadline ran when paused.",
    )


class GameConcededPayloadSerializer(Base):
    team = serializers.IntegerField(min_value=0, help_text="The conceding team.")
    winner_team = serializers.IntegerField(min_value=0, help_text="The team that wins.")


class RatingChangedSerializer(Base):
    """One player's rating change (ratings are public)."""

    seat = serializers.IntegerField(min_value=0, max_value=3, help_text="The player's seat.")
    player = serializers.IntegerField(help_text="The player's id.")
    team = serializers.IntegerField(min_value=0, help_text="The seat's team.")
    rank = serializers.IntegerField(
        min_value=1, help_text="The side's place: 1 first (sides with equal scores share one)."
    )
    mu_before = serializers.FloatField(help_text="The skill estimate before the game.")
    sigma_before = serializers.FloatField(help_text="Its uncertainty before the game.")
    mu_after = serializers.FloatField(help_text="The skill estimate after the game.")
    sigma_after = serializers.FloatField(help_text="Its uncertainty after the game.")
    rating_before = serializers.IntegerField(
        help_text="The shown rating before: round(1000 + 40 (mu - 3 sigma))."
    )
    rating_after = serializers.IntegerField(help_text="The shown rating after.")


class RatingsChangedPayloadSerializer(Base):
    format = EnumRefField(
        "RatingFormatEnum",
        list(RATING_FORMATS),
        help_text="The format rated: a classic game by its number of players, a game of another "
        "rule family by its preset.",
    )
    changes = RatingChangedSerializer(many=True, help_text="Every player's change, by seat.")


PAYLOADS: dict[str, type[Base]] = {
    GAME_STARTED: GameStartedPayloadSerializer,
    "draw": DrawPayloadSerializer,
    "take_pile": TakePilePayloadSerializer,
    "meld": MeldPayloadSerializer,
    "discard": DiscardPayloadSerializer,
    "ask_partner": AskPartnerPayloadSerializer,
    "answer_partner": AnswerPartnerPayloadSerializer,
    "decline_pile": DeclinePilePayloadSerializer,
    "end_round": EndRoundPayloadSerializer,
    "declare_special_hand": DeclareSpecialHandPayloadSerializer,
    TURN_TIMED_OUT: TurnTimedOutPayloadSerializer,
    SEAT_HANDED_TO_BOT: StandInPayloadSerializer,
    SEAT_RETURNED: SeatReturnedPayloadSerializer,
    GAME_ABANDONED: StandInPayloadSerializer,
    TIMER_OFF_PROPOSED: EmptyPayloadSerializer,
    TIMER_OFF_ACCEPTED: EmptyPayloadSerializer,
    TIMER_OFF_DECLINED: EmptyPayloadSerializer,
    TIMER_TURNED_OFF: TimerTurnedOffPayloadSerializer,
    PAUSE_PROPOSED: EmptyPayloadSerializer,
    PAUSE_ACCEPTED: EmptyPayloadSerializer,
    PAUSE_DECLINED: EmptyPayloadSerializer,
    GAME_PAUSED: GamePausedPayloadSerializer,
    GAME_RESUMED: GameResumedPayloadSerializer,
    GAME_CONCEDED: GameConcededPayloadSerializer,
    RATINGS_CHANGED: RatingsChangedPayloadSerializer,
}

# ============================================================================== events
_SEAT_TEXT = {
    GAME_STARTED: "Always null.",
    TIMER_TURNED_OFF: "Always null.",
    TURN_TIMED_OUT: "The seat that lost its turn.",
    SEAT_HANDED_TO_BOT: "The seat a bot now plays.",
    SEAT_RETURNED: "The seat whose player is back.",
    GAME_ABANDONED: "The seat whose timeouts ended the game.",
    TIMER_OFF_PROPOSED: "The seat that proposed it.",
    TIMER_OFF_ACCEPTED: "The seat that accepted.",
    TIMER_OFF_DECLINED: "The seat that declined.",
    PAUSE_PROPOSED: "The seat that proposed it.",
    PAUSE_ACCEPTED: "The seat that accepted.",
    PAUSE_DECLINED: "The seat that declined.",
    GAME_PAUSED: "Always null.",
    GAME_RESUMED: "The seat that resumed the game.",
    GAME_CONCEDED: "The seat that conceded.",
    RATINGS_CHANGED: "Always null.",
}
_DOC = {
    GAME_STARTED: "Event 1: the game started and the first round was dealt.",
    "draw": "A seat drew from the stock.",
    "take_pile": "A seat took the discard pile.",
    "meld": "A seat laid down melds.",
    "discard": "A seat discarded; its turn ended (or the round, if it went out).",
    "ask_partner": "A seat asked its partner whether it may go out.",
    "answer_partner": "The partner answered.",
    "decline_pile": "A seat left the pile (stock exhausted, `play_on`).",
    "end_round": "A seat ended the round without a discard.",
    "declare_special_hand": "A seat declared a special hand (Modern American Canasta); the "
    "round ended.",
    TURN_TIMED_OUT: "A turn ran out of time; the moves the timer played for it follow.",
    SEAT_HANDED_TO_BOT: "A seat is played by a stand-in bot until its player is back.",
    SEAT_RETURNED: "A seat's player is back from its stand-in bot (or reclaimed the seat to "
    "end its run of timeouts).",
    GAME_ABANDONED: "The game was abandoned (timeouts, `timeout_outcome` `abandon`).",
    TIMER_OFF_PROPOSED: "A seat proposed to turn the turn timer off.",
    TIMER_OFF_ACCEPTED: "A seat accepted the proposal.",
    TIMER_OFF_DECLINED: "A seat declined the proposal; it is withdrawn.",
    TIMER_TURNED_OFF: "Every player agreed: the turn timer is off.",
    PAUSE_PROPOSED: "A seat proposed to pause the game (a vacation).",
    PAUSE_ACCEPTED: "A seat accepted the proposal to pause.",
    PAUSE_DECLINED: "A seat declined the proposal to pause; it is withdrawn.",
    GAME_PAUSED: "Every player agreed: the game is paused (no action, no deadline) until a "
    "seated player resumes it.",
    GAME_RESUMED: "A seated player resumed the game; the turn has what it had left.",
    GAME_CONCEDED: "A seat conceded the game for its team.",
    RATINGS_CHANGED: "A rated game ended: its result changed the players' ratings (once, after "
    "the event that ended it; a concession or an abandonment ranks the side that left last).",
}


def _event(kind: str, family: str) -> type[Base]:
    """The component of one event type: ``<Type>Event`` (``GameEvent``) or
    ``<Type>ReplayEvent`` (``ReplayEvent``, without `created_at`)."""
    is_action = kind in ACTION_TYPES
    fact = not is_action and kind != GAME_STARTED
    # Fields in their order of creation: the order of the component's properties.
    fields: dict[str, Any] = {
        "seq": serializers.IntegerField(
            min_value=1, help_text="The event's number in the move log: 1, 2, 3 ... (no gaps)."
        ),
        "type": tag(kind),
    }
    fields["seat"] = (
        serializers.IntegerField(min_value=0, max_value=3, help_text="The acting seat.")
        if is_action
        else serializers.IntegerField(
            allow_null=kind in (GAME_STARTED, TIMER_TURNED_OFF, GAME_PAUSED, RATINGS_CHANGED),
            help_text=_SEAT_TEXT[kind],
        )
    )
    fields["source"] = source_field()
    if family == "GameEvent":
        fields["created_at"] = serializers.DateTimeField(help_text="When it was logged.")
    fields["payload"] = PAYLOADS[kind](
        help_text="The action as played." if is_action else "The event's details."
    )
    fields["effects"] = serializers.ListField(
        child=EffectField(),
        help_text="Always empty: a fact of the table changes no card."
        if fact
        else "What happened, as you may see it (see `Effect`).",
        max_length=0 if fact else None,
    )
    suffix = "Event" if family == "GameEvent" else "ReplayEvent"
    return type(
        f"{camel(kind)}{suffix}Serializer",
        (Base,),
        {"__doc__": _DOC[kind], "__module__": __name__, **fields},
    )


GAME_EVENTS: dict[str, type[Base]] = {kind: _event(kind, "GameEvent") for kind in EVENT_TYPES}
REPLAY_EVENTS: dict[str, type[Base]] = {kind: _event(kind, "ReplayEvent") for kind in EVENT_TYPES}
GAME_EVENT = DiscriminatedUnion(
    description="A move-log entry, by `type`: `game_started` (event 1, the deal), an action of "
    "a seat (`payload`: the action as played; `effects`: what it caused, as you may see it), or "
    "a fact of the table (a turn timed out, a stand-in bot, the timer turned off, a pause "
    "by agreement and its end, a concession, an abandonment, a rated game's rating changes), "
    "which has no effects.",
    component_name="GameEvent",
    serializers=GAME_EVENTS,
    resource_type_field_name="type",
)
REPLAY_EVENT = DiscriminatedUnion(
    description="A move-log entry in a replay, by `type` (as `GameEvent`, without "
    "`created_at`): as you saw it then; once the game is finished, with every private part.",
    component_name="ReplayEvent",
    serializers=REPLAY_EVENTS,
    resource_type_field_name="type",
)


class GameEventField(UnionField):
    """A move-log entry as the viewer may see it."""

    union = GAME_EVENT


class ReplayEventField(UnionField):
    """A move-log entry in a replay."""

    union = REPLAY_EVENT
