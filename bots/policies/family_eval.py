"""What a seat knows in a game of a family beside classic, and how good a position is for it.

``seat_knowledge(state, seat)`` is the state a bot of the families may be handed: the seat's
hand and the public table as they are, while the cards the seat cannot see (the other hands and
the stock) are dealt again in a fixed order, each place keeping its number of cards. The result
depends on what the seat knows only, so a bot handed it cannot read a hidden card.
``determinize(state, seat, rng)`` deals those unseen cards at random instead (one guess of the
hidden hands, as the search samples them).

``position_value(state, seat)`` scores a state for the seat's side against the best other side,
in points of the round's score: the family's own round scoring as if the round ended now (melds,
canasta bonuses by kind, the threes by the family's sign rules, the incomplete-meld penalties of
Modern American Canasta), with the hands counted at part of their value (they may still be
melded), the progress of incomplete melds toward a canasta, the value of pairs held, dead ranks
(Modern American Canasta: a meld of a dead rank never grows, a card of it is stuck in the hand)
and the threat of a side that may go out.
"""

from __future__ import annotations

import random
from collections import Counter

from games.engine.cards import IS_THREE, IS_WILD, RANK_OF, VALUE_OF, WILD_RANK
from games.engine.mac.melds import dead_ranks
from games.engine.mac.scoring import score_round as mac_score_round
from games.engine.samba.melds import canasta_counts, ext_of
from games.engine.samba.scoring import score_round as samba_score_round
from games.engine.samba.state import SEQUENCE
from games.engine.state import GameState

CANASTA_SIZE = 7
HAND_WEIGHT = 0.5  # the cards held count at this part of their value against the side
PAIR_VALUE = 15  # a natural pair held (a meld or a pile take waiting to happen)
PROGRESS_WEIGHT = 40  # times the square of an incomplete meld's cards beyond the third
MAC_SPECIAL_RISK = 300  # per card an incomplete sevens, aces or wild meld lacks (mac)
MAC_SPECIAL_PENALTY = (2000, 2500)  # the round's penalty of such a meld: replaced by the risk
DEAD_CARD_COST = 10  # a card of a dead rank in the hand: stuck until discarded (mac)
THREAT_PER_CARD_SHORT = 60  # a side that may go out, per card its hands hold fewer than 12
THREAT_MAX = 600
MAC_SEVEN, MAC_ACE = 4, 11


def _unseen(state: GameState, seat: int) -> tuple[list[int], list[int]]:
    """The seats whose hands ``seat`` cannot see, and the cards it cannot see (sorted: which
    card lies where never shows through)."""
    others = [s for s in range(state.options.players) if s != seat]
    pool = sorted(list(state.stock) + [c for s in others for c in state.hands[s]])
    return others, pool


def _deal(world: GameState, others: list[int], pool: list[int]) -> GameState:
    start = 0
    for s in others:
        count = len(world.hands[s])
        world.hands[s] = pool[start : start + count]
        start += count
    world.stock = pool[start:]
    kept = getattr(world.ext, "kept", None)
    if isinstance(kept, list):  # Modern American Canasta: a 3 kept in another hand is hidden
        for s in others:
            kept[s] = -1
    return world


def seat_knowledge(state: GameState, seat: int) -> GameState:
    """A copy of ``state`` holding only what ``seat`` knows: the unseen cards are dealt in
    sorted order to the other hands (in seat order) and the stock."""
    others, pool = _unseen(state, seat)
    return _deal(state.clone(), others, pool)


def determinize(state: GameState, seat: int, rng: random.Random) -> GameState:
    """A copy of ``state`` with the cards ``seat`` cannot see dealt at random among the other
    hands and the stock, each keeping its count."""
    others, pool = _unseen(state, seat)
    rng.shuffle(pool)
    return _deal(state.clone(), others, pool)


def round_scores(state: GameState) -> list[dict[str, int]]:
    """Each side's round score if the round ended now, nobody going out."""
    if state.options.family == "mac":
        return mac_score_round(state, None)
    return samba_score_round(state, None)


def _canastas(state: GameState, team: int) -> tuple[int, int]:
    """The side's completed canastas, and of them the sequence ones."""
    melds = state.melds[team]
    if state.options.family == "mac":
        return sum(1 for cards in melds.values() if len(cards) >= CANASTA_SIZE), 0
    kinds = ext_of(state).kinds[team]
    return canasta_counts(melds, kinds)


def may_go_out(state: GameState, team: int) -> bool:
    """The side holds the canastas its family asks to go out."""
    total, sequences = _canastas(state, team)
    if total < 2:
        return False
    return state.options.family != "bolivia" or sequences >= 1


def team_value(state: GameState, team: int, scores: list[dict[str, int]]) -> float:
    """The side's round score as it stands, reshaped for a round still in play."""
    parts = scores[team]
    family = state.options.family
    mac = family == "mac"
    value = float(parts["total"] - parts["hand_cards"])
    if mac:
        # Melded cards count against a side without a canasta only if the round ended now:
        # in play they are the way to one.
        value += 2 * max(0, -parts["meld_cards"])
        value -= parts.get("incomplete_melds", 0)  # replaced below by the risk per card
        value -= parts.get("hand_penalties", 0) * 0.5
    dead = dead_ranks(state) if mac else set()
    kinds = None if mac else ext_of(state).kinds[team]
    for key, cards in state.melds[team].items():
        size = len(cards)
        if size >= CANASTA_SIZE:
            continue
        if mac and key in dead:
            continue  # never grows
        if kinds is not None and kinds.get(key) == SEQUENCE:
            value += PROGRESS_WEIGHT * 1.2 * max(0, size - 3) ** 2
        else:
            value += PROGRESS_WEIGHT * max(0, size - 3) ** 2
        if mac and (key in (MAC_SEVEN, WILD_RANK) or (key == MAC_ACE and not _mixed(cards))):
            value -= MAC_SPECIAL_RISK * (CANASTA_SIZE - size)
    hand_value = 0
    for s in state.seats_of(team):
        hand = state.hands[s]
        hand_value += sum(VALUE_OF[c] for c in hand)
        counts = Counter(RANK_OF[c] for c in hand if not IS_WILD[c] and not IS_THREE[c])
        value += PAIR_VALUE * sum(1 for r, n in counts.items() if n >= 2 and r not in dead)
        if dead:
            value -= DEAD_CARD_COST * sum(n for r, n in counts.items() if r in dead)
    value -= HAND_WEIGHT * hand_value
    return value


def _mixed(cards: list[int]) -> bool:
    return any(IS_WILD[c] for c in cards)


def position_value(state: GameState, seat: int) -> float:
    """The seat's side's value less the best other side's (points of the round)."""
    scores = round_scores(state)
    mine = state.team_of(seat)
    teams = state.options.teams
    values = [team_value(state, t, scores) for t in range(teams)]
    for t in range(teams):
        if may_go_out(state, t):  # the others' hands may be caught: the side threatens
            held = sum(len(state.hands[s]) for s in state.seats_of(t))
            threat = min(THREAT_MAX, THREAT_PER_CARD_SHORT * max(0, 12 - held))
            values[t] += threat
    others = [values[t] for t in range(teams) if t != mine]
    return values[mine] - max(others, default=0.0)


def final_value(state: GameState, seat: int) -> float:
    """The seat's side's score less the best other side's in the round just ended."""
    teams = state.rounds[-1]["teams"]
    mine = state.team_of(seat)
    others = [float(t["total"]) for i, t in enumerate(teams) if i != mine]
    return float(teams[mine]["total"]) - max(others, default=0.0)
