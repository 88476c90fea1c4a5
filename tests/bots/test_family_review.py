"""The post-game review of the rule families beside classic (bots/policies/family_review.py):
a round of Modern American Canasta and of Samba reviewed through the services, a move that
feeds the opponents' meld graded worse than the bot's, and a review that depends on what the
seat can see only."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from accounts.models import Player
from accounts.services.players import player_create
from bots.models import ReviewStatus
from bots.policies.family_levels import family_policy_choose
from bots.policies.family_review import (
    FAMILY_REVIEWER,
    FamilyReviewSettings,
    family_review_decision,
)
from bots.policies.review import SEVERITIES
from bots.selectors.reviews import finished_rounds_get
from bots.services import review_compute as bot_reviews
from bots.services.reviews import game_review_request
from games.engine import GameState, action_to_dict, apply, legal_actions, make_options, new_game
from games.engine.actions import Action, Discard
from games.engine.cards import parse_card
from games.engine.state import PHASE_PLAY
from games.engine.view import player_view
from games.models import Game, GameEvent, GameStatus
from games.services.actions import game_action_apply
from games.services.lobby import BotSeatSpec, game_create, game_start
from tests.games.api.conftest import eager_bots  # noqa: F401 (autouse: no broker)
from tests.games.engine.samba.position import samba_position

SMALL = FamilyReviewSettings(worlds=6, max_candidates=4, max_plies=16)


# ---------------------------------------------------------------------------- the services


def family_table_after_a_round(preset: str) -> tuple[Game, Player]:
    """Ada at seat 0 (playing the family medium level) against three medium bots, until the
    first round has ended; the game and Ada."""
    ada = player_create(display_name="Ada")[0]
    game = game_create(
        creator=ada,
        preset=preset,
        options={"target_score": 5000},
        is_public=True,
        seat=0,
        bots=[BotSeatSpec(seat=i, level="medium") for i in (1, 2, 3)],
    )
    game_start(game_id=game.pk, player=ada)
    rng = random.Random(preset)
    for _ in range(600):
        game.refresh_from_db()
        if finished_rounds_get(game)[0] >= 1 or game.status != GameStatus.ACTIVE:
            break
        assert game.to_act == 0 and game.snapshot
        state = GameState.from_dict(game.snapshot)
        action = family_policy_choose("medium", state, 0, rng)
        game_action_apply(
            game_id=game.pk,
            seat=0,
            action=action_to_dict(action),
            expected_version=game.version,
            player=ada,
        )
    game.refresh_from_db()
    assert finished_rounds_get(game)[0] >= 1
    return game, ada


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("preset", ["mac", "samba"])
def test_a_family_round_is_reviewed_through_the_services(
    preset: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(bot_reviews, "FAMILY_REVIEW_SETTINGS", SMALL)
    game, ada = family_table_after_a_round(preset)
    review, created = game_review_request(game=game, player=ada, seat=0)
    assert created and review.status == ReviewStatus.READY, review.error
    assert review.engine.startswith(f"{FAMILY_REVIEWER} worlds=6 candidates=4 plies=16")
    result = review.result
    assert result is not None
    decisions = result["decisions"]
    assert decisions and result["summary"]["decisions"] == len(decisions)
    assert result["summary"]["total_loss"] == sum(d["loss"] for d in decisions)
    events = {e.seq: e for e in GameEvent.objects.filter(game=game, seq__lte=review.through_seq)}
    for d in decisions:
        assert events[d["step"]].seat == 0 and events[d["step"]].type == d["chosen"]["type"]
        assert d["severity"] in SEVERITIES and d["loss"] >= 0 and d["round"] == 1
        actions = [c["action"] for c in d["candidates"]]
        assert d["chosen"] in actions and d["best"] == actions[0]
        assert all(c["worlds"] == 6 for c in d["candidates"])
    # Asking again returns the same review.
    again, created = game_review_request(game=game, player=ada, seat=0)
    assert not created and again.pk == review.pk and again.result == result


# ---------------------------------------------------------------------------- one decision


def feeding_position() -> GameState:
    """Samba, seat 0 to discard after its draw. The other side has melded four kings; a pile of
    ten cards waits. Seat 0 holds a single king beside cards nobody melded."""
    return samba_position(
        [
            "KC 4D 9S 9H JD 6C 6S",
            "5C 5D 6H 8C 9D 10S QC QD 4S JC 7D",
            "5S 6D 8S 9C 10H QS 4H JS 7H 8D 10C",
            "5H 7C 8H 10D JH QH 4C 6H 7S 9D AC",
        ],
        melds=[{"A1": "AH AS AD"}, {"B1": "KH KS KD KC"}],
        pile="5D 6C 8D 9C 10D QH AC 7C 8C 10S",
        phase=PHASE_PLAY,
    )


def test_feeding_the_opponents_meld_is_graded_worse_than_the_bots_discard() -> None:
    state = feeding_position()
    bot = family_policy_choose("medium", state, 0, random.Random(1))
    assert isinstance(bot, Discard) and bot.card != parse_card("KC")
    king = Discard(0, parse_card("KC"))
    review = family_review_decision(state, 0, king, seed=7)
    assert review is not None and review.chosen == king
    assert review.best != king and review.loss > 0
    assert review.severity in ("mistake", "blunder"), (review.loss, review.stderr)
    assert review.reason == "gave the pile away"
    assert review.value_of(bot) > review.value_of(king) + 100
    # The bot's own discard, reviewed from the same seed, costs less.
    own = family_review_decision(state, 0, bot, seed=7)
    assert own is not None and own.loss < review.loss
    assert SEVERITIES.index(own.severity) < SEVERITIES.index(review.severity)


def hidden_permuted(state: GameState, seat: int, seed: int) -> GameState:
    """``state`` with the cards ``seat`` cannot see dealt again among the other hands and the
    stock (each place keeping its count)."""
    other = state.clone()
    others = [s for s in range(state.options.players) if s != seat]
    pool = list(other.stock) + [c for s in others for c in other.hands[s]]
    random.Random(seed).shuffle(pool)
    start = 0
    for s in others:
        count = len(other.hands[s])
        other.hands[s] = pool[start : start + count]
        start += count
    other.stock = pool[start:]
    return other


def decisions_of(preset: str, count: int) -> list[tuple[GameState, Action]]:
    """``count`` decisions of seat 0 with several legal moves in a game of easy bots (the easy
    level's random moves make mistakes to grade), with the move made."""
    state = new_game(make_options(preset), f"family-review-{preset}")
    rng = random.Random(preset)
    out: list[tuple[GameState, Action]] = []
    while len(out) < count and not state.game_over:
        action = family_policy_choose("easy", state, state.to_act, rng)
        if state.to_act == 0 and len(legal_actions(state)) > 1:
            out.append((state.clone(), action))
        apply(state, action)
    return out


@pytest.mark.parametrize("preset", ["mac", "samba", "bolivia", "mac_two_player"])
def test_the_review_does_not_change_when_the_hidden_cards_are_permuted(preset: str) -> None:
    graded: Counter[str] = Counter()
    for i, (state, chosen) in enumerate(decisions_of(preset, 6)):
        review = family_review_decision(state, 0, chosen, seed=i, settings=SMALL)
        assert review is not None and chosen in [c.action for c in review.candidates]
        assert review.loss >= 0 and review.candidates[0].action == review.best
        graded[review.severity] += 1
        for variant in range(2):
            elsewhere = hidden_permuted(state, 0, variant)
            assert player_view(elsewhere, 0) == player_view(state, 0)
            assert family_review_decision(elsewhere, 0, chosen, seed=i, settings=SMALL) == review
    assert sum(graded.values()) == 6


def test_a_single_legal_move_is_not_reviewed() -> None:
    state = new_game(make_options("mac"), "family-review-single")
    rng = random.Random(2)
    while not (state.to_act == 0 and len(legal_actions(state)) == 1):
        apply(state, family_policy_choose("medium", state, state.to_act, rng))
    assert family_review_decision(state, 0, legal_actions(state)[0], seed=1) is None
