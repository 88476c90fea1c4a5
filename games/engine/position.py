"""Set up an explicit position (hands, pile, stock, melds, scores) for scenarios and teaching.

Cards are written as text. Every card not placed goes to the stock under ``stock_top``, in a
fixed order, so the full deck is still accounted for.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence

from .cards import FULL_DECK, IS_RED_THREE, IS_WILD, card_text, parse_cards, parse_rank
from .options import Options
from .state import PHASE_DRAW, PHASE_PLAY, GameState

Cards = str | Sequence[str]


def position(
    options: Options,
    hands: Sequence[Cards],
    *,
    pile: Cards = (),
    stock_top: Cards = (),
    melds: Sequence[Mapping[str, Cards]] | None = None,
    red_threes: Sequence[Cards] | None = None,
    scores: Sequence[int] | None = None,
    turn: int = 0,
    phase: str = PHASE_DRAW,
    dealer: int | None = None,
    round_no: int = 1,
    melded_before: Sequence[bool] | None = None,
    seed: str = "position",
) -> GameState:
    """A state with the given cards; ``pile`` and ``stock_top`` list cards bottom..top."""
    if len(hands) != options.players:
        raise ValueError(f"give one hand per seat ({options.players})")
    st = GameState(options, seed)
    st.round_no = round_no
    st.dealer = (turn - 1) % options.players if dealer is None else dealer
    st.turn = st.to_act = turn
    if phase not in (PHASE_DRAW, PHASE_PLAY):
        raise ValueError("a position starts in the draw or play phase")
    st.phase = phase
    st.hands = [parse_cards(h) for h in hands]
    st.pile = parse_cards(pile)
    st.pile_freezers = sum(1 for c in st.pile if IS_WILD[c] or IS_RED_THREE[c])
    for team, team_melds in enumerate(melds or []):
        for rank_text, cards in team_melds.items():
            st.melds[team][parse_rank(rank_text)] = parse_cards(cards)
            st.opened[team] = True
    for team, reds in enumerate(red_threes or []):
        st.red_threes[team] = parse_cards(reds)
    if scores is not None:
        st.scores = list(scores)
    if melded_before is not None:
        st.melded_before = list(melded_before)
    placed = Counter(st.all_cards()) + Counter(parse_cards(stock_top))
    rest = Counter(FULL_DECK) - placed
    over = placed - Counter(FULL_DECK)
    if over:
        raise ValueError(f"more copies than the deck holds: {card_text(next(iter(over)))}")
    st.stock = sorted(rest.elements(), reverse=True) + parse_cards(stock_top)
    return st
