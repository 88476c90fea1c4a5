"""The scorecard: every finished round, each team's score components and totals."""

from __future__ import annotations

from typing import Any

from games.models import Game, RoundScore
from games.selectors.seating import seats_of


def game_scorecard_get(*, game: Game) -> dict[str, Any]:
    """Every finished round with each team's score components, round total and cumulative."""
    seats = seats_of(game)
    teams = max(s.team for s in seats) + 1 if seats else 0
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
        entry["teams"].append(
            {
                "team": row.team,
                **{name: getattr(row, name) for name in RoundScore.COMPONENTS},
                "total": row.total,
                "cumulative": row.cumulative,
            }
        )
    ordered = [rounds[k] for k in sorted(rounds)]
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
    }
