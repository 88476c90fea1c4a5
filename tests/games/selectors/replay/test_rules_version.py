"""Games are pinned to the rules version they were played under: a game marked with a version
this engine does not play is refused (``rules_version_unsupported``), never replayed or
continued under changed rules."""

from __future__ import annotations

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from games import errors
from games.engine import RULES_VERSION, SUPPORTED_RULES_VERSIONS, GameState
from games.models import Game
from games.selectors.games import game_replay_state
from games.selectors.verify import game_verify
from games.services.bots import bot_fallback_choose
from tests.games.api.conftest import PlayerClient, problem
from tests.games.selectors.replay.conftest import advance, player_of, started_game

pytestmark = pytest.mark.django_db
REPLAY_VERIFY = False  # games are damaged on purpose here

OLDER = "0"  # a deliberately older marker (rules_version is at most 16 characters)


def test_the_registry_holds_the_engines_version() -> None:
    assert RULES_VERSION in SUPPORTED_RULES_VERSIONS
    assert OLDER not in SUPPORTED_RULES_VERSIONS


@pytest.fixture
def old_game(ada: PlayerClient) -> Game:
    game = advance(started_game(player_of(ada), seat=0).pk, steps=6)
    while game.to_act != 0:  # up to Ada's turn
        game = advance(game.pk, steps=1)
    Game.objects.filter(pk=game.pk).update(rules_version=OLDER)
    return Game.objects.get(pk=game.pk)


def test_playing_on_is_refused(ada: PlayerClient, old_game: Game) -> None:
    state = GameState.from_dict(old_game.snapshot or {})
    assert state.to_act == 0
    action = bot_fallback_choose(state)
    body = problem(ada.act(old_game.pk, action, old_game.version), 422, "rules_version_unsupported")
    assert body["rules_version"] == OLDER
    assert body["supported_rules_versions"] == sorted(SUPPORTED_RULES_VERSIONS)
    assert Game.objects.get(pk=old_game.pk).version == old_game.version


def test_replaying_is_refused(ada: PlayerClient, old_game: Game) -> None:
    problem(ada.get(f"/api/v1/games/{old_game.pk}/replay/?at=2"), 422, "rules_version_unsupported")
    with pytest.raises(errors.RulesVersionUnsupported):
        game_replay_state(old_game)
    # the log itself stays readable: the export and the published commitments
    assert ada.get(f"/api/v1/games/{old_game.pk}/export/").status_code == 200
    assert ada.get(f"/api/v1/games/{old_game.pk}/fairness/").status_code == 200


def test_checking_an_old_games_deals_is_refused(ada: PlayerClient) -> None:
    """The check recomputes each deal with this engine: not for a game of other rules."""
    game = advance(started_game(player_of(ada), preset="two_player").pk)
    assert ada.get(f"/api/v1/games/{game.pk}/fairness/").json()["verified"] is True
    Game.objects.filter(pk=game.pk).update(rules_version=OLDER)
    problem(ada.get(f"/api/v1/games/{game.pk}/fairness/"), 422, "rules_version_unsupported")


def test_verification_reports_it(old_game: Game) -> None:
    report = game_verify(old_game)
    assert not report.ok and OLDER in report.problems[0]
    with pytest.raises(CommandError):
        call_command("replay", str(old_game.pk), "--verify")


def test_a_game_of_the_current_version_is_replayed(ada: PlayerClient) -> None:
    game = advance(started_game(player_of(ada), seat=0).pk, steps=6)
    assert game.rules_version == RULES_VERSION
    assert ada.get(f"/api/v1/games/{game.pk}/replay/?at=2").status_code == 200
