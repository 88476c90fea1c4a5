"""The scorecard: every finished round, each team's score components and totals."""

from __future__ import annotations

from typing import Any

from accounts.models import Player
from games import hooks
from games.models import Game, RoundScore
from games.selectors.horizon import spectator_horizon
from games.selectors.seating import seat_index_of, seats_of


def rounds_ended_after(game: Game, seq: int) -> int:
    """How many rounds ended after event ``seq`` (a delayed spectator's horizon: at most the
    delay's events are read)."""
    rows = game.events.filter(seq__gt=seq).values_list("effects", flat=True)
    return sum(1 for effects in rows for e in effects if e.get("kind") == "round_ended")


def game_scorecard_get(*, game: Game, player: Player | None = None) -> dict[str, Any]:
    """Every finished round with each team's score components, round total and cumulative, as
    ``player`` may see them: a delayed spectator sees the rounds ended by its horizon. A rated
    game over adds each player's rating change."""
    seats = seats_of(game)
    teams = max(s.team for s in seats) + 1 if seats else 0
    viewer = seat_index_of(game, player.pk) if player is not None else None
    horizon = spectator_horizon(game, viewer)
    rounds: dict[int, dict[str, Any]] = {}
    for row in RoundScore.objects.filter(game=game).order_by("round_no", "team"):
        entry = rounds.setdefault(
            row.round_no,
            {
                "round": row.round_no,
                "dealer": row.dealer,
                "reason": row.reason,
                "went_out": row.went_out,
                "concealed": row.concealed,
                "teams": [],
            },
        )
        line = {
            "team": row.team,
            **{name: getattr(row, name) for name in RoundScore.COMPONENTS},
            "total": row.total,
            "cumulative": row.cumulative,
        }
        if row.parts:  # a variant family's round: every component as its rules count them
            line["components"] = {k: v for k, v in row.parts.items() if k != "total"}
        entry["teams"].append(line)
    ordered = [rounds[k] for k in sorted(rounds)]
    if horizon < game.version:  # the rounds a delayed spectator has yet to see end
        ordered = ordered[: max(0, len(ordered) - rounds_ended_after(game, horizon))]
    totals = [0] * teams
    if ordered:
        totals = [t["cumulative"] for t in ordered[-1]["teams"]]
    return {
        "game": game.pk,
        "status": game.status,
        "target_score": game.options.get("target_score"),
        "teams": [
            {"team": t, "seats": [s.index for s in seats if s.team == t]} for t in range(teams)
        ],
        "rounds": ordered,
        "totals": totals,
        "winner_team": game.winner_team,
        "rated": game.rated,
        "rating_changes": hooks.answer(hooks.RatingChangesWanted(game)),  # public: no card in it
    }
