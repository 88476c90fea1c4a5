"""Set up an explicit position (hands, pile, stock, melds, scores) for scenario tests.

Cards are written as text. Every card not placed goes to the stock under ``stock_top``, in a
fixed order, so the full deck is still accounted for.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence

from games.engine.cards import (
    FULL_DECK,
    IS_RED_THREE,
    IS_WILD,
    RANK_OF,
    THREE,
    card_text,
    parse_cards,
    parse_rank,
)
from games.engine.options import Options
from games.engine.rules import Event, deal_round
from games.engine.state import PHASE_DRAW, PHASE_PLAY, GameState

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


def deal(
    options: Options,
    hands: Sequence[Cards] | None = None,
    *,
    upcards: Cards = (),
    stock_top: Cards = (),
    dealer: int | None = None,
    round_no: int | None = None,
    scores: Sequence[int] | None = None,
    seed: str = "position",
    events: list[Event] | None = None,
) -> GameState:
    """A round dealt by the engine's own deal from a chosen deck order, for testing the deal.

    ``hands`` (from seat 0; missing seats get filler) give the first cards each seat is dealt
    (the rest of each hand is filled with low natural cards); ``upcards`` are the next cards
    turned up to start the pile, in order; ``stock_top`` the cards drawn after that, first
    drawn first. Round 1 is dealt by the last seat; give ``dealer`` (with ``round_no`` 2 or
    more) for other deals.
    """
    players = options.players
    if round_no is None:
        round_no = 1 if dealer is None else 2
    if dealer is None:
        dealer = players - 1
    if round_no == 1 and dealer != players - 1:
        raise ValueError("the first round is dealt by the last seat")
    wanted = [parse_cards(h) for h in (hands or ())]
    wanted += [[] for _ in range(players - len(wanted))]
    if len(wanted) != players or any(len(h) > options.hand_size for h in wanted):
        raise ValueError(f"give at most {options.hand_size} cards for each of {players} seats")
    ups, top = parse_cards(upcards), parse_cards(stock_top)
    rest = Counter(FULL_DECK) - Counter([c for h in wanted for c in h] + ups + top)
    if Counter([c for h in wanted for c in h] + ups + top) - Counter(FULL_DECK):
        raise ValueError("more copies of a card than the deck holds")
    # Filler: plain naturals first (so filled hands hold no wild card or three), then the rest.
    filler = sorted(rest.elements(), key=lambda c: (IS_WILD[c] or RANK_OF[c] == THREE, c))
    filler.reverse()
    order: list[int] = []
    full = [list(h) for h in wanted]
    for h in full:
        while len(h) < options.hand_size:
            h.append(filler.pop())
    for k in range(options.hand_size):
        for i in range(players):
            order.append(full[(dealer + 1 + i) % players][k])
    order += ups + top
    filler.reverse()
    order += filler
    st = GameState(options, seed)
    st.round_no = round_no - 1
    st.dealer = (dealer - 1) % players
    if scores is not None:
        st.scores = list(scores)
    deal_round(st, events, deck=order[::-1])
    return st
