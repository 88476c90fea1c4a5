"""A tournament's standings rebuilt from its log, and the check that the kept rows agree.

The fold reads the facts in order into ``competition.pairing.standings.Standings`` (an
implementation of its own, independent of the services' row updates): ``registered`` adds a
unit, ``withdrawn``/``disqualified`` flag it, ``result`` and ``board_scored`` record each
entry's result, ``bye`` a bye. ``tournament_verify`` compares every entry's kept points,
tie-breaks, difference and games with the fold's: a tournament is verified like a game.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from competition.models import Tournament, TournamentEntry, TournamentFact
from competition.pairing.duplicate import deal_set_verify
from competition.pairing.standings import Standings

# Kept rows and the fold may differ in the last digits of sums of percentages.
TOLERANCE = 1e-4
RESULT_FACTS = ("result", "board_scored")


def standings_fold(tournament: Tournament) -> Standings:
    """The standings the log's facts give, in order."""
    standings = Standings()
    facts = TournamentFact.objects.filter(tournament=tournament).order_by("seq")
    for fact in facts.iterator(chunk_size=2000):
        payload = fact.payload
        if fact.type == "registered":
            standings.add_unit(int(payload["entry"]), float(payload.get("rating") or 0.0))
        elif fact.type in ("withdrawn", "disqualified"):
            standings.withdraw(int(payload["entry"]))
        elif fact.type in RESULT_FACTS:
            for r in payload["records"]:
                standings.record(
                    int(r["entry"]),
                    [int(o) for o in r["opponents"]],
                    float(r["points"]),
                    float(r["score"]),
                    int(r["score_diff"]),
                )
        elif fact.type == "bye":
            standings.bye(int(payload["entry"]), float(payload["points"]))
    return standings


@dataclass
class TournamentReport:
    facts: int
    entries: int
    mismatched: list[dict[str, Any]] = field(default_factory=list)
    gaps: list[int] = field(default_factory=list)
    deals_verified: bool | None = None

    @property
    def ok(self) -> bool:
        return not self.mismatched and not self.gaps and self.deals_verified is not False


FIELDS = ("points", "buchholz", "sonneborn_berger", "score_diff", "played")


def tournament_verify(tournament: Tournament) -> TournamentReport:
    """Fold the log and compare with the kept rows; check the facts are numbered 1..version
    without a gap, and, once a duplicate's deal set is revealed, that it hashes to the
    commitment published at creation."""
    seqs = list(
        TournamentFact.objects.filter(tournament=tournament)
        .order_by("seq")
        .values_list("seq", flat=True)
    )
    gaps = [n for n, seq in enumerate(seqs, start=1) if n != seq][:10]
    version = Tournament.objects.filter(pk=tournament.pk).values_list("version", flat=True).get()
    if seqs and seqs[-1] != version:
        gaps.append(version)
    fold = standings_fold(tournament)
    report = TournamentReport(facts=len(seqs), entries=len(fold), gaps=gaps)
    rows = TournamentEntry.objects.filter(tournament=tournament).values("pk", *FIELDS)
    for row in rows.iterator(chunk_size=2000):
        try:
            folded = fold.row(row["pk"])
        except KeyError:
            report.mismatched.append(
                {"entry": row["pk"], "field": "entry", "kept": "present", "log": "absent"}
            )
            continue
        for name in FIELDS:
            kept, logged = row[name], getattr(folded, name)
            if abs(float(kept) - float(logged)) > TOLERANCE:
                report.mismatched.append(
                    {"entry": row["pk"], "field": name, "kept": kept, "log": logged}
                )
    revealed = (
        TournamentFact.objects.filter(tournament=tournament, type="deals_revealed")
        .values_list("payload", flat=True)
        .first()
    )
    if tournament.deal_commitment:
        created = (
            TournamentFact.objects.filter(tournament=tournament, type="created")
            .values_list("payload", flat=True)
            .first()
            or {}
        )
        published = created.get("deal_commitment")
        if revealed is not None:
            report.deals_verified = published == tournament.deal_commitment and deal_set_verify(
                revealed["seeds"], published or ""
            )
    return report
