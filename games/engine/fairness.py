"""Provably fair dealing: each round's shuffle comes from a seed that is committed to (by its
SHA-256 hash) when the round is dealt and revealed when the game ends.

Anyone holding a finished game's revealed seed can recompute every round's deal and check that
it matches the hash published at the deal and the cards that were dealt.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .options import Options
from .rules import Event, _deal_round
from .state import GameState, round_seed, seed_commitment


def round_deal(options: Options, game_seed: str, round_no: int) -> dict[str, Any]:
    """The public and private facts of dealing ``round_no`` (hands, upcards, commitment), as the
    ``round_started`` event records them."""
    st = GameState(options, game_seed)
    st.round_no = round_no - 1
    st.dealer = (round_no - 3) % options.players  # the previous round's dealer
    events: list[Event] = []
    _deal_round(st, events)
    deal = events[0]
    return {
        "round": round_no,
        "dealer": deal.public["dealer"],
        "upcards": deal.public["upcards"],
        "seed_commitment": deal.public["seed_commitment"],
        "hands": [deal.private[s]["hand"] for s in range(options.players)],
    }


@dataclass(frozen=True, slots=True)
class DealCheck:
    round: int
    ok: bool
    problem: str | None = None


def verify_deals(
    options: Options, game_seed: str, published: list[dict[str, Any]]
) -> list[DealCheck]:
    """Check published deals (each with round, seed_commitment, upcards and, when known, hands)
    against the revealed game seed."""
    checks = []
    for deal in published:
        round_no = int(deal["round"])
        expected = round_deal(options, game_seed, round_no)
        problem = None
        if deal.get("seed_commitment") != seed_commitment(round_seed(game_seed, round_no)):
            problem = "the published commitment is not the hash of this round's seed"
        elif deal.get("upcards") != expected["upcards"]:
            problem = "the upcards differ from the shuffle of this round's seed"
        elif deal.get("hands") is not None and deal["hands"] != expected["hands"]:
            problem = "the dealt hands differ from the shuffle of this round's seed"
        checks.append(DealCheck(round_no, problem is None, problem))
    return checks
