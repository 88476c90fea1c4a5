"""The event log of a tournament: facts appended in order under the tournament's row lock, and
the hand-offs (tasks) that follow a commit.

Every service that changes a tournament first locks its row (``tournament_lock``): facts are
numbered without gaps, and two changes of one event (two pairing runs, a result and a
withdrawal) are applied one after the other.
"""

from __future__ import annotations

import logging
from typing import Any

from django.db import transaction

from competition import errors
from competition.models import Tournament, TournamentFact
from core import dispatch
from games import live

logger = logging.getLogger(__name__)

# The Celery tasks of tournaments (competition.tasks), sent by name: tasks sit above services.
TABLE_DEAL_TASK = "competition.tournament_table_deal"
TABLES_DEAL_TASK = "competition.tournament_tables_deal"
# Tables per deal message (a round's tables go out in messages of this many).
TABLES_PER_MESSAGE = 20
ADVANCE_TASK = "competition.tournament_advance"

# Without a broker, a hand-off sent while another runs in this thread waits for it to return
# (constant stack depth when games end inside bot turns that deal new tables).
_eager_steps = dispatch.InThreadQueue()


def tournament_lock(tournament_id: int) -> Tournament:
    """The tournament's row, locked until the transaction ends (404 ``not_found``)."""
    found = Tournament.objects.select_for_update().filter(pk=tournament_id).first()
    if found is None:
        raise errors.TournamentNotFound()
    return found


def fact_append(tournament: Tournament, type: str, payload: dict[str, Any]) -> TournamentFact:
    """Append one fact (the tournament's row is locked by the caller); ``version`` follows.
    The tournament's live waiters (standings, pairings) are woken once the transaction
    commits (once per locked row, however many facts)."""
    if not getattr(tournament, "_waiters_told", False):
        tournament._waiters_told = True  # type: ignore[attr-defined]
        live.event_notify_on_commit(tournament.pk)
    tournament.version += 1
    Tournament.objects.filter(pk=tournament.pk).update(version=tournament.version)
    return TournamentFact.objects.create(
        tournament=tournament, seq=tournament.version, type=type, payload=payload
    )


def step_send(task: str, *args: Any) -> None:
    """Send a hand-off now (call after commit). Never raises: the sweep sends a lost one
    again (``competition.services.tournament_rounds.tournaments_sweep``)."""
    try:
        if dispatch.is_eager():
            _eager_steps.run(dispatch.send, task, *args)
        else:
            dispatch.send(task, *args)
    except Exception:
        logger.exception("tournament hand-off %s%r failed", task, args)


def step_on_commit(task: str, *args: Any) -> None:
    """Send a hand-off once the current transaction commits."""
    transaction.on_commit(lambda: step_send(task, *args))


def steps_on_commit(task: str, each: list[tuple[Any, ...]]) -> None:
    """Send one hand-off per argument tuple once the current transaction commits. Without a
    broker they run one after the other before anything they send in turn (a round's tables
    are all dealt before the games they start can pair anyone again)."""
    if not each:
        return

    def send_all() -> None:
        for args in each:
            try:
                dispatch.send(task, *args)
            except Exception:
                logger.exception("tournament hand-off %s%r failed", task, args)

    def after_commit() -> None:
        if dispatch.is_eager():
            _eager_steps.run(send_all)
        else:
            send_all()

    transaction.on_commit(after_commit)
