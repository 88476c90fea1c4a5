// "Play now" (#/play): join the quick-play queue for a preset, rated or casual (a casual queue
// may fill the table with bots after a wait you choose), then wait: the time waited, the rating
// window, when bots come. The queue's status is long-polled (GET /queue/?wait=25; short polls
// with localStorage "canasta.longPoll" = "off"); once matched and dealt, the table opens.
import { announce, hush } from "./announce";
import { ApiError, api, type BotLevel, type Preset, problemGameId, type QueueStatus, type Rules } from "./api";
import { clear, h } from "./dom";
import { gettext, interpolate } from "./i18n";
import { pageHeader } from "./nav";
import { presetExplanation } from "./options";
import { BOT_WAITS, botsText, formatName, presetFormat, presetName, QUEUE_PRESETS, queueRequest, queueView, waitedText, waitedWords, windowText } from "./ratings";

const LONG_POLL_S = 25;
const MIN_LOOP_MS = 1000;
const sleep = (ms: number) => new Promise((resolve) => window.setTimeout(resolve, ms));

function problemText(err: unknown): string {
  return err instanceof ApiError ? err.problem.detail || err.problem.title : String(err);
}

export class QuickPlayScreen {
  private disposed = false;
  private aborter = new AbortController();
  private status: QueueStatus | null = null;
  /** performance.now() when `status` was read (the waited time runs on from there). */
  private readAt = 0;
  private ticker: number | undefined;
  private looping = false;
  private leaving = false;
  private poll: Promise<unknown> = Promise.resolve();
  private readonly body = h("div", { class: "quick-play" });
  private readonly longPoll = localStorage.getItem("canasta.longPoll") !== "off";
  private rules: Rules | null = null;

  constructor(private readonly root: HTMLElement) {}

  async mount(): Promise<void> {
    hush();
    this.root.append(pageHeader(gettext("Play now"), "play"), this.body);
    this.body.append(h("p", { class: "loading" }, gettext("Looking at the queue…")));
    this.rules = await api.rules().catch(() => null);
    try {
      this.status = await api.queueStatus(0);
      this.readAt = performance.now();
    } catch (err) {
      if (this.disposed) return;
      if (!(err instanceof ApiError && err.status === 404)) {
        this.showForm(problemText(err));
        return;
      }
      this.status = null;
    }
    if (this.disposed) return;
    this.show();
  }

  dispose(): void {
    this.disposed = true;
    this.aborter.abort();
    window.clearInterval(this.ticker);
  }

  /** Draw what the status says: the form, the waiting view, or go to the table. */
  private show(message = ""): void {
    if (this.disposed) return;
    const view = queueView(this.status);
    if (view.kind === "matched") {
      announce(gettext("Match found: opening your table."));
      location.hash = `#/game/${view.gameId}`;
      return;
    }
    if (view.kind === "idle") {
      this.showForm(message);
      return;
    }
    this.showWaiting();
    if (!this.looping) void this.loop();
  }

  // ------------------------------------------------------------------ the form
  private showForm(message = "", kind: "error" | "info" = "error"): void {
    window.clearInterval(this.ticker);
    clear(this.body);
    const box = h("div", { class: message ? `message ${kind}` : "message empty", testid: "message", role: "status" }, message);
    const presetSel = h(
      "select",
      { id: "queue-preset", testid: "queue-preset", "aria-describedby": "queue-preset-help" },
      ...QUEUE_PRESETS.map((p) => h("option", { value: p }, `${presetName(p)}: ${formatName(presetFormat(p)).toLowerCase()}`)),
    ) as HTMLSelectElement;
    const presetHelp = h("small", { class: "hint", id: "queue-preset-help" });
    const explain = () => {
      presetHelp.textContent = presetExplanation(this.rules, presetSel.value);
    };
    presetSel.addEventListener("change", explain);
    explain();
    const rated = h("input", { type: "radio", name: "queue-kind", id: "queue-rated", value: "rated", testid: "queue-rated", checked: true }) as HTMLInputElement;
    const casual = h("input", { type: "radio", name: "queue-kind", id: "queue-casual", value: "casual", testid: "queue-casual" }) as HTMLInputElement;
    const botsAfter = h(
      "select",
      { id: "queue-bots-after", testid: "queue-bots-after" },
      h("option", { value: "" }, gettext("never: people only")),
      ...BOT_WAITS.map((s) => h("option", { value: String(s), selected: s === 30 }, interpolate(gettext("after %(time)s"), { time: waitedWords(s) }))),
    ) as HTMLSelectElement;
    const botLevel = h(
      "select",
      { id: "queue-bot-level", testid: "queue-bot-level" },
      ...(["easy", "medium", "hard"] as const).map((l) => h("option", { value: l, selected: l === "medium" }, l === "easy" ? gettext("easy") : l === "hard" ? gettext("hard") : gettext("medium"))),
    ) as HTMLSelectElement;
    const casualBox = h(
      "div",
      { class: "options-grid", testid: "queue-casual-options", hidden: true },
      h("label", { for: "queue-bots-after" }, h("span", {}, gettext("Fill empty seats with bots")), botsAfter),
      h("label", { for: "queue-bot-level" }, h("span", {}, gettext("Bot level")), botLevel),
    );
    const kindHelp = h("p", { class: "hint muted", id: "queue-kind-help" });
    const choose = () => {
      casualBox.hidden = rated.checked;
      kindHelp.textContent = rated.checked
        ? gettext("Rated: standard rules, people only; you are paired with players of similar rating and the result changes your rating.")
        : gettext("Casual: no rating changes; bots may take the seats nobody comes for.");
    };
    rated.addEventListener("change", choose);
    casual.addEventListener("change", choose);
    choose();

    const submit = async (e: Event) => {
      e.preventDefault();
      const body = queueRequest({
        preset: presetSel.value as Preset,
        rated: rated.checked,
        botsAfter: botsAfter.value ? Number(botsAfter.value) : null,
        botLevel: botLevel.value as BotLevel,
      });
      try {
        this.status = await api.queueJoin(body);
      } catch (err) {
        if (!(err instanceof ApiError && err.code === "already_queued")) {
          box.className = "message error";
          box.textContent = problemText(err);
          return;
        }
        this.status = await api.queueStatus(0).catch(() => null);
      }
      this.readAt = performance.now();
      announce(gettext("You are in the queue. The table opens when players are found."));
      this.show();
    };

    this.body.append(
      h(
        "form",
        { class: "panel", testid: "queue-form", onsubmit: submit },
        h("h2", {}, gettext("Play now")),
        h("p", {}, gettext("Join the queue: you are seated with the next players who want the same game.")),
        h("div", { class: "options-grid" }, h("div", { class: "option" }, h("label", { for: "queue-preset" }, h("span", {}, gettext("Rules")), presetSel), presetHelp)),
        h(
          "fieldset",
          { class: "choice", "aria-describedby": "queue-kind-help" },
          h("legend", {}, gettext("Game")),
          h("label", { for: "queue-rated", class: "inline" }, rated, ` ${gettext("Rated")}`),
          h("label", { for: "queue-casual", class: "inline" }, casual, ` ${gettext("Casual")}`),
          kindHelp,
        ),
        casualBox,
        h("div", { class: "row" }, h("button", { class: "primary", type: "submit", testid: "queue-join" }, gettext("Play now"))),
        box,
      ),
    );
  }

  // ------------------------------------------------------------------ waiting
  private showWaiting(): void {
    const status = this.status!;
    const view = queueView(status);
    clear(this.body);
    const box = h("div", { class: "message empty", testid: "message", role: "status" });
    const leave = h("button", { testid: "leave-queue", onclick: () => void this.leave(box) }, gettext("Leave the queue")) as HTMLButtonElement;
    const panel = h(
      "section",
      { class: "panel waiting", testid: "queue-waiting", "aria-labelledby": "queue-title", "data-status": status.status },
      h("h2", { id: "queue-title", testid: "queue-title" }, view.kind === "waiting" || view.kind === "dealing" ? view.title : ""),
      h("p", { class: "waited" }, `${gettext("Waited")} `, h("span", { role: "timer", testid: "queue-waited", "aria-label": gettext("time waited") }, waitedText(this.waited()))),
      view.kind === "waiting" ? h("p", { testid: "queue-window" }, view.window) : "",
      view.kind === "waiting" ? h("p", { testid: "queue-bots" }, view.bots) : "",
      h("div", { class: "row" }, view.kind === "waiting" ? leave : ""),
      box,
    );
    this.body.append(panel);
    window.clearInterval(this.ticker);
    this.ticker = window.setInterval(() => this.tick(), 1000);
  }

  /** The wait runs on from the last read until matched (then it is the server's). */
  private waited(): number {
    const s = this.status;
    if (!s) return 0;
    return s.status === "matched" ? s.waited_seconds : s.waited_seconds + (performance.now() - this.readAt) / 1000;
  }

  /** Once a second and after each read: the time waited, the rating window and the bots'
   * countdown (text only: no redraw, no focus lost, nothing read out). */
  private tick(): void {
    if (!this.status) return;
    const waited = this.body.querySelector<HTMLElement>("[data-testid=queue-waited]");
    if (waited) waited.textContent = waitedText(this.waited());
    const bots = this.body.querySelector<HTMLElement>("[data-testid=queue-bots]");
    if (bots) bots.textContent = botsText(this.status.bots_at, new Date(), this.status.rated);
    const range = this.body.querySelector<HTMLElement>("[data-testid=queue-window]");
    if (range) range.textContent = windowText(this.status.rated, this.status.rating_window);
  }

  /** Follow the queue's status until matched and dealt (or gone). */
  private async loop(): Promise<void> {
    this.looping = true;
    try {
      while (!this.disposed && !this.leaving && this.status) {
        const started = performance.now();
        const wait = this.longPoll ? LONG_POLL_S : 0;
        const read = api.queueStatus(wait, this.aborter.signal);
        this.poll = read.catch(() => undefined);
        let next: QueueStatus | null;
        try {
          next = await read;
        } catch (err) {
          if (this.disposed || this.leaving) return;
          if (err instanceof ApiError && err.status === 404) {
            this.status = null;
            announce(gettext("You are no longer in the queue."));
            this.showForm(gettext("You are no longer in the queue."), "info");
            return;
          }
          await sleep(2000);
          continue;
        }
        if (this.disposed || this.leaving) return;
        const before = this.status;
        this.status = next;
        this.readAt = performance.now();
        if (next.status === "matched" && next.game_id !== null) {
          this.show();
          return;
        }
        if (next.status !== before.status) {
          if (next.status === "matched") announce(gettext("Players found: dealing the table."));
          this.showWaiting();
        } else {
          this.tick();
        }
        await sleep(Math.max(0, MIN_LOOP_MS - (performance.now() - started)));
      }
    } finally {
      this.looping = false;
    }
  }

  private async leave(box: HTMLElement): Promise<void> {
    this.leaving = true;
    // Short polls: let the one in flight finish (one request at a time); a long-poll is cut.
    if (this.longPoll) this.aborter.abort();
    await this.poll;
    this.aborter = new AbortController();
    try {
      await api.queueLeave();
      this.status = null;
      announce(gettext("You left the queue."));
      this.leaving = false;
      this.showForm(gettext("You left the queue."), "info");
    } catch (err) {
      this.leaving = false;
      const game = problemGameId(err);
      if (game !== null) {
        announce(gettext("Too late to leave: you were matched. Opening your table."));
        location.hash = `#/game/${game}`;
        return;
      }
      if (err instanceof ApiError && err.status === 404) {
        this.status = null;
        this.showForm(gettext("You are no longer in the queue."), "info");
        return;
      }
      box.className = "message error";
      box.textContent = problemText(err);
      if (this.status) void this.loop();
    }
  }
}
