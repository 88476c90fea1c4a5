"""Provably fair dealing: each round's shuffle comes from a seed that is committed to (by its
SHA-256 hash) when the round is dealt and revealed when the game ends.

Anyone holding a finished game's revealed seed can recompute every round's deal and check that
it matches the hash published at the deal and the cards that were dealt.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .options import Options
from .rules import Event, deal_round
from .state import GameState, round_seed, seed_commitment


def round_deal(options: Options, game_seed: str, round_no: int) -> dict[str, Any]:
    """The public and private facts of dealing ``round_no`` (hands, upcards, commitment), as the
    ``round_started`` event records them."""
    st = GameState(options, game_seed)
    st.round_no = round_no - 1
    st.dealer = (round_no - 3) % options.players  # the previous round's dealer
    events: list[Event] = []
    deal_round(st, events)
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


def round_seeds(game_seed: str, rounds: int) -> list[str]:
    """Each round's seed (rounds 1..``rounds``): revealed with the game seed at the end."""
    return [round_seed(game_seed, n) for n in range(1, rounds + 1)]


def published_deals(effects: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The deals as a move log published them.

    ``effects`` are engine events in their stored form (``{kind, seat, public, private}``,
    private parts keyed by seat as text or number), in log order. Each ``round_started`` gives
    its round, dealer, upcards and seed commitment, and ``hands`` (by seat) when the private part
    of every seat is present; ``hands`` is None when some are not (a redacted log).
    """
    deals = []
    for effect in effects:
        if effect.get("kind") != "round_started":
            continue
        public = effect.get("public", {})
        private = {int(s): part for s, part in (effect.get("private") or {}).items()}
        seats = len(public.get("hand_counts", [])) or len(private)
        hands = [private.get(s, {}).get("hand") for s in range(seats)] if seats else None
        deals.append(
            {
                "round": public.get("round"),
                "dealer": public.get("dealer"),
                "upcards": public.get("upcards"),
                "seed_commitment": public.get("seed_commitment"),
                "hands": None if hands is None or None in hands else hands,
            }
        )
    return deals


@dataclass(frozen=True, slots=True)
class FairnessReport:
    """The verdict on a finished game's dealing: ``ok`` when every check passed."""

    ok: bool
    game_commitment_ok: bool | None
    rounds: list[DealCheck]
    problems: list[str]


def check_game(
    options: Options,
    game_seed: str,
    deals: list[dict[str, Any]],
    game_commitment: str | None = None,
) -> FairnessReport:
    """Check a game's published deals (see ``published_deals``) against its revealed seed.

    ``game_commitment`` is the hash of the game seed published at the start (checked when
    given). Rounds must be numbered 1, 2, ... without a gap; each deal is recomputed from the
    seed and compared with the published commitment, upcards and (when known) hands.
    """
    problems: list[str] = []
    commitment_ok = None
    if game_commitment is not None:
        commitment_ok = game_commitment == seed_commitment(game_seed)
        if not commitment_ok:
            problems.append("the game's published commitment is not the hash of the revealed seed")
    numbers = [d.get("round") for d in deals]
    checks: list[DealCheck] = []
    if not deals:
        problems.append("no deal was published")
    elif numbers != list(range(1, len(deals) + 1)):
        problems.append(f"the published rounds are not numbered 1..{len(deals)}: {numbers}")
    else:
        checks = verify_deals(options, game_seed, deals)
    problems += [f"round {c.round}: {c.problem}" for c in checks if not c.ok]
    return FairnessReport(not problems, commitment_ok, checks, problems)
