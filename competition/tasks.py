"""Celery tasks of quick play: thin, ids in, idempotent (see the task policy in
canasta_service/celery.py). Their names keep the ``games.`` prefix they were first sent with, so
that messages already queued and beat's schedule still find them."""

from __future__ import annotations

from celery import shared_task

from competition.services import matchmaking, tournament_rounds

# The pairing run pairs under an advisory lock (a second run at once does nothing); the table
# task re-checks under the entries' row locks (a duplicate or redelivered message finds the
# table dealt and does nothing). competition.services.matchmaking.


@shared_task(name="games.matchmaking_pair")
def matchmaking_pair() -> int:
    """Pair the players waiting in the quick-play queues (Celery beat,
    MATCHMAKING_PAIR_SECONDS); returns how many were paired."""
    return matchmaking.pairing_run().paired


@shared_task(name="games.match_table_create")
def match_table_create(match: str) -> int | None:
    """Create, seat and deal the table of ``match`` (a uuid); its game id (None: the match is
    gone or was undone)."""
    game = matchmaking.match_table_create(match)
    return None if game is None else game.pk


# Tournaments (competition.services.tournament_rounds): a table's deal is idempotent under the
# table's row lock; the advance step and the sweep under the tournament's.
@shared_task(name="competition.tournament_table_deal")
def tournament_table_deal(table_id: int) -> int | None:
    """Create, seat and deal a tournament table's game; its id (None: nothing to do)."""
    game = tournament_rounds.table_deal(table_id)
    return None if game is None else game.pk


@shared_task(name="competition.tournament_tables_deal")
def tournament_tables_deal(table_ids: list[int]) -> int:
    """Deal several tables of a round, each in its own transaction (one message for many:
    a round of 1,000 tables is 50 messages); how many were dealt here."""
    return sum(tournament_rounds.table_deal(table_id) is not None for table_id in table_ids)


@shared_task(name="competition.tournament_advance")
def tournament_advance(tournament_id: int) -> None:
    """Move a tournament on after a result, a withdrawal or an entry."""
    tournament_rounds.tournament_advance(tournament_id)


@shared_task(name="competition.tournaments_sweep")
def tournaments_sweep() -> dict[str, int]:
    """Beat (TOURNAMENT_SWEEP_SECONDS): start scheduled events, deal due or lost tables,
    advance running events."""
    return tournament_rounds.tournaments_sweep()
