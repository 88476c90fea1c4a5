"""Commands a seat can give, as frozen dataclasses, and their JSON-safe text form.

Text form (what the API accepts and the move log stores)::

    {"type": "draw"}
    {"type": "take_pile", "cards": ["QH", "QS"], "melds": [{"rank": "K", "cards": [...]}]}
    {"type": "meld", "melds": [{"rank": "Q", "cards": ["QH", "QS", "2C"]},
                               {"cards": ["2D"], "rank": "K"}]}
    {"type": "discard", "card": "7H"}
    {"type": "ask_partner"}            {"type": "answer_partner", "allow": true}
    {"type": "decline_pile"}           {"type": "end_round"}

A meld group's ``rank`` may be left out when the group holds a natural card or a black three;
it is needed for a group of wild cards only (laying wild cards off, or ``W`` for a wild meld).
A group whose rank the team already holds is laid off on that meld; otherwise it starts one.
``take_pile`` with an empty ``cards`` list lays the top card off on the team's meld of its rank.

The variant families add fields that appear in the text form only when used, so a classic
action reads and writes exactly as before (docs/rules.md, the families' "Actions")::

    {"type": "draw", "keep_three": true}                      (mac: keep a 3 for a Straight)
    {"type": "declare_special_hand", "name": "garbage"}       (mac)
    {"type": "meld", "melds": [{"kind": "sequence", "cards": ["4H", "5H", "6H"]},
                               {"rank": "K", "cards": ["KH", "KS"], "target": "A3"},
                               {"rank": "9", "cards": [...], "new": true}],
     "merge": ["A2", "A5"]}                                   (samba, bolivia)
    {"type": "take_pile", "cards": ["9C", "9S"], "target": "A2"}  (samba, bolivia)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .cards import (
    IS_BLACK_THREE,
    IS_WILD,
    RANK_OF,
    THREE,
    WILD_RANK,
    CardParseError,
    card_text,
    parse_card,
    parse_rank,
    rank_text,
)
from .errors import InvalidAction

MAX_CARDS_IN_ACTION = 40


MELD_KINDS = ("group", "sequence", "wild")
MELD_ID_MAX = 99  # a side's meld ids run A1..A99 within a round (far more than a round makes)


@dataclass(frozen=True, slots=True)
class MeldGroup:
    rank: int
    cards: tuple[int, ...]
    # samba and bolivia: the kind of meld, the side's meld to lay off on ("A3"), a new meld.
    kind: str = "group"
    target: str | None = None
    new: bool = False

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "rank": rank_text(self.rank),
            "cards": [card_text(c) for c in self.cards],
        }
        if self.kind != "group":
            out["kind"] = self.kind
        if self.target is not None:
            out["target"] = self.target
        if self.new:
            out["new"] = True
        return out

    @property
    def plain(self) -> bool:
        """Written as a classic meld group (no kind, target or new)."""
        return self.kind == "group" and self.target is None and not self.new


@dataclass(frozen=True, slots=True)
class Draw:
    seat: int
    keep_three: bool = False  # mac: keep one 3 in the hand for a Straight
    type = "draw"


@dataclass(frozen=True, slots=True)
class TakePile:
    seat: int
    cards: tuple[int, ...] = ()
    melds: tuple[MeldGroup, ...] = ()
    target: str | None = None  # samba and bolivia: the side's meld the top card goes to
    type = "take_pile"


@dataclass(frozen=True, slots=True)
class Meld:
    seat: int
    melds: tuple[MeldGroup, ...]
    merge: tuple[str, str] | None = None  # samba and bolivia: the second meld joins the first
    type = "meld"


@dataclass(frozen=True, slots=True)
class DeclareSpecialHand:
    """mac: lay the whole hand down as the special hand ``name`` (right after the draw)."""

    seat: int
    name: str
    type = "declare_special_hand"


@dataclass(frozen=True, slots=True)
class Discard:
    seat: int
    card: int
    type = "discard"


@dataclass(frozen=True, slots=True)
class AskPartner:
    seat: int
    type = "ask_partner"


@dataclass(frozen=True, slots=True)
class AnswerPartner:
    seat: int
    allow: bool
    type = "answer_partner"


@dataclass(frozen=True, slots=True)
class DeclinePile:
    seat: int
    type = "decline_pile"


@dataclass(frozen=True, slots=True)
class EndRound:
    seat: int
    type = "end_round"


Action = (
    Draw
    | TakePile
    | Meld
    | Discard
    | AskPartner
    | AnswerPartner
    | DeclinePile
    | EndRound
    | DeclareSpecialHand
)
ACTION_TYPES: tuple[str, ...] = (
    "draw",
    "take_pile",
    "meld",
    "discard",
    "ask_partner",
    "answer_partner",
    "decline_pile",
    "end_round",
    "declare_special_hand",
)


def uses_family_fields(action: Action) -> bool:
    """Does the action use a field of the variant families (refused in a classic game)?"""
    if isinstance(action, DeclareSpecialHand):
        return True
    if isinstance(action, Draw):
        return action.keep_three
    if isinstance(action, TakePile):
        return action.target is not None or not all(g.plain for g in action.melds)
    if isinstance(action, Meld):
        return action.merge is not None or not all(g.plain for g in action.melds)
    return False


def action_to_dict(action: Action) -> dict[str, Any]:
    """The text form of an action, without the seat (the log stores the seat beside it)."""
    out: dict[str, Any] = {"type": action.type}
    if isinstance(action, Draw):
        if action.keep_three:
            out["keep_three"] = True
    elif isinstance(action, TakePile):
        out["cards"] = [card_text(c) for c in action.cards]
        out["melds"] = [g.to_dict() for g in action.melds]
        if action.target is not None:
            out["target"] = action.target
    elif isinstance(action, Meld):
        out["melds"] = [g.to_dict() for g in action.melds]
        if action.merge is not None:
            out["merge"] = list(action.merge)
    elif isinstance(action, DeclareSpecialHand):
        out["name"] = action.name
    elif isinstance(action, Discard):
        out["card"] = card_text(action.card)
    elif isinstance(action, AnswerPartner):
        out["allow"] = action.allow
    return out


def _cards(value: Any, field: str) -> tuple[int, ...]:
    if not isinstance(value, list):
        raise InvalidAction(f'\'{field}\' must be a list of cards such as ["QH", "QS"]')
    if len(value) > MAX_CARDS_IN_ACTION:
        raise InvalidAction(f"'{field}' names too many cards")
    try:
        return tuple(parse_card(v) for v in value)
    except CardParseError as exc:
        raise InvalidAction(f"'{field}': {exc}") from None


def meld_id(value: Any, field: str) -> str:
    """A meld id as actions name it: a side's letter and a number, such as ``A3``."""
    text = value.strip().upper() if isinstance(value, str) else ""
    if (
        len(text) < 2
        or text[0] not in "AB"
        or not text[1:].isdigit()
        or text[1] == "0"
        or int(text[1:]) > MELD_ID_MAX
    ):
        raise InvalidAction(
            f"'{field}' must be a meld id such as \"A3\" (a side's letter, a number)"
        )
    return text


def _group(value: Any) -> MeldGroup:
    if not isinstance(value, dict):
        raise InvalidAction("each meld must be an object with 'cards' (and optionally 'rank')")
    unknown = sorted(str(k) for k in value.keys() - {"rank", "cards", "kind", "target", "new"})
    if unknown:
        raise InvalidAction(f"unknown meld field '{unknown[0][:32]}'")
    cards = _cards(value.get("cards"), "cards")
    if not cards:
        raise InvalidAction("a meld must name at least one card")
    kind = value.get("kind", "group")
    if not isinstance(kind, str) or kind not in MELD_KINDS:
        raise InvalidAction(f"'kind' must be one of {', '.join(MELD_KINDS)}")
    target = None if value.get("target") is None else meld_id(value["target"], "target")
    new = value.get("new", False)
    if not isinstance(new, bool):
        raise InvalidAction("'new' must be true or false")
    if new and target is not None:
        raise InvalidAction("a meld names either 'target' or 'new', not both")
    if kind == "wild":
        return MeldGroup(rank=WILD_RANK, cards=cards, kind=kind, target=target, new=new)
    if value.get("rank") is not None:
        try:
            rank = parse_rank(value["rank"])
        except CardParseError as exc:
            raise InvalidAction(str(exc)) from None
    else:
        naturals = [c for c in cards if not IS_WILD[c]]
        if not naturals:
            raise InvalidAction("a meld of wild cards only must name its 'rank'")
        rank = THREE if IS_BLACK_THREE[naturals[0]] else RANK_OF[naturals[0]]
    return MeldGroup(rank=rank, cards=cards, kind=kind, target=target, new=new)


def _groups(value: Any) -> tuple[MeldGroup, ...]:
    if value is None:
        return ()
    if not isinstance(value, list) or len(value) > 14:
        raise InvalidAction("'melds' must be a list of at most 14 melds")
    return tuple(_group(v) for v in value)


_FIELDS: dict[str, set[str]] = {
    "draw": {"keep_three"},
    "take_pile": {"cards", "melds", "target"},
    "meld": {"melds", "merge"},
    "discard": {"card"},
    "ask_partner": set(),
    "answer_partner": {"allow"},
    "decline_pile": set(),
    "end_round": set(),
    "declare_special_hand": {"name"},
}
SPECIAL_HAND_NAME_MAX = 32


def action_from_dict(data: Any, seat: int) -> Action:
    """Read an action's text form for ``seat``; raises InvalidAction with a clear message."""
    if not isinstance(data, dict):
        raise InvalidAction("an action must be an object with a 'type'")
    kind = data.get("type")
    if not isinstance(kind, str) or kind not in _FIELDS:  # any JSON value may come here
        raise InvalidAction(f"unknown action type; use one of {', '.join(ACTION_TYPES)}")
    unknown = sorted(str(k) for k in data.keys() - _FIELDS[kind] - {"type"})
    if unknown:
        raise InvalidAction(f"unknown field '{unknown[0][:32]}' for action '{kind}'")
    if kind == "draw":
        keep = data.get("keep_three", False)
        if not isinstance(keep, bool):
            raise InvalidAction("'keep_three' must be true or false")
        return Draw(seat, keep)
    if kind == "take_pile":
        target = None if data.get("target") is None else meld_id(data["target"], "target")
        return TakePile(
            seat, _cards(data.get("cards", []), "cards"), _groups(data.get("melds")), target
        )
    if kind == "meld":
        groups = _groups(data.get("melds"))
        merge = None
        if data.get("merge") is not None:
            value = data["merge"]
            if not isinstance(value, list) or len(value) != 2:
                raise InvalidAction('\'merge\' must name two meld ids, such as ["A2", "A5"]')
            merge = (meld_id(value[0], "merge"), meld_id(value[1], "merge"))
        if not groups and merge is None:
            raise InvalidAction("'melds' must name at least one meld")
        return Meld(seat, groups, merge)
    if kind == "declare_special_hand":
        name = data.get("name")
        if not isinstance(name, str) or not 0 < len(name) <= SPECIAL_HAND_NAME_MAX:
            raise InvalidAction(
                "'declare_special_hand' needs the hand's 'name', such as \"garbage\""
            )
        return DeclareSpecialHand(seat, name.strip().lower())
    if kind == "discard":
        if "card" not in data:
            raise InvalidAction("'discard' needs a 'card'")
        try:
            return Discard(seat, parse_card(data["card"]))
        except CardParseError as exc:
            raise InvalidAction(str(exc)) from None
    if kind == "ask_partner":
        return AskPartner(seat)
    if kind == "answer_partner":
        if not isinstance(data.get("allow"), bool):
            raise InvalidAction("'answer_partner' needs 'allow': true or false")
        return AnswerPartner(seat, data["allow"])
    if kind == "decline_pile":
        return DeclinePile(seat)
    return EndRound(seat)
