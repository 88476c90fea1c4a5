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
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .cards import (
    IS_BLACK_THREE,
    IS_WILD,
    RANK_OF,
    THREE,
    CardParseError,
    card_text,
    parse_card,
    parse_rank,
    rank_text,
)
from .errors import InvalidAction

MAX_CARDS_IN_ACTION = 40


@dataclass(frozen=True, slots=True)
class MeldGroup:
    rank: int
    cards: tuple[int, ...]

    def to_dict(self) -> dict[str, Any]:
        return {"rank": rank_text(self.rank), "cards": [card_text(c) for c in self.cards]}


@dataclass(frozen=True, slots=True)
class Draw:
    seat: int
    type = "draw"


@dataclass(frozen=True, slots=True)
class TakePile:
    seat: int
    cards: tuple[int, ...] = ()
    melds: tuple[MeldGroup, ...] = ()
    type = "take_pile"


@dataclass(frozen=True, slots=True)
class Meld:
    seat: int
    melds: tuple[MeldGroup, ...]
    type = "meld"


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


Action = Draw | TakePile | Meld | Discard | AskPartner | AnswerPartner | DeclinePile | EndRound
ACTION_TYPES: tuple[str, ...] = (
    "draw",
    "take_pile",
    "meld",
    "discard",
    "ask_partner",
    "answer_partner",
    "decline_pile",
    "end_round",
)


def action_to_dict(action: Action) -> dict[str, Any]:
    """The text form of an action, without the seat (the log stores the seat beside it)."""
    out: dict[str, Any] = {"type": action.type}
    if isinstance(action, TakePile):
        out["cards"] = [card_text(c) for c in action.cards]
        out["melds"] = [g.to_dict() for g in action.melds]
    elif isinstance(action, Meld):
        out["melds"] = [g.to_dict() for g in action.melds]
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


def _group(value: Any) -> MeldGroup:
    if not isinstance(value, dict):
        raise InvalidAction("each meld must be an object with 'cards' (and optionally 'rank')")
    unknown = sorted(str(k) for k in value.keys() - {"rank", "cards"})
    if unknown:
        raise InvalidAction(f"unknown meld field '{unknown[0][:32]}'")
    cards = _cards(value.get("cards"), "cards")
    if not cards:
        raise InvalidAction("a meld must name at least one card")
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
    return MeldGroup(rank=rank, cards=cards)


def _groups(value: Any) -> tuple[MeldGroup, ...]:
    if value is None:
        return ()
    if not isinstance(value, list) or len(value) > 14:
        raise InvalidAction("'melds' must be a list of at most 14 melds")
    return tuple(_group(v) for v in value)


_FIELDS: dict[str, set[str]] = {
    "draw": set(),
    "take_pile": {"cards", "melds"},
    "meld": {"melds"},
    "discard": {"card"},
    "ask_partner": set(),
    "answer_partner": {"allow"},
    "decline_pile": set(),
    "end_round": set(),
}


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
        return Draw(seat)
    if kind == "take_pile":
        return TakePile(seat, _cards(data.get("cards", []), "cards"), _groups(data.get("melds")))
    if kind == "meld":
        groups = _groups(data.get("melds"))
        if not groups:
            raise InvalidAction("'melds' must name at least one meld")
        return Meld(seat, groups)
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
