"""Set up an explicit Samba or Bolivia position for scenario tests: hands, pile, stock top,
melds by id (``{"A1": "KH KS KD"}``, the kind read from the cards), red threes, scores.

Every card not placed goes to the stock under ``stock_top``, so the 162-card deck is still
accounted for.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from games.engine import make_options
from games.engine.cards import FULL_DECK_162, IS_RED_THREE, IS_WILD, RANK_OF, card_text, parse_cards
from games.engine.samba.state import GROUP, SEQUENCE, WILD, SambaExt, parse_meld_name
from games.engine.state import PHASE_DRAW, GameState

Cards = str | Sequence[str]


def kind_of(cards: list[int]) -> str:
    naturals = [c for c in cards if not IS_WILD[c]]
    if not naturals:
        return WILD
    if len({RANK_OF[c] for c in naturals}) == 1:
        return GROUP
    return SEQUENCE


def samba_position(
    hands: Sequence[Cards],
    *,
    preset: str = "samba",
    overrides: dict[str, Any] | None = None,
    pile: Cards = (),
    stock_top: Cards = (),
    melds: Sequence[Mapping[str, Cards]] | None = None,
    red_threes: Sequence[Cards] | None = None,
    scores: Sequence[int] | None = None,
    opened: Sequence[bool] | None = None,
    turn: int = 0,
    phase: str = PHASE_DRAW,
    stock_size: int | None = None,
    rest_to: int | None = None,
) -> GameState:
    """A state with the given cards; ``pile`` and ``stock_top`` list cards bottom..top. Sides
    with melds count as opened unless ``opened`` says otherwise. ``stock_size`` keeps only the
    top cards of the stock (the rest goes to the pile's bottom, out of play); ``rest_to`` puts
    it into that seat's hand instead (a pile without wild cards below)."""
    options = make_options(preset, overrides or {})
    st = GameState(options, "position")
    st.round_no = 1
    st.dealer = (turn - 1) % 4
    st.turn = st.to_act = turn
    st.phase = phase
    given = list(hands) + [""] * (4 - len(hands))
    st.hands = [parse_cards(h) for h in given]
    st.pile = parse_cards(pile)
    ext = st.ext
    assert isinstance(ext, SambaExt)
    for team, team_melds in enumerate(melds or []):
        for name, text in team_melds.items():
            side, num = parse_meld_name(name)
            assert side == team, name
            cards = parse_cards(text)
            st.melds[team][num] = cards
            ext.kinds[team][num] = kind_of(cards)
            ext.next_id[team] = max(ext.next_id[team], num + 1)
            st.opened[team] = True
    if opened is not None:
        st.opened = list(opened)
    for team, reds in enumerate(red_threes or []):
        st.red_threes[team] = parse_cards(reds)
    if scores is not None:
        st.scores = list(scores)
    placed = Counter(st.all_cards()) + Counter(parse_cards(stock_top))
    over = placed - Counter(FULL_DECK_162)
    if over:
        raise ValueError(f"more copies than the deck holds: {card_text(next(iter(over)))}")
    rest = sorted((Counter(FULL_DECK_162) - placed).elements(), reverse=True)
    # Keep red threes out of the filler stock so that draws are plain unless a test says so.
    rest.sort(key=lambda c: IS_RED_THREE[c] or IS_WILD[c], reverse=True)
    stock = rest + parse_cards(stock_top)
    if stock_size is not None:
        cut = len(stock) - stock_size
        if rest_to is None:
            st.pile = stock[:cut] + st.pile
        else:
            st.hands[rest_to] += stock[:cut]
        stock = stock[cut:]
    st.stock = stock
    st.pile_freezers = sum(1 for c in st.pile if IS_WILD[c] or IS_RED_THREE[c])
    return st
