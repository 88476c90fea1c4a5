"""What one seat (or a spectator) sees of a Samba or Bolivia game: the classic view's keys,
``family``, and melds carrying their ``id``, ``kind`` and (sequences) ``suit``."""

from __future__ import annotations

from typing import Any

from ..actions import action_to_dict
from ..cards import IS_WILD, SUIT_TEXT, card_text, cards_text, rank_text
from ..state import PERMISSION_TEXT, GameState
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
    seated = viewer is not None and 0 <= viewer < opts.players
    teams = []
    for team in range(opts.teams):
        melds = st.melds[team]
        teams.append(
            {
                "team": team,
                "seats": st.seats_of(team),
                "score": st.scores[team],
                "opened": st.opened[team],
                "initial_meld_minimum": initial_minimum(opts, st.scores[team]),
                "melds": [
                    meld_view(opts.family, team, num, ext.kinds[team][num], melds[num])
                    for num in sorted(melds)
                ],
                "canastas": sum(1 for cs in melds.values() if len(cs) >= CANASTA_SIZE),
                "red_threes": cards_text(st.red_threes[team]),
            }
        )
    view: dict[str, Any] = {
        "family": opts.family,
        "round": st.round_no,
        "dealer": st.dealer,
        "turn": st.turn,
        "to_act": st.to_act,
        "phase": st.phase,
        "stock_count": len(st.stock),
        "pile": {
            "size": len(st.pile),
            "top": card_text(st.pile[-1]) if st.pile else None,
            "frozen": st.pile_freezers > 0,
            "blocked": pile_blocked(st),
            "frozen_for_viewer": pile_frozen_for(st, viewer)
            if seated and viewer is not None
            else None,
        },
        "hand_counts": [len(h) for h in st.hands],
        "teams": teams,
        "permission": PERMISSION_TEXT[st.permission],
        "must_end_without_discard": st.no_discard,
        "winner_team": st.winner,
        "viewer": viewer if seated else None,
        "hand": cards_text(st.hands[viewer]) if seated and viewer is not None else None,
        "legal_actions": [],
    }
    if with_legal and seated and viewer == st.to_act and not st.game_over:
        view["legal_actions"] = [action_to_dict(a) for a in legal_actions(st)]
    return view
