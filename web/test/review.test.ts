import { describe as suite, expect, it } from "vitest";
import {
  decisionAt,
  decisionWords,
  markAt,
  markLabel,
  marks,
  nextMark,
  pointsText,
  positionOf,
  previousMark,
  type Review,
  type ReviewDecision,
  ReviewPoller,
  reviewableSeats,
  finishedRounds,
  mayAsk,
  reviewButtonText,
  statusText,
  summaryText,
  type Timers,
} from "../src/review";
import { actionCards, actionText } from "../src/words";

function decision(step: number, severity: ReviewDecision["severity"], loss: number, extra: Partial<ReviewDecision> = {}): ReviewDecision {
  return {
    step,
    round: 1,
    turn: step,
    phase: "play",
    chosen: { type: "discard", card: "7H" },
    best: { type: "discard", card: "KS" },
    loss,
    severity,
    reason: null,
    candidates: [],
    ...extra,
  };
}

function review(decisions: ReviewDecision[], status: Review["status"] = "ready"): Review {
  return {
    game: 5,
    seat: 0,
    status,
    through_round: 1,
    requested_at: "2026-11-27T12:00:00Z",
    finished_at: status === "ready" ? "2026-11-27T12:00:03Z" : null,
    engine: "ismcts",
    cpu_seconds: 2.5,
    summary: { decisions: decisions.length, inaccuracies: 1, mistakes: 1, blunders: 1, total_loss: 152.46 },
    decisions,
  };
}

const DECISIONS = [
  decision(30, "blunder", 120),
  decision(4, "ok", 0, { chosen: { type: "draw" }, best: { type: "draw" } }),
  decision(12, "inaccuracy", 8.04),
  decision(20, "mistake", 24.4, { reason: "The pile was frozen: keep the 7s." }),
];

suite("review marks", () => {
  it("puts a decision at the position before it (step - 1, never before 1)", () => {
    expect(positionOf({ step: 30 })).toBe(29);
    expect(positionOf({ step: 1 })).toBe(1);
  });
  it("marks mistakes and blunders in step order, inaccuracies on request", () => {
    expect(marks(review(DECISIONS)).map((m) => [m.at, m.decision.severity])).toEqual([
      [19, "mistake"],
      [29, "blunder"],
    ]);
    expect(marks(review(DECISIONS), true).map((m) => m.at)).toEqual([11, 19, 29]);
    expect(marks(null)).toEqual([]);
  });
  it("finds the mark and the decision at a step", () => {
    const list = marks(review(DECISIONS));
    expect(markAt(list, 19)?.decision.step).toBe(20);
    expect(markAt(list, 20)).toBeUndefined();
    expect(decisionAt(review(DECISIONS), 3)?.severity).toBe("ok"); // unmarked, still explained
    expect(decisionAt(review(DECISIONS), 5)).toBeUndefined();
  });
  it("jumps to the next and previous mistake", () => {
    const list = marks(review(DECISIONS));
    expect(nextMark(list, 1)?.at).toBe(19);
    expect(nextMark(list, 19)?.at).toBe(29);
    expect(nextMark(list, 29)).toBeUndefined();
    expect(previousMark(list, 29)?.at).toBe(19);
    expect(previousMark(list, 19)).toBeUndefined();
    expect(previousMark(list, 100)?.at).toBe(29);
  });
});

suite("review words", () => {
  it("sums the review up", () => {
    expect(summaryText(review(DECISIONS).summary!)).toBe(
      "4 decisions: 1 inaccuracy, 1 mistake, 1 blunder; 152.5 points lost in all.",
    );
    expect(summaryText({ decisions: 1, inaccuracies: 0, mistakes: 2, blunders: 0, total_loss: 1 })).toBe(
      "1 decision: 0 inaccuracies, 2 mistakes, 0 blunders; 1 point lost in all.",
    );
    expect(pointsText(8.04)).toBe("8 points");
  });
  it("says the chosen and the best move, the loss and the reason", () => {
    const w = decisionWords(DECISIONS[3]);
    expect(w.chosen).toBe("Discard 7♥");
    expect(w.best).toBe("Discard K♠");
    expect(w.verdict).toBe("Round 1: a mistake, 24.4 points lost.");
    expect(w.reason).toBe("The pile was frozen: keep the 7s.");
    expect(decisionWords({ ...DECISIONS[0], reason: "went out too soon" }).reason).toBe("Went out too soon.");
    expect(decisionWords(DECISIONS[0]).reason).toBe("");
    const best = decisionWords(DECISIONS[1]);
    expect(best.best).toBe("the same move");
    expect(best.verdict).toBe("Round 1: a good move.");
    expect(markLabel(marks(review(DECISIONS))[1])).toBe("Step 29, round 1: Discard 7♥ — blunder, −120 points");
  });
  it("says every move of the API in words", () => {
    expect(actionText({ type: "draw" })).toBe("Draw from the stock");
    expect(actionText({ type: "meld", melds: [{ cards: ["KS", "KH", "2C"] }] })).toBe("Meld K♠ K♥ 2♣");
    expect(actionText({ type: "take_pile", cards: ["7S", "7D"], melds: [] })).toBe("Take pile with 7♠ 7♦");
    expect(actionText({ type: "take_pile", cards: [] })).toBe("Take pile (lay top card off)");
    expect(actionText({ type: "answer_partner", allow: false })).toBe("Answer no (partner may not go out)");
    expect(actionText({ type: "end_round" })).toBe("End the round");
    expect(actionText({ type: "something_new" })).toBe("something new");
    expect(actionCards({ type: "take_pile", cards: ["7S"], melds: [{ cards: ["KS", "KH", "KD"] }] })).toEqual(["7S", "KS", "KH", "KD"]);
  });
  it("says the review's status", () => {
    expect(statusText(null)).toBe("");
    expect(statusText({ status: "pending", through_round: 1 })).toMatch(/^Reviewing/);
    expect(statusText({ status: "ready", through_round: 1 })).toBe("Review ready (round 1).");
    expect(statusText({ status: "ready", through_round: 3 })).toBe("Review ready (rounds 1 to 3).");
    expect(statusText({ status: "failed", through_round: 1 })).toMatch(/failed/);
  });
});

suite("who may be reviewed", () => {
  const seats = [{ index: 0 }, { index: 1 }, { index: 2 }, { index: 3 }];
  it("while the game runs, only your own seat", () => {
    expect(reviewableSeats({ status: "active", your_seat: 2, is_public: true, seats })).toEqual([2]);
    expect(reviewableSeats({ status: "active", your_seat: null, is_public: true, seats })).toEqual([]);
    expect(reviewableSeats({ status: "lobby", your_seat: 0, is_public: true, seats })).toEqual([]);
  });
  it("after the game, any seat for its players and for anyone at a public table", () => {
    expect(reviewableSeats({ status: "finished", your_seat: 1, is_public: false, seats })).toEqual([0, 1, 2, 3]);
    expect(reviewableSeats({ status: "finished", your_seat: null, is_public: true, seats })).toEqual([0, 1, 2, 3]);
    expect(reviewableSeats({ status: "finished", your_seat: null, is_public: false, seats })).toEqual([]);
  });
  it("offers to ask once a round has finished, again after a failure or more rounds", () => {
    const ended = { effects: [{ kind: "card_discarded" }, { kind: "round_ended" }] };
    const events = [{ effects: [{ kind: "round_started" }] }, ended, { effects: [] }, ended];
    expect(finishedRounds(events)).toBe(2);
    expect(finishedRounds([])).toBe(0);
    expect(mayAsk(null, 0)).toBe(false);
    expect(mayAsk(null, 1)).toBe(true);
    expect(mayAsk({ status: "pending", through_round: 1 }, 1)).toBe(false);
    expect(mayAsk({ status: "ready", through_round: 1 }, 1)).toBe(false);
    expect(mayAsk({ status: "ready", through_round: 1 }, 2)).toBe(true);
    expect(mayAsk({ status: "failed", through_round: 1 }, 1)).toBe(true);
  });
  it("names the button", () => {
    expect(reviewButtonText(1, 1)).toBe("Review my play");
    expect(reviewButtonText(2, 1)).toBe("Review seat 3");
  });
});

/** Timers run by hand: run() fires what is due. */
function manualTimers(): Timers & { pending: Map<number, () => void>; run(): Promise<void> } {
  const pending = new Map<number, () => void>();
  let next = 1;
  return {
    pending,
    set(fn) {
      pending.set(next, fn);
      return next++;
    },
    clear(handle) {
      pending.delete(handle as number);
    },
    async run() {
      const due = [...pending.entries()];
      pending.clear();
      for (const [, fn] of due) fn();
      await new Promise((r) => setTimeout(r, 0));
    },
  };
}

suite("following a pending review", () => {
  it("polls until the review is ready, then stops", async () => {
    const timers = manualTimers();
    const answers: Review[] = [review([], "pending"), review(DECISIONS, "ready")];
    const seen: string[] = [];
    let reads = 0;
    const poller = new ReviewPoller(async () => answers[reads++], (r) => seen.push(r.status), () => {}, 2000, timers);
    poller.start();
    expect(timers.pending.size).toBe(1);
    await timers.run();
    expect(seen).toEqual(["pending"]);
    expect(timers.pending.size).toBe(1);
    await timers.run();
    expect(seen).toEqual(["pending", "ready"]);
    expect(timers.pending.size).toBe(0);
    expect(poller.running).toBe(false);
  });
  it("stops when the page leaves, even with a read under way", async () => {
    const timers = manualTimers();
    const seen: string[] = [];
    let release: (r: Review) => void = () => {};
    const poller = new ReviewPoller(
      () => new Promise<Review>((resolve) => (release = resolve)),
      (r) => seen.push(r.status),
      () => {},
      2000,
      timers,
    );
    poller.start();
    await timers.run(); // a read goes out
    poller.stop();
    release(review(DECISIONS, "ready"));
    await new Promise((r) => setTimeout(r, 0));
    expect(seen).toEqual([]);
    expect(timers.pending.size).toBe(0);
    expect(poller.running).toBe(false);
  });
  it("keeps polling after a failed read", async () => {
    const timers = manualTimers();
    const errors: unknown[] = [];
    let reads = 0;
    const poller = new ReviewPoller(
      async () => {
        reads++;
        if (reads === 1) throw new Error("offline");
        return review(DECISIONS, "failed");
      },
      () => {},
      (err) => errors.push(err),
      2000,
      timers,
    );
    poller.start();
    await timers.run();
    expect(errors).toHaveLength(1);
    expect(timers.pending.size).toBe(1);
    await timers.run();
    expect(reads).toBe(2);
    expect(poller.running).toBe(false);
  });
});
