"""Celery tasks of quick play: thin, ids in, idempotent (see the task policy in
canasta_service/celery.py). Their names keep the ``games.`` prefix they were first sent with, so
that messages already queued and beat's schedule still find them."""

from __future__ import annotations

from celery import shared_task

from competition.services import matchmaking

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
