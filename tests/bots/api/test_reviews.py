"""POST/GET /api/v1/games/{id}/review/: status codes, who may ask and read, problem documents.

Bots and the reviewer run in-process (no broker) and the test settings compute a review inside
the request that asks for it (``REVIEWS_IN_PROCESS`` off), so it is ready (200) when the request
answers; the reviewer runs with a small budget here. With the in-process reviewer of ``make run``
the request answers at once, 202 while the review is pending (the last tests)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

import pytest

from bots import tasks as bot_tasks
from bots.models import GameReview
from bots.policies.review import ReviewSettings
from bots.services import review_compute as bot_reviews
from games.services.timers import turn_timers_sweep
from tests.games.api.conftest import PlayerClient, create_game, play_until, problem
from tests.games.services.timers.conftest import overdue

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def fast_reviewer(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(
        bot_reviews, "REVIEW_SETTINGS", ReviewSettings(worlds=4, max_plies=20, halving_at=(2,))
    )


def url(game_id: int) -> str:
    return f"/api/v1/games/{game_id}/review/"


def ask(client: PlayerClient, game_id: int, body: Any) -> Any:
    return client.post(url(game_id), body, format="json")


def read(client: PlayerClient, game_id: int, seat: Any = None) -> Any:
    query = {} if seat is None else {"seat": seat}
    return client.get(url(game_id), query)


def after_a_round(ada: PlayerClient, is_public: bool = True) -> int:
    """Ada at seat 0 against three medium bots, played over HTTP until round 1 has ended."""
    game = create_game(
        ada,
        preset="classic",
        seat=0,
        is_public=is_public,
        bots=[{"seat": s, "level": "medium"} for s in (1, 2, 3)],
    )
    game_id = int(game["id"])
    started = ada.post(f"/api/v1/games/{game_id}/start/", {}, format="json")
    assert started.status_code == 200, started.content
    body = play_until([ada], game_id, lambda g: g["state"]["round"] >= 2)
    assert body["status"] == "active"
    return game_id


def finished(ada: PlayerClient, is_public: bool = True) -> int:
    """A game of four medium bots to 1000 points that Ada created and watched: over at once."""
    game = create_game(
        ada,
        preset="classic",
        options={"target_score": 1000},
        spectate=True,
        is_public=is_public,
        bots=[{"seat": s, "level": "medium"} for s in range(4)],
    )
    game_id = int(game["id"])
    started = ada.post(f"/api/v1/games/{game_id}/start/", {}, format="json")
    assert started.status_code == 200, started.content
    assert ada.game(game_id)["status"] == "finished"
    return game_id


def test_a_player_reviews_their_own_seat_mid_game(ada: PlayerClient, bob: PlayerClient) -> None:
    game_id = after_a_round(ada)
    first = ask(ada, game_id, {"seat": 0})
    assert first.status_code == 200, first.content
    body = first.json()
    assert (body["game"], body["seat"], body["status"], body["through_round"]) == (
        game_id,
        0,
        "ready",
        1,
    )
    assert body["summary"]["decisions"] == len(body["decisions"]) > 0
    assert body["engine"].startswith("review-1")
    for d in body["decisions"]:
        assert d["severity"] in ("ok", "inaccuracy", "mistake", "blunder")
        assert d["loss"] >= 0 and d["candidates"]
        assert d["chosen"] in [c["action"] for c in d["candidates"]]
    again = ask(ada, game_id, {"seat": 0})
    assert again.status_code == 200 and again.json() == body
    got = read(ada, game_id, 0)
    assert got.status_code == 200 and got.json() == body
    assert GameReview.objects.filter(game_id=game_id).count() == 1

    # Another seat's cards are not Ada's to see while the game runs, nor Ada's to Bob.
    problem(ask(ada, game_id, {"seat": 1}), 403, "review_seat_not_allowed")
    problem(read(ada, game_id, 1), 403, "review_seat_not_allowed")
    problem(ask(bob, game_id, {"seat": 0}), 403, "not_seated")
    problem(read(bob, game_id, 0), 403, "not_seated")
    assert GameReview.objects.filter(game_id=game_id).count() == 1


def test_no_review_before_a_round_has_ended(ada: PlayerClient) -> None:
    game = create_game(ada, preset="classic", seat=0, bots=[{"seat": s} for s in (1, 2, 3)])
    started = ada.post(f"/api/v1/games/{game['id']}/start/", {}, format="json")
    assert started.status_code == 200, started.content
    problem(ask(ada, game["id"], {"seat": 0}), 409, "review_no_finished_round")
    problem(read(ada, game["id"], 0), 404, "review_not_found")
    lobby = create_game(ada, preset="two_player", seat=0)
    problem(ask(ada, lobby["id"], {"seat": 0}), 409, "review_no_finished_round")
    assert not GameReview.objects.exists()


@pytest.mark.parametrize(
    "body", [{}, {"seat": "one"}, {"seat": -1}, {"seat": 4}, {"seat": None}, [0]]
)
def test_bad_requests_change_nothing(ada: PlayerClient, body: Any) -> None:
    game_id = finished(ada)
    problem(ask(ada, game_id, body), 400, "invalid_request")
    assert not GameReview.objects.exists()


def test_a_seat_the_table_does_not_have(ada: PlayerClient, bob: PlayerClient) -> None:
    game = create_game(ada, preset="two_player", seat=0)
    problem(ask(ada, game["id"], {"seat": 2}), 400, "invalid_seat")
    problem(read(ada, game["id"], 3), 400, "invalid_seat")
    problem(read(ada, game["id"]), 400, "invalid_request")
    problem(read(ada, game["id"], "x"), 400, "invalid_request")
    assert not GameReview.objects.exists()


def test_after_a_public_game_anyone_reviews_any_seat(
    ada: PlayerClient, make_player: Callable[..., PlayerClient]
) -> None:
    game_id = finished(ada)
    eve = make_player("Eve")
    problem(read(eve, game_id, 3), 404, "review_not_found")
    made = ask(eve, game_id, {"seat": 3})
    assert made.status_code == 200, made.content
    assert made.json()["status"] == "ready" and made.json()["seat"] == 3
    for client in (ada, eve):
        got = read(client, game_id, 3)
        assert got.status_code == 200 and got.json() == made.json()
    problem(read(eve, game_id, 2), 404, "review_not_found")


def test_a_private_game_is_not_found_to_strangers(
    ada: PlayerClient, bob: PlayerClient, make_player: Callable[..., PlayerClient]
) -> None:
    game_id = finished(ada, is_public=False)
    problem(ask(bob, game_id, {"seat": 0}), 404, "not_found")
    problem(read(bob, game_id, 0), 404, "not_found")
    # Its creator may see the table but sat at no seat.
    problem(ask(ada, game_id, {"seat": 0}), 403, "not_seated")
    problem(ask(bob, 999_999, {"seat": 0}), 404, "not_found")
    assert not GameReview.objects.exists()


def test_a_review_needs_a_token(ada: PlayerClient) -> None:
    game_id = finished(ada)
    anonymous = ada.clone()
    anonymous.credentials()
    problem(ask(anonymous, game_id, {"seat": 0}), 401, "not_authenticated")
    problem(read(anonymous, game_id, 0), 401, "not_authenticated")


def test_an_abandoned_game_is_reviewed_as_one_still_running(
    ada: PlayerClient, make_player: Callable[..., PlayerClient]
) -> None:
    """An abandoned game reveals no hand (its replay and export show each seat its own view), so
    its reviews are as while it ran: the seat's own player only, of that seat only."""
    game = create_game(
        ada,
        preset="classic",
        seat=0,
        turn_seconds=30,
        timeout_limit=1,
        timeout_outcome="abandon",
        bots=[{"seat": s, "level": "medium"} for s in (1, 2, 3)],
    )
    game_id = int(game["id"])
    assert ada.post(f"/api/v1/games/{game_id}/start/", {}, format="json").status_code == 200
    play_until([ada], game_id, lambda g: g["state"]["round"] >= 2)
    overdue(game_id)
    turn_timers_sweep()
    assert ada.game(game_id)["status"] == "abandoned"

    eve = make_player("Eve")
    problem(ask(eve, game_id, {"seat": 1}), 403, "not_seated")
    problem(read(eve, game_id, 1), 403, "not_seated")
    problem(ask(ada, game_id, {"seat": 1}), 403, "review_seat_not_allowed")
    assert GameReview.objects.filter(game_id=game_id).count() == 0
    own = ask(ada, game_id, {"seat": 0})
    assert own.status_code == 200 and own.json()["seat"] == 0


# ============================================================================== in-process reviewer
def test_the_in_process_reviewer_answers_at_once_and_the_review_is_ready_later(
    ada: PlayerClient, settings: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without a broker (``make run``) the review is computed by a thread of the process: the
    request answers at once, 202 while the review is pending, and reading it later finds it
    ready (200). The reviewer is held until the request has answered: computed inside the
    request, the review could not be pending."""
    game_id = finished(ada)
    settings.REVIEWS_IN_PROCESS = True
    release = threading.Event()
    compute = bot_tasks.review_next_compute

    def held_back() -> Any:
        release.wait(timeout=30)
        return compute()

    monkeypatch.setattr(bot_tasks, "review_next_compute", held_back)
    started = time.monotonic()
    first = ask(ada, game_id, {"seat": 0})
    assert time.monotonic() - started < 10
    assert first.status_code == 202, first.content
    assert first.json()["status"] == "pending" and first.json()["decisions"] == []
    waiting = ask(ada, game_id, {"seat": 0})  # still waiting: the same review, not another
    assert waiting.status_code == 202 and waiting.json()["status"] == "pending"
    assert read(ada, game_id, 0).json()["status"] == "pending"
    assert GameReview.objects.filter(game_id=game_id).count() == 1

    release.set()
    deadline = time.monotonic() + 60
    while (got := read(ada, game_id, 0)).json()["status"] == "pending":
        assert time.monotonic() < deadline, "the in-process reviewer never finished"
        time.sleep(0.2)
    assert got.status_code == 200 and got.json()["status"] == "ready"
    assert got.json()["summary"]["decisions"] == len(got.json()["decisions"]) > 0
    again = ask(ada, game_id, {"seat": 0})
    assert again.status_code == 200 and again.json() == got.json()
