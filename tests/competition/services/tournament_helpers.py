"""Helpers of the tournament tests: events filled with bot entrants, played to the end
in-process (bot turns and the tournament's hand-offs run eagerly, as with no broker)."""

from __future__ import annotations

from collections import Counter
from datetime import timedelta
from typing import Any

from django.utils import timezone

from accounts.models import Player
from accounts.services.players import player_create
from competition.models import (
    EntryStatus,
    TableStatus,
    Tournament,
    TournamentEntry,
    TournamentFact,
    TournamentTable,
)
from competition.selectors.tournament_standings import tournament_verify
from competition.services.tournament_rounds import tournament_start, tournaments_sweep
from competition.services.tournaments import (
    TournamentSetup,
    bots_enter,
    entry_open,
    register,
    tournament_create,
)

# Short games: two-player tables to 1000 points, easy bots.
QUICK = {"preset": "two_player", "options": {"target_score": 1000}, "bot_level": "easy"}


def organiser(name: str = "Org") -> Player:
    return player_create(display_name=name)[0]


def event(org: Player, **setup: Any) -> Tournament:
    fields = {"name": "Event", **QUICK, **setup}
    t = tournament_create(organiser=org, setup=TournamentSetup(**fields))
    entry_open(tournament_id=t.pk, organiser=org)
    return t


def bot_event(fmt: str, bots: int, **setup: Any) -> Tournament:
    """An event of ``bots`` bot entrants, started (in-process: played to the end)."""
    org = organiser()
    if fmt == "arena" and "ends_at" not in setup:
        setup["ends_at"] = timezone.now() + timedelta(seconds=5)
    if setup.get("robot"):
        setup.setdefault("ends_at", timezone.now() + timedelta(hours=1))
    t = event(org, format=fmt, **setup)
    bots_enter(tournament_id=t.pk, organiser=org, count=bots, level="easy")
    tournament_start(tournament_id=t.pk, organiser=org)
    t.refresh_from_db()
    if t.robot and t.ends_at is not None:
        # Every board is played; the window closes (the sweep, as beat runs it, an hour on).
        tournaments_sweep(now=t.ends_at + timedelta(seconds=1))
        t.refresh_from_db()
    return t


def people(count: int, prefix: str = "P") -> list[Player]:
    return [player_create(display_name=f"{prefix}{n}")[0] for n in range(count)]


def register_all(t: Tournament, players: list[Player]) -> list[TournamentEntry]:
    return [register(tournament_id=t.pk, player=p) for p in players]


def assert_verified(t: Tournament) -> None:
    """The kept standings equal the fold of the log; no fact is missing."""
    report = tournament_verify(t)
    assert report.gaps == [], report.gaps
    assert report.mismatched == [], report.mismatched[:5]
    assert report.entries == TournamentEntry.objects.filter(tournament=t).count()


def assert_paired_once_per_round(t: Tournament) -> None:
    """No entry sits at two tables (first games of a match) of one round."""
    seen: Counter[tuple[int, int]] = Counter()
    for table in TournamentTable.objects.filter(tournament=t, leg=1).exclude(
        status=TableStatus.PROPOSED
    ):
        for side in table.sides:
            for entry_id in side:
                seen[(table.round, entry_id)] += 1
    doubled = {key: n for key, n in seen.items() if n > 1}
    assert doubled == {}, doubled


def facts_of(t: Tournament, kind: str) -> list[dict[str, Any]]:
    return list(
        TournamentFact.objects.filter(tournament=t, type=kind)
        .order_by("seq")
        .values_list("payload", flat=True)
    )


def active_count(t: Tournament) -> int:
    return TournamentEntry.objects.filter(tournament=t, status=EntryStatus.ACTIVE).count()
