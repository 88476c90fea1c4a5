"""Post-game reviews: who may ask for or read one, the rounds a review can cover, its body.

A review names the cards of the seat it reviews (its moves and the alternatives), so:

- while the game runs, only a player seated at it may ask for or read a review, of their own
  seat only (403 ``review_seat_not_allowed`` for another seat, 403 ``not_seated`` for a player
  without a seat at a public table);
- once it is finished, every player seated at it may review any seat, and at a public table so
  may everyone; an abandoned game is as one still running, as its replay and export are (they
  reveal every hand of a finished game only);
- a private table is 404 ``not_found`` to anyone not seated at it, as elsewhere in the API
  (its creator, who may see the table, is not seated: 403 ``not_seated``).

A review covers finished rounds only: ``finished_rounds_get`` counts the rounds the log ended.
"""

from __future__ import annotations

from typing import Any

from accounts.models import Player
from bots import errors
from bots.models import GameReview
from games import errors as game_errors
from games.models import Game
from games.selectors.games import game_get_visible
from games.selectors.reveal import game_revealed
from games.selectors.seating import seat_index_of


def review_game_get(*, game_id: int, player: Player) -> Game:
    """The game ``player`` may see (404 to anyone else, before anything of the request is
    read: a private table's reviews say nothing to strangers)."""
    return game_get_visible(game_id=game_id, player=player)


def review_seat_check(*, game: Game, player: Player, seat: int) -> None:
    """May ``player`` review ``seat`` of ``game``? (403 or 400 ``invalid_seat`` if not)."""
    mine = seat_index_of(game, player.pk)
    if not 0 <= seat < len(game.seating):
        raise game_errors.InvalidSeat()
    if game_revealed(game):
        if mine is None and not game.is_public:
            raise game_errors.NotSeated()
        return
    if mine is None:
        raise game_errors.NotSeated()
    if mine != seat:
        raise errors.ReviewSeatNotAllowed()


def finished_rounds_get(game: Game) -> tuple[int, int]:
    """How many rounds of ``game`` have ended, and the seq of the event that ended the last one
    (0, 0: none), read from the move log."""
    rounds, seq = 0, 0
    rows = game.events.order_by("seq").values_list("seq", "effects")
    for event_seq, effects in rows.iterator(chunk_size=128):
        for effect in effects or ():
            if effect.get("kind") == "round_ended":
                rounds, seq = rounds + 1, event_seq
    return rounds, seq


def game_review_get(*, game: Game, seat: int) -> GameReview:
    """The latest review of ``seat`` (the one covering the most rounds); 404
    ``review_not_found`` when nobody asked for one."""
    review = GameReview.objects.filter(game=game, seat=seat).order_by("-through_round").first()
    if review is None:
        raise errors.ReviewNotFound()
    return review


def review_view(review: GameReview) -> dict[str, Any]:
    """A review's body: its status, and once ready its summary and decisions."""
    result: dict[str, Any] = review.result or {}
    return {
        "game": review.game_id,
        "seat": review.seat,
        "status": review.status,
        "through_round": review.through_round,
        "requested_at": review.created_at,
        "finished_at": review.finished_at,
        "engine": review.engine,
        "cpu_seconds": review.cpu_seconds,
        "summary": result.get("summary"),
        "decisions": result.get("decisions", []),
    }
