"""What a viewer may see of a duplicate event before its deal set is revealed: a board's
results at other tables once the board is scored or the viewer has played it."""

from __future__ import annotations

import pytest

from competition.models import TournamentFact, TournamentTable
from competition.selectors.tournaments import boards_doc, boards_unseen, tables_page
from games.models import Seat
from tests.competition.services.tournament_helpers import bot_event, organiser
from tests.games.api.conftest import eager_bots  # noqa: F401  (autouse: bots play in-process)

pytestmark = pytest.mark.django_db(transaction=True)  # deals are sent on commit


def test_a_board_is_hidden_until_scored_or_played_by_the_viewer(replay_unverified: None) -> None:
    t = bot_event("duplicate", 4, rounds=1, boards_per_round=2)
    stranger = organiser("Stranger")
    assert boards_unseen(t, stranger) == set()  # revealed
    # As it stood before the reveal, with board 2 not yet scored.
    TournamentFact.objects.filter(tournament=t, type="deals_revealed").delete()
    TournamentFact.objects.filter(tournament=t, type="board_scored", payload__board=2).delete()
    assert boards_unseen(t, stranger) == {2}
    rows = tables_page(t, stranger, round_no=1, limit=10, offset=0)["results"]
    assert {r["board"] for r in rows if r["result_hidden"]} == {2}
    assert all(r["scores"] is None for r in rows if r["board"] == 2)
    assert all(r["scores"] is not None for r in rows if r["board"] == 1)
    board_two = boards_doc(t, stranger)["boards"][1]
    assert all(r["result_hidden"] and r["winner_side"] is None for r in board_two["tables"])
    # Someone who sat at one of board 2's games sees the board (a seat given to them here:
    # replay_unverified, as the log still names the bot).
    table = TournamentTable.objects.filter(tournament=t, board=2).first()
    assert table is not None and table.game_id is not None
    Seat.objects.filter(game_id=table.game_id, index=0).update(player=stranger, bot_level=None)
    assert boards_unseen(t, stranger) == set()
