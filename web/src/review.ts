// A seat's review in words (pure): which replay steps to mark, the summary line, a decision's
// chosen and best moves, jumps to the next and previous mistake, which seats may be reviewed,
// and the poll that follows a pending review (GET /games/{id}/review/?seat=n every 2 s).
//
// A decision's `step` is the move log's seq of the move chosen; the replay shows the position
// before that decision at step `step - 1` (the table as the seat saw it when choosing), so the
// mark sits there.
import type { components } from "./api-types";
import { counted, gettext, gettext_noop, interpolate, ngettext, translate } from "./i18n";
import { actionText } from "./words";

type S = components["schemas"];
/** The review of a seat (`GET /games/{id}/review/?seat=n`), its decisions and its summary. */
export type Review = S["GameReview"];
export type ReviewDecision = S["ReviewDecision"];
export type ReviewSummary = S["ReviewSummary"];
export type ReviewStatus = Review["status"];
export type Severity = ReviewDecision["severity"];

/** One marked replay position. */
export interface Mark {
  /** The replay step showing the position before the decision. */
  at: number;
  decision: ReviewDecision;
}

const RANK: Record<Severity, number> = { ok: 0, inaccuracy: 1, mistake: 2, blunder: 3 };

/** The replay step where a decision is shown: the position before it (never before step 1). */
export function positionOf(d: Pick<ReviewDecision, "step">): number {
  return Math.max(1, d.step - 1);
}

/** The decisions to mark, in step order: mistakes and blunders, and inaccuracies when asked. */
export function marks(review: Pick<Review, "decisions"> | null, withInaccuracies = false): Mark[] {
  const least = withInaccuracies ? RANK.inaccuracy : RANK.mistake;
  return (review?.decisions ?? [])
    .filter((d) => (RANK[d.severity] ?? 0) >= least)
    .map((d) => ({ at: positionOf(d), decision: d }))
    .sort((a, b) => a.at - b.at);
}

/** The mark at a replay step, if any. */
export function markAt(list: readonly Mark[], step: number): Mark | undefined {
  return list.find((m) => m.at === step);
}

/** The reviewed decision shown at a replay step, marked or not (every severity). */
export function decisionAt(review: Pick<Review, "decisions"> | null, step: number): ReviewDecision | undefined {
  return review?.decisions.find((d) => positionOf(d) === step);
}

/** The first mark after ``step`` (the next mistake), or undefined. */
export function nextMark(list: readonly Mark[], step: number): Mark | undefined {
  return list.find((m) => m.at > step);
}

/** The last mark before ``step`` (the previous mistake), or undefined. */
export function previousMark(list: readonly Mark[], step: number): Mark | undefined {
  for (let i = list.length - 1; i >= 0; i--) if (list[i].at < step) return list[i];
  return undefined;
}

/** Points in words: "1 point", "12.5 points" (a loss is an expected value: one decimal). */
export function pointsText(points: number): string {
  const rounded = Math.round(points * 10) / 10;
  return counted(ngettext("%(count)s point", "%(count)s points", rounded), rounded);
}

/** "24 decisions: 3 inaccuracies, 2 mistakes, 1 blunder; 140 points lost in all." */
export function summaryText(s: ReviewSummary): string {
  return interpolate(gettext("%(decisions)s: %(inaccuracies)s, %(mistakes)s, %(blunders)s; %(points)s lost in all."), {
    decisions: counted(ngettext("%(count)s decision", "%(count)s decisions", s.decisions), s.decisions),
    inaccuracies: counted(ngettext("%(count)s inaccuracy", "%(count)s inaccuracies", s.inaccuracies), s.inaccuracies),
    mistakes: counted(ngettext("%(count)s mistake", "%(count)s mistakes", s.mistakes), s.mistakes),
    blunders: counted(ngettext("%(count)s blunder", "%(count)s blunders", s.blunders), s.blunders),
    points: pointsText(s.total_loss),
  });
}

const SEVERITY_WORD: Record<Severity, string> = {
  ok: gettext_noop("a good move"),
  inaccuracy: gettext_noop("an inaccuracy"),
  mistake: gettext_noop("a mistake"),
  blunder: gettext_noop("a blunder"),
};

const SEVERITY_NAME: Record<Severity, string> = {
  ok: gettext_noop("ok"),
  inaccuracy: gettext_noop("inaccuracy"),
  mistake: gettext_noop("mistake"),
  blunder: gettext_noop("blunder"),
};

/** A severity's one word: "mistake", "blunder". */
export function severityName(s: Severity): string {
  return SEVERITY_NAME[s] ? translate(SEVERITY_NAME[s]) : s;
}

export function severityWord(s: Severity): string {
  return SEVERITY_WORD[s] ? translate(SEVERITY_WORD[s]) : s;
}

/** A decision in words: what was played, what was best, what it cost and why. */
export interface DecisionWords {
  chosen: string;
  best: string;
  verdict: string;
  reason: string;
}

/** The reviewer's reason as a sentence: "went out too soon" → "Went out too soon." */
export function reasonText(reason: string | null | undefined): string {
  const r = (reason ?? "").trim();
  if (!r) return "";
  return `${r[0].toUpperCase()}${r.slice(1)}${/[.!?]$/.test(r) ? "" : "."}`;
}

export function decisionWords(d: ReviewDecision): DecisionWords {
  const same = d.loss <= 0 || actionText(d.chosen) === actionText(d.best);
  return {
    chosen: actionText(d.chosen),
    best: same ? gettext("the same move") : actionText(d.best),
    verdict: same
      ? interpolate(gettext("Round %(round)s: %(severity)s."), { round: d.round, severity: severityWord(d.severity) })
      : interpolate(gettext("Round %(round)s: %(severity)s, %(points)s lost."), { round: d.round, severity: severityWord(d.severity), points: pointsText(d.loss) }),
    reason: reasonText(d.reason),
  };
}

/** A mark's one-line label for the list of marked steps. */
export function markLabel(m: Mark): string {
  const d = m.decision;
  const severity = severityName(d.severity);
  return `${interpolate(gettext("Step %(step)s, round %(round)s:"), { step: m.at, round: d.round })} ${actionText(d.chosen)} — ${severity}, −${pointsText(d.loss)}`;
}

/** What the review's status line says. */
export function statusText(review: Pick<Review, "status" | "through_round"> | null): string {
  if (!review) return "";
  switch (review.status) {
    case "pending":
      return gettext("Reviewing… the engine is looking at each of the decisions; this page checks every 2 seconds.");
    case "ready":
      return review.through_round === 1
        ? gettext("Review ready (round 1).")
        : interpolate(gettext("Review ready (rounds 1 to %(round)s)."), { round: review.through_round });
    case "failed":
      return gettext("The review failed. Try again later.");
    default:
      return String(review.status);
  }
}

/** The seats this viewer may have reviewed: while the game runs only your own; once it is
 * over every seat, to a player who sat at the table, and to anyone at a public table. */
export function reviewableSeats(
  g: { status: string; your_seat: number | null; is_public: boolean; seats: readonly { index: number }[] },
): number[] {
  if (g.status === "finished") {
    return g.your_seat !== null || g.is_public ? g.seats.map((s) => s.index) : [];
  }
  if (g.status === "active") return g.your_seat !== null ? [g.your_seat] : [];
  return [];
}

/** The review button's words for a seat. */
export function reviewButtonText(seat: number, yourSeat: number | null): string {
  return seat === yourSeat ? gettext("Review my play") : interpolate(gettext("Review seat %(seat)s"), { seat: seat + 1 });
}

/** How many rounds a move log has finished (its `round_ended` effects). */
export function finishedRounds(events: readonly { effects: readonly { kind: string }[] }[]): number {
  return events.reduce((n, ev) => n + ev.effects.filter((e) => e.kind === "round_ended").length, 0);
}

/** Whether to offer asking for the review: none yet, a failed one (asking again retries), or
 * a ready one that covers fewer rounds than have finished since. Never before a round ended. */
export function mayAsk(review: Pick<Review, "status" | "through_round"> | null, finished: number): boolean {
  if (finished === 0) return false;
  if (!review) return true;
  if (review.status === "failed") return true;
  return review.status === "ready" && review.through_round < finished;
}

export interface Timers {
  set(fn: () => void, ms: number): unknown;
  clear(handle: unknown): void;
}

const browserTimers: Timers = {
  set: (fn, ms) => setTimeout(fn, ms),
  clear: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

/** Follows a pending review: reads it every ``interval`` ms until it is ready or failed, or
 * until stop() (the page left). An error of a read is passed on and the polling goes on. */
export class ReviewPoller {
  private handle: unknown = null;
  private stopped = true;

  constructor(
    private readonly read: () => Promise<Review>,
    private readonly onUpdate: (review: Review) => void,
    private readonly onError: (err: unknown) => void = () => {},
    private readonly interval = 2000,
    private readonly timers: Timers = browserTimers,
  ) {}

  /** Started and not yet stopped (by stop(), or by a review no longer pending). */
  get running(): boolean {
    return !this.stopped;
  }

  start(): void {
    this.stopped = false;
    this.schedule();
  }

  stop(): void {
    this.stopped = true;
    if (this.handle !== null) this.timers.clear(this.handle);
    this.handle = null;
  }

  private schedule(): void {
    if (this.stopped) return;
    this.handle = this.timers.set(() => void this.tick(), this.interval);
  }

  private async tick(): Promise<void> {
    this.handle = null;
    if (this.stopped) return;
    let review: Review;
    try {
      review = await this.read();
    } catch (err) {
      if (this.stopped) return;
      this.onError(err);
      this.schedule();
      return;
    }
    if (this.stopped) return;
    this.onUpdate(review);
    if (review.status === "pending") this.schedule();
    else this.stopped = true;
  }
}
