// Tournaments: the events list (#/tournaments, filters by status and format, "mine"), an event
// (#/tournament/{id}: its settings, entry, your next game, the current round's pairings, the
// standings a page at a time, re-read every few seconds while it may change, and the check of
// the standings against the event log), a duplicate event's boards (#/tournament/{id}/boards)
// and the organiser's pages: the new-event form (#/tournaments/new) and, on the event's page
// for its organiser, entry, bots, the start, the rounds' pairings, entries withdrawn or
// disqualified, the cancellation.
import { announce } from "./announce";
import { ApiError, api, myPlayerId, type Rules } from "./api";
import { CORRESPONDENCE_TURNS, LIVE_TURNS, turnLimitText } from "./correspondence";
import { clear, h } from "./dom";
import { counted, gettext, interpolate, ngettext } from "./i18n";
import { pageHeader } from "./nav";
import { presetTitle } from "./options";
import {
  type BotLevel,
  type Entry,
  type ListFilters,
  type NextGame,
  type Standings,
  type Tables,
  type Tournament,
  type TournamentCreate,
  type TournamentFormat,
  type TournamentStatus,
  type TournamentTable,
  tournamentsApi,
} from "./tournamentsApi";
import {
  beforeStart,
  boardPointsText,
  entryStatusName,
  FORMATS,
  formatName,
  gameLink,
  LIVE_STATUSES,
  pairingText,
  paceName,
  pointsText,
  removable,
  resultText,
  roundText,
  settingsRows,
  standingsPageText,
  STATUSES,
  statusName,
  tableStatusName,
  unitName,
  verifyText,
  whenText,
} from "./tournamentsWords";

/** How often a running event's standings are read (their version says whether anything changed). */
export const POLL_MS = 3000;
export const STANDINGS_PAGE = 20;
const LIST_PAGE = 20;

function problemText(err: unknown): string {
  if (err instanceof ApiError) {
    const fields = (err.problem.errors ?? []).map((e) => `${e.field ?? ""}: ${e.message}`).join("; ");
    const setting = (err.problem as { setting?: unknown }).setting;
    return `${err.problem.detail || err.problem.title}${typeof setting === "string" ? ` (${setting})` : ""}${fields ? ` — ${fields}` : ""}`;
  }
  return err instanceof Error ? err.message : String(err);
}

function panel(id: string, title: string, ...content: (Node | string | null | false)[]): HTMLElement {
  return h("section", { class: "panel", "aria-labelledby": `${id}-title`, testid: `${id}-panel` }, h("h2", { id: `${id}-title` }, title), ...content);
}

function messageLine(testid: string): HTMLElement {
  return h("p", { class: "message empty", role: "status", testid });
}

function say(box: HTMLElement, text: string, kind: "error" | "info" = "error"): void {
  box.className = `message ${kind}`;
  box.textContent = text;
}

/** A labelled control on a line of its own (the form's fields). */
function field(id: string, label: string, control: HTMLElement, help?: string): HTMLElement {
  if (help) control.setAttribute("aria-describedby", `${id}-help`);
  return h("div", { class: "option", testid: `field-${id}` }, h("label", { for: id }, h("span", {}, label), control), help ? h("small", { class: "hint", id: `${id}-help` }, help) : "");
}

function checkbox(id: string, label: string): [HTMLInputElement, HTMLElement] {
  const input = h("input", { type: "checkbox", id, testid: id }) as HTMLInputElement;
  return [input, h("label", { class: "inline", for: id }, input, " ", label)];
}

/** A button that says it is busy while its action runs, then shows the action's refusal. */
function action(label: string, testid: string, run: () => Promise<unknown>, box: HTMLElement, cls = ""): HTMLButtonElement {
  const button = h("button", { type: "button", class: cls, testid }, label) as HTMLButtonElement;
  button.addEventListener("click", async () => {
    button.disabled = true;
    box.className = "message empty";
    box.textContent = "";
    try {
      await run();
    } catch (err) {
      say(box, problemText(err));
    } finally {
      button.disabled = false;
    }
  });
  return button;
}

// ============================================================================ the list
export class TournamentsScreen {
  private disposed = false;
  private offset = 0;
  private readonly listSlot = h("div", { testid: "tournaments-list-slot" });
  private readonly status = h("select", { id: "t-filter-status", testid: "filter-status" }, h("option", { value: "" }, gettext("any status")), ...STATUSES.map((s) => h("option", { value: s }, statusName(s)))) as HTMLSelectElement;
  private readonly format = h("select", { id: "t-filter-format", testid: "filter-format" }, h("option", { value: "" }, gettext("any format")), ...FORMATS.map((f) => h("option", { value: f }, formatName(f)))) as HTMLSelectElement;
  private readonly mine = h("input", { type: "checkbox", id: "t-filter-mine", testid: "filter-mine" }) as HTMLInputElement;

  constructor(private readonly root: HTMLElement) {}

  dispose(): void {
    this.disposed = true;
  }

  async mount(): Promise<void> {
    const reload = () => {
      this.offset = 0;
      void this.load();
    };
    for (const c of [this.status, this.format, this.mine]) c.addEventListener("change", reload);
    const filters = h(
      "form",
      { class: "panel", "aria-labelledby": "t-filters-title", testid: "tournament-filters", onsubmit: (e: Event) => e.preventDefault() },
      h("h2", { id: "t-filters-title", class: "sr-only" }, gettext("Filters")),
      h("div", { class: "options-grid" }, field("t-filter-status", gettext("Status"), this.status), field("t-filter-format", gettext("Format"), this.format)),
      h("fieldset", { class: "scopes" }, h("legend", { class: "sr-only" }, gettext("Only mine")), h("label", { class: "inline", for: "t-filter-mine" }, this.mine, " ", gettext("only events I organise or entered"))),
      h("div", { class: "row" }, h("a", { class: "button primary", href: "#/tournaments/new", testid: "tournament-new" }, gettext("Organise a tournament"))),
    );
    this.root.append(pageHeader(gettext("Tournaments"), "tournaments"), h("div", { class: "settings account tournaments" }, filters, this.listSlot));
    await this.load();
  }

  private async load(): Promise<void> {
    clear(this.listSlot);
    this.listSlot.append(h("p", { class: "loading" }, gettext("Loading the tournaments…")));
    const filters: ListFilters = { status: this.status.value as TournamentStatus | "", format: this.format.value as TournamentFormat | "", mine: this.mine.checked };
    try {
      const list = await tournamentsApi.list(filters, LIST_PAGE, this.offset);
      if (this.disposed) return;
      clear(this.listSlot);
      const prev = this.offset > 0 ? h("button", { type: "button", testid: "tournaments-prev", onclick: () => { this.offset = Math.max(0, this.offset - LIST_PAGE); void this.load(); } }, gettext("Newer")) : "";
      const next = this.offset + list.results.length < list.total ? h("button", { type: "button", testid: "tournaments-next", onclick: () => { this.offset += LIST_PAGE; void this.load(); } }, gettext("Older")) : "";
      this.listSlot.append(
        panel(
          "tournaments",
          gettext("Events"),
          list.results.length
            ? h(
                "ul",
                { class: "games", testid: "tournaments" },
                ...list.results.map((t) =>
                  h(
                    "li",
                    { testid: "tournament-row", "data-tournament": String(t.id) },
                    h("a", { class: "button", href: `#/tournament/${t.id}`, testid: `open-tournament-${t.id}` }, t.name),
                    h(
                      "div",
                      { class: "muted" },
                      [formatName(t.format), t.robot ? gettext("robot") : "", unitName(t.unit), presetTitle(t.preset), paceName(t.pace), statusName(t.status), t.rated ? gettext("rated") : "", counted(ngettext("%(count)s entry", "%(count)s entries", t.entries), t.entries), t.current_round ? roundText(t) : "", t.starts_at ? interpolate(gettext("starts %(when)s"), { when: whenText(t.starts_at) }) : ""]
                        .filter(Boolean)
                        .join(" · "),
                      " · ",
                      interpolate(gettext("by %(name)s"), { name: t.organiser.display_name }),
                    ),
                  ),
                ),
              )
            : h("p", { class: "muted", testid: "tournaments-empty" }, gettext("No events match.")),
          prev || next ? h("div", { class: "row" }, prev, next) : "",
        ),
      );
    } catch (err) {
      if (this.disposed) return;
      clear(this.listSlot);
      this.listSlot.append(h("p", { class: "message error", testid: "message" }, problemText(err)));
    }
  }
}

// ============================================================================ the new event
export class TournamentCreateScreen {
  constructor(private readonly root: HTMLElement) {}

  dispose(): void {}

  async mount(): Promise<void> {
    this.root.append(pageHeader(gettext("Organise a tournament"), "tournaments"));
    let rules: Rules | null = null;
    try {
      rules = await api.rules();
    } catch (err) {
      this.root.append(h("p", { class: "message error", testid: "message" }, problemText(err)));
      return;
    }
    this.root.append(h("div", { class: "settings account tournaments" }, this.form(rules)));
    (document.getElementById("t-name") as HTMLInputElement | null)?.focus();
  }

  private form(rules: Rules): HTMLElement {
    const box = messageLine("create-message");
    const num = (id: string, min: number, max: number, value = "") => h("input", { type: "number", id, testid: id, min, max, step: 1, value, inputmode: "numeric" }) as HTMLInputElement;
    const sel = (id: string, options: [string, string][]) => h("select", { id, testid: id }, ...options.map(([v, text]) => h("option", { value: v }, text))) as HTMLSelectElement;
    const name = h("input", { id: "t-name", testid: "t-name", maxlength: 80, required: true, autocomplete: "off" }) as HTMLInputElement;
    const description = h("textarea", { id: "t-description", testid: "t-description", maxlength: 2000, rows: 3 }) as HTMLTextAreaElement;
    const format = sel("t-format", FORMATS.map((f) => [f, formatName(f)]));
    const unit = sel("t-unit", [["individual", unitName("individual")], ["pair", unitName("pair")]]);
    const preset = sel("t-preset", Object.keys(rules.presets).map((p) => [p, presetTitle(p)]));
    const target = num("t-target", 50, 20000);
    const rounds = num("t-rounds", 1, 50, "3");
    const boards = num("t-boards", 1, 36, "1");
    const scoring = sel("t-scoring", [["matchpoints", gettext("matchpoints")], ["imps", gettext("IMPs")]]);
    const gamesPerMatch = num("t-games-per-match", 1, 9, "1");
    const tieRule = sel("t-tie-rule", [["points", gettext("more points over the match")], ["higher_seed", gettext("the higher seed")], ["extra_game", gettext("an extra game")]]);
    const pace = sel("t-pace", [["live", paceName("live")], ["correspondence", paceName("correspondence")]]);
    const turn = h("select", { id: "t-turn-seconds", testid: "t-turn-seconds" }) as HTMLSelectElement;
    const botLevel = sel("t-bot-level", rules.bot_levels.map((l) => [l, l === "easy" ? gettext("easy") : l === "hard" ? gettext("hard") : gettext("medium")]));
    botLevel.value = rules.bot_levels.includes("medium") ? "medium" : botLevel.value;
    const ratingMin = num("t-rating-min", 0, 4000);
    const ratingMax = num("t-rating-max", 0, 4000);
    const maxEntries = num("t-max-entries", 2, 100000);
    const startsAt = h("input", { type: "datetime-local", id: "t-starts-at", testid: "t-starts-at" }) as HTMLInputElement;
    const endsAt = h("input", { type: "datetime-local", id: "t-ends-at", testid: "t-ends-at" }) as HTMLInputElement;
    const [robot, robotLabel] = checkbox("t-robot", gettext("robot duplicate: each entrant plays the deals alone with bots"));
    const [rated, ratedLabel] = checkbox("t-rated", gettext("rated (people only)"));
    const [review, reviewLabel] = checkbox("t-pairing-review", gettext("I review the pairings before each round is dealt"));
    const [invited, invitedLabel] = checkbox("t-invitation-only", gettext("invited players only"));
    const [friends, friendsLabel] = checkbox("t-friends-only", gettext("my friends only"));

    const fillTurns = () => {
      const live = pace.value === "live";
      const turns = live ? LIVE_TURNS : CORRESPONDENCE_TURNS;
      turn.replaceChildren(h("option", { value: "" }, gettext("the default")), ...turns.map((s) => h("option", { value: String(s) }, turnLimitText(s))));
    };
    pace.addEventListener("change", fillTurns);
    fillTurns();

    const fields = {
      rounds: field("t-rounds", gettext("Rounds"), rounds),
      boards: field("t-boards", gettext("Boards per round"), boards, gettext("Every table of a round plays the same deals.")),
      scoring: field("t-scoring", gettext("Scoring"), scoring),
      gamesPerMatch: field("t-games-per-match", gettext("Games per match"), gamesPerMatch),
      tieRule: field("t-tie-rule", gettext("Level matches go to"), tieRule),
      endsAt: field("t-ends-at", gettext("Play closes at"), endsAt, gettext("Arenas and robot duplicates: when play closes.")),
      robot: h("div", { class: "option" }, robotLabel),
      unit: field("t-unit", gettext("Entrants"), unit, gettext("Pairs: fixed partnerships at four-player rules.")),
    };
    /** Only the settings the format uses are shown. */
    const applyFormat = () => {
      const f = format.value;
      fields.rounds.hidden = !(f === "swiss" || (f === "duplicate" && !robot.checked));
      fields.boards.hidden = f !== "duplicate";
      fields.scoring.hidden = f !== "duplicate";
      fields.robot.hidden = f !== "duplicate";
      fields.gamesPerMatch.hidden = f !== "knockout";
      fields.tieRule.hidden = f !== "knockout";
      fields.endsAt.hidden = !(f === "arena" || (f === "duplicate" && robot.checked));
    };
    format.addEventListener("change", applyFormat);
    robot.addEventListener("change", applyFormat);
    applyFormat();

    const intOrNull = (input: HTMLInputElement): number | null => (input.value.trim() === "" ? null : Number(input.value));
    const isoOrNull = (input: HTMLInputElement): string | null => (input.value ? new Date(input.value).toISOString() : null);

    const submit = async (e: Event) => {
      e.preventDefault();
      const f = format.value as TournamentFormat;
      const body: TournamentCreate = {
        name: name.value.trim(),
        description: description.value.trim(),
        format: f,
        unit: unit.value as TournamentCreate["unit"],
        preset: preset.value as TournamentCreate["preset"],
        options: target.value ? { target_score: Number(target.value) } : {},
        rated: rated.checked,
        pace: pace.value as TournamentCreate["pace"],
        turn_seconds: turn.value ? Number(turn.value) : null,
        pairing_review: review.checked,
        bot_level: botLevel.value as BotLevel,
        rating_min: intOrNull(ratingMin),
        rating_max: intOrNull(ratingMax),
        max_entries: intOrNull(maxEntries),
        invitation_only: invited.checked,
        friends_only: friends.checked,
        starts_at: isoOrNull(startsAt),
      };
      if (!fields.rounds.hidden) body.rounds = intOrNull(rounds);
      if (f === "duplicate") {
        body.boards_per_round = Number(boards.value || 1);
        body.duplicate_scoring = scoring.value as TournamentCreate["duplicate_scoring"];
        body.robot = robot.checked;
      }
      if (f === "knockout") {
        body.games_per_match = Number(gamesPerMatch.value || 1);
        body.tie_rule = tieRule.value as TournamentCreate["tie_rule"];
      }
      if (!fields.endsAt.hidden) body.ends_at = isoOrNull(endsAt);
      try {
        const t = await tournamentsApi.create(body);
        announce(interpolate(gettext("Tournament %(name)s created."), { name: t.name }));
        location.hash = `#/tournament/${t.id}`;
      } catch (err) {
        say(box, problemText(err));
      }
    };

    return h(
      "form",
      { class: "panel", onsubmit: submit, testid: "tournament-create-form", "aria-labelledby": "t-create-title" },
      h("h2", { id: "t-create-title" }, gettext("New tournament")),
      h(
        "div",
        { class: "options-grid" },
        field("t-name", gettext("Name"), name),
        field("t-format", gettext("Format"), format, gettext("Swiss: everyone plays every round. Knockout: the loser is out. Arena: play as often as you like until it closes. Duplicate: every table plays the same deals.")),
        fields.unit,
        field("t-preset", gettext("Rules"), preset),
        field("t-target", gettext("Target score"), target, gettext("Empty: the rules' own.")),
        fields.rounds,
        fields.robot,
        fields.boards,
        fields.scoring,
        fields.gamesPerMatch,
        fields.tieRule,
        field("t-pace", gettext("Pace"), pace),
        field("t-turn-seconds", gettext("Turn time"), turn),
        field("t-bot-level", gettext("Bots' level"), botLevel),
        field("t-starts-at", gettext("Starts at"), startsAt, gettext("Empty: when you start it.")),
        fields.endsAt,
      ),
      h("div", { class: "option" }, h("label", { class: "stack", for: "t-description" }, h("span", {}, gettext("Description")), description)),
      h(
        "fieldset",
        { class: "scopes" },
        h("legend", {}, gettext("Who may enter")),
        h("div", { class: "options-grid" }, field("t-rating-min", gettext("Lowest rating"), ratingMin), field("t-rating-max", gettext("Highest rating"), ratingMax), field("t-max-entries", gettext("Most entries"), maxEntries)),
        invitedLabel,
        friendsLabel,
      ),
      h("fieldset", { class: "scopes" }, h("legend", {}, gettext("Play")), ratedLabel, reviewLabel),
      h("div", { class: "row" }, h("button", { type: "submit", class: "primary", testid: "tournament-create" }, gettext("Create the tournament"))),
      box,
    );
  }
}

// ============================================================================ an event
export class TournamentScreen {
  private disposed = false;
  private timer: number | undefined;
  private t: Tournament | null = null;
  private version = -1;
  private standingsOffset = 0;
  private entries: Entry[] = [];
  private readonly box = messageLine("message");
  private readonly summarySlot = h("div", { testid: "summary-slot" });
  private readonly entrySlot = h("div", { testid: "entry-slot" });
  private readonly nextSlot = h("div", { testid: "next-slot" });
  private readonly organiserSlot = h("div", { testid: "organiser-slot" });
  private readonly tablesSlot = h("div", { testid: "tables-slot" });
  private readonly standingsSlot = h("div", { testid: "standings-slot" });
  private readonly verifySlot = h("div", { testid: "verify-slot" });
  private cancelArmed = false;
  // Kept across redraws, so that what an action answered stays on the page.
  private readonly entryBox = messageLine("entry-message");
  private readonly organiserBox = messageLine("organiser-message");

  constructor(
    private readonly root: HTMLElement,
    private readonly id: number,
  ) {}

  dispose(): void {
    this.disposed = true;
    window.clearTimeout(this.timer);
  }

  /** The page's requests go one at a time (the poll never runs beside an action): each
   * signed-in request also records the sign-in's use, and a small database serves one write
   * at a time. */
  private serial<T>(run: () => Promise<T>): Promise<T> {
    const next = this.chain.then(run, run);
    this.chain = next.catch(() => undefined);
    return next;
  }

  private chain: Promise<unknown> = Promise.resolve();

  /** A button whose action waits for the page's other requests. */
  private act(label: string, testid: string, run: () => Promise<unknown>, box: HTMLElement, cls = ""): HTMLButtonElement {
    return action(label, testid, () => this.serial(run), box, cls);
  }

  async mount(): Promise<void> {
    this.root.append(
      pageHeader(gettext("Tournament"), "tournaments"),
      h(
        "div",
        { class: "settings account tournaments", testid: "tournament" },
        this.box,
        this.nextSlot,
        this.entrySlot,
        this.organiserSlot,
        this.tablesSlot,
        this.standingsSlot,
        this.summarySlot,
        this.verifySlot,
      ),
    );
    this.summarySlot.append(h("p", { class: "loading" }, gettext("Loading the tournament…")));
    await this.serial(() => this.refresh());
    this.schedule();
  }

  /** While the event may change, its standings are read every few seconds; a new version
   * (a fact in the log) reads the rest again. */
  private schedule(): void {
    if (this.disposed) return;
    this.timer = window.setTimeout(() => void this.serial(() => this.poll()), POLL_MS);
  }

  private async poll(): Promise<void> {
    if (this.disposed || !this.t) return;
    if (LIVE_STATUSES.includes(this.t.status)) {
      try {
        const s = await tournamentsApi.standings(this.id, STANDINGS_PAGE, this.standingsOffset);
        if (this.disposed) return;
        if (s.version !== this.version) await this.refresh(s);
      } catch {
        /* a missed read: the next one tries again */
      }
    }
    this.schedule();
  }

  /** Read the event, its standings, pairings and your next game (one request at a time). */
  private async refresh(standings?: Standings): Promise<void> {
    let t: Tournament;
    try {
      t = await tournamentsApi.get(this.id);
    } catch (err) {
      if (this.disposed) return;
      clear(this.summarySlot);
      this.summarySlot.append(h("p", { class: "message error", testid: "load-error" }, problemText(err)));
      return;
    }
    // Everything is read first, then drawn at once (no half-drawn page between reads).
    let s: Standings | Error | undefined = standings;
    if (!s) s = await tournamentsApi.standings(this.id, STANDINGS_PAGE, this.standingsOffset).catch((err: unknown) => new Error(problemText(err)));
    let tables: Tables | Error | null = null;
    if (t.current_round > 0) tables = await tournamentsApi.tables(this.id, null).catch((err: unknown) => new Error(problemText(err)));
    let next: NextGame | null = null;
    if (t.your_entry && t.status === "running") next = await tournamentsApi.nextGame(this.id).catch(() => null);
    if (this.disposed) return;

    const focusId = document.activeElement instanceof HTMLElement && this.root.contains(document.activeElement) ? document.activeElement.dataset.testid : undefined;
    const typed = this.typedValues();
    const first = this.t === null;
    const statusChanged = this.t !== null && this.t.status !== t.status;
    this.t = t;
    const heading = this.root.querySelector(".game-title");
    if (heading) heading.textContent = t.name;
    document.title = `${t.name} · Canasta`;
    this.showSummary(t);
    this.showEntry(t);
    if (s instanceof Error) {
      clear(this.standingsSlot);
      this.standingsSlot.append(h("p", { class: "message error" }, s.message));
    } else {
      this.version = s.version;
      this.entries = s.results;
      this.showStandings(s);
    }
    this.showTables(tables);
    this.showNext(next);
    this.showOrganiser(t);
    this.restoreValues(typed);
    if (first || t.version !== this.checkedVersion) await this.checkLog();
    if (statusChanged && !first) announce(interpolate(gettext("The tournament is now %(status)s."), { status: statusName(t.status) }));
    if (focusId) this.root.querySelector<HTMLElement>(`[data-testid="${focusId}"]`)?.focus();
  }

  /** What is typed in the page's fields (kept when the page is drawn again). */
  private typedValues(): Map<string, string> {
    const values = new Map<string, string>();
    for (const el of this.root.querySelectorAll<HTMLInputElement | HTMLSelectElement>("input[id], select[id]")) {
      if (el.id === "language") continue;
      values.set(el.id, el instanceof HTMLInputElement && el.type === "checkbox" ? String(el.checked) : el.value);
    }
    return values;
  }

  private restoreValues(values: Map<string, string>): void {
    for (const [id, value] of values) {
      const el = document.getElementById(id);
      if (el instanceof HTMLInputElement) {
        if (el.type === "checkbox") el.checked = value === "true";
        else el.value = value;
      } else if (el instanceof HTMLSelectElement && [...el.options].some((o) => o.value === value)) {
        el.value = value;
      }
    }
  }

  private showSummary(t: Tournament): void {
    clear(this.summarySlot);
    this.summarySlot.append(
      panel(
        "t-summary",
        gettext("Settings"),
        t.description ? h("p", { testid: "t-description-text" }, t.description) : "",
        h("dl", { class: "t-settings", testid: "t-settings" }, ...settingsRows(t, presetTitle).flatMap(([k, v]) => [h("dt", {}, k), h("dd", {}, v)])),
        t.format === "duplicate" ? h("p", {}, h("a", { class: "button", href: `#/tournament/${t.id}/boards`, testid: "to-boards" }, gettext("Results per board"))) : "",
        t.deal_commitment ? h("p", { class: "muted", testid: "deal-commitment" }, gettext("Deal set commitment (SHA-256):"), " ", h("span", { class: "secret" }, h("code", { class: "commitment" }, t.deal_commitment))) : "",
      ),
    );
  }

  private entryOpen(t: Tournament): boolean {
    return t.status === "open" || (t.status === "running" && (t.format === "swiss" || t.format === "arena" || t.robot));
  }

  private showEntry(t: Tournament): void {
    clear(this.entrySlot);
    const box = this.entryBox;
    const mine = t.your_entry;
    const content: (Node | string)[] = [];
    if (mine) {
      content.push(
        h("p", { testid: "your-entry" }, interpolate(gettext("You are entered as %(name)s (%(status)s)."), { name: mine.name, status: entryStatusName(mine.status) }), mine.rank ? ` ${interpolate(gettext("Place %(rank)s, %(points)s points."), { rank: mine.rank, points: pointsText(mine.points) })}` : ""),
      );
      if (mine.status === "active" && t.status !== "finished" && t.status !== "cancelled") {
        content.push(
          h(
            "div",
            { class: "row" },
            this.act(gettext("Withdraw"), "t-withdraw", async () => {
              await tournamentsApi.withdraw(this.id);
              announce(gettext("You withdrew from the tournament."));
              await this.refresh();
            }, box, "danger"),
          ),
        );
      }
    } else if (this.entryOpen(t)) {
      const partner = h("input", { type: "number", id: "t-partner", testid: "t-partner", min: 1, inputmode: "numeric" }) as HTMLInputElement;
      const partnerField = t.unit === "pair" ? field("t-partner", gettext("Your partner's player id"), partner, gettext("A friend of yours: their id is on their Friends page.")) : null;
      content.push(
        h("p", {}, gettext("Entry is open.")),
        partnerField ?? "",
        h(
          "div",
          { class: "row" },
          this.act(gettext("Register"), "t-register", async () => {
            const partnerId = t.unit === "pair" && partner.value ? Number(partner.value) : null;
            await tournamentsApi.register(this.id, partnerId);
            announce(gettext("You are entered."));
            await this.refresh();
          }, box, "primary"),
        ),
      );
      if (t.unit === "pair") void this.serial(() => this.offerFriends(partner, partnerField!));
    } else {
      content.push(h("p", { class: "muted" }, beforeStart(t.status) ? gettext("Entry is not open.") : gettext("You are not entered.")));
    }
    this.entrySlot.append(panel("t-entry", gettext("Your entry"), ...content, box));
  }

  /** A pairs event: your friends offered as partners (filling the id). */
  private async offerFriends(input: HTMLInputElement, where: HTMLElement): Promise<void> {
    const friends = await api.friends().catch(() => null);
    if (this.disposed || !friends?.friends.length) return;
    const pick = h(
      "select",
      { id: "t-partner-friend", testid: "t-partner-friend" },
      h("option", { value: "" }, gettext("choose a friend")),
      ...friends.friends.map((f) => h("option", { value: String(f.id) }, f.display_name)),
    ) as HTMLSelectElement;
    pick.addEventListener("change", () => {
      if (pick.value) input.value = pick.value;
    });
    where.after(field("t-partner-friend", gettext("Or pick a friend"), pick));
  }

  private showNext(next: NextGame | null): void {
    clear(this.nextSlot);
    if (!next) return;
    const table = next.table as TournamentTable | null;
    this.nextSlot.append(
      panel(
        "t-next",
        gettext("Your next game"),
        table && table.game_id !== null
          ? h("p", { testid: "next-game" }, `${pairingText(table)} · ${tableStatusName(table.status)} `, h("a", { class: "button primary", href: `#/game/${table.game_id}`, testid: "next-game-link" }, interpolate(gettext("Go to table #%(id)s"), { id: table.game_id })))
          : h("p", { class: "muted", testid: "next-game" }, table ? interpolate(gettext("Your table is about to be dealt: %(pairing)s."), { pairing: pairingText(table) }) : gettext("No game for you right now: wait for the next round.")),
      ),
    );
  }

  private showTables(tables: Tables | Error | null): void {
    clear(this.tablesSlot);
    this.proposed = false;
    if (tables === null) return;
    if (tables instanceof Error) {
      this.tablesSlot.append(h("p", { class: "message error" }, tables.message));
      return;
    }
    this.proposed = tables.results.some((r) => r.status === "proposed");
    this.tablesSlot.append(
      panel(
        "t-tables",
        interpolate(gettext("Pairings, round %(round)s"), { round: tables.round }),
        tables.results.length
          ? h(
              "ul",
              { class: "games", testid: "pairings" },
              ...tables.results.map((r) => {
                const link = gameLink(r);
                const label = r.board !== null ? interpolate(gettext("Table %(number)s, board %(board)s"), { number: r.number, board: r.board }) : r.leg > 1 ? interpolate(gettext("Table %(number)s, game %(leg)s"), { number: r.number, leg: r.leg }) : interpolate(gettext("Table %(number)s"), { number: r.number });
                return h(
                  "li",
                  { testid: "pairing", "data-status": r.status },
                  h("strong", {}, label),
                  ": ",
                  pairingText(r),
                  " · ",
                  h("span", { testid: "pairing-status" }, tableStatusName(r.status)),
                  resultText(r) ? ` · ${resultText(r)}` : "",
                  link ? h("a", { class: "button small", href: link.href, testid: "pairing-game", "aria-label": `${link.text}: ${label}` }, link.text) : "",
                );
              }),
            )
          : h("p", { class: "muted" }, gettext("No tables this round.")),
        tables.total > tables.results.length ? h("p", { class: "muted" }, interpolate(gettext("The first %(shown)s of %(total)s tables."), { shown: tables.results.length, total: tables.total })) : "",
      ),
    );
  }

  private showStandings(s: Standings): void {
    clear(this.standingsSlot);
    const prev = s.offset > 0 ? h("button", { type: "button", testid: "standings-prev", onclick: () => void this.serial(() => this.standingsPage(Math.max(0, s.offset - STANDINGS_PAGE))) }, gettext("Higher places")) : "";
    const next = s.offset + s.results.length < s.total ? h("button", { type: "button", testid: "standings-next", onclick: () => void this.serial(() => this.standingsPage(s.offset + STANDINGS_PAGE)) }, gettext("Lower places")) : "";
    const me = myPlayerId();
    this.standingsSlot.append(
      panel(
        "t-standings",
        gettext("Standings"),
        h("p", { class: "muted", testid: "standings-count", "aria-live": "off" }, standingsPageText(s.offset, s.results.length, s.total)),
        s.results.length
          ? h(
              "div",
              { class: "table-scroll", tabindex: 0, role: "region", "aria-label": gettext("Standings") },
              h(
                "table",
                { class: "ranking", testid: "standings" },
                h("caption", { class: "sr-only" }, gettext("Standings")),
                h("thead", {}, h("tr", {}, ...[gettext("Place"), gettext("Entry"), gettext("Points"), gettext("Buchholz"), gettext("Played"), gettext("Status")].map((c) => h("th", { scope: "col" }, c)))),
                h(
                  "tbody",
                  {},
                  ...s.results.map((e) => {
                    const you = me !== null && e.players.includes(me);
                    return h(
                      "tr",
                      { class: you ? "you" : "", testid: "standing-row", "aria-current": you ? "true" : undefined },
                      h("td", {}, e.rank === null ? "—" : String(e.rank)),
                      h("th", { scope: "row" }, e.name, e.bot_level ? h("span", { class: "tag" }, ` (${gettext("bot")})`) : "", you ? h("span", { class: "tag" }, ` (${gettext("you")})`) : ""),
                      h("td", { testid: "standing-points" }, pointsText(e.points)),
                      h("td", {}, pointsText(e.buchholz)),
                      h("td", {}, String(e.played)),
                      h("td", {}, entryStatusName(e.status)),
                    );
                  }),
                ),
              ),
            )
          : "",
        prev || next ? h("div", { class: "row" }, prev, next) : "",
      ),
    );
  }

  private async standingsPage(offset: number): Promise<void> {
    this.standingsOffset = offset;
    try {
      const s = await tournamentsApi.standings(this.id, STANDINGS_PAGE, offset);
      if (this.disposed) return;
      this.version = s.version;
      this.entries = s.results;
      this.showStandings(s);
      this.standingsSlot.querySelector<HTMLElement>("h2")?.setAttribute("tabindex", "-1");
      this.standingsSlot.querySelector<HTMLElement>("h2")?.focus();
    } catch (err) {
      say(this.box, problemText(err));
    }
  }

  /** The standings checked against the event log (and a duplicate's deals against their hash). */
  private async checkLog(): Promise<void> {
    this.checkedVersion = this.t?.version ?? -1;
    clear(this.verifySlot);
    const result = h("p", { testid: "verify-result", role: "status" }, gettext("Checking…"));
    const again = h("button", { type: "button", testid: "verify-again", onclick: () => void this.serial(() => this.checkLog()) }, gettext("Check again"));
    this.verifySlot.append(panel("t-verify", gettext("Checked against the log"), result, h("div", { class: "row" }, again)));
    try {
      const v = await tournamentsApi.verify(this.id);
      if (this.disposed) return;
      result.textContent = verifyText(v);
      result.className = v.ok && v.deals_verified !== false ? "message info" : "message error";
    } catch (err) {
      result.textContent = problemText(err);
      result.className = "message error";
    }
  }

  private proposed = false;
  private checkedVersion = -1;

  private showOrganiser(t: Tournament): void {
    clear(this.organiserSlot);
    if (t.organiser.id !== myPlayerId()) return;
    const box = this.organiserBox;
    const done = async (text: string) => {
      await this.refresh();
      announce(text);
      say(box, text, "info");
    };
    const parts: (Node | string)[] = [];
    const pre = beforeStart(t.status);
    if (t.status === "draft" || t.status === "closed") parts.push(this.act(gettext("Open entry"), "t-entry-open", async () => { await tournamentsApi.entryOpen(this.id); await done(gettext("Entry is open.")); }, box));
    if (t.status === "open") parts.push(this.act(gettext("Close entry"), "t-entry-close", async () => { await tournamentsApi.entryClose(this.id); await done(gettext("Entry is closed.")); }, box));
    if (pre) parts.push(this.act(gettext("Start the tournament"), "t-start", async () => { await tournamentsApi.start(this.id); await done(gettext("The tournament has started.")); }, box, "primary"));
    const rows: (Node | string)[] = [h("div", { class: "row" }, ...parts)];
    if (pre && !t.rated) {
      const count = h("input", { type: "number", id: "t-bots-count", testid: "t-bots-count", min: 1, max: 64, value: "2", inputmode: "numeric" }) as HTMLInputElement;
      const level = h("select", { id: "t-bots-level", testid: "t-bots-level" }, h("option", { value: "easy" }, gettext("easy")), h("option", { value: "medium", selected: true }, gettext("medium")), h("option", { value: "hard" }, gettext("hard"))) as HTMLSelectElement;
      rows.push(
        h(
          "fieldset",
          { class: "scopes", testid: "t-bots" },
          h("legend", {}, gettext("Bot entrants")),
          h("div", { class: "options-grid" }, field("t-bots-count", gettext("How many"), count), field("t-bots-level", gettext("Level"), level)),
          h("div", { class: "row" }, this.act(gettext("Add bots"), "t-bots-add", async () => {
            await tournamentsApi.botsEnter(this.id, Number(count.value), level.value as BotLevel);
            await done(counted(ngettext("%(count)s bot entered.", "%(count)s bots entered.", Number(count.value)), Number(count.value)));
          }, box)),
        ),
      );
    }
    if (pre && t.entry_rules.invitation_only) {
      const ids = h("input", { id: "t-invite-ids", testid: "t-invite-ids", inputmode: "numeric", autocomplete: "off" }) as HTMLInputElement;
      rows.push(
        h(
          "fieldset",
          { class: "scopes", testid: "t-invite" },
          h("legend", {}, gettext("Invite players")),
          field("t-invite-ids", gettext("Player ids"), ids, gettext("Separated by commas or spaces.")),
          h("div", { class: "row" }, this.act(gettext("Invite"), "t-invite-send", async () => {
            const players = ids.value.split(/[\s,]+/).filter(Boolean).map(Number);
            if (!players.length || players.some((n) => !Number.isInteger(n) || n < 1)) {
              say(box, gettext("Type player ids: whole numbers."));
              return;
            }
            const answer = await tournamentsApi.invite(this.id, players);
            ids.value = "";
            await done(counted(ngettext("%(count)s player invited.", "%(count)s players invited.", answer.added), answer.added));
          }, box)),
        ),
      );
    }
    if (t.status === "running") {
      const roundButtons: Node[] = [];
      if (this.proposed) {
        roundButtons.push(
          this.act(gettext("Publish the pairings"), "t-round-publish", async () => { await tournamentsApi.roundPublish(this.id); await done(gettext("The pairings are published: the games are dealt.")); }, box, "primary"),
          this.act(gettext("Discard the pairings"), "t-round-discard", async () => { await tournamentsApi.roundDiscard(this.id); await done(gettext("The proposed pairings are discarded.")); }, box),
        );
      } else if (t.format !== "arena" && !t.robot) {
        roundButtons.push(this.act(gettext("Pair the next round"), "t-round-pair", async () => { await tournamentsApi.roundPair(this.id); await done(gettext("The next round is paired.")); }, box));
      }
      if (roundButtons.length) rows.push(h("div", { class: "row", testid: "t-round-controls" }, ...roundButtons));
    }
    const active = removable(this.entries);
    if (active.length && t.status !== "finished" && t.status !== "cancelled") {
      const pick = h("select", { id: "t-remove-entry", testid: "t-remove-entry" }, ...active.map((e) => h("option", { value: String(e.id) }, e.name))) as HTMLSelectElement;
      rows.push(
        h(
          "fieldset",
          { class: "scopes", testid: "t-remove" },
          h("legend", {}, gettext("Remove an entry")),
          field("t-remove-entry", gettext("Entry"), pick, gettext("Entries on this page of the standings.")),
          h(
            "div",
            { class: "row" },
            this.act(gettext("Withdraw the entry"), "t-entry-withdraw", async () => { await tournamentsApi.entryRemove(this.id, Number(pick.value), false); await done(gettext("The entry is withdrawn.")); }, box),
            this.act(gettext("Disqualify the entry"), "t-entry-disqualify", async () => { await tournamentsApi.entryRemove(this.id, Number(pick.value), true); await done(gettext("The entry is disqualified.")); }, box, "danger"),
          ),
        ),
      );
    }
    if (t.status !== "finished" && t.status !== "cancelled") {
      const cancelRow = h("div", { class: "row", testid: "t-cancel-row" });
      const arm = () => {
        clear(cancelRow);
        if (!this.cancelArmed) {
          cancelRow.append(h("button", { type: "button", class: "danger", testid: "t-cancel", onclick: () => { this.cancelArmed = true; arm(); (cancelRow.querySelector("[data-testid=t-cancel-confirm]") as HTMLElement | null)?.focus(); } }, gettext("Cancel the tournament")));
        } else {
          cancelRow.append(
            h("span", {}, gettext("Cancel it for everyone? Games in progress are played out.")),
            this.act(gettext("Yes, cancel it"), "t-cancel-confirm", async () => { this.cancelArmed = false; await tournamentsApi.cancel(this.id); await done(gettext("The tournament is cancelled.")); }, box, "danger"),
            h("button", { type: "button", testid: "t-cancel-keep", onclick: () => { this.cancelArmed = false; arm(); } }, gettext("Keep it")),
          );
        }
      };
      arm();
      rows.push(cancelRow);
    }
    this.organiserSlot.append(panel("t-organiser", gettext("Organiser"), ...rows, box));
  }
}

// ============================================================================ a duplicate's boards
export class TournamentBoardsScreen {
  private disposed = false;

  constructor(
    private readonly root: HTMLElement,
    private readonly id: number,
  ) {}

  dispose(): void {
    this.disposed = true;
  }

  async mount(): Promise<void> {
    const body = h("div", { class: "settings account tournaments", testid: "boards-page" });
    this.root.append(pageHeader(gettext("Results per board"), "tournaments"), body);
    body.append(h("p", { class: "loading" }, gettext("Loading the boards…")));
    try {
      const t = await tournamentsApi.get(this.id);
      const boards = await tournamentsApi.boards(this.id);
      if (this.disposed) return;
      clear(body);
      const imps = t.duplicate_scoring === "imps";
      body.append(
        h("p", {}, h("a", { class: "button", href: `#/tournament/${t.id}`, testid: "back-to-tournament" }, interpolate(gettext("Back to %(name)s"), { name: t.name }))),
        h(
          "p",
          { class: "muted", testid: "boards-commitment" },
          boards.revealed ? gettext("The deals are revealed: each board's seed is shown.") : gettext("The deals stay secret until the event ends; their hash is published:"),
          " ",
          boards.deal_commitment ? h("span", { class: "secret" }, h("code", { class: "commitment" }, boards.deal_commitment)) : "",
        ),
        ...(boards.boards.length
          ? boards.boards.map((b) =>
              panel(
                `board-${b.board}`,
                interpolate(gettext("Board %(board)s"), { board: b.board }),
                b.seed ? h("p", { class: "muted", testid: "board-seed" }, gettext("Seed:"), " ", h("span", { class: "secret" }, h("code", { class: "commitment" }, b.seed))) : "",
                b.scored ? "" : h("p", { class: "muted" }, gettext("Not scored yet.")),
                h(
                  "div",
                  { class: "table-scroll", tabindex: 0, role: "region", "aria-label": interpolate(gettext("Board %(board)s"), { board: b.board }) },
                  h(
                    "table",
                    { class: "ranking", testid: "board-tables" },
                    h("caption", { class: "sr-only" }, interpolate(gettext("Board %(board)s"), { board: b.board })),
                    h("thead", {}, h("tr", {}, ...[gettext("Table"), gettext("Sides"), gettext("Score"), imps ? gettext("IMPs") : gettext("Matchpoints"), gettext("Game")].map((c) => h("th", { scope: "col" }, c)))),
                    h(
                      "tbody",
                      {},
                      ...b.tables.map((r) => {
                        const link = gameLink(r);
                        return h(
                          "tr",
                          { testid: "board-table" },
                          h("td", {}, interpolate(gettext("Round %(round)s, table %(number)s"), { round: r.round, number: r.number })),
                          h("th", { scope: "row" }, pairingText(r)),
                          h("td", {}, r.scores ? `${r.scores[0]} – ${r.scores[1]}` : r.result_hidden ? resultText(r) : tableStatusName(r.status)),
                          h("td", { testid: "board-points" }, boardPointsText(r, imps)),
                          h("td", {}, link ? h("a", { class: "button small", href: link.href, testid: "board-game", "aria-label": `${link.text}: ${interpolate(gettext("Round %(round)s, table %(number)s"), { round: r.round, number: r.number })}` }, link.text) : "—"),
                        );
                      }),
                    ),
                  ),
                ),
              ),
            )
          : [h("p", { class: "muted", testid: "boards-empty" }, gettext("No board has been played yet."))]),
      );
    } catch (err) {
      if (this.disposed) return;
      clear(body);
      body.append(h("p", { class: "message error", testid: "message" }, problemText(err)));
    }
  }
}
