"""What one player may keep the service busy with: bot tables at once, imports at once.

Bot turns are the work every game waits on, so a player may have at most
``BOT_TABLES_ACTIVE_MAX`` unfinished tables of their own where no other person sits: tables
they created in which every seat is a bot or theirs (watched or played). A start, a rematch or
an import that would make one more is refused (409 ``bot_tables_limit``) and changes nothing.
The check holds the player's row lock until the transaction ends, so two starts at once are
counted one after the other.

An import replays up to 20,000 events in the request: at most ``IMPORTS_CONCURRENT_MAX``
replay at once in the whole service (slots in the default cache, Redis when configured, so
every web process shares them; without it each process has its own). One more is refused at
once with 503 ``imports_busy`` and ``Retry-After``.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager

from django.conf import settings
from django.core.cache import cache
from django.db.models import Exists, OuterRef

from accounts.models import Player
from core.counters import Slot, slot_hold
from games import errors
from games.models import Game, GameStatus, Seat

# Seconds an import slot is held at most (a process that died holding one frees it then):
# longer than any request may run (nginx gives up on the app after 60 s).
IMPORT_SLOT_SECONDS = 120
# What a refused import is told to wait.
IMPORT_RETRY_AFTER_SECONDS = 5


def bot_table_is(creator_id: int, seats: Sequence[Seat]) -> bool:
    """Whether a table about to start with ``seats`` is a bot table of ``creator_id``: bots
    in some seats (an empty seat is given to a bot at the start) and nobody but its creator in
    the others."""
    return any(s.player_id is None for s in seats) and all(
        s.player_id in (None, creator_id) for s in seats
    )


def bot_tables_active_count(player: Player) -> int:
    """The unfinished (active) tables ``player`` created where only bots play with them."""
    bots = Seat.objects.filter(game=OuterRef("pk"), bot_level__isnull=False)
    others = Seat.objects.filter(game=OuterRef("pk"), player__isnull=False).exclude(
        player_id=player.pk
    )
    return (
        Game.objects.filter(created_by_id=player.pk, status=GameStatus.ACTIVE)
        .filter(Exists(bots))
        .exclude(Exists(others))
        .count()
    )


def bot_tables_check(player: Player) -> None:
    """Refuse (409 ``bot_tables_limit``) one more active bot table for ``player``. Takes the
    player's row lock (inside the caller's transaction) before counting."""
    limit = settings.BOT_TABLES_ACTIVE_MAX
    if not limit:
        return
    Player.objects.select_for_update().filter(pk=player.pk).values_list("pk").get()
    if bot_tables_active_count(player) >= limit:
        raise errors.BotTablesLimit(limit)


@contextmanager
def import_slot() -> Iterator[Slot | None]:
    """Hold one of the service's ``IMPORTS_CONCURRENT_MAX`` import slots for the block, or
    refuse at once (503 ``imports_busy``)."""
    limit = settings.IMPORTS_CONCURRENT_MAX
    if not limit:
        yield None
        return
    with slot_hold(
        cache,
        "imports",
        limit,
        IMPORT_SLOT_SECONDS,
        lambda: errors.ImportsBusy(IMPORT_RETRY_AFTER_SECONDS),
    ) as slot:
        yield slot
