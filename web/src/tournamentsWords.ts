// Tournaments in words (pure): formats, statuses, settings, a table's sides and result, an
// entry's points, the log check's verdict.
import type { BoardTable, Entry, EntryStatus, Tournament, TournamentFormat, TournamentStatus, TournamentTable, TableStatus, TieRule, Verify } from "./tournamentsApi";
import { turnLimitText } from "./correspondence";
import { counted, gettext, interpolate, ngettext } from "./i18n";

export const FORMATS: readonly TournamentFormat[] = ["swiss", "knockout", "arena", "duplicate"];
export const STATUSES: readonly TournamentStatus[] = ["draft", "open", "closed", "running", "finished", "cancelled"];
/** While the standings may still change (polled). */
export const LIVE_STATUSES: readonly TournamentStatus[] = ["open", "closed", "running"];

export function formatName(format: string): string {
  const names: Record<string, string> = {
    swiss: gettext("Swiss"),
    knockout: gettext("Knockout"),
    arena: gettext("Arena"),
    duplicate: gettext("Duplicate"),
  };
  return names[format] ?? format;
}

export function statusName(status: string): string {
  const names: Record<string, string> = {
    draft: gettext("draft"),
    open: gettext("entry open"),
    closed: gettext("entry closed"),
    running: gettext("running"),
    finished: gettext("finished"),
    cancelled: gettext("cancelled"),
  };
  return names[status] ?? status;
}

export function unitName(unit: string): string {
  return unit === "pair" ? gettext("pairs") : gettext("individuals");
}

export function paceName(pace: string): string {
  return pace === "correspondence" ? gettext("correspondence") : gettext("live");
}

export function tieRuleName(rule: TieRule | string): string {
  const names: Record<string, string> = {
    points: gettext("more points over the match"),
    higher_seed: gettext("the higher seed"),
    extra_game: gettext("an extra game"),
  };
  return names[rule] ?? rule;
}

export function scoringName(scoring: string): string {
  return scoring === "imps" ? gettext("IMPs") : gettext("matchpoints");
}

export function entryStatusName(status: EntryStatus | string): string {
  const names: Record<string, string> = {
    active: gettext("active"),
    withdrawn: gettext("withdrawn"),
    disqualified: gettext("disqualified"),
    eliminated: gettext("eliminated"),
  };
  return names[status] ?? status;
}

export function tableStatusName(status: TableStatus | string): string {
  const names: Record<string, string> = {
    proposed: gettext("proposed"),
    pending: gettext("about to be dealt"),
    playing: gettext("playing"),
    finished: gettext("finished"),
    void: gettext("void"),
  };
  return names[status] ?? status;
}

/** Points as the standings show them: whole numbers plain, halves and percentages to two places. */
export function pointsText(points: number): string {
  return Number.isInteger(points) ? String(points) : points.toFixed(2).replace(/0$/, "");
}

/** "Round 2 of 5", "Round 3", "Not started". */
export function roundText(t: Pick<Tournament, "current_round" | "rounds">): string {
  if (t.current_round === 0) return gettext("Not started");
  return t.rounds ? interpolate(gettext("Round %(round)s of %(rounds)s"), { round: t.current_round, rounds: t.rounds }) : interpolate(gettext("Round %(round)s"), { round: t.current_round });
}

/** A date and time in the reader's locale ("" for none). */
export function whenText(iso: string | null | undefined, locale?: string): string {
  if (!iso) return "";
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : d.toLocaleString(locale, { dateStyle: "medium", timeStyle: "short" });
}

/** The settings summary: label and value, only those that apply to the format. */
export function settingsRows(t: Tournament, presetTitle: (p: string) => string): [string, string][] {
  const rows: [string, string][] = [
    [gettext("Format"), `${formatName(t.format)}${t.robot ? ` (${gettext("robot")})` : ""}`],
    [gettext("Entrants"), unitName(t.unit)],
    [gettext("Rules"), presetTitle(t.preset)],
    [gettext("Status"), statusName(t.status)],
    [gettext("Round"), roundText(t)],
  ];
  if (t.format === "swiss" || (t.format === "duplicate" && !t.robot)) rows.push([gettext("Rounds"), t.rounds ? String(t.rounds) : "—"]);
  if (t.format === "duplicate") {
    rows.push([gettext("Boards per round"), String(t.boards_per_round)], [gettext("Scoring"), scoringName(t.duplicate_scoring)]);
  }
  if (t.format === "knockout") {
    rows.push([gettext("Games per match"), String(t.games_per_match)], [gettext("Level matches go to"), tieRuleName(t.tie_rule)]);
  }
  rows.push(
    [gettext("Pace"), paceName(t.pace)],
    [gettext("Turn time"), t.turn_seconds ? turnLimitText(t.turn_seconds) : "—"],
    [gettext("Rated"), t.rated ? gettext("yes") : gettext("no")],
    [gettext("Pairings reviewed by the organiser"), t.pairing_review ? gettext("yes") : gettext("no")],
    [gettext("Entries"), entriesText(t)],
    [gettext("Who may enter"), entryRulesText(t)],
  );
  if (t.starts_at) rows.push([gettext("Starts"), whenText(t.starts_at)]);
  if (t.ends_at) rows.push([gettext("Ends"), whenText(t.ends_at)]);
  rows.push([gettext("Organiser"), t.organiser.display_name]);
  return rows;
}

export function entriesText(t: Pick<Tournament, "entries" | "entry_rules">): string {
  const n = counted(ngettext("%(count)s entry", "%(count)s entries", t.entries), t.entries);
  return t.entry_rules.max_entries ? interpolate(gettext("%(entries)s (at most %(max)s)"), { entries: n, max: t.entry_rules.max_entries }) : n;
}

export function entryRulesText(t: Pick<Tournament, "entry_rules">): string {
  const r = t.entry_rules;
  const parts: string[] = [];
  if (r.invitation_only) parts.push(gettext("invited players"));
  if (r.friends_only) parts.push(gettext("the organiser's friends"));
  if (r.rating_min !== null && r.rating_max !== null) parts.push(interpolate(gettext("rated %(min)s to %(max)s"), { min: r.rating_min, max: r.rating_max }));
  else if (r.rating_min !== null) parts.push(interpolate(gettext("rated at least %(min)s"), { min: r.rating_min }));
  else if (r.rating_max !== null) parts.push(interpolate(gettext("rated at most %(max)s"), { max: r.rating_max }));
  return parts.length ? parts.join(", ") : gettext("anyone");
}

/** A side of a table: its entries' names ("Ada & Bo"). */
export function sideText(table: Pick<TournamentTable, "sides">, side: number): string {
  const names = (table.sides[side] ?? []).map((s) => s.name);
  return names.length ? names.join(" & ") : gettext("bye");
}

/** "Ada vs Bot 3". */
export function pairingText(table: Pick<TournamentTable, "sides">): string {
  if (table.sides.length < 2 || !table.sides[1]?.length) return interpolate(gettext("%(side)s has a bye"), { side: sideText(table, 0) });
  return interpolate(gettext("%(a)s vs %(b)s"), { a: sideText(table, 0), b: sideText(table, 1) });
}

/** "1250 – 840, Ada wins", "draw", "" before the end; a duplicate board's result you may not see yet. */
export function resultText(table: Pick<TournamentTable, "sides" | "scores" | "winner_side" | "status" | "result_hidden">): string {
  if (table.result_hidden) return gettext("result hidden until you play this board");
  if (!table.scores) return "";
  const score = `${table.scores[0]} – ${table.scores[1]}`;
  if (table.winner_side === null) return table.status === "finished" ? interpolate(gettext("%(score)s, a draw"), { score }) : score;
  return interpolate(gettext("%(score)s, %(side)s wins"), { score, side: sideText(table, table.winner_side) });
}

/** Where a table's game is seen: the table while it plays, the replay once over. */
export function gameLink(table: Pick<TournamentTable, "game_id" | "status">): { href: string; text: string } | null {
  if (table.game_id === null) return null;
  if (table.status === "finished" || table.status === "void") return { href: `#/replay/${table.game_id}`, text: gettext("Replay") };
  return { href: `#/game/${table.game_id}`, text: gettext("Watch") };
}

/** A board table's points per side ("62.5% · 37.5%" or IMPs). */
export function boardPointsText(table: Pick<BoardTable, "points">, imps: boolean): string {
  return table.points
    .map((side) =>
      side
        .filter((p): p is number => p !== null)
        .map((p) => (imps ? pointsText(p) : `${pointsText(p)}%`))
        .join(" / ") || "—",
    )
    .join(" · ");
}

/** The log check in words. */
export function verifyText(v: Verify): string {
  if (!v.ok) {
    const parts = [counted(ngettext("The standings do not match the log: %(count)s difference.", "The standings do not match the log: %(count)s differences.", v.mismatched.length), v.mismatched.length)];
    if (v.gaps.length) parts.push(interpolate(gettext("Missing facts: %(seqs)s."), { seqs: v.gaps.join(", ") }));
    return parts.join(" ");
  }
  const base = interpolate(gettext("Verified: the standings of %(entries)s entries are rebuilt from %(facts)s facts of the log."), { entries: v.entries, facts: v.facts });
  if (v.deals_verified === true) return `${base} ${gettext("The revealed deals match the published commitment.")}`;
  if (v.deals_verified === false) return `${base} ${gettext("The revealed deals do not match the published commitment!")}`;
  return base;
}

/** "Entries 1–20 of 45". */
export function standingsPageText(offset: number, shown: number, total: number): string {
  if (!total) return gettext("No entries yet.");
  return interpolate(gettext("Entries %(first)s–%(last)s of %(total)s"), { first: offset + 1, last: offset + shown, total });
}

/** Whether the organiser may still change the field (bots, entry, start). */
export function beforeStart(status: TournamentStatus): boolean {
  return status === "draft" || status === "open" || status === "closed";
}

/** Entries still playing (the organiser may withdraw or disqualify them). */
export function removable(entries: readonly Entry[]): Entry[] {
  return entries.filter((e) => e.status === "active");
}
