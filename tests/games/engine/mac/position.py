"""Set up an explicit Modern American Canasta position (hands, pile, stock, melds, threes
areas, scores) for scenario tests. Cards are written as text; every card not placed goes to the
stock under ``stock_top`` so the full deck stays accounted for."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from games.engine import GameState, make_options
from games.engine.cards import FULL_DECK, IS_WILD, card_text, parse_cards, parse_rank
from games.engine.mac.melds import ext_of
from games.engine.state import PHASE_DRAW

Cards = str | Sequence[str]


def mac_position(
    hands: Sequence[Cards],
    *,
    preset: str = "mac",
    options: Mapping[str, Any] | None = None,
    pile: Cards = (),
    stock_top: Cards = (),
    stock_size: int | None = None,
    melds: Sequence[Mapping[str, Cards]] | None = None,
    threes: Sequence[Cards] | None = None,
    scores: Sequence[int] | None = None,
    turn: int = 0,
    phase: str = PHASE_DRAW,
    drew_stock: bool = True,
) -> GameState:
    """A mac state; ``pile`` and ``stock_top`` list cards bottom..top. A side with melds is
    open. ``stock_size`` trims the stock (the rest goes to the seats after the seat to move's
    side... see ``trim``). In the play phase the turn is taken as after a stock draw."""
    opts = make_options(preset, dict(options or {}))
    st = GameState(opts, "position")
    st.round_no = 1
    st.dealer = (turn - 1) % opts.players
    st.turn = st.to_act = turn
    st.phase = phase
    st.hands = [parse_cards(h) for h in hands]
    st.pile = parse_cards(pile)
    st.pile_freezers = sum(1 for c in st.pile if IS_WILD[c])
    for team, team_melds in enumerate(melds or []):
        for rank, cards in team_melds.items():
            st.melds[team][parse_rank(rank)] = parse_cards(cards)
            st.opened[team] = True
    for team, area in enumerate(threes or []):
        st.red_threes[team] = parse_cards(area)
    if scores is not None:
        st.scores = list(scores)
    ext = ext_of(st)
    if phase != PHASE_DRAW:
        ext.drew_stock = drew_stock
        ext.fresh = drew_stock
    top = parse_cards(stock_top)
    placed = Counter(st.all_cards()) + Counter(top)
    over = placed - Counter(FULL_DECK)
    if over:
        raise ValueError(f"more copies than the deck holds: {card_text(next(iter(over)))}")
    rest = sorted((Counter(FULL_DECK) - placed).elements(), reverse=True)
    if stock_size is not None:
        keep = max(0, stock_size - len(top))
        extra, rest = rest[: len(rest) - keep], rest[len(rest) - keep :]
        # surplus cards go to a "dead" spot: the other side's special-hand area is not used,
        # so park them in the last seat's hand of the other side
        other = (turn + 1) % opts.players
        st.hands[other] += extra
    st.stock = rest + top
    assert st.cards_conserved()
    return st
