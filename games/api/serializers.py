"""Request and response shapes of the game API; each becomes a named OpenAPI component.

Responses are built by selectors as plain dicts; these serializers describe them for the schema
(and render them). Requests are validated here for their shape; the engine validates what only
it can judge (option values, actions), with its stable codes.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers
from rest_framework.fields import SkipField

from games.api.event_schemas import MELD_KINDS, EnumRefField, GameEventField
from games.engine import ACTION_TYPES, PRESETS, describe_options
from games.engine.actions import MAX_CARDS_IN_ACTION, SPECIAL_HAND_NAME_MAX
from games.engine.history import TIMER_FACTS
from games.engine.options import FAMILIES, FAMILY_OPTION_NAMES
from games.hooks import PROVISIONAL_GAMES
from games.models import BotLevel, GameStatus, TimeoutOutcome
from games.selectors.rules import option_range
from games.services.deadlines import TIMEOUT_LIMIT_MAX, TURN_SECONDS_MAX, TURN_SECONDS_MIN

Base = serializers.Serializer[Any]


class AbsentSkipped:
    """A field left out of the output when the selector's dict has no such key (a member of a
    variant family absent from a classic game's view), rather than written as null."""

    def get_attribute(self, instance: Any) -> Any:
        if isinstance(instance, Mapping) and getattr(self, "source", None) not in instance:
            raise SkipField()
        return super().get_attribute(instance)  # type: ignore[misc]


class OptionalCharField(AbsentSkipped, serializers.CharField):
    pass


# ============================================================================== players


class PlayerRefSerializer(Base):
    id = serializers.IntegerField(help_text="The player's id (`GET /players/{id}/profile/`).")
    display_name = serializers.CharField(help_text="The name other players see.")


# ============================================================================== options
_OPTION_FIELD_TYPES = {"int": serializers.IntegerField, "bool": serializers.BooleanField}


def _option_fields(required: bool) -> dict[str, serializers.Field[Any, Any, Any, Any]]:
    """The option fields; with ``required``, every option but those of the variant families,
    which a stored classic game's options leave out (absent: the default)."""
    out: dict[str, serializers.Field[Any, Any, Any, Any]] = {}
    for name, spec in describe_options().items():
        text = f"Default (classic): `{spec['default']}`."
        if name in FAMILY_OPTION_NAMES:
            text += " Absent: the default."
        needed = required and name not in FAMILY_OPTION_NAMES
        if "choices" in spec:
            out[name] = serializers.ChoiceField(
                choices=spec["choices"], required=needed, help_text=text
            )
        elif spec["type"] in _OPTION_FIELD_TYPES:
            kwargs: dict[str, Any] = {"required": needed, "help_text": text}
            if "min" in spec:
                low, high = spec["min"], spec["max"]
                for family in FAMILIES[1:]:  # the widest range over the families
                    family_low, family_high = option_range(name, family)
                    low, high = min(low, family_low), max(high, family_high)
                kwargs.update(min_value=low, max_value=high)
            out[name] = _OPTION_FIELD_TYPES[spec["type"]](**kwargs)
        else:
            out[name] = serializers.CharField(required=needed, help_text=text)
    return out


GameOptionsSerializer = type(
    "GameOptionsSerializer",
    (Base,),
    {
        "__doc__": "The complete rule options of a game (`GET /rules/` explains each).",
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
    """One rule option: its type, allowed values, classic default and what it does."""

    type = serializers.ChoiceField(
        choices=["int", "bool", "str"], help_text="The type of the option's value."
    )
    default = serializers.JSONField(help_text="The classic default.")
    description = serializers.CharField(
        help_text="What the option does, for players; a text option explains each choice."
    )
    choices = serializers.ListField(
        child=serializers.CharField(),
        required=False,
        help_text="A text option's allowed values.",
    )
    min = serializers.IntegerField(required=False, help_text="A number option's least value.")
    max = serializers.IntegerField(required=False, help_text="A number option's greatest value.")


class OptionRangeSerializer(Base):
    min = serializers.IntegerField(help_text="The least value.")
    max = serializers.IntegerField(help_text="The greatest value.")


class RuleFamilySerializer(Base):
    """One rule family: its presets, its rules version and the options a table may change."""

    rules_version = serializers.CharField(
        help_text="The rules version a game of the family created now is played under."
    )
    presets = serializers.ListField(
        child=serializers.CharField(help_text="A preset's name."),
        help_text="The family's presets (`preset_descriptions` says what each plays).",
    )
    overridable = serializers.ListField(
        child=serializers.CharField(),
        help_text="The options a table of the family may set apart from its preset (`options` "
        "of a new table); every other option is fixed by the preset (422 `invalid_option`).",
    )
    ranges = serializers.DictField(
        child=OptionRangeSerializer(),
        help_text="The number options whose range in this family is not the one `options` "
        "gives (the classic range), by name.",
    )


class TimerRulesSerializer(Base):
    """The turn timer's rules (quick play's figures), as the code applies them."""

    quick_play_turn_seconds = serializers.IntegerField(
        help_text="Seconds per turn at a quick-play table."
    )
    grace_ms = serializers.IntegerField(
        help_text="The timer fires this long after the shown deadline; a move sent before wins."
    )
    timeout_limit = serializers.IntegerField(
        help_text="Timeouts in a row before the outcome (a table created without saying)."
    )
    casual_timeout_outcome = serializers.ChoiceField(
        choices=TimeoutOutcome.choices,
        help_text="At a casual quick-play table: `bot`, a stand-in bot plays the seat.",
    )
    rated_timeout_outcome = serializers.ChoiceField(
        choices=TimeoutOutcome.choices,
        help_text="At a rated table (always): `abandon`, the game is abandoned and the side "
        "whose seat ran out of time loses.",
    )
    reclaim_grace_seconds = serializers.IntegerField(
        help_text="A live connection opened by a player coming back (not seen for "
        "`presence_window_seconds`) at most this long after the hand-off to a stand-in takes "
        "the seat back by itself (`SEAT_RECLAIM_GRACE_SECONDS`)."
    )
    reclaim_path = serializers.CharField(
        help_text="Where a player takes their seat back at any time (`POST`, `{id}`: the game)."
    )
    presence_window_seconds = serializers.IntegerField(
        help_text="A seat seen within this long counts as connected (`.../presence/`)."
    )
    rules = serializers.ListField(
        child=serializers.CharField(), help_text="The rules in words, with these figures."
    )


class RulesSerializer(Base):
    rules_version = serializers.CharField(
        help_text="The rules version a classic game created now is played under (each "
        "family's in `families`)."
    )
    presets = serializers.DictField(
        child=GameOptionsSerializer(), help_text="Each preset's complete options, by name."
    )
    preset_descriptions = serializers.DictField(
        child=serializers.CharField(),
        help_text="What each preset plays, by name: the game it is and how its options differ.",
    )
    options = serializers.DictField(
        child=OptionDescriptionSerializer(),
        help_text="Each option's type, range or choices, default and explanation, by name.",
    )
    families = serializers.DictField(
        child=RuleFamilySerializer(),
        help_text="Each rule family (the option `family`: "
        + ", ".join(f"`{f}`" for f in FAMILIES)
        + "), by name: its presets and the options a table may change.",
    )
    action_types = serializers.ListField(
        child=serializers.CharField(), help_text="The action types a seat may send."
    )
    bot_levels = serializers.ListField(
        child=serializers.CharField(), help_text="The levels a bot seat may be given."
    )
    timers = TimerRulesSerializer(
        help_text="The turn timer: quick play's turn, timeouts, stand-in bots, taking a seat "
        "back, abandonment at rated tables."
    )


# ============================================================================== actions
# The bounds the rules engine holds an action to (games.engine.actions): longer is never valid.
CARD_MAX_LENGTH = 3  # `10S`
RANK_MAX_LENGTH = 2  # `10`
MELDS_IN_ACTION_MAX = 14


def _card_field(**kwargs: Any) -> serializers.CharField:
    return serializers.CharField(max_length=CARD_MAX_LENGTH, **kwargs)


MELD_ID_MAX_LENGTH = 3  # `A12`: a side's letter and a number


def _meld_id_field(**kwargs: Any) -> serializers.CharField:
    return serializers.CharField(max_length=MELD_ID_MAX_LENGTH, **kwargs)


class MeldGroupSerializer(Base):
    rank = serializers.CharField(
        required=False,
        allow_null=True,
        max_length=RANK_MAX_LENGTH,
        help_text="3, 4..10, J, Q, K, A or W; needed only for a group of wild cards alone.",
    )
    cards = serializers.ListField(
        child=_card_field(help_text="A card: rank + suit (`QH`, `10S`, `2C`) or `JK`."),
        max_length=MAX_CARDS_IN_ACTION,
        help_text='The group\'s cards from your hand, e.g. ["QH","QS","2C"].',
    )
    kind = EnumRefField(
        "MeldKindEnum",
        MELD_KINDS,
        required=False,
        help_text="Samba and Bolivia: `group` (the default: cards of one rank), `sequence` "
        "(one suit, consecutive ranks 4..A) or `wild` (wild cards alone, Bolivia).",
    )
    target = _meld_id_field(
        required=False,
        help_text="Samba and Bolivia: the id of your side's meld to lay the cards off on "
        "(`A3`); needed when two melds could take them.",
    )
    new = serializers.BooleanField(
        required=False,
        help_text="Samba and Bolivia: start a new meld even though your side has one of this "
        "rank (not with `target`).",
    )


class ActionSerializer(Base):
    """A command in text form. Fields by type: `draw`, `ask_partner`, `decline_pile`,
    `end_round`: none; `discard`: `card`; `answer_partner`: `allow`; `meld`: `melds`;
    `take_pile`: `cards` (from the hand, used with the top card) and optional `melds`.
    Cards are written rank + suit (`QH`, `10S`, `2C`) or `JK` for a joker."""

    type = serializers.ChoiceField(
        choices=list(ACTION_TYPES), help_text="What to do; it decides the other fields."
    )
    card = _card_field(required=False, help_text="For `discard`: the card to discard.")
    allow = serializers.BooleanField(
        required=False, help_text="For `answer_partner`: whether your partner may go out."
    )
    cards = serializers.ListField(
        child=_card_field(help_text="A card: rank + suit (`QH`, `10S`, `2C`) or `JK`."),
        required=False,
        max_length=MAX_CARDS_IN_ACTION,
        help_text="For `take_pile`: the cards from your hand that meld with the top card.",
    )
    melds = serializers.ListField(
        child=MeldGroupSerializer(),
        required=False,
        max_length=MELDS_IN_ACTION_MAX,
        help_text="For `meld`: the groups to lay down; for `take_pile`: more groups laid down "
        "with it (one per rank: cards of a rank you have melded join that meld).",
    )
    keep_three = serializers.BooleanField(
        required=False,
        help_text="For `draw`, Modern American Canasta: keep a 3 in your hand for a Straight "
        "(while your side has no meld).",
    )
    target = _meld_id_field(
        required=False,
        help_text="For `take_pile`, Samba and Bolivia: the id of your side's meld the top card "
        "(with `cards`, the trio) goes to (`A2`); absent: a new meld.",
    )
    merge = serializers.ListField(
        child=_meld_id_field(help_text="A meld id, such as `A2`."),
        required=False,
        min_length=2,
        max_length=2,
        help_text="For `meld`, Samba and Bolivia: two of your side's group melds of one rank, "
        'such as ["A2", "A5"]: the second joins the first.',
    )
    name = serializers.CharField(
        required=False,
        max_length=SPECIAL_HAND_NAME_MAX,
        help_text="For `declare_special_hand`, Modern American Canasta: the special hand's "
        "name (`pairs`, `garbage`, `straight` ... `GET /rules/`, option `special_hands`).",
    )


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
    index = serializers.IntegerField(
        help_text="The seat number, 0 to `players` - 1; turns pass in this order."
    )
    team = serializers.IntegerField(
        help_text="The seat's team: its number modulo the number of teams (at four players "
        "with partners, seats 0 and 2 against 1 and 3)."
    )
    kind = serializers.ChoiceField(
        choices=["player", "bot", "empty"],
        help_text="`player`: a player sits there; `bot`: a bot plays it; `empty`: free "
        "(only before the start).",
    )
    player = PlayerRefSerializer(
        allow_null=True, help_text="The player sitting there; null for a bot or an empty seat."
    )
    bot_level = serializers.ChoiceField(
        choices=BotLevel.choices,
        allow_null=True,
        help_text="The bot's level; null unless `kind` is `bot`.",
    )
    bot_account = serializers.BooleanField(
        help_text="The player sitting there is a bot account (a program playing through the "
        "API, `kind` `player`); false for a person, a server bot or an empty seat."
    )


CANASTA_KINDS = [
    "natural",
    "mixed",
    "wild",
    "natural_sevens",
    "natural_aces",
    "samba",
    "escalera",
    "bolivia",
]


class MeldViewSerializer(Base):
    id = OptionalCharField(
        required=False,
        allow_null=True,
        help_text="Samba and Bolivia: the meld's id, the side's letter and a number (`A3`), as "
        "actions name it (`target`, `merge`); null in Modern American Canasta; absent in a "
        "classic game.",
    )
    kind = EnumRefField(
        "MeldKindEnum",
        MELD_KINDS,
        required=False,
        help_text="The variant families: `group` (one rank), `sequence` (one suit, consecutive "
        "ranks) or `wild` (wild cards alone); absent in a classic game.",
    )
    suit = OptionalCharField(
        required=False,
        allow_null=True,
        help_text="A sequence's suit (C, D, H or S); null for other melds; absent in a classic "
        "game.",
    )
    rank = serializers.CharField(
        help_text="The meld's rank: 3 (black threes, going out only), 4..10, J, Q, K, A; W "
        "for a meld of wild cards alone (option `wild_canasta`); a sequence's lowest rank."
    )
    cards = serializers.ListField(
        child=serializers.CharField(help_text="A card: rank + suit (`QH`, `10S`) or `JK`."),
        help_text="Its cards.",
    )
    natural_count = serializers.IntegerField(help_text="How many of its cards are natural.")
    wild_count = serializers.IntegerField(help_text="How many are wild (jokers and twos).")
    is_canasta = serializers.BooleanField(help_text="Seven cards or more: a canasta.")
    canasta_kind = EnumRefField(
        "CanastaKindEnum",
        CANASTA_KINDS,
        allow_null=True,
        help_text="`natural` (no wild card: 500 points) or `mixed` (300; of wild cards alone, "
        "option `wild_canasta`: 1000); null while the meld is not a canasta. The variant "
        "families add `wild` (a wild canasta), `natural_sevens` and `natural_aces` (Modern "
        "American Canasta), `samba` (a Samba sequence of seven), `escalera` (a Bolivia "
        "sequence of seven) and `bolivia` (seven wild cards, Bolivia).",
    )


class SpecialHandViewSerializer(AbsentSkipped, Base):
    """A special hand declared (Modern American Canasta), face up."""

    name = serializers.CharField(help_text="Its name (`garbage`, `pairs` ...).")
    cards = serializers.ListField(
        child=serializers.CharField(help_text="A card: rank + suit (`QH`, `10S`) or `JK`."),
        help_text="Its cards.",
    )


class TeamViewSerializer(Base):
    team = serializers.IntegerField(help_text="The team's number (see `Seat.team`).")
    seats = serializers.ListField(
        child=serializers.IntegerField(help_text="A seat number."), help_text="Its seats."
    )
    score = serializers.IntegerField(help_text="Cumulative score before this round.")
    opened = serializers.BooleanField(help_text="Whether the team has made its initial meld.")
    initial_meld_minimum = serializers.IntegerField(
        help_text="The points the team's initial meld must reach this round, by its score: "
        "15 below 0, 50 below 1500, 90 below 3000, else 120 (the variant families have "
        "their own tables)."
    )
    melds = MeldViewSerializer(
        many=True,
        help_text="Its melds: one per rank (classic, Modern American Canasta); Samba and "
        "Bolivia allow several of a rank and sequences, each with its `id`.",
    )
    canastas = serializers.IntegerField(help_text="How many of its melds are canastas.")
    red_threes = serializers.ListField(
        child=serializers.CharField(help_text="A red three: `3H` or `3D`."),
        help_text="The red threes it laid down this round.",
    )
    black_threes = serializers.ListField(
        child=serializers.CharField(help_text="A black three: `3C` or `3S`."),
        required=False,
        help_text="Modern American Canasta: the black threes in its threes area this round; "
        "absent in the other families.",
    )
    special_hand = SpecialHandViewSerializer(
        required=False,
        allow_null=True,
        help_text="Modern American Canasta: the special hand it declared this round, laid face "
        "up; null when none; absent in the other families.",
    )


class PileViewSerializer(Base):
    """The discard pile: only its size and top card are shown."""

    size = serializers.IntegerField(help_text="How many cards it holds.")
    top = serializers.CharField(allow_null=True, help_text="Its top card; null when empty.")
    frozen = serializers.BooleanField(
        help_text="Frozen for everyone: a wild card or a red three lies in it, until it is "
        "taken. Then only a natural pair matching the top card takes it."
    )
    blocked = serializers.BooleanField(
        help_text="The top card is a wild card or a three: nobody may take the pile until "
        "another card covers it."
    )
    frozen_for_viewer = serializers.BooleanField(
        allow_null=True,
        help_text="Frozen for your team: `frozen`, or your team has not made its initial meld "
        "yet (a natural pair is needed either way); null for a spectator.",
    )


class TableViewSerializer(Base):
    """The table as one seat (or a spectator) may see it: your hand, every other hand as a
    count, the stock as a count, the pile's top card."""

    family = serializers.ChoiceField(
        choices=list(FAMILIES),
        required=False,
        help_text="The rule family (option `family`); absent in a classic game.",
    )
    round = serializers.IntegerField(help_text="The round, from 1.")
    dealer = serializers.IntegerField(help_text="The seat that dealt this round.")
    turn = serializers.IntegerField(help_text="The seat whose turn it is.")
    to_act = serializers.IntegerField(
        help_text="The seat that must act now: `turn`, or its partner while asked whether it "
        "may go out (`phase` `answer`); -1 at game end."
    )
    phase = serializers.ChoiceField(
        choices=["draw", "play", "answer", "game_over"],
        help_text="`draw`: the seat to act draws, takes the pile, or (the stock empty) "
        "declines it; `play`: it has drawn and melds, asks its partner, discards; `answer`: "
        "its partner says whether it may go out; `game_over`.",
    )
    stock_count = serializers.IntegerField(help_text="Cards left in the stock.")
    pile = PileViewSerializer(help_text="The discard pile.")
    hand_counts = serializers.ListField(
        child=serializers.IntegerField(help_text="A number of cards."),
        help_text="How many cards each seat holds, by seat.",
    )
    teams = TeamViewSerializer(many=True, help_text="Each team's score, melds and red threes.")
    permission = serializers.ChoiceField(
        choices=["none", "asked", "yes", "no"],
        help_text="Asking the partner to go out, this turn: `none` (not asked), `asked` "
        "(waiting for the answer), `yes` (the player must go out this turn), `no` (the player "
        "may not go out this turn).",
    )
    must_end_without_discard = serializers.BooleanField(
        help_text="The last stock card was a red three: the seat to act may meld, then ends "
        "the round with `end_round` instead of a discard."
    )
    winner_team = serializers.IntegerField(
        allow_null=True, help_text="The winning team once the game is over; else null."
    )
    turn_card_drawn = serializers.BooleanField(
        required=False,
        help_text="Modern American Canasta: the seat to act has drawn its turn card (a talon "
        "is due only before it); absent in the other families.",
    )
    dead_ranks = serializers.ListField(
        child=serializers.CharField(help_text="A rank: 4..10, J, Q, K, A."),
        required=False,
        help_text="Modern American Canasta: the ranks whose canasta is complete (no meld of "
        "them may be started or extended, the pile is dead to them); absent in the other "
        "families.",
    )
    talon_due = serializers.IntegerField(
        required=False,
        min_value=0,
        help_text="Modern American Canasta: the talon the seat to act takes after its discard "
        "(4 or 3 cards; 0: none); absent in the other families.",
    )
    viewer = serializers.IntegerField(allow_null=True, help_text="Your seat; null: spectator.")
    hand = serializers.ListField(
        child=serializers.CharField(help_text="A card: rank + suit (`QH`, `10S`) or `JK`."),
        allow_null=True,
        help_text="Your cards; null: spectator.",
    )
    legal_actions = ActionSerializer(
        many=True,
        help_text="Actions you may send now (empty unless you are to act). Melds and pile "
        "takes are listed canonically per rank; other valid combinations are accepted too.",
    )


# ============================================================================== turn timer
class TimerSeatSerializer(Base):
    index = serializers.IntegerField(help_text="The seat number.")
    timeouts = serializers.IntegerField(help_text="Consecutive turns this seat lost to the timer.")
    stand_in = serializers.BooleanField(
        help_text="A stand-in bot plays this seat until its player is back (`reclaim_url`)."
    )
    reclaim_url = serializers.CharField(
        allow_null=True,
        help_text="While a stand-in plays the seat: where its player takes it back "
        "(`POST /api/v1/games/{id}/seat/reclaim/`, at any time while the game is played); "
        "null otherwise.",
    )
    reconnect_until = serializers.DateTimeField(
        allow_null=True,
        help_text="While a stand-in plays the seat: until when its player, coming back after "
        "being away, gets it back by just opening a live connection (socket, stream, "
        "long-poll): the hand-off plus `SEAT_RECLAIM_GRACE_SECONDS`; null otherwise.",
    )


class TimerOffProposalSerializer(Base):
    proposed_by = serializers.IntegerField(help_text="The seat that proposed it.")
    accepted = serializers.ListField(
        child=serializers.IntegerField(help_text="A seat number."),
        help_text="The seats that accepted (the proposer among them).",
    )
    waiting_for = serializers.ListField(
        child=serializers.IntegerField(help_text="A seat number."),
        help_text="Seats with a player still to accept.",
    )
    proposed_at = serializers.DateTimeField(help_text="When it was proposed.")


class TurnTimerSerializer(Base):
    """The turn timer. Draw a countdown from `deadline` and `server_time` (not the client's
    clock). When the deadline passes (plus `grace_ms`) the seat's turn is completed for it
    (logged with source `timer`); after `timeout_limit` consecutive timeouts the seat is played
    by a bot until its player is back, or the game is abandoned (`timeout_outcome`)."""

    enabled = serializers.BooleanField(help_text="Whether turns are timed.")
    turn_seconds = serializers.IntegerField(
        allow_null=True, help_text="Seconds per turn; null: no timer."
    )
    timeout_limit = serializers.IntegerField(
        help_text="Consecutive timeouts of a seat before `timeout_outcome`; 0: never."
    )
    timeout_outcome = serializers.ChoiceField(
        choices=TimeoutOutcome.choices,
        help_text="After `timeout_limit` timeouts: `bot` (a bot plays the seat until its "
        "player is back) or `abandon` (the game is abandoned).",
    )
    deadline = serializers.DateTimeField(
        allow_null=True, help_text="When the seat to act loses its turn; null: none running."
    )
    server_time = serializers.DateTimeField(help_text="The server's time of this response.")
    seconds_left = serializers.FloatField(
        allow_null=True,
        help_text="Seconds from `server_time` to the deadline (0 once passed); null: none.",
    )
    grace_ms = serializers.IntegerField(
        help_text="The timer fires this long after the deadline; a move sent before wins."
    )
    seat = serializers.IntegerField(allow_null=True, help_text="The seat the deadline is for.")
    seats = TimerSeatSerializer(
        many=True, help_text="Each seat's run of timeouts and stand-in bot, by seat."
    )
    proposal = TimerOffProposalSerializer(
        allow_null=True, help_text="A pending proposal to turn the timer off."
    )


class PauseProposalSerializer(Base):
    proposed_by = serializers.IntegerField(help_text="The seat that proposed to pause.")
    accepted = serializers.ListField(
        child=serializers.IntegerField(), help_text="The seats that accepted (the proposer too)."
    )
    waiting_for = serializers.ListField(
        child=serializers.IntegerField(), help_text="The seats with a player yet to answer."
    )
    proposed_at = serializers.DateTimeField(
        allow_null=True, help_text="When it was proposed (null for a delayed spectator)."
    )


class PauseViewSerializer(Base):
    """A pause by agreement (a vacation): every seat with a player accepts a proposal to pause;
    while paused, actions are refused (409 `game_paused`) and no deadline runs; any seated
    player resumes the game, and the turn gets back the time it had left."""

    paused = serializers.BooleanField(help_text="Whether the game is paused.")
    paused_at = serializers.DateTimeField(
        allow_null=True, help_text="Since when; null when not paused (or for a delayed spectator)."
    )
    remaining_seconds = serializers.IntegerField(
        allow_null=True,
        help_text="What was left of the turn when it was paused, restored on resume; null when "
        "not paused or no deadline ran.",
    )
    proposal = PauseProposalSerializer(
        allow_null=True, help_text="A pending proposal to pause the game."
    )


@extend_schema_field(OpenApiTypes.OBJECT)
class TimerPayloadField(serializers.JSONField):
    pass


class TimerEventSerializer(Base):
    seq = serializers.IntegerField(help_text="The entry's number in the timer's log, from 1.")
    type = serializers.CharField(help_text="One of: " + ", ".join(TIMER_FACTS) + ".")
    seat = serializers.IntegerField(
        allow_null=True, help_text="The seat concerned; null when none is."
    )
    at_version = serializers.IntegerField(help_text="The game's version when it happened.")
    payload = TimerPayloadField(
        help_text="For `turn_timed_out`: deadline, via (task, sweep or request), consecutive, "
        "events (first and last seq of the moves the timer played)."
    )
    created_at = serializers.DateTimeField(help_text="When it happened.")


class TimerDetailSerializer(Base):
    game = serializers.IntegerField(help_text="The game's id.")
    version = serializers.IntegerField(help_text="The game's version (its last event).")
    timer = TurnTimerSerializer(help_text="The timer now.")
    events = TimerEventSerializer(many=True, help_text="The timer's log, oldest first.")
    has_more = serializers.BooleanField(help_text="More entries follow: ask again with `after`.")


STATUS_TEXT = "`lobby` (waiting for players), `active` (being played), `finished` or `abandoned`."


RATED_TEXT = "A rated game: people only, a standard preset; its result changes ratings."
HINTS_TEXT = (
    "Hints on: the seat to act may ask for a suggested move (`GET /games/{id}/hint/`); "
    "casual tables only."
)


class RatingChangeLineSerializer(Base):
    """One player's rating change in a rated game (ratings are public)."""

    seat = serializers.IntegerField(min_value=0, max_value=3, help_text="The player's seat.")
    player_id = serializers.IntegerField(help_text="The player's id.")
    rating_before = serializers.IntegerField(help_text="The shown rating before the game.")
    rating_after = serializers.IntegerField(help_text="The shown rating after the game.")
    change = serializers.IntegerField(help_text="`rating_after - rating_before`.")
    provisional = serializers.BooleanField(
        help_text=f"Fewer than {PROVISIONAL_GAMES} rated games in the format yet, this one "
        "included."
    )
    counted = serializers.BooleanField(
        help_text="The result counted. False: the rating did not change (`unrated_reason`)."
    )
    unrated_reason = serializers.CharField(
        allow_null=True,
        help_text="Why the result did not count: `too_few_moves` (a side made fewer moves than "
        "a rated result needs) or `repeated_opponents` (these players already had as many "
        "counted results together as a day allows); null when it counted.",
    )


class GameDetailSerializer(Base):
    id = serializers.IntegerField(help_text="The game's id.")
    preset = serializers.CharField(help_text="The preset its options started from.")
    options = GameOptionsSerializer(help_text="Its complete rule options.")
    status = serializers.ChoiceField(choices=GameStatus.choices, help_text=STATUS_TEXT)
    is_public = serializers.BooleanField(
        help_text="Listed in the lobby; a private table is joined with its `join_code`."
    )
    rated = serializers.BooleanField(help_text=RATED_TEXT)
    hints = serializers.BooleanField(help_text=HINTS_TEXT)
    version = serializers.IntegerField(
        help_text="Seq of the last event; send it as `expected_version` with an action."
    )
    rules_version = serializers.CharField(help_text="The rules version the game is played by.")
    created_by = PlayerRefSerializer(help_text="Who created the table.")
    created_at = serializers.DateTimeField(help_text="When the table was created.")
    started_at = serializers.DateTimeField(
        allow_null=True, help_text="When it was dealt; null before."
    )
    finished_at = serializers.DateTimeField(
        allow_null=True, help_text="When it ended (finished or abandoned); null before."
    )
    join_code = serializers.CharField(
        allow_null=True, help_text="Shown to the creator and seated players only."
    )
    your_seat = serializers.IntegerField(
        allow_null=True, help_text="Your seat; null when you are not seated (a spectator)."
    )
    seats = SeatSerializer(many=True, help_text="Every seat, in order.")
    seed_commitment = serializers.CharField(
        allow_null=True, help_text="SHA-256 of the game's seed, published at the start."
    )
    seed = serializers.CharField(
        allow_null=True, help_text="The seed itself, revealed once the game is finished."
    )
    winner_team = serializers.IntegerField(
        allow_null=True, help_text="The winning team once the game is finished; else null."
    )
    state = TableViewSerializer(allow_null=True, help_text="Null until the game starts.")
    timer = TurnTimerSerializer(help_text="The turn timer (deadline and server time).")
    pause = PauseViewSerializer(help_text="Whether the game is paused, and a pending proposal.")
    rating_changes = RatingChangeLineSerializer(
        many=True,
        allow_null=True,
        help_text="Once a rated game is over (finished or abandoned): each player's rating "
        "change, by seat. Null for a casual game and while a rated one is played.",
    )


class GameSummarySerializer(Base):
    id = serializers.IntegerField(help_text="The game's id.")
    preset = serializers.CharField(help_text="The preset its options started from.")
    players = serializers.IntegerField(help_text="Its number of seats.")
    target_score = serializers.IntegerField(help_text="The score that ends the game.")
    status = serializers.ChoiceField(choices=GameStatus.choices, help_text=STATUS_TEXT)
    is_public = serializers.BooleanField(
        help_text="Listed for everyone; false only in your own games (`mine=true`)."
    )
    rated = serializers.BooleanField(help_text=RATED_TEXT)
    hints = serializers.BooleanField(help_text=HINTS_TEXT)
    free_seats = serializers.IntegerField(help_text="Seats nobody has taken yet.")
    version = serializers.IntegerField(
        help_text="The game's version (its last event); a delayed spectator's horizon."
    )
    created_by = PlayerRefSerializer(help_text="Who created the table.")
    created_at = serializers.DateTimeField(help_text="When the table was created.")
    seats = SeatSerializer(many=True, help_text="Every seat, in order.")


class BotSeatSerializer(Base):
    seat = serializers.IntegerField(min_value=0, max_value=3, help_text="The bot's seat.")
    level = serializers.ChoiceField(
        choices=BotLevel.choices, default=BotLevel.EASY, help_text="The bot's level."
    )


@extend_schema_field(GameOptionOverridesSerializer)
class OptionOverridesField(serializers.DictField):
    """A free object for validation (the engine judges names and values, naming a refused one
    in ``invalid_option``); the schema shows the option fields."""


SEATS_MAX = 4


class GameCreateSerializer(Base):
    preset = serializers.ChoiceField(
        choices=list(PRESETS),
        default="classic",
        help_text="The preset whose options the table starts from (`GET /rules/`).",
    )
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
    bots = serializers.ListField(
        child=BotSeatSerializer(),
        required=False,
        max_length=SEATS_MAX,
        help_text="Seats played by bots.",
    )
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
        help_text="Turn timer: seconds per turn, up to 7 days (null or absent: no timer). A turn "
        "of more than 30 minutes is a correspondence turn: the player to act is reminded before "
        "its deadline.",
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
        "is abandoned (always at a rated table).",
    )
    rated = serializers.BooleanField(
        default=False,
        help_text="A rated table: the preset as it is (no `options` that differ from it: 422 "
        "`rated_custom_options`), people only (no `bots`, no start with bots: 422 "
        "`rated_humans_only`); its timer abandons the game for a seat that runs out of time "
        "`timeout_limit` times in a row, and concession or abandonment is a loss for the side "
        "that left. Its result changes the players' ratings once.",
    )
    hints = serializers.BooleanField(
        default=False,
        help_text="Hints: the seat to act may ask for a suggested move (`GET "
        "/games/{id}/hint/`). Casual tables only (with `rated`: 422 `rated_no_hints`).",
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
    bot_level = serializers.ChoiceField(
        choices=BotLevel.choices,
        default=BotLevel.EASY,
        help_text="The level of the bots given the empty seats.",
    )


# ============================================================================== events
# Each event type, its payload and each effect kind is a component of its own (a `oneOf` on
# `type`, effects on `kind`): games/api/event_schemas.py.
GameEventSerializer = GameEventField  # the GameEvent union; the selector's dict passes through


class GameEventListSerializer(Base):
    game = serializers.IntegerField(help_text="The game's id.")
    version = serializers.IntegerField(
        help_text="The game's version now (a delayed spectator: its horizon)."
    )
    viewer = serializers.IntegerField(allow_null=True, help_text="Your seat; null: spectator.")
    to_act = serializers.IntegerField(
        allow_null=True,
        help_text="The seat to act at `version` (no need to fetch the game to know whose turn "
        "it is); null when no seat is (before the start, once over) or when `version` is not "
        "the game's own (a delayed spectator).",
    )
    events = serializers.ListField(child=GameEventField(), help_text="Oldest first.")
    has_more = serializers.BooleanField(help_text="More events follow: ask again with `after`.")


ANSWER_TO_ACT = (
    "The seat that must act now (`game.state.to_act`): -1 once the game is over; null before "
    "it starts."
)


class ActionResultSerializer(Base):
    event = GameEventSerializer(help_text="The event your action appended.")
    game = GameDetailSerializer(help_text="The game after your action, as you see it.")
    version = serializers.IntegerField(help_text="`game.version`, repeated.")
    to_act = serializers.IntegerField(allow_null=True, help_text=ANSWER_TO_ACT)


class ActionMinimalResultSerializer(Base):
    """The answer to an action sent with `Prefer: return=minimal` (or the socket's `"return":
    "minimal"`): no game, only what changed for you."""

    version = serializers.IntegerField(
        help_text="The game's version now: send it as `expected_version` with your next action."
    )
    to_act = serializers.IntegerField(allow_null=True, help_text=ANSWER_TO_ACT)
    legal_actions = ActionSerializer(
        many=True,
        help_text="Your own legal actions now (empty unless you are to act), as in "
        "`game.state.legal_actions`.",
    )
    events = serializers.ListField(
        child=GameEventField(),
        help_text="The events applied, oldest first, redacted for you as in `GET .../events/`: "
        "your action's, then those that followed it up to `version` (bots' turns played "
        "before the answer).",
    )


# ============================================================================== scorecard
class TeamRoundScoreSerializer(Base):
    team = serializers.IntegerField(help_text="The team's number.")
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
    components = serializers.DictField(
        child=serializers.IntegerField(),
        required=False,
        help_text="A variant family's round: every component of the score as its rules count "
        "them, by name (those a classic round lacks count 0 in the fields above); absent in a "
        "classic game.",
    )


class ScorecardRoundSerializer(Base):
    round = serializers.IntegerField(help_text="The round, from 1.")
    dealer = serializers.IntegerField(help_text="The seat that dealt it.")
    reason = serializers.CharField(
        help_text="How it ended: went_out, stock_exhausted or last_red_three."
    )
    went_out = serializers.IntegerField(
        allow_null=True, help_text="The seat that went out; null if nobody did."
    )
    concealed = serializers.BooleanField(
        help_text="The seat went out concealed (all its melds in that one turn)."
    )
    teams = TeamRoundScoreSerializer(many=True, help_text="Each team's score of the round.")


class ScorecardTeamSerializer(Base):
    team = serializers.IntegerField(help_text="The team's number.")
    seats = serializers.ListField(
        child=serializers.IntegerField(help_text="A seat number."), help_text="Its seats."
    )


class ScorecardSerializer(Base):
    game = serializers.IntegerField(help_text="The game's id.")
    status = serializers.ChoiceField(choices=GameStatus.choices, help_text=STATUS_TEXT)
    target_score = serializers.IntegerField(help_text="The score that ends the game.")
    teams = ScorecardTeamSerializer(many=True, help_text="Each team's seats.")
    rounds = ScorecardRoundSerializer(many=True, help_text="Every finished round, oldest first.")
    totals = serializers.ListField(
        child=serializers.IntegerField(help_text="A score."),
        help_text="Each team's cumulative score, by team.",
    )
    winner_team = serializers.IntegerField(
        allow_null=True, help_text="The winning team once the game is finished; else null."
    )
    rated = serializers.BooleanField(help_text=RATED_TEXT)
    rating_changes = RatingChangeLineSerializer(
        many=True,
        allow_null=True,
        help_text="Once a rated game is over: each player's rating change, by seat (as in the "
        "game's detail). Null for a casual game and while a rated one is played.",
    )
