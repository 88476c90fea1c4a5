"""Caches of the move log, written in the transaction that appends each event: the snapshot,
the seat to act, the winner, the ``Meld`` rows and the ``RoundScore`` rows. The replay
verifier rebuilds each from the log and compares."""

from __future__ import annotations

from typing import Any

from games.engine import GameState
from games.engine.view import meld_view, player_view
from games.models import Game, Meld, RoundScore


def projections_write(game: Game, state: GameState) -> None:
    """Snapshot, to_act, winner, Meld rows and RoundScore rows from ``state`` (same tx).

    The Meld rows are rewritten only when the melds differ from the previous snapshot's, and
    RoundScore rows added only when a round has ended since: most moves (a draw, a discard)
    change neither, and skip those queries.
    """
    previous = game.snapshot or {}
    game.snapshot = state.to_dict()
    game.to_act = None if state.game_over else state.to_act
    game.winner_team = state.winner
    if previous.get("melds") != game.snapshot["melds"]:
        if state.options.family == "classic":
            before = meld_rows(previous["melds"]) if previous else None
            _melds_write(game, before, meld_rows(game.snapshot["melds"]))
        else:
            _melds_write(game, None, family_meld_rows(state))
    if len(previous.get("rounds", ())) != len(state.rounds):
        _round_scores_write(game, state)


MeldKey = tuple[int, str, str]  # team, rank text, meld id ("" where a rank has one meld)


def meld_rows(melds: list[list[list[Any]]]) -> dict[MeldKey, dict[str, Any]]:
    """The Meld rows a classic snapshot's ``melds`` (per team, [rank, cards] pairs) project
    to: (team, rank text, "") -> column values, as the table view shows each meld."""
    rows: dict[MeldKey, dict[str, Any]] = {}
    for team, team_melds in enumerate(melds):
        for rank, cards in team_melds:
            view = meld_view(rank, cards)
            rows[(team, view["rank"], "")] = {name: view[name] for name in Meld.VALUES}
    return rows


def family_meld_rows(state: GameState) -> dict[MeldKey, dict[str, Any]]:
    """The Meld rows of a variant family's table, as its public view shows each meld (keyed
    by the meld's id in Samba and Bolivia, which allow several melds of a rank)."""
    table = player_view(state, None, with_legal=False)
    return {
        (t["team"], m["rank"], m.get("id") or ""): {name: m[name] for name in Meld.VALUES}
        for t in table["teams"]
        for m in t["melds"]
    }


def _melds_write(
    game: Game, before: dict[MeldKey, dict[str, Any]] | None, wanted: dict[MeldKey, dict[str, Any]]
) -> None:
    """Bring the game's Meld rows from ``before`` (the previous snapshot's projection; None:
    read them) to ``wanted``, touching only the rows that differ."""
    if before is None:
        before = {
            (m.team, m.rank, m.meld_id): {k: getattr(m, k) for k in Meld.VALUES}
            for m in Meld.objects.filter(game=game)
        }
    stale = [key for key in before if key not in wanted]
    if stale and not wanted:
        Meld.objects.filter(game=game).delete()  # a new round: the table is cleared
    else:
        for team, rank, meld_id in stale:
            Meld.objects.filter(game=game, team=team, rank=rank, meld_id=meld_id).delete()
    added = [
        Meld(game=game, team=team, rank=rank, meld_id=meld_id, **values)
        for (team, rank, meld_id), values in wanted.items()
        if (team, rank, meld_id) not in before
    ]
    if len(added) == 1:
        added[0].save(force_insert=True)  # the common case: one new meld
    elif added:
        Meld.objects.bulk_create(added)
    for key, values in wanted.items():
        if key in before and before[key] != values:
            team, rank, meld_id = key
            Meld.objects.filter(game=game, team=team, rank=rank, meld_id=meld_id).update(**values)


def _round_scores_write(game: Game, state: GameState) -> None:
    recorded = RoundScore.objects.filter(game=game).count() // max(1, state.options.teams)
    classic = state.options.family == "classic"
    rows = [
        RoundScore(game=game, **RoundScore.values_of(record, team, classic))
        for record in state.rounds[recorded:]
        for team in range(len(record["teams"]))
    ]
    if rows:
        RoundScore.objects.bulk_create(rows)
