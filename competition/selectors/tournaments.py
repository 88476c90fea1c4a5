"""Tournaments as players and organisers read them: the list, one event, its standings, a
round's tables, the log, your next game, and a duplicate's boards.

Nothing here names a card. A duplicate event's deal set is shown only once revealed (its
commitment from the start); its games are private tables until then
(``competition.subscriptions.reveal_held``).
"""

from __future__ import annotations

from typing import Any

from django.db.models import Count, Q, QuerySet

from accounts.models import Player
from competition import errors
from competition.models import (
    EntryStatus,
    TableStatus,
    Tournament,
    TournamentEntry,
    TournamentFact,
    TournamentFormat,
    TournamentStatus,
    TournamentTable,
)
from competition.selectors.ratings import OFFSET_MAX

LIST_LIMIT_DEFAULT, LIST_LIMIT_MAX = 20, 100
STANDINGS_LIMIT_DEFAULT, STANDINGS_LIMIT_MAX = 50, 200
TABLES_LIMIT_DEFAULT, TABLES_LIMIT_MAX = 100, 500
FACTS_LIMIT_DEFAULT, FACTS_LIMIT_MAX = 100, 500
__all__ = ["OFFSET_MAX"]

STANDING_ORDER = ("-points", "-buchholz", "-sonneborn_berger", "-score_diff", "-rating", "pk")
VISIBLE_STATUSES = (
    TournamentStatus.OPEN,
    TournamentStatus.CLOSED,
    TournamentStatus.RUNNING,
    TournamentStatus.FINISHED,
    TournamentStatus.CANCELLED,
)


def tournament_get(tournament_id: int, player: Player | None = None) -> Tournament:
    """A tournament anyone may read (a draft only by its organiser: 404 to others)."""
    found = Tournament.objects.select_related("organiser").filter(pk=tournament_id).first()
    if found is None:
        raise errors.TournamentNotFound()
    if found.status == TournamentStatus.DRAFT and (
        player is None or player.pk != found.organiser_id
    ):
        raise errors.TournamentNotFound()
    return found


def deals_revealed_seeds(t: Tournament) -> list[str] | None:
    payload = (
        TournamentFact.objects.filter(tournament=t, type="deals_revealed")
        .values_list("payload", flat=True)
        .first()
    )
    return None if payload is None else list(payload["seeds"])


def boards_unseen(t: Tournament, player: Player | None) -> set[int]:
    """The boards of a duplicate event whose results ``player`` may not see yet: until the
    deal set is revealed, a table's result on a board is shown once every table of the board
    has played it (the board is scored) or the viewer's own entry has played it. A result
    tells of the cards (a board that gave one side thousands of points), so someone yet to
    play the board must not learn it from another table. Empty for other formats."""
    if t.format != TournamentFormat.DUPLICATE or not t.deal_seeds:
        return set()
    if deals_revealed_seeds(t) is not None:
        return set()
    scored = TournamentFact.objects.filter(tournament=t, type="board_scored").values_list(
        "payload__board", flat=True
    )  # the board numbers alone: the facts' records are as long as the field
    return _unplayed_by(t, player, {int(b) for b in scored})


def _boards_scored(t: Tournament) -> dict[int, dict[int, float]]:
    """Each scored board's points by entry (its ``board_scored`` fact)."""
    scored: dict[int, dict[int, float]] = {}
    for payload in TournamentFact.objects.filter(tournament=t, type="board_scored").values_list(
        "payload", flat=True
    ):
        scored[int(payload["board"])] = {
            int(r["entry"]): float(r["points"]) for r in payload["records"]
        }
    return scored


def _unplayed_by(t: Tournament, player: Player | None, scored: set[int]) -> set[int]:
    """The boards not yet scored that ``player`` has not played either."""
    unseen = set(range(1, len(t.deal_seeds) + 1)) - scored
    if player is not None and unseen:
        # The boards whose game the viewer sat at (a pair's partner sits too): by the seats'
        # player index, not a scan of every table of the day.
        unseen -= set(
            TournamentTable.objects.filter(
                tournament=t,
                status=TableStatus.FINISHED,
                board__in=unseen,
                game__seats__player=player,
            ).values_list("board", flat=True)
        )
    return unseen


def tournament_doc(t: Tournament, player: Player | None) -> dict[str, Any]:
    counts = TournamentEntry.objects.filter(tournament=t).aggregate(
        active=Count("pk", filter=Q(status=EntryStatus.ACTIVE)), total=Count("pk")
    )
    mine = None
    if player is not None:
        entry = (
            TournamentEntry.objects.filter(tournament=t)
            .filter(Q(player=player) | Q(partner=player))
            .first()
        )
        mine = None if entry is None else entry_doc(entry)
    return {
        "id": t.pk,
        "name": t.name,
        "description": t.description,
        "organiser": {"id": t.organiser_id, "display_name": t.organiser.display_name},
        "format": t.format,
        "unit": t.unit,
        "preset": t.preset,
        "options": t.options,
        "players_per_table": t.players_per_table,
        "rated": t.rated,
        "rounds": t.rounds,
        "boards_per_round": t.boards_per_round,
        "duplicate_scoring": t.duplicate_scoring,
        "robot": t.robot,
        "games_per_match": t.games_per_match,
        "tie_rule": t.tie_rule,
        "pace": t.pace,
        "turn_seconds": t.turn_seconds,
        "round_interval_seconds": t.round_interval_seconds,
        "pairing_review": t.pairing_review,
        "bot_level": t.bot_level,
        "entry_rules": {
            "rating_min": t.rating_min,
            "rating_max": t.rating_max,
            "invitation_only": t.invitation_only,
            "friends_only": t.friends_only,
            "max_entries": t.max_entries,
        },
        "starts_at": t.starts_at,
        "ends_at": t.ends_at,
        "status": t.status,
        "current_round": t.current_round,
        "version": t.version,
        "entries": counts["active"],
        "entries_total": counts["total"],
        "deal_commitment": t.deal_commitment or None,
        "deal_seeds": deals_revealed_seeds(t) if t.deal_commitment else None,
        "your_entry": mine,
        "created_at": t.created_at,
        "started_at": t.started_at,
        "finished_at": t.finished_at,
    }


def tournaments_page(
    *,
    player: Player | None,
    status: str | None,
    format: str | None,
    mine: bool,
    limit: int,
    offset: int,
) -> dict[str, Any]:
    """Tournaments newest first: every one but drafts (one's own drafts with ``mine``)."""
    rows: QuerySet[Tournament] = Tournament.objects.select_related("organiser")
    if mine and player is not None:
        rows = rows.filter(
            Q(organiser=player) | Q(entries__player=player) | Q(entries__partner=player)
        ).distinct()
    else:
        rows = rows.filter(status__in=VISIBLE_STATUSES)
    if status:
        rows = rows.filter(status=status)
    if format:
        rows = rows.filter(format=format)
    total = rows.count()
    page = list(rows.order_by("-created_at", "-pk")[offset : offset + limit])
    counts = dict(
        TournamentEntry.objects.filter(tournament__in=page, status=EntryStatus.ACTIVE)
        .values("tournament")
        .annotate(n=Count("pk"))
        .values_list("tournament", "n")
    )
    return {
        "total": total,
        "offset": offset,
        "results": [
            {
                "id": t.pk,
                "name": t.name,
                "format": t.format,
                "unit": t.unit,
                "preset": t.preset,
                "rated": t.rated,
                "robot": t.robot,
                "pace": t.pace,
                "status": t.status,
                "organiser": {"id": t.organiser_id, "display_name": t.organiser.display_name},
                "entries": counts.get(t.pk, 0),
                "current_round": t.current_round,
                "rounds": t.rounds,
                "starts_at": t.starts_at,
                "ends_at": t.ends_at,
            }
            for t in page
        ],
    }


def entry_doc(entry: TournamentEntry, rank: int | None = None) -> dict[str, Any]:
    return {
        "id": entry.pk,
        "rank": rank,
        "name": entry.name,
        "players": entry.player_ids,
        "bot_level": entry.bot_level,
        "rating": round(entry.rating),
        "seed": entry.seed,
        "status": entry.status,
        "points": entry.points,
        "buchholz": entry.buchholz,
        "sonneborn_berger": entry.sonneborn_berger,
        "score_diff": entry.score_diff,
        "played": entry.played,
        "byes": entry.byes,
    }


def standings_page(t: Tournament, *, limit: int, offset: int) -> dict[str, Any]:
    """The standings from ``offset``: by points, Buchholz, Sonneborn-Berger, point
    difference, rating; ranks follow from the order (the index on the tournament's rows)."""
    rows = TournamentEntry.objects.filter(tournament=t).exclude(
        status__in=(EntryStatus.WITHDRAWN, EntryStatus.DISQUALIFIED), played=0, byes=0
    )
    total = rows.count()
    page = list(rows.order_by(*STANDING_ORDER)[offset : offset + limit])
    return {
        "tournament": t.pk,
        "version": t.version,
        "status": t.status,
        "total": total,
        "offset": offset,
        "results": [entry_doc(e, offset + n) for n, e in enumerate(page, start=1)],
    }


def _names(ids: set[int]) -> dict[int, str]:
    return dict(TournamentEntry.objects.filter(pk__in=ids).values_list("pk", "name"))


def table_doc(
    table: TournamentTable, names: dict[int, str], unseen: set[int] | frozenset[int] = frozenset()
) -> dict[str, Any]:
    """A table; its result left out (null) when its board is one of ``unseen``."""
    hidden = table.board is not None and table.board in unseen
    return {
        "id": table.pk,
        "round": table.round,
        "number": table.number,
        "leg": table.leg,
        "board": table.board,
        "status": table.status,
        "game_id": table.game_id,
        "sides": [[{"entry": e, "name": names.get(e, "")} for e in side] for side in table.sides],
        "scores": None if hidden else table.scores,
        "winner_side": None if hidden else table.winner_side,
        "result_hidden": hidden and table.status == TableStatus.FINISHED,
        "due_at": table.due_at,
    }


def tables_page(
    t: Tournament, player: Player | None, *, round_no: int | None, limit: int, offset: int
) -> dict[str, Any]:
    """A round's tables (default: the current round), by number and game of the match, as
    ``player`` may see them (``boards_unseen``)."""
    round_no = t.current_round if round_no is None else round_no
    rows = TournamentTable.objects.filter(tournament=t, round=round_no)
    total = rows.count()
    page = list(rows.order_by("number", "leg")[offset : offset + limit])
    names = _names({e for table in page for side in table.sides for e in side})
    unseen = boards_unseen(t, player)
    return {
        "tournament": t.pk,
        "round": round_no,
        "total": total,
        "offset": offset,
        "results": [table_doc(table, names, unseen) for table in page],
    }


def next_game(t: Tournament, player: Player) -> dict[str, Any]:
    """``player``'s table in play or about to be dealt (null: none now)."""
    entry = (
        TournamentEntry.objects.filter(tournament=t)
        .filter(Q(player=player) | Q(partner=player))
        .first()
    )
    if entry is None:
        raise errors.NotRegistered()
    open_tables = TournamentTable.objects.filter(
        tournament=t, status__in=(TableStatus.PENDING, TableStatus.PLAYING)
    ).order_by("round", "number", "leg")
    found = None
    for table in open_tables.iterator(chunk_size=500):
        if any(entry.pk in side for side in table.sides):
            found = table
            break
    names = _names({e for side in found.sides for e in side}) if found else {}
    return {
        "tournament": t.pk,
        "entry": entry_doc(entry),
        "table": table_doc(found, names) if found else None,
    }


def facts_page(t: Tournament, player: Player | None, *, after: int, limit: int) -> dict[str, Any]:
    """The log from ``after`` + 1. A duplicate's seeds appear only in ``deals_revealed``; a
    ``game_finished`` of a board ``player`` may not see yet has its result left out."""
    rows = list(TournamentFact.objects.filter(tournament=t, seq__gt=after).order_by("seq")[:limit])
    unseen = boards_unseen(t, player)
    return {
        "tournament": t.pk,
        "version": t.version,
        "facts": [
            {
                "seq": f.seq,
                "type": f.type,
                "payload": _fact_payload_shown(f, unseen),
                "created_at": f.created_at,
            }
            for f in rows
        ],
    }


def _fact_payload_shown(fact: TournamentFact, unseen: set[int]) -> dict[str, Any]:
    payload: dict[str, Any] = fact.payload
    if fact.type == "game_finished" and payload.get("board") in unseen:
        return {**payload, "scores": None, "winner_side": None, "result_hidden": True}
    return payload


def boards_doc(t: Tournament, player: Player | None) -> dict[str, Any]:
    """A duplicate event's boards: every table's result on each board and the points it
    scored, the commitment, and (once revealed) each board's seed; the results of a board
    ``player`` may not see yet are left out (``boards_unseen``)."""
    if t.format != TournamentFormat.DUPLICATE:
        raise errors.TournamentNotFound("This tournament is not a duplicate event.")
    seeds = deals_revealed_seeds(t)
    scored = _boards_scored(t)
    tables = list(
        TournamentTable.objects.filter(tournament=t, board__isnull=False).order_by(
            "board", "number"
        )
    )
    names = _names({e for table in tables for side in table.sides for e in side})
    unseen = set() if seeds is not None else _unplayed_by(t, player, set(scored))
    boards: dict[int, list[dict[str, Any]]] = {}
    for table in tables:
        assert table.board is not None
        doc = table_doc(table, names, unseen)
        points = scored.get(table.board, {})
        doc["points"] = [[points.get(e) for e in side] for side in table.sides]
        boards.setdefault(table.board, []).append(doc)
    return {
        "tournament": t.pk,
        "deal_commitment": t.deal_commitment or None,
        "revealed": seeds is not None,
        "boards": [
            {
                "board": board,
                "seed": seeds[board - 1] if seeds else None,
                "scored": board in scored,
                "tables": boards.get(board, []),
            }
            for board in range(1, len(t.deal_seeds) + 1)
        ],
    }
