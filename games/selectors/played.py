"""Every game a player sat at, with its public result: the ``games`` section of the player's data
export. Public facts only (seats, teams, status, the teams' scores, how it ended): never a card,
the seed or anyone's hand."""

from __future__ import annotations

from typing import Any

from accounts.models import Player
from games.engine.history import GAME_CONCEDED
from games.models import GameEvent, GameStatus, RoundScore, Seat


def player_games_export(*, player: Player) -> list[dict[str, Any]]:
    """The games ``player`` sits or sat at, oldest first (three queries whatever their number)."""
    seats = list(
        Seat.objects.filter(player=player)
        .select_related("game")
        .defer("game__snapshot", "game__options", "game__seed")
        .order_by("game__created_at", "game_id")
    )
    ids = [s.game_id for s in seats]
    totals: dict[int, dict[int, int]] = {}
    for game_id, team, cumulative in (
        RoundScore.objects.filter(game_id__in=ids)
        .order_by("game_id", "round_no", "team")
        .values_list("game_id", "team", "cumulative")
    ):
        totals.setdefault(game_id, {})[team] = cumulative  # the last round's wins
    conceded = dict(
        GameEvent.objects.filter(game_id__in=ids, type=GAME_CONCEDED).values_list("game_id", "seat")
    )
    out = []
    for s in seats:
        g = s.game
        over = g.status in (GameStatus.FINISHED, GameStatus.ABANDONED)
        result = None
        if over:
            if g.winner_team is None:
                result = "abandoned" if g.status == GameStatus.ABANDONED else "drawn"
            else:
                result = "won" if g.winner_team == s.team else "lost"
        scores = totals.get(g.pk, {})
        out.append(
            {
                "game_id": g.pk,
                "preset": g.preset,
                "rated": g.rated,
                "status": g.status,
                "created_at": g.created_at,
                "started_at": g.started_at,
                "finished_at": g.finished_at,
                "seat": s.index,
                "team": s.team,
                "winner_team": g.winner_team,
                "result": result,
                "conceded": conceded.get(g.pk) == s.index,
                "scores": [scores[t] for t in sorted(scores)],
                "players": [
                    {
                        "seat": entry["index"],
                        "team": entry["team"],
                        "player_id": entry["player"],
                        "display_name": entry["name"] if entry["player"] is not None else None,
                        "bot_level": entry["bot_level"],
                    }
                    for entry in g.seating
                ],
                "replay": f"/api/v1/games/{g.pk}/replay/" if over else None,
            }
        )
    return out
