"""Small readable helpers for engine scenario tests: cards and actions written as text."""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

import pytest

from games.engine import (
    Discard,
    EngineError,
    GameState,
    Meld,
    MeldGroup,
    TakePile,
    apply,
    legal_actions,
    make_options,
)
from games.engine.actions import Action
from games.engine.cards import IS_WILD, RANK_OF, card_text, parse_card, parse_cards, parse_rank
from games.engine.options import Options

from .position import position

__all__ = [
    "cards",
    "meld_text",
    "discard",
    "group",
    "hand",
    "held",
    "meld",
    "opts",
    "position",
    "refused",
    "stock_only",
    "take",
    "text",
]


def opts(preset: str = "classic", **overrides: Any) -> Options:
    return make_options(preset, overrides)


def cards(text_: str) -> tuple[int, ...]:
    return tuple(parse_cards(text_))


def group(text_: str, rank: str | None = None) -> MeldGroup:
    """A meld group from text; the rank is the first natural card's unless given."""
    cs = cards(text_)
    if rank is not None:
        return MeldGroup(parse_rank(rank), cs)
    return MeldGroup(next(RANK_OF[c] for c in cs if not IS_WILD[c]), cs)


def meld(seat: int, *groups: str | MeldGroup) -> Meld:
    return Meld(seat, tuple(g if isinstance(g, MeldGroup) else group(g) for g in groups))


def take(seat: int, with_: str = "", *extra: str | MeldGroup) -> TakePile:
    return TakePile(
        seat, cards(with_), tuple(g if isinstance(g, MeldGroup) else group(g) for g in extra)
    )


def discard(seat: int, card: str) -> Discard:
    return Discard(seat, parse_card(card))


def text(codes: list[int] | tuple[int, ...]) -> str:
    return " ".join(sorted(card_text(c) for c in codes))


def hand(st: GameState, seat: int) -> Counter[str]:
    return Counter(card_text(c) for c in st.hands[seat])


def refused(st: GameState, action: Action, code: str) -> EngineError:
    """Assert ``action`` is refused with ``code``, leaves the state unchanged and is not listed."""
    before = json.dumps(st.to_dict(), sort_keys=True)
    listed = legal_actions(st)
    with pytest.raises(EngineError) as info:
        apply(st, action)
    assert info.value.code == code, f"expected {code}, got {info.value.code}: {info.value}"
    assert json.dumps(st.to_dict(), sort_keys=True) == before
    assert action not in listed
    return info.value


def meld_text(st: GameState, team: int, rank: str) -> str:
    """The team's meld of ``rank`` as sorted card text ("" when there is none)."""
    return text(st.melds[team].get(parse_rank(rank), []))


def stock_only(st: GameState, stock: str) -> None:
    """Make the stock exactly ``stock`` (bottom..top); its other cards go to the hands of the
    opponents of the seat to act, so the full deck stays accounted for."""
    wanted = parse_cards(stock)
    rest = list(st.stock)
    for c in wanted:
        rest.remove(c)
    st.stock = wanted
    team = st.team_of(st.to_act)
    others = [s for s in range(st.options.players) if st.team_of(s) != team]
    for i, c in enumerate(rest):
        st.hands[others[i % len(others)]].append(c)
    assert st.cards_conserved()


def held(text_: str) -> Counter[str]:
    """Cards as a multiset, to compare with ``hand(st, seat)``."""
    return Counter(text_.split())
