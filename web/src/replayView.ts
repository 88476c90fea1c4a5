// Step-by-step replay of a game. With the replay service (GET /games/{id}/replay/?at=N) each
// step is the server's own rebuild of the table (every hand once the game is finished); without
// it the table is rebuilt here from the move log (GET /games/{id}/events/) as you may see it.
import { announce } from "./announce";
import { ApiError, allEvents, api, type GameDetail, type GameEvent, type ReplayState } from "./api";
import { type BoardModel, boardMeld, pileFlags, renderBoard, tableModel } from "./board";
import { cardEl, cardText, sortCards } from "./cards";
import { clear, h } from "./dom";
import { applyEvent, describe, emptyTable, type ReplayTable, seatName } from "./replay";
import {
  decisionAt,
  decisionWords,
  finishedRounds,
  mayAsk,
  markAt,
  markLabel,
  marks,
  nextMark,
  previousMark,
  type Review,
  ReviewPoller,
  reviewableSeats,
  reviewButtonText,
  severityName,
  statusText,
  summaryText,
} from "./review";
import { botBadge, isBotAccount } from "./board";
import { counted, gettext, interpolate, ngettext } from "./i18n";

interface RoundEnd {
  round: number;
  scores: number[];
  hands: string[][];
}

/** An event of the log or of a replay step (whose `type` is a plain string). */
type StepEvent = Pick<GameEvent, "effects" | "seat"> & { type: string };

function roundEndOf(ev: StepEvent | undefined): RoundEnd | null {
  const e = ev?.effects.find((x) => x.kind === "round_ended") as Record<string, unknown> | undefined;
  if (!e) return null;
  return {
    round: Number(e.round),
    scores: (e.scores as number[]) ?? [],
    hands: (e.hands as string[][]) ?? [],
  };
}

export class ReplayScreen {
  private game: GameDetail | null = null;
  private events: GameEvent[] = [];
  private mode: "server" | "log" = "server";
  private states = new Map<number, ReplayState>();
  private tables: ReplayTable[] = [];
  private step = 1;
  private timer: number | undefined;
  private disposed = false;
  private error = "";
  /** The step last read out (announce.ts). */
  private spokenStep = 0;
  /** The review of a seat (POST/GET /games/{id}/review/), followed while pending. */
  private review: Review | null = null;
  private reviewSeat: number | null = null;
  private reviewBusy = false;
  private reviewError = "";
  private withInaccuracies = false;
  /** The list of marked steps stays open or closed across redraws (closed at first: the
   * timeline, the jumps and the step's own decision come first on a phone). */
  private marksOpen = false;
  private poller: ReviewPoller | null = null;

  constructor(
    private readonly root: HTMLElement,
    private readonly id: number,
  ) {}

  async mount(): Promise<void> {
    this.root.append(h("p", { class: "loading" }, gettext("Loading the move log…")));
    try {
      this.game = await api.game(this.id);
      this.events = await allEvents(this.id);
    } catch (err) {
      clear(this.root);
      this.root.append(
        h("p", { class: "message error", testid: "message" }, String((err as Error).message)),
        h("a", { href: "#/" }, gettext("Back")),
      );
      return;
    }
    if (!this.events.length) {
      clear(this.root);
      this.root.append(h("p", { class: "message info", testid: "message" }, gettext("Nothing to replay yet.")));
      return;
    }
    try {
      this.states.set(1, await api.replayAt(this.id, 1));
    } catch (err) {
      if (!(err instanceof ApiError && err.status === 404)) throw err;
      this.mode = "log"; // no replay service on this server: rebuild from the log
      this.buildTables();
    }
    const seats = reviewableSeats(this.game);
    this.reviewSeat = seats.includes(this.game.your_seat ?? -1) ? this.game.your_seat : (seats[0] ?? null);
    this.render();
    window.addEventListener("keydown", this.onKey);
    void this.readReview();
  }

  dispose(): void {
    this.disposed = true;
    window.clearInterval(this.timer);
    window.removeEventListener("keydown", this.onKey);
    this.poller?.stop();
  }

  // ------------------------------------------------------------------ the review
  /** A review asked for earlier (this seat's): shown at once, followed if still pending. */
  private async readReview(): Promise<void> {
    const seat = this.reviewSeat;
    if (seat === null || this.disposed || finishedRounds(this.events) === 0) return; // none can exist
    try {
      const review = await api.review(this.id, seat);
      if (seat === this.reviewSeat && !this.disposed) this.showReview(review);
    } catch {
      // none yet (404 review_not_found), or no review service on this server: the button stays
    }
  }

  private requestReview = async (): Promise<void> => {
    const seat = this.reviewSeat;
    if (seat === null || this.reviewBusy) return;
    this.reviewBusy = true;
    this.reviewError = "";
    this.render();
    try {
      const review = await api.reviewRequest(this.id, seat);
      this.showReview(review);
      if (review.status === "pending") announce(gettext("Review requested: reviewing…"));
    } catch (err) {
      this.reviewError = err instanceof ApiError ? `${err.problem.detail} (${err.code})` : String(err);
      announce(this.reviewError);
    } finally {
      this.reviewBusy = false;
      this.render();
    }
  };

  private showReview(review: Review): void {
    this.review = review;
    this.poller?.stop();
    this.poller = null;
    if (review.status === "pending") {
      const seat = review.seat;
      this.poller = new ReviewPoller(
        () => api.review(this.id, seat),
        (r) => {
          const wasPending = this.review?.status === "pending";
          this.review = r;
          this.reviewError = "";
          if (wasPending && r.status === "ready" && r.summary) announce(interpolate(gettext("Review ready: %(summary)s"), { summary: summaryText(r.summary) }));
          if (wasPending && r.status === "failed") announce(statusText(r));
          this.render();
        },
        (err) => {
          this.reviewError = err instanceof ApiError ? `${err.problem.detail} (${err.code})` : String(err);
          // gone or refused for good: stop asking (a network error or a 5xx is tried again)
          if (err instanceof ApiError && (err.status === 403 || err.status === 404)) this.poller?.stop();
          this.render();
        },
      );
      this.poller.start();
    }
    this.render();
  }

  private chooseSeat = (e: Event): void => {
    this.reviewSeat = Number((e.target as HTMLSelectElement).value);
    this.poller?.stop();
    this.poller = null;
    this.review = null;
    this.reviewError = "";
    this.render();
    void this.readReview();
  };

  private reviewPanel(n: number, nameOf: (seat: number) => string): HTMLElement | string {
    const g = this.game!;
    const seats = reviewableSeats(g);
    const seat = this.reviewSeat;
    if (seat === null || !seats.length) return "";
    const review = this.review && this.review.seat === seat ? this.review : null;
    const list = review?.status === "ready" ? marks(review, this.withInaccuracies) : [];
    const here = review?.status === "ready" ? decisionAt(review, this.step) : undefined;
    const marked = markAt(list, this.step);
    const next = nextMark(list, this.step);
    const previous = previousMark(list, this.step);
    const pending = review?.status === "pending";
    const finished = finishedRounds(this.events);
    const mine = seat === g.your_seat;
    const decision = here
      ? (() => {
          const w = decisionWords(here);
          return h(
            "div",
            {
              class: `review-decision sev-${here.severity}`,
              testid: "review-decision",
              "data-severity": here.severity,
            },
            h("p", {}, h("b", {}, `${mine ? gettext("Next, you chose:") : interpolate(gettext("Next, %(name)s chose:"), { name: nameOf(seat) })} `), ...cardText(w.chosen)),
            h("p", {}, h("b", {}, `${gettext("Best:")} `), ...cardText(w.best)),
            h("p", { testid: "review-loss" }, w.verdict),
            w.reason ? h("p", { class: "review-reason" }, h("b", {}, `${gettext("Why:")} `), ...cardText(w.reason)) : "",
          );
        })()
      : "";
    return h(
      "section",
      { class: "panel review", testid: "review", "aria-labelledby": "review-title" },
      h("h2", { id: "review-title" }, seat === g.your_seat ? gettext("Review of your play") : interpolate(gettext("Review of seat %(seat)s"), { seat: seat + 1 })),
      h(
        "div",
        { class: "row review-request" },
        seats.length > 1
          ? h(
              "label",
              { for: "review-seat" },
              `${gettext("Seat")} `,
              h(
                "select",
                { id: "review-seat", testid: "review-seat", onchange: this.chooseSeat },
                ...seats.map((s) =>
                  h("option", { value: s, selected: s === seat }, `${s + 1}: ${isBotAccount(g.seats[s]) ? interpolate(gettext("%(name)s (bot)"), { name: nameOf(s) }) : nameOf(s)}`),
                ),
              ),
            )
          : "",
        mayAsk(review, finished)
          ? h(
              "button",
              { class: "primary", testid: "review-request", disabled: this.reviewBusy, onclick: () => void this.requestReview() },
              review?.status === "ready" ? interpolate(gettext("%(review)s again (rounds 1 to %(round)s)"), { review: reviewButtonText(seat, g.your_seat), round: finished }) : reviewButtonText(seat, g.your_seat),
            )
          : "",
      ),
      finished === 0 ? h("p", { class: "muted", testid: "review-none" }, gettext("A review covers the finished rounds: none has finished yet.")) : "",
      h(
        "p",
        { class: `review-status ${review?.status ?? "none"}`, testid: "review-status", role: "status" },
        review ? statusText(review) : this.reviewBusy ? gettext("Asking for the review…") : "",
        pending ? h("span", { class: "spinner", "aria-hidden": "true" }) : "",
      ),
      this.reviewError ? h("p", { class: "message error", testid: "review-error" }, this.reviewError) : "",
      review?.status === "ready" && review.summary
        ? h("p", { class: "review-summary", testid: "review-summary" }, summaryText(review.summary))
        : "",
      review?.status === "ready"
        ? h(
            "div",
            { class: "review-nav" },
            h(
              "button",
              {
                testid: "review-prev",
                disabled: !previous,
                "aria-keyshortcuts": "p",
                title: gettext("Previous mistake (key p)"),
                onclick: () => previous && void this.go(previous.at),
                "aria-label": previous ? interpolate(gettext("Previous mistake: step %(step)s"), { step: previous.at }) : gettext("No previous mistake"),
              },
              `‹ ${gettext("previous mistake")}`,
            ),
            h(
              "button",
              {
                testid: "review-next",
                disabled: !next,
                "aria-keyshortcuts": "n",
                title: gettext("Next mistake (key n)"),
                onclick: () => next && void this.go(next.at),
                "aria-label": next ? interpolate(gettext("Next mistake: step %(step)s"), { step: next.at }) : gettext("No next mistake"),
              },
              `${gettext("next mistake")} ›`,
            ),
            h(
              "label",
              { class: "inline" },
              h("input", {
                type: "checkbox",
                testid: "review-inaccuracies",
                checked: this.withInaccuracies,
                onchange: (e: Event) => {
                  this.withInaccuracies = (e.target as HTMLInputElement).checked;
                  this.render();
                },
              }),
              ` ${gettext("mark inaccuracies too")}`,
            ),
          )
        : "",
      review?.status === "ready"
        ? h(
            "div",
            { class: "review-timeline", "aria-hidden": "true" },
            ...list.map((m) =>
              h("span", {
                class: `tick sev-${m.decision.severity}${m.at === this.step ? " here" : ""}`,
                style: `left: ${n > 1 ? ((m.at - 1) / (n - 1)) * 100 : 0}%`,
              }),
            ),
          )
        : "",
      marked || here ? decision : "",
      review?.status === "ready"
        ? list.length
          ? h(
              "details",
              {
                class: "review-marks-box",
                open: this.marksOpen,
                ontoggle: (e: Event) => {
                  this.marksOpen = (e.currentTarget as HTMLDetailsElement).open;
                },
              },
              h("summary", { testid: "review-marks-toggle" }, interpolate(mine ? gettext("Marked steps of your play (%(count)s)") : gettext("Marked steps of %(name)s's play (%(count)s)"), { name: nameOf(seat), count: list.length })),
              h(
                "ol",
                { class: "review-marks", testid: "review-marks" },
                ...list.map((m) =>
                  h(
                    "li",
                    {},
                    h(
                      "button",
                      {
                        class: `mark sev-${m.decision.severity}`,
                        testid: "review-mark",
                        "data-step": m.at,
                        "data-severity": m.decision.severity,
                        "aria-current": m.at === this.step ? "step" : undefined,
                        onclick: () => void this.go(m.at),
                      },
                      ...cardText(markLabel(m)),
                    ),
                  ),
                ),
              ),
            )
          : h("p", { testid: "review-clean" }, this.withInaccuracies ? gettext("No inaccuracy, mistake or blunder to mark.") : gettext("No mistake or blunder to mark."))
        : "",
    );
  }

  private buildTables(): void {
    const g = this.game!;
    const teams = Math.max(...g.seats.map((s) => s.team)) + 1;
    const teamOf = (seat: number) => g.seats[seat]?.team ?? 0;
    let t = emptyTable(teams, g.seats.length);
    this.tables = [t];
    for (const ev of this.events) {
      t = applyEvent(t, ev, teamOf, g.your_seat);
      this.tables.push(t);
    }
  }

  private onKey = (e: KeyboardEvent) => {
    if (e.target instanceof HTMLInputElement || e.target instanceof HTMLSelectElement) return; // the slider steps itself
    if (e.key === "ArrowRight") void this.go(this.step + 1);
    if (e.key === "ArrowLeft") void this.go(this.step - 1);
    // n / p: the next and previous marked mistake of a ready review
    if ((e.key === "n" || e.key === "p") && !e.ctrlKey && !e.metaKey && !e.altKey && this.review?.status === "ready") {
      const list = marks(this.review, this.withInaccuracies);
      const target = e.key === "n" ? nextMark(list, this.step) : previousMark(list, this.step);
      if (target) void this.go(target.at);
    }
  };

  private async go(step: number): Promise<void> {
    this.step = Math.max(1, Math.min(this.events.length, step));
    if (this.mode === "server" && !this.states.has(this.step)) {
      const wanted = this.step;
      try {
        this.states.set(wanted, await api.replayAt(this.id, wanted));
        this.error = "";
      } catch (err) {
        this.error = err instanceof ApiError ? err.problem.detail : String(err);
      }
      if (wanted !== this.step) return; // a later click won
    }
    this.render();
  }

  private togglePlay = () => {
    if (this.timer !== undefined) {
      window.clearInterval(this.timer);
      this.timer = undefined;
    } else {
      this.timer = window.setInterval(() => {
        if (this.step >= this.events.length) this.togglePlay();
        else void this.go(this.step + 1);
      }, 800);
    }
    this.render();
  };

  private logModel(t: ReplayTable, ev: StepEvent): BoardModel {
    const g = this.game!;
    const flags = pileFlags(t.pile);
    return {
      seats: g.seats,
      viewer: g.your_seat,
      active: ev.seat ?? null,
      stock: t.stock,
      pileTop: t.pile[t.pile.length - 1] ?? null,
      pileSize: t.pile.length,
      pileFrozen: flags.frozen,
      pileBlocked: flags.blocked,
      handCounts: t.handCounts,
      teams: t.melds.map((melds, team) => ({
        team,
        seats: g.seats.filter((s) => s.team === team).map((s) => s.index),
        score: t.scores[team] ?? 0,
        melds: Object.entries(melds).map(([rank, cards]) => boardMeld(rank, cards)),
        redThrees: t.redThrees[team],
      })),
    };
  }

  private render(): void {
    if (this.disposed || !this.game) return;
    const g = this.game;
    const nameOf = (seat: number) => seatName(g.seats, seat, g.your_seat);
    const n = this.events.length;
    let model: BoardModel | null = null;
    let event: StepEvent = this.events[this.step - 1];
    let myHand: string[] | null = null;
    let hands: string[][] | null = null;
    let round = 0;
    if (this.mode === "server") {
      const st = this.states.get(this.step);
      if (st) {
        event = st.event;
        model = { ...tableModel(g, st.state), active: st.event.seat ?? null };
        myHand = st.state.hand;
        hands = st.hands;
        round = st.state.round;
      }
    } else {
      const t = this.tables[this.step];
      model = this.logModel(t, event);
      myHand = t.hand;
      round = t.round;
    }
    const roundEnd = roundEndOf(event);
    const said = describe(event, nameOf, (team) =>
      g.seats.filter((s) => s.team === team).map((s) => nameOf(s.index)).join(" & "),
    ).join(" ");
    const reviewed = this.review?.status === "ready" ? markAt(marks(this.review, this.withInaccuracies), this.step) : undefined;
    if (this.spokenStep !== 0 && this.spokenStep !== this.step) {
      const w = reviewed ? decisionWords(reviewed.decision) : null;
      announce(
        interpolate(gettext("Step %(step)s: %(said)s"), { step: this.step, said }),
        ...(w ? [`${interpolate(gettext("Marked: next %(chosen)s; best %(best)s."), { chosen: w.chosen, best: w.best })} ${w.verdict} ${w.reason}`] : []),
      );
    }
    this.spokenStep = this.step;
    const focused = document.activeElement instanceof HTMLElement ? document.activeElement.dataset.testid : undefined;
    clear(this.root);
    this.root.append(
      h(
        "header",
        { class: "game-header" },
        h("a", { href: "#/", class: "home", "aria-label": gettext("Canasta: back to the lobby") }, "♠ Canasta"),
        h("h1", { class: "game-title" }, interpolate(gettext("Replay of table #%(id)s"), { id: g.id }), g.status !== "finished" ? ` (${gettext("in progress")})` : ""),
        h("span", { class: "header-buttons" }, h("a", { class: "button", href: `#/game/${g.id}` }, gettext("Back to the table"))),
      ),
      h(
        "div",
        { class: "replay", testid: "replay", "data-mode": this.mode },
        h(
          "div",
          { class: "replay-controls" },
          h("button", { testid: "replay-first", onclick: () => void this.go(1), title: gettext("First step") }, `« ${gettext("first")}`),
          h("button", { testid: "replay-prev", onclick: () => void this.go(this.step - 1), title: gettext("Previous step") }, `‹ ${gettext("back")}`),
          h("button", { testid: "replay-play", onclick: this.togglePlay }, this.timer !== undefined ? gettext("pause") : gettext("play")),
          h("button", { testid: "replay-next", onclick: () => void this.go(this.step + 1), title: gettext("Next step") }, `${gettext("next")} ›`),
          h("button", { testid: "replay-last", onclick: () => void this.go(n), title: gettext("Last step") }, `${gettext("last")} »`),
          h("input", {
            type: "range",
            min: 1,
            max: n,
            value: this.step,
            testid: "replay-slider",
            "aria-label": gettext("Step"),
            onchange: (e: Event) => void this.go(Number((e.target as HTMLInputElement).value)),
          }),
          h(
            "span",
            { class: "step", testid: "replay-step" },
            interpolate(gettext("Step %(step)s / %(steps)s"), { step: this.step, steps: n }),
            reviewed ? h("span", { class: `mark-tag sev-${reviewed.decision.severity}`, testid: "replay-step-mark" }, ` ${severityName(reviewed.decision.severity)}`) : "",
          ),
        ),
        this.error ? h("p", { class: "message error", testid: "message" }, this.error) : "",
        h(
          "div",
          { class: "status", testid: "replay-text" },
          ...cardText(said),
          round ? h("span", { class: "muted" }, ` (${interpolate(gettext("round %(round)s"), { round })})`) : "",
        ),
        this.reviewPanel(n, nameOf),
        model ? renderBoard(model) : h("p", { class: "loading" }, gettext("Loading…")),
        hands
          ? h(
              "section",
              { class: "you", testid: "replay-hands" },
              h("header", {}, h("h2", {}, gettext("Every hand (the game is over)"))),
              ...hands.map((hand, seat) =>
                h(
                  "div",
                  { class: "hand-row" },
                  h("span", { class: "seat-name" }, nameOf(seat), " ", botBadge(g.seats[seat])),
                  h("span", { class: "hand", testid: seat === g.your_seat ? "hand" : `hand-${seat}` }, ...sortCards(hand).map((c) => cardEl(c, "mini"))),
                ),
              ),
            )
          : myHand !== null
            ? h(
                "section",
                { class: "you" },
                h("header", {}, h("h2", {}, gettext("Your hand")), h("span", { class: "count" }, counted(ngettext("%(count)s card", "%(count)s cards", myHand.length), myHand.length))),
                h("div", { class: "hand", testid: "hand" }, ...sortCards(myHand).map((c) => cardEl(c, "big"))),
              )
            : "",
        roundEnd
          ? h(
              "section",
              { class: "panel", testid: "replay-round-end" },
              h("h3", {}, interpolate(gettext("Round %(round)s: scores %(scores)s"), { round: roundEnd.round, scores: roundEnd.scores.join(" – ") })),
              h(
                "ul",
                {},
                ...roundEnd.hands.map((hand, seat) =>
                  h("li", {}, `${nameOf(seat)}: `, hand.length ? sortCards(hand).map((c) => cardEl(c, "mini")) : gettext("no cards left")),
                ),
              ),
            )
          : "",
      ),
    );
    // The controls are drawn anew: keep the keyboard on the one that was pressed.
    if (focused) this.root.querySelector<HTMLElement>(`[data-testid="${focused}"]`)?.focus({ preventScroll: true });
  }
}
