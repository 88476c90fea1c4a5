"""What one seat (or a spectator) sees of a Samba or Bolivia game: the classic view's keys,
``family``, and melds carrying their ``id``, ``kind`` and (sequences) ``suit``."""

from __future__ import annotations

from typing import Any

from ..cards import IS_WILD, SUIT_TEXT, card_text, cards_text, rank_text
from ..state import GameState
from ..table_view import pile_view, table_view, team_view, viewer_seat
from .legal import legal_actions
from .melds import CANASTA_SIZE, canasta_kind, ext_of, group_rank, initial_minimum, sequence_bounds
from .play import pile_blocked, pile_frozen_for
from .state import SEQUENCE, WILD, meld_name


def meld_view(family: str, team: int, num: int, kind: str, cards: list[int]) -> dict[str, Any]:
    wilds = sum(1 for c in cards if IS_WILD[c])
    if kind == SEQUENCE:
        suit, low, _high = sequence_bounds(cards)
        rank, suit_text = rank_text(low), SUIT_TEXT[suit]
        ordered = [card_text(c) for c in sorted(cards)]
    else:
        rank = "W" if kind == WILD else rank_text(group_rank(cards))
        suit_text = None
        ordered = cards_text(cards)
    return {
        "id": meld_name(team, num),
        "kind": kind,
        "suit": suit_text,
        "rank": rank,
        "cards": ordered,
        "natural_count": len(cards) - wilds,
        "wild_count": wilds,
        "is_canasta": len(cards) >= CANASTA_SIZE,
        "canasta_kind": canasta_kind(family, kind, cards),
    }


def player_view(st: GameState, viewer: int | None, with_legal: bool = True) -> dict[str, Any]:
    opts = st.options
    ext = ext_of(st)
    seat = viewer_seat(st, viewer)
    teams = []
    for team in range(opts.teams):
        melds = st.melds[team]
        teams.append(
            team_view(
                st,
                team,
                initial_minimum(opts, st.scores[team]),
                [
                    meld_view(opts.family, team, num, ext.kinds[team][num], melds[num])
                    for num in sorted(melds)
                ],
                sum(1 for cs in melds.values() if len(cs) >= CANASTA_SIZE),
                st.red_threes[team],
            )
        )
    frozen_for_viewer = pile_frozen_for(st, seat) if seat is not None else None
    pile = pile_view(st, st.pile_freezers > 0, pile_blocked(st), frozen_for_viewer)
    legal = legal_actions if with_legal else None
    return table_view(st, viewer, teams, pile, legal, family=opts.family)
