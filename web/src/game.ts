// The game screen: the lobby before the start, then the table with your hand and the actions
// the API lists as legal for you. Everything comes from GET /games/{id}/ and the events, which
// arrive over the WebSocket, else the event stream, else the long-poll (see live.ts).
import {
  type Action,
  ApiError,
  type Rules,
  type ChatPhrase,
  forget,
  api,
  type GameDetail,
  type GameEvent,
  randomKey,
  type Scorecard,
  myPlayerId,
  type TableEvent,
  type TableView,
  token,
  type ActionResult,
  type RatingChange,
} from "./api";
import { announce } from "./announce";
import { type BoardMeld, botBadge, levelName, renderBoard, tableModel } from "./board";
import { cardEl, cardFace, cardName, cardText, isRed, isWild, rankName, removeCards, sortCards } from "./cards";
import {
  canKeepThree,
  type Family,
  type FamilyAction,
  type FamilyMeldGroup,
  familyOf,
  hasMeldIds,
  hasWildMelds,
  layOffGroup,
  meldLabel,
  meldsTaking,
  mergePairs,
  ontoGroup,
  sequenceGroup,
  specialHandNames,
  specialHandWords,
  wildGroup,
} from "./family";
import { type Dialog, openDialog } from "./dialog";
import { clear, h } from "./dom";
import { openHelp } from "./help";
import { presetTitle } from "./options";
import { actionBody, LiveFeed, LiveLost, type Transport } from "./live";
import { durationText } from "./correspondence";
import { type PauseActions, pausePanel, rememberMuted } from "./pausePanel";
import { autoGroups, pileTake, stagedGroups } from "./play";
import { standInBanner } from "./standIn";
import { ratingChangeLines } from "./ratings";
import { describe, seatName } from "./replay";
import { actionText } from "./words";
import { counted, gettext, gettext_noop, interpolate, ngettext, translate } from "./i18n";
import { currentHint, type Hint, hintAfterEvents, HINT_LEVELS, type HintLevel, hintedIndices, hintsOn, hintSummary, hintText } from "./hints";

/** Long-poll length (the server holds a request until there is news) and the shortest loop:
 * the last resort when neither the socket nor the stream can be opened. */
const LONG_POLL_S = 20;
const LOOP_MS = 1000;

const sleep = (ms: number) => new Promise((resolve) => window.setTimeout(resolve, ms));
const LOG_SIZE = 40;

const PHASE_HINT: Record<string, string> = {
  draw: gettext_noop("Your turn: draw from the stock or take the pile."),
  play: gettext_noop("Meld or lay off if you like, then discard one card."),
  answer: gettext_noop("Your partner asks to go out: answer yes or no."),
};

const PERMISSION_TEXT: Record<string, string> = {
  asked: gettext_noop("Waiting for your partner's answer…"),
  yes: gettext_noop("Your partner said yes: you must go out this turn."),
  no: gettext_noop("Your partner said no: you may not go out this turn."),
};

interface Message {
  kind: "error" | "info";
  text: string;
  code?: string;
}

export class GameScreen {
  private game: GameDetail | null = null;
  private selected = new Set<number>();
  private staged: string[][] = [];
  private lastSeq = 0;
  private log: string[] = [];
  private message: Message | null = null;
  private busy = false;
  private aborter = new AbortController();
  private modal: Dialog | null = null;
  /** What had focus before a redraw, to give it back (see render). */
  private focusWanted: string | null = null;
  /** The last turn announced, so that each turn is read out once. */
  private spokenTurn = "";
  private rules: Rules | null = null;
  private disposed = false;
  /** The turn timer's deadline on this page's clock (performance.now()), from `seconds_left`. */
  private deadline: number | null = null;
  private ticker: number | undefined;
  private chat: { phrases: ChatPhrase[]; lines: string[] } | null = null;
  /** The quick chat stays open across re-renders. */
  private chatOpen = false;
  /** The last table event seen (chat, concession, rematch). */
  private tableSeq = 0;
  /** The socket or the stream while they carry the events; null once they cannot (long-poll). */
  private feed: LiveFeed | null = null;
  /** Pushed news arrived during an action: read the table again after it. */
  private stale = false;
  private refreshing: Promise<void> | null = null;
  private refreshAgain = false;
  /** The feed said `end`: the game is over (its status may not be read yet). */
  private over = false;
  /** A round's summary being opened: the table after that round is drawn once it is up. */
  private summary: Promise<void> = Promise.resolve();
  /** The rematch's game id once it exists (table event `rematch_created`). */
  private rematchGame: number | null = null;
  /** At a table with hints: the server's suggestion for this turn, cleared by any new event. */
  private hint: Hint | null = null;
  private hintLevel: HintLevel = "medium";
  private hintBusy = false;
  private hintError = "";
  /** samba and bolivia: where the next meld or pile take goes ("" as the rules say, "new",
   * or a meld id). */
  private onto = "";
  /** samba and bolivia: the merge chosen ("A2|A5"). */
  private mergeChoice = "";
  /** mac: the special hand chosen to declare. */
  private specialChoice = "";

  constructor(
    private readonly root: HTMLElement,
    private readonly id: number,
  ) {}

  async mount(): Promise<void> {
    this.root.append(h("p", { class: "loading" }, gettext("Loading the table…")));
    try {
      this.game = await api.game(this.id);
    } catch (err) {
      this.fail(err);
      return;
    }
    this.syncTimer();
    this.lastSeq = Math.max(0, this.game.version - 12);
    await this.pullEvents(true);
    try {
      this.chat = { phrases: await api.chatPhrases(), lines: [] };
    } catch {
      this.chat = null; // no quick chat on this server
    }
    await this.pullTable().catch(() => undefined);
    this.render();
    this.ticker = window.setInterval(() => this.tick(), 250);
    void this.moveLoop();
  }

  dispose(): void {
    this.disposed = true;
    this.aborter.abort();
    this.feed?.stop();
    this.feed = null;
    delete this.root.dataset.live;
    window.clearInterval(this.ticker);
  }

  // ------------------------------------------------------------------ live updates
  /** Events come over the socket or the stream (live.ts) and the long-poll is the last resort,
   * unless turned off with localStorage "canasta.longPoll" = "off": then short polls, one
   * request at a time and never beside an action (the browser tests do that on SQLite, whose
   * shared in-memory test database cannot take a read beside a write). */
  private readonly longPoll = localStorage.getItem("canasta.longPoll") !== "off";
  private pending: Promise<void> = Promise.resolve();

  private async moveLoop(): Promise<void> {
    if (!this.longPoll) this.showTransport("short");
    else if (this.game?.status === "finished") void this.tableLoop();
    else this.follow();
    while (!this.disposed) {
      const started = performance.now();
      this.pending = this.liveStep();
      await this.pending;
      await sleep(Math.max(0, LOOP_MS - (performance.now() - started)));
    }
  }

  /** Follow the game over the socket (or the stream): each move and table event is applied
   * as it comes, then the table is read again. */
  private follow(): void {
    this.feed = new LiveFeed(
      {
        position: () => ({ move: this.lastSeq, table: this.tableSeq }),
        gameEvent: async (ev) => {
          await this.applyEvents([ev], false);
          this.refreshSoon();
        },
        tableEvent: (ev) => this.applyTable([ev]),
        resync: () => this.resync(),
        ended: () => {
          this.feed = null;
          this.over = true;
          this.showTransport("ended");
          this.refreshSoon();
          void this.tableLoop(); // rematch news after the end: short polls
        },
        fellBack: () => {
          this.feed = null;
          this.showTransport("poll");
          void this.tableLoop();
        },
        connected: (t) => this.showTransport(t ?? "connecting"),
      },
      {
        gameId: this.id,
        token,
        socketUrl: (path) => `${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/api/v1${path}`,
      },
    );
    this.showTransport("connecting");
    this.feed.start();
  }

  /** The page's live transport, for the curious and the browser tests (data-live). */
  private showTransport(t: Transport | "connecting" | "short" | "ended"): void {
    if (!this.disposed) this.root.dataset.live = t;
  }

  /** Wait for the other seats' moves with a long-poll of the events feed (when neither the
   * socket nor the stream can be had), then read the table again; on your own turn too (a
   * proposal to pause can come then). In the lobby (seats fill without events) and when your
   * own turn timer has run out, read the table directly. */
  private async liveStep(): Promise<void> {
    const g = this.game;
    if (!g || this.busy || this.modal) return;
    if (!this.longPoll) await this.pullTable().catch(() => undefined);
    if (g.status === "finished") return;
    const left = this.secondsLeft();
    const expired = left !== null && left <= 0 && performance.now() - this.deadline! > 1500;
    if (g.status === "lobby" || expired) {
      await this.refresh();
    } else if (!this.feed) {
      let news = true;
      try {
        const wait = this.longPoll ? LONG_POLL_S : 0;
        const page = await api.events(this.id, this.lastSeq, 1, wait, this.aborter.signal);
        news = page.events.length > 0 || page.version !== this.game?.version;
      } catch {
        /* network trouble or disposed: the next step tries again */
      }
      if (news && !this.disposed && !this.busy) await this.refresh();
    }
  }

  /** Table events by long-poll (short polls once the game is over). */
  private async tableLoop(): Promise<void> {
    while (!this.disposed && !this.feed) {
      const started = performance.now();
      try {
        await this.pullTable(this.over || this.game?.status === "finished" ? 0 : LONG_POLL_S);
      } catch {
        /* try again */
      }
      await sleep(Math.max(0, LOOP_MS * 2 - (performance.now() - started)));
    }
  }

  // ------------------------------------------------------------------ turn timer
  private syncTimer(): void {
    const t = this.game?.timer;
    this.deadline =
      t && t.enabled && t.seconds_left !== null && t.seat !== null && this.game?.status === "active"
        ? performance.now() + t.seconds_left * 1000
        : null;
  }

  private secondsLeft(): number | null {
    return this.deadline === null ? null : Math.max(0, (this.deadline - performance.now()) / 1000);
  }

  private tick(): void {
    const left = this.secondsLeft();
    const el = this.root.querySelector<HTMLElement>("[data-testid=countdown]");
    if (!el || left === null) return;
    el.textContent = clock(left);
    el.classList.toggle("urgent", left < 10);
  }

  // ------------------------------------------------------------------ table events, quick chat
  private async pullTable(wait = 0): Promise<void> {
    const page = await api.tableEvents(this.id, this.tableSeq, wait, wait ? this.aborter.signal : undefined);
    this.applyTable(page.events);
  }

  /** Table events after the last one seen (from the feed or a read), in order. */
  private applyTable(events: TableEvent[]): void {
    let news = false;
    for (const ev of events) {
      if (ev.seq <= this.tableSeq) continue;
      this.tableSeq = ev.seq;
      if (ev.kind === "rematch_created" && typeof ev.data.game === "number") {
        this.rematchGame = ev.data.game;
        news = true;
      }
      if (ev.kind === "conceded") {
        this.log.unshift(interpolate(gettext("%(name)s conceded."), { name: ev.seat !== null ? this.nameOf(ev.seat) : gettext("A player") }));
        news = true;
        // The game is over, on your turn too (when no move event is awaited): read it.
        if (this.game?.status === "active") this.refreshSoon();
      }
      if (ev.kind !== "chat" || !this.chat) continue;
      const who = ev.seat !== null ? this.nameOf(ev.seat) : (ev.player?.display_name ?? gettext("Someone"));
      this.chat.lines.unshift(`${who}: ${String(ev.data.text ?? ev.data.phrase ?? "")}`);
      news = true;
    }
    if (this.chat) this.chat.lines = this.chat.lines.slice(0, 20);
    if (news && !this.busy) this.render();
  }

  private say = async (phrase: string): Promise<void> => {
    if (!this.longPoll) await this.pending;
    try {
      await api.chatSend(this.id, phrase);
      await this.pullTable();
    } catch (err) {
      this.showError(err);
    }
  };

  /** Pausing by agreement and muting this game: each answer is followed by a read of the
   * table (the pause facts also come through the live feed). */
  private pauseActions: PauseActions = {
    propose: () => void this.pauseCall(() => api.pause(this.id), gettext("You agreed to pause the game.")),
    decline: () => void this.pauseCall(() => api.pauseDecline(this.id), gettext("You declined the pause.")),
    resume: () => void this.pauseCall(() => api.resume(this.id), gettext("You resumed the game.")),
    mute: (muted) =>
      void this.pauseCall(async () => {
        const answer = await api.mute(this.id, muted);
        rememberMuted(this.id, answer.muted);
      }, muted ? gettext("Notifications for this game are muted.") : gettext("Notifications for this game are on again.")),
  };

  private async pauseCall(fn: () => Promise<unknown>, done: string): Promise<void> {
    if (!this.longPoll) await this.pending;
    try {
      await fn();
      this.message = { kind: "info", text: done };
      this.game = await api.game(this.id);
      this.syncTimer();
      await this.pullEvents(false);
    } catch (err) {
      this.showError(err, false);
    }
    this.render();
  }

  /** "I'm back": take the seat back from its stand-in bot, then draw the game the server
   * answers; a refusal (taken back meanwhile, the game over) is shown and the table read again. */
  private reclaim = async (url: string): Promise<void> => {
    if (this.busy) return;
    this.busy = true;
    this.render();
    if (!this.longPoll) await this.pending;
    try {
      this.game = await api.reclaimSeat(url);
      this.message = { kind: "info", text: gettext("Welcome back: your seat is yours again.") };
      await this.pullEvents(false);
    } catch (err) {
      this.showError(err, false);
      this.game = await api.game(this.id).catch(() => this.game);
    } finally {
      this.syncTimer();
      this.busy = false;
      this.render();
      if (this.stale) {
        this.stale = false;
        this.refreshSoon();
      }
    }
  };

  private concede = async (): Promise<void> => {
    if (!window.confirm(gettext("Concede this game? Your side loses."))) return;
    await this.lobbyCall(() => api.concede(this.id));
  };

  private rematch = async (): Promise<void> => {
    try {
      const status = await api.rematch(this.id);
      if (status.game !== null) {
        location.hash = `#/game/${status.game}`;
        return;
      }
      this.message = {
        kind: "info",
        text: counted(ngettext("Rematch accepted: waiting for %(count)s more player.", "Rematch accepted: waiting for %(count)s more players.", status.waiting_for.length), status.waiting_for.length),
      };
    } catch (err) {
      this.showError(err, false);
    }
    this.render();
  };

  // ------------------------------------------------------------------ data
  private get state(): TableView | null {
    return this.game?.state ?? null;
  }

  private get myTurn(): boolean {
    const g = this.game;
    return !!g && g.status === "active" && g.state !== null && g.state.to_act === g.your_seat && !g.pause?.paused;
  }

  private nameOf = (seat: number): string =>
    seatName(this.game?.seats ?? [], seat, this.game?.your_seat ?? null);

  /** Read the table again; the events too, unless the feed brings them. */
  private async refresh(pushed = false): Promise<void> {
    try {
      const before = signature(this.game);
      this.game = await api.game(this.id);
      this.syncTimer();
      if (pushed || signature(this.game) !== before) {
        if (!this.feed) await this.pullEvents(false);
        await this.summary;
        this.pruneSelection();
        this.render();
      }
    } catch (err) {
      this.showError(err);
    }
  }

  /** A read of the table after pushed news; one at a time, never during an action (which
   * reads it itself, and again afterwards if news came meanwhile). */
  private refreshSoon(): void {
    if (this.disposed) return;
    if (this.busy) {
      this.stale = true;
      return;
    }
    if (this.refreshing) {
      this.refreshAgain = true;
      return;
    }
    this.refreshing = (async () => {
      do {
        this.refreshAgain = false;
        await this.refresh(true);
      } while (this.refreshAgain && !this.disposed && !this.busy);
    })().finally(() => {
      this.refreshing = null;
    });
  }

  /** A move came out of order: read the table and the missing events. */
  private async resync(): Promise<void> {
    try {
      this.game = await api.game(this.id);
      this.syncTimer();
    } catch {
      /* the events below still fill the gap */
    }
    await this.pullEvents(false);
    this.pruneSelection();
    this.render();
  }

  private async pullEvents(initial: boolean): Promise<void> {
    let page;
    try {
      page = await api.events(this.id, this.lastSeq);
    } catch {
      return;
    }
    await this.applyEvents(page.events, initial);
  }

  /** Moves after the last one applied, in seq order, from a read or from the feed: the log's
   * lines and, after a round's end, its summary (not for the first read of the page). */
  private async applyEvents(events: GameEvent[], initial: boolean): Promise<void> {
    const fresh = events.filter((ev) => ev.seq > this.lastSeq).sort((a, b) => a.seq - b.seq);
    this.hint = hintAfterEvents(this.hint, fresh);
    if (fresh.length) this.hintError = "";
    for (const ev of fresh) {
      for (const line of describe(ev, this.nameOf, (t) => this.teamLabel(t))) this.log.unshift(line);
      this.lastSeq = ev.seq;
    }
    this.log = this.log.slice(0, LOG_SIZE);
    if (initial) return;
    this.announceMoves(fresh);
    const ended = fresh.flatMap((ev) => ev.effects).filter((e) => e.kind === "round_ended");
    if (!ended.length) return;
    this.summary = this.showRoundSummary((ended[ended.length - 1].hands as string[][]) ?? []);
    await this.summary;
  }

  private askHint = async (): Promise<void> => {
    if (!this.game || this.hintBusy || !this.myTurn) return;
    this.hintBusy = true;
    this.hintError = "";
    this.render();
    try {
      const hint = await api.hint(this.id, this.hintLevel);
      this.hint = hint;
      announce(`${hintText(hint)}.${hintSummary(hint) ? ` ${hintSummary(hint)}` : ""}`);
    } catch (err) {
      this.hint = null;
      this.hintError = err instanceof ApiError ? `${err.problem.detail} (${err.code})` : String(err);
      announce(this.hintError);
    } finally {
      this.hintBusy = false;
      this.render();
    }
  };

  /** The hint's controls (a level and the button) and its move in words; on your turn only. */
  private hintEl(g: GameDetail): HTMLElement | string {
    if (!hintsOn(g) || g.status !== "active" || g.your_seat === null || !this.myTurn) return "";
    const hint = currentHint(this.hint, g.version);
    return h(
      "div",
      { class: "hint-box", testid: "hint-box" },
      h(
        "label",
        { for: "hint-level" },
        `${gettext("Hint level")} `,
        h(
          "select",
          {
            id: "hint-level",
            testid: "hint-level",
            onchange: (e: Event) => {
              this.hintLevel = (e.target as HTMLSelectElement).value as HintLevel;
            },
          },
          ...HINT_LEVELS.map((l) => h("option", { value: l, selected: l === this.hintLevel }, l === "medium" ? gettext("medium") : l === "hard" ? gettext("hard") : l)),
        ),
      ),
      h("button", { testid: "hint", disabled: this.busy || this.hintBusy, onclick: () => void this.askHint() }, this.hintBusy ? gettext("Thinking…") : gettext("Hint")),
      h(
        "p",
        { class: `hint-text ${this.hintError ? "error" : ""}`, testid: "hint-text", role: "status" },
        hint ? [...cardText(hintText(hint)), hintSummary(hint) ? h("span", { class: "muted" }, " — ", ...cardText(hintSummary(hint))) : ""] : this.hintError,
      ),
    );
  }

  private pruneSelection(): void {
    const hand = this.handAvailable();
    for (const i of [...this.selected]) if (i >= hand.length) this.selected.delete(i);
    if (!this.myTurn) {
      this.selected.clear();
      this.staged = [];
    }
  }

  /** Your sorted hand less the cards staged into meld groups. */
  private handAvailable(): string[] {
    const hand = sortCards(this.state?.hand ?? []);
    return removeCards(hand, this.staged.flat());
  }

  private selectedCards(): string[] {
    const hand = this.handAvailable();
    return [...this.selected].sort((a, b) => a - b).map((i) => hand[i]);
  }

  private legal(type: string): Action[] {
    return (this.state?.legal_actions ?? []).filter((a) => a.type === type);
  }

  private get family(): Family {
    return familyOf(this.state);
  }

  /** The legal actions with the families' fields. */
  private familyLegal(): FamilyAction[] {
    return this.state?.legal_actions ?? [];
  }

  /** Your side's melds on the table. */
  private ownMelds(): BoardMeld[] {
    const g = this.game;
    const s = this.state;
    if (!g || !s || g.your_seat === null) return [];
    const model = tableModel(g, s);
    const team = g.seats[g.your_seat]?.team;
    return model.teams.find((t) => t.team === team)?.melds ?? [];
  }

  private can(type: string): boolean {
    return this.myTurn && this.legal(type).length > 0;
  }

  // ------------------------------------------------------------------ actions
  private async act(action: Action): Promise<void> {
    if (!this.game || this.busy) return;
    this.busy = true;
    this.message = null;
    this.render();
    if (!this.longPoll) await this.pending;
    try {
      const res = await this.send(action, this.game.version);
      this.game = res.game;
      this.selected.clear();
      this.staged = [];
      this.onto = "";
      this.mergeChoice = "";
      // Bots answer at once on the server: read the table again to see their moves.
      this.game = await api.game(this.id);
      this.syncTimer();
      await this.pullEvents(false);
    } catch (err) {
      if (err instanceof ApiError && err.code === "stale_version") {
        this.game = await api.game(this.id);
        this.syncTimer();
        await this.pullEvents(false);
        this.message = { kind: "info", text: gettext("The table changed meanwhile; here it is now. Try again.") };
      } else {
        this.showError(err, false);
      }
    } finally {
      await this.summary; // the feed may have brought the round's end during the action
      this.busy = false;
      this.render();
      if (this.stale) {
        this.stale = false;
        this.refreshSoon();
      }
    }
  }

  /** An action over the socket when it is open, else (or if it goes away before the answer)
   * over HTTP with the same idempotency key; either way the HTTP POST's answer or ApiError. */
  private async send(action: Action, version: number): Promise<ActionResult> {
    const key = randomKey();
    const viaSocket = this.feed?.act({ action, expected_version: version, idempotency_key: key });
    if (viaSocket) {
      try {
        return actionBody(await viaSocket);
      } catch (err) {
        if (!(err instanceof LiveLost)) throw err;
      }
    }
    return api.act(this.id, action, version, key);
  }

  private draw = () => void this.act({ type: "draw" });

  private discard = () => {
    const cards = this.selectedCards();
    if (cards.length !== 1) {
      this.message = { kind: "info", text: gettext("Select exactly one card to discard.") };
      this.render();
      return;
    }
    void this.act({ type: "discard", card: cards[0] });
  };

  private meld = () => {
    const family = this.family;
    const sel = this.selectedCards();
    let fresh: FamilyMeldGroup[] = autoGroups(sel);
    if (family !== "classic" && sel.length && sel.every(isWild) && hasWildMelds(family)) {
      fresh = [wildGroup(sel, hasMeldIds(family) ? this.onto : "")];
    } else if (hasMeldIds(family) && fresh.length === 1) {
      fresh = [ontoGroup(fresh[0], this.onto)];
    }
    const groups: FamilyMeldGroup[] = [...stagedGroups(this.staged), ...fresh];
    if (!groups.length) {
      this.say_(gettext("Select the cards to meld first."));
      return;
    }
    if (this.needsTarget(groups)) return;
    void this.act({ type: "meld", melds: groups });
  };

  /** samba and bolivia: a group that several of your melds could take needs one named (the
   * "Onto" choice, or a tap on the meld); say so before the server refuses it. */
  private needsTarget(groups: FamilyMeldGroup[]): boolean {
    if (!hasMeldIds(this.family)) return false;
    for (const g of groups) {
      if (g.target || g.new || g.kind === "sequence") continue;
      const rank = g.kind === "wild" ? "W" : (g.rank ?? "");
      const could = meldsTaking(this.ownMelds(), rank);
      if (could.length >= 2) {
        const what = rank === "W" ? gettext("wild cards") : rankName(rank);
        this.say_(interpolate(gettext("Several of your melds could take these %(cards)s (%(melds)s): choose one under \"Onto\" (or a new meld), or tap the meld."), { cards: what, melds: could.map((m) => m.id).join(", ") }));
        return true;
      }
    }
    return false;
  }

  private say_(text: string): void {
    this.message = { kind: "info", text };
    this.render();
  }

  private layOff = (_team: number, meld: BoardMeld) => {
    const cards = this.selectedCards();
    if (!cards.length) {
      this.say_(interpolate(gettext("Select cards to lay off on your %(meld)s."), { meld: rankName(meld.rank) }));
      return;
    }
    void this.act({ type: "meld", melds: [...stagedGroups(this.staged), layOffGroup(meld, cards)] });
  };

  /** samba and bolivia: the selection as a sequence (a new one, or onto the sequence chosen). */
  private meldSequence = () => {
    const cards = this.selectedCards();
    if (!cards.length) {
      this.say_(gettext("Select the cards of one suit for the sequence first."));
      return;
    }
    void this.act({ type: "meld", melds: [...stagedGroups(this.staged), sequenceGroup(cards, this.onto)] });
  };

  /** mac and bolivia: the selected wild cards as a wild meld. */
  private meldWild = () => {
    const cards = this.selectedCards();
    if (!cards.length) {
      this.say_(gettext("Select the wild cards (2s and jokers) for the wild meld first."));
      return;
    }
    const group = wildGroup(cards, hasMeldIds(this.family) ? this.onto : "");
    const groups = [...stagedGroups(this.staged), group];
    if (this.needsTarget(groups)) return;
    void this.act({ type: "meld", melds: groups });
  };

  /** samba and bolivia: merge the second group meld into the first. */
  private merge = () => {
    const [into, from] = this.mergeChoice.split("|");
    if (!into || !from) {
      this.say_(gettext("Choose two melds of one rank to merge."));
      return;
    }
    void this.act({ type: "meld", melds: stagedGroups(this.staged), merge: [into, from] });
  };

  /** mac: draw, keeping a 3 for a Straight. */
  private drawKeepThree = () => void this.act({ type: "draw", keep_three: true });

  /** mac: declare the special hand chosen. */
  private declareSpecial = () => {
    const names = specialHandNames(this.familyLegal());
    const name = names.includes(this.specialChoice) ? this.specialChoice : names[0];
    if (!name) return;
    void this.act({ type: "declare_special_hand", name });
  };

  private takePile = () => {
    const top = this.state?.pile.top;
    if (!top) return;
    const cards = this.selectedCards();
    const onto = hasMeldIds(this.family) && this.onto !== "new" ? this.onto : "";
    if (!cards.length && !this.staged.length) {
      if (onto) {
        void this.act({ type: "take_pile", cards: [], melds: [], target: onto });
        return;
      }
      const suggestion = this.legal("take_pile")[0];
      if (suggestion) void this.act(suggestion);
      return;
    }
    const take: FamilyAction = pileTake(top, cards, this.staged);
    void this.act(onto ? { ...take, target: onto } : take);
  };

  private stage = () => {
    const cards = this.selectedCards();
    if (!cards.length) return;
    this.staged.push(cards);
    this.selected.clear();
    this.message = {
      kind: "info",
      text: gettext("Group set aside. Add more groups, then Meld (or take the pile) to play them together."),
    };
    this.render();
  };

  private clearSelection = () => {
    this.selected.clear();
    this.staged = [];
    this.message = null;
    this.render();
  };

  // ------------------------------------------------------------------ messages
  private showError(err: unknown, render = true): void {
    if (err instanceof ApiError) {
      this.message = { kind: "error", text: err.problem.detail || err.problem.title, code: err.code };
    } else {
      this.message = { kind: "error", text: String(err) };
    }
    if (render) this.render();
  }

  private fail(err: unknown): void {
    if (err instanceof ApiError && err.status === 401) {
      forget(); // the token is no longer valid (for example a new database): sign up again
      location.reload();
      return;
    }
    clear(this.root);
    const text = err instanceof ApiError ? err.problem.detail : String(err);
    this.root.append(
      h(
        "div",
        { class: "panel" },
        h("p", { class: "message error", testid: "message" }, text),
        h("a", { href: "#/" }, gettext("Back to the lobby")),
      ),
    );
  }

  // ------------------------------------------------------------------ round summary / scorecard
  private async showRoundSummary(hands: string[][] = []): Promise<void> {
    let card: Scorecard;
    try {
      card = await api.scorecard(this.id);
    } catch {
      return;
    }
    const last = card.rounds[card.rounds.length - 1];
    if (!last) return;
    const finished = card.status === "finished";
    const changes = finished ? await this.ratingChanges() : [];
    const title = finished
      ? card.winner_team === this.myTeam()
        ? gettext("Game over: your side wins!")
        : interpolate(gettext("Game over: team %(team)s wins"), { team: (card.winner_team ?? 0) + 1 })
      : interpolate(gettext("Round %(round)s is over"), { round: last.round });
    const why =
      last.reason === "went_out" && last.went_out !== null
        ? interpolate(last.concealed ? gettext("%(name)s went out concealed.") : gettext("%(name)s went out."), { name: this.nameOf(last.went_out) })
        : ROUND_END_TEXT[last.reason as string]
          ? translate(ROUND_END_TEXT[last.reason as string])
          : interpolate(gettext("The round ended: %(reason)s."), { reason: String(last.reason).replace(/_/g, " ") });
    this.openModal(
      h(
        "div",
        { class: "modal-body", testid: "round-summary" },
        h("h2", {}, title),
        h("p", {}, why),
        roundTable(card, last.round, (t) => this.teamLabel(t)),
        changes.length ? this.ratingChangesEl(changes) : "",
        hands.some((hand) => hand.length)
          ? h(
              "div",
              { class: "left-in-hand", testid: "hands-left" },
              h("h3", {}, gettext("Cards left in hand")),
              ...hands.map((hand, seat) =>
                h(
                  "div",
                  { class: "hand-row" },
                  h("span", { class: "seat-name" }, this.nameOf(seat)),
                  hand.length ? h("span", {}, ...sortCards(hand).map((c) => cardEl(c, "mini"))) : gettext("none"),
                ),
              ),
            )
          : "",
        h(
          "div",
          { class: "row" },
          h("button", { class: "primary", testid: "close-summary", onclick: () => this.closeModal() }, finished ? gettext("Close") : gettext("Next round")),
          h("button", { testid: "open-scorecard", onclick: () => void this.showScorecard() }, gettext("Full scorecard")),
          finished ? h("a", { class: "button", href: `#/replay/${this.id}`, testid: "summary-replay" }, gettext("Replay")) : "",
        ),
      ),
    );
  }

  /** A rated game's rating changes, once it is over (read again: the last move applied them). */
  private async ratingChanges(): Promise<RatingChange[]> {
    let g = this.game;
    if (g?.rated && !g.rating_changes?.length) g = await api.game(this.id).catch(() => g);
    return g?.rated ? (g.rating_changes ?? []) : [];
  }

  private ratingChangesEl(changes: RatingChange[]): HTMLElement {
    return h(
      "div",
      { class: "rating-changes", testid: "rating-changes" },
      h("h3", {}, gettext("Rating changes")),
      h("ul", {}, ...ratingChangeLines(changes, this.nameOf).map((line) => h("li", {}, line))),
    );
  }

  private async showScorecard(): Promise<void> {
    let card: Scorecard;
    try {
      card = await api.scorecard(this.id);
    } catch (err) {
      this.showError(err);
      return;
    }
    this.openModal(
      h(
        "div",
        { class: "modal-body", testid: "scorecard" },
        h("h2", {}, interpolate(gettext("Scorecard (target %(target)s)"), { target: card.target_score })),
        card.rounds.length ? scorecardTable(card, (t) => this.teamLabel(t)) : h("p", {}, gettext("No round has ended yet.")),
        h("button", { class: "primary", testid: "close-scorecard", onclick: () => this.closeModal() }, gettext("Close")),
      ),
    );
  }

  private openModal(body: HTMLElement): void {
    this.closeModal();
    const dialog = openDialog(
      body,
      () => {
        if (this.modal === dialog) this.modal = null;
      },
      () => this.focusFallback(),
    );
    this.modal = dialog;
  }

  private closeModal(): void {
    this.modal?.close();
    this.modal = null;
  }

  private help = async (): Promise<void> => {
    if (!this.rules) this.rules = await api.rules().catch(() => null);
    openHelp({ rules: this.rules, options: (this.game?.options as Record<string, unknown> | undefined) ?? null }, () =>
      this.focusFallback(),
    );
  };

  private myTeam(): number | null {
    const g = this.game;
    if (!g || g.your_seat === null) return null;
    return g.seats[g.your_seat]?.team ?? null;
  }

  private teamLabel(team: number): string {
    const seats = (this.game?.seats ?? []).filter((s) => s.team === team).map((s) => this.nameOf(s.index));
    return seats.join(" & ");
  }

  // ------------------------------------------------------------------ rendering
  private render(): void {
    if (this.disposed || !this.game) return;
    const scroll = window.scrollY;
    const focused = focusKey(this.root);
    if (focused) this.focusWanted = focused;
    clear(this.root);
    const g = this.game;
    this.root.append(this.header(g));
    if (g.status === "lobby" || !g.state) this.root.append(this.lobby(g));
    else this.root.append(this.table(g, g.state));
    window.scrollTo(0, scroll);
    this.restoreFocus();
    this.announceTurn();
  }

  /** A redraw replaces every element: give focus back to the same control (the same card,
   * the same button), or, when it is gone or disabled once the move is done, to the hand. */
  private restoreFocus(): void {
    const key = this.focusWanted;
    if (!key || this.modal || document.querySelector(".modal")) return;
    const el = findByKey(this.root, key);
    if (el && !(el as HTMLButtonElement).disabled) {
      el.focus({ preventScroll: true });
      this.focusWanted = null;
    } else if (!this.busy) {
      this.focusWanted = null;
      this.focusFallback();
    }
  }

  /** Focus somewhere useful: your hand's first card, else the status line. */
  private focusFallback(): void {
    const target =
      this.root.querySelector<HTMLElement>("[data-testid=hand-card]") ??
      this.root.querySelector<HTMLElement>("[data-testid=status]");
    target?.focus({ preventScroll: true });
  }

  /** Say whose turn it is when that changes (the live region, announce.ts). */
  private announceTurn(): void {
    const g = this.game;
    const s = g?.state;
    if (!g || !s || g.status === "lobby" || this.busy) return;
    const key = `${g.status}|${s.round}|${s.to_act}|${s.phase}`;
    if (key === this.spokenTurn) return;
    const first = this.spokenTurn === "";
    this.spokenTurn = key;
    if (first && !this.myTurn) return;
    announce(this.statusLine(g, s));
  }

  /** Read the moves out as they arrive (cards in words). */
  private announceMoves(events: GameEvent[]): void {
    for (const ev of events) announce(...describe(ev, this.nameOf, (t) => this.teamLabel(t)));
  }

  private header(g: GameDetail): HTMLElement {
    const s = g.state;
    return h(
      "header",
      { class: "game-header" },
      h("a", { href: "#/", class: "home", title: gettext("Lobby"), "aria-label": gettext("Canasta: back to the lobby") }, "♠ Canasta"),
      h(
        "h1",
        { class: "game-title" },
        interpolate(gettext("Table #%(id)s"), { id: g.id }),
        g.rated ? ` · ${gettext("rated")}` : "",
        hintsOn(g) ? ` · ${gettext("hints")}` : "",
        s ? ` · ${interpolate(gettext("round %(round)s"), { round: s.round })}` : "",
        ` · ${interpolate(gettext("to %(target)s"), { target: g.options.target_score })}`,
      ),
      h(
        "span",
        { class: "header-buttons" },
        h("button", { testid: "help-button", onclick: () => void this.help() }, gettext("How to play")),
        g.status !== "lobby" ? h("button", { testid: "scorecard-button", onclick: () => void this.showScorecard() }, gettext("Scores")) : "",
        g.status !== "lobby" ? h("a", { class: "button", href: `#/replay/${g.id}`, testid: "replay-button" }, gettext("Replay")) : "",
        g.status === "active" && g.your_seat !== null
          ? h("button", { testid: "concede", onclick: () => void this.concede(), title: gettext("Concede the game") }, gettext("Concede"))
          : "",
      ),
    );
  }

  private lobby(g: GameDetail): HTMLElement {
    const me = g.your_seat;
    const creator = g.created_by.id === myPlayerId();
    const empty = g.seats.filter((s) => s.kind === "empty").length;
    const fill = h("input", { type: "checkbox", checked: true, id: "fill-bots" }) as HTMLInputElement;
    const level = h(
      "select",
      { id: "fill-level" },
      h("option", { value: "easy" }, gettext("easy")),
      h("option", { value: "medium" }, gettext("medium")),
      h("option", { value: "hard" }, gettext("hard")),
    ) as HTMLSelectElement;
    const link = `${location.origin}/#/join/${g.join_code ?? ""}`;
    return h(
      "div",
      { class: "panel lobby", testid: "lobby" },
      h("h2", {}, interpolate(g.rated ? gettext("Waiting to start (%(preset)s, rated: people only)") : gettext("Waiting to start (%(preset)s)"), { preset: presetTitle(g.preset) })),
      g.join_code
        ? h(
            "p",
            {},
            `${gettext("Join code")} `,
            h("code", { testid: "join-code" }, g.join_code),
            ` — ${gettext("link:")} `,
            h("a", { href: link }, link),
          )
        : "",
      h(
        "ul",
        { class: "seat-list" },
        ...g.seats.map((s) =>
          h(
            "li",
            {},
            `${interpolate(gettext("Seat %(seat)s (team %(team)s):"), { seat: s.index + 1, team: s.team + 1 })} `,
            s.kind === "player" ? (s.index === me ? gettext("You") : s.player?.display_name ?? "") : s.kind === "bot" ? interpolate(gettext("bot (%(level)s)"), { level: levelName(s.bot_level ?? "easy") }) : gettext("open"),
            s.kind === "player" ? [" ", botBadge(s)] : "",
            s.kind === "empty" && me === null
              ? h("button", { onclick: () => void this.lobbyCall(() => api.join(g.id, { seat: s.index, join_code: g.join_code ?? undefined })) }, gettext("Sit here"))
              : "",
          ),
        ),
      ),
      me !== null && !creator
        ? h("button", { onclick: () => void this.lobbyCall(() => api.leave(g.id)) }, gettext("Leave the table"))
        : "",
      creator
        ? h(
            "div",
            { class: "row" },
            empty && !g.rated ? h("label", {}, fill, ` ${counted(ngettext("fill %(count)s open seat with bots", "fill %(count)s open seats with bots", empty), empty)} `, level) : "",
            h(
              "button",
              {
                class: "primary",
                testid: "start-game",
                onclick: () =>
                  void this.lobbyCall(() => api.start(g.id, { fill_with_bots: fill.checked && !g.rated, bot_level: level.value as "easy" })),
              },
              gettext("Start the game"),
            ),
          )
        : h("p", {}, gettext("The table's creator starts the game.")),
      this.messageEl(),
    );
  }

  private async lobbyCall(fn: () => Promise<GameDetail>): Promise<void> {
    if (!this.longPoll) await this.pending;
    try {
      this.game = await fn();
      this.syncTimer();
      this.message = null;
      await this.pullEvents(true);
    } catch (err) {
      this.showError(err, false);
    }
    this.render();
  }

  private messageEl(): HTMLElement {
    const m = this.message;
    return h(
      "div",
      { class: `message ${m?.kind ?? "empty"}`, testid: "message", role: "status", "aria-live": "polite" },
      m ? m.text : "",
      m?.code ? h("span", { class: "code" }, ` (${m.code})`) : "",
    );
  }

  private statusLine(g: GameDetail, s: TableView): string {
    if (g.status === "finished" || s.phase === "game_over") {
      const w = g.winner_team ?? s.winner_team;
      return w === null ? gettext("The game is over.") : w === this.myTeam() ? gettext("Game over: your side wins!") : interpolate(gettext("Game over: %(team)s win."), { team: this.teamLabel(w) });
    }
    if (g.pause?.paused) return gettext("The game is paused. Any player at the table may resume it.");
    if (this.myTurn) {
      const perm = s.phase === "play" && PERMISSION_TEXT[s.permission] ? translate(PERMISSION_TEXT[s.permission]) : "";
      const extra = s.must_end_without_discard ? ` ${gettext("Meld what you can, then end the round.")}` : "";
      return `${PHASE_HINT[s.phase] ? translate(PHASE_HINT[s.phase]) : ""}${perm ? ` ${perm}` : ""}${extra}`;
    }
    const who = this.nameOf(s.to_act);
    if (s.phase === "answer") return interpolate(gettext("%(name)s must answer a question to go out…"), { name: who });
    return s.to_act === g.your_seat ? gettext("You are playing…") : interpolate(gettext("%(name)s is playing…"), { name: who });
  }

  private chatEl(): HTMLElement {
    const chat = this.chat!;
    return h(
      "section",
      { class: "chat", testid: "chat" },
      chat.lines.length
        ? h("ul", { class: "chat-lines", testid: "chat-lines" }, ...chat.lines.slice(0, 4).map((l) => h("li", {}, l)))
        : "",
      h(
        "details",
        {
          open: this.chatOpen,
          ontoggle: (e: Event) => {
            this.chatOpen = (e.currentTarget as HTMLDetailsElement).open;
          },
        },
        h("summary", {}, gettext("Quick chat")),
        h(
          "div",
          { class: "suggestions" },
          ...chat.phrases.map((p) =>
            h("button", { class: "chip", testid: `chat-${p.id}`, onclick: () => void this.say(p.id) }, p.text),
          ),
        ),
      ),
    );
  }

  /** The families' own controls, present for the whole game (enabled when they apply, so that
   * nothing moves when cards are selected): samba and bolivia: where a meld goes ("Onto"),
   * a sequence, merging two melds of a rank; mac and bolivia: a wild meld; mac: drawing with
   * a 3 kept for a Straight, declaring a special hand. */
  private familyControls(mine: boolean, sel: string[]): HTMLElement | string {
    const family = this.family;
    if (family === "classic" || this.game?.your_seat === null) return "";
    const canMeld = this.can("meld") && !this.busy;
    const own = this.ownMelds();
    const parts: (HTMLElement | string)[] = [];
    const selection = sel.length ? `: ${sel.map(cardName).join(", ")}` : "";
    if (hasMeldIds(family)) {
      const ids = own.filter((m) => m.id).map((m) => m.id!);
      if (this.onto && this.onto !== "new" && !ids.includes(this.onto)) this.onto = "";
      const onto = h(
        "select",
        {
          id: "meld-onto",
          testid: "meld-onto",
          disabled: !mine || this.busy,
          onchange: (e: Event) => {
            this.onto = (e.target as HTMLSelectElement).value;
          },
        },
        h("option", { value: "", selected: this.onto === "" }, gettext("as the rules say")),
        h("option", { value: "new", selected: this.onto === "new" }, gettext("a new meld")),
        ...own
          .filter((m) => m.id)
          .map((m) => h("option", { value: m.id!, selected: this.onto === m.id }, `${m.id}: ${meldLabel(m, false)}${m.canasta ? ` (${gettext("canasta")})` : ""}`)),
      );
      parts.push(h("label", { class: "family-field", for: "meld-onto" }, h("span", {}, gettext("Onto")), onto));
      parts.push(
        h(
          "button",
          {
            testid: "meld-sequence",
            disabled: !canMeld || sel.length === 0,
            onclick: this.meldSequence,
            "aria-label": sel.length ? `${gettext("Meld as a sequence")}${selection}` : undefined,
          },
          gettext("Sequence"),
        ),
      );
    }
    if (hasWildMelds(family)) {
      parts.push(
        h(
          "button",
          {
            testid: "meld-wild",
            disabled: !canMeld || sel.length === 0 || !sel.every(isWild),
            onclick: this.meldWild,
            "aria-label": sel.length ? `${gettext("Wild meld")}${selection}` : undefined,
          },
          gettext("Wild meld"),
        ),
      );
    }
    if (hasMeldIds(family)) {
      const pairs = mergePairs(own).filter(([a, b]) => own.indexOf(a) < own.indexOf(b));
      const values = pairs.map(([a, b]) => `${a.id}|${b.id}`);
      if (!values.includes(this.mergeChoice)) this.mergeChoice = values[0] ?? "";
      const mergeSel = h(
        "select",
        {
          id: "merge-choice",
          testid: "merge-choice",
          disabled: !mine || this.busy || pairs.length === 0,
          onchange: (e: Event) => {
            this.mergeChoice = (e.target as HTMLSelectElement).value;
          },
        },
        pairs.length
          ? pairs.map(([a, b]) =>
              h("option", { value: `${a.id}|${b.id}`, selected: this.mergeChoice === `${a.id}|${b.id}` }, interpolate(gettext("%(from)s into %(to)s (%(rank)s)"), { from: b.id ?? "", to: a.id ?? "", rank: rankName(a.rank) })),
            )
          : h("option", { value: "" }, gettext("no two melds of a rank")),
      );
      parts.push(
        h(
          "span",
          { class: "family-group" },
          h("label", { class: "family-field", for: "merge-choice" }, h("span", {}, gettext("Merge")), mergeSel),
          h("button", { testid: "merge", disabled: !canMeld || pairs.length === 0, onclick: this.merge }, gettext("Merge")),
        ),
      );
    }
    if (family === "mac") {
      const legal = this.familyLegal();
      parts.push(
        h(
          "button",
          { testid: "draw-keep-three", disabled: !mine || this.busy || !canKeepThree(legal), onclick: this.drawKeepThree },
          gettext("Draw, keep a 3"),
        ),
      );
      const names = specialHandNames(legal);
      if (!names.includes(this.specialChoice)) this.specialChoice = names[0] ?? "";
      const special = h(
        "select",
        {
          id: "special-hand-name",
          testid: "special-hand-name",
          disabled: !mine || this.busy || names.length === 0,
          onchange: (e: Event) => {
            this.specialChoice = (e.target as HTMLSelectElement).value;
          },
        },
        names.length
          ? names.map((n) => h("option", { value: n, selected: n === this.specialChoice }, specialHandWords(n)))
          : h("option", { value: "" }, gettext("none to declare")),
      );
      parts.push(
        h(
          "span",
          { class: "family-group" },
          h("label", { class: "family-field", for: "special-hand-name" }, h("span", {}, gettext("Special hand")), special),
          h(
            "button",
            { testid: "declare-special-hand", disabled: !mine || this.busy || names.length === 0, onclick: this.declareSpecial },
            gettext("Declare"),
          ),
        ),
      );
    }
    return h("div", { class: "family-actions", testid: "family-actions", role: "group", "aria-label": gettext("More ways to play") }, ...parts);
  }

  private table(g: GameDetail, s: TableView): HTMLElement {
    const mine = this.myTurn;
    const hand = this.handAvailable();
    const hinted = hintedIndices(hand, currentHint(this.hint, g.version));
    const sel = this.selectedCards();
    const discardOk =
      mine && sel.length === 1 && this.legal("discard").some((a) => a.card === sel[0]);
    const board = renderBoard(tableModel(g, s), {
      onStock: g.your_seat !== null ? this.draw : undefined,
      stockEnabled: this.can("draw") && !this.busy,
      onPile: g.your_seat !== null ? this.takePile : undefined,
      pileEnabled: this.can("take_pile") && !this.busy,
      onMeld: this.layOff,
      meldTargets: this.can("meld") && sel.length > 0 && !this.busy,
    });

    // Each card is a toggle button named in words ("King of hearts", pressed when selected);
    // the arrow keys move along the hand.
    const handEl = h(
      "div",
      { class: "hand", testid: "hand", role: "group", "aria-label": interpolate(gettext("Your hand: %(cards)s"), { cards: counted(ngettext("%(count)s card", "%(count)s cards", hand.length), hand.length) }) },
      ...hand.map((c, i) => {
        const selected = this.selected.has(i);
        return h(
          "button",
          {
            type: "button",
            class: `card big ${isRed(c) ? "red" : "black"} ${c === "JK" ? "joker" : ""} ${selected ? "selected" : ""} ${hinted.has(i) ? "hinted" : ""}`,
            testid: "hand-card",
            "data-card": c,
            "aria-label": hinted.has(i) ? interpolate(gettext("%(card)s, in the hint"), { card: cardName(c) }) : cardName(c),
            "aria-pressed": String(selected),
            title: cardName(c),
            onclick: () => {
              if (this.selected.has(i)) this.selected.delete(i);
              else this.selected.add(i);
              this.render();
            },
            onkeydown: (e: KeyboardEvent) => {
              const step = e.key === "ArrowRight" ? 1 : e.key === "ArrowLeft" ? -1 : 0;
              if (!step) return;
              e.preventDefault();
              const cards = this.root.querySelectorAll<HTMLElement>("[data-testid=hand-card]");
              cards[(i + step + cards.length) % cards.length]?.focus();
            },
          },
          ...cardFace(c),
        );
      }),
    );

    const btn = (testid: string, text: string, enabled: boolean, onclick: () => void, cls = "", label = "") =>
      h("button", { testid, class: cls, disabled: !enabled || this.busy, onclick, "aria-label": label || undefined }, text);
    const selection = sel.length ? `: ${sel.map(cardName).join(", ")}` : "";

    const actions = h(
      "div",
      { class: "actions", testid: "actions" },
      btn("draw", gettext("Draw"), this.can("draw"), this.draw),
      // The same text whatever is selected (a longer one would wrap the row and move the table);
      // the name says what goes with the pile.
      btn("take-pile", gettext("Take pile"), this.can("take_pile"), this.takePile, "", sel.length || this.staged.length ? `${gettext("Take pile with selected")}${selection}` : ""),
      btn("meld", gettext("Meld selected"), this.can("meld") && (sel.length > 0 || this.staged.length > 0), this.meld, "primary", sel.length ? `${gettext("Meld selected")}${selection}` : ""),
      btn("discard", gettext("Discard"), discardOk, this.discard, "primary", sel.length === 1 ? interpolate(gettext("Discard %(card)s"), { card: cardName(sel[0]) }) : ""),
      this.legal("ask_partner").length || s.permission !== "none"
        ? btn("ask-partner", gettext("Ask partner to go out"), this.can("ask_partner"), () => void this.act({ type: "ask_partner" }))
        : "",
      this.can("answer_partner") ? btn("answer-yes", gettext("Yes, go out"), true, () => void this.act({ type: "answer_partner", allow: true }), "primary") : "",
      this.can("answer_partner") ? btn("answer-no", gettext("No"), true, () => void this.act({ type: "answer_partner", allow: false })) : "",
      this.can("decline_pile") ? btn("decline-pile", gettext("Decline the pile"), true, () => void this.act({ type: "decline_pile" })) : "",
      this.can("end_round") ? btn("end-round", gettext("End the round"), true, () => void this.act({ type: "end_round" }), "primary") : "",
      btn("stage", gettext("Group"), mine && sel.length > 0 && (this.can("meld") || this.can("take_pile")), this.stage, "", sel.length ? `${gettext("Group")}${selection}` : ""),
      btn("clear", gettext("Clear"), sel.length > 0 || this.staged.length > 0, this.clearSelection, "", gettext("Clear the selection")),
    );

    const staged = this.staged.length
      ? h(
          "div",
          { class: "staged", testid: "staged" },
          `${gettext("Set aside:")} `,
          ...this.staged.map((g2) => h("span", { class: "group", role: "group", "aria-label": interpolate(gettext("Group: %(cards)s"), { cards: g2.map(cardName).join(", ") }) }, ...g2.map((c) => cardEl(c, "mini")))),
        )
      : "";

    const familyBar = g.status === "active" ? this.familyControls(mine, sel) : "";

    const suggestions = mine
      ? [...this.legal("take_pile"), ...this.legal("meld")].slice(0, 8)
      : [];
    const hints = suggestions.length
      ? h(
          "div",
          { class: "suggestions", testid: "suggestions" },
          h("span", { class: "muted" }, `${gettext("Possible:")} `),
          ...suggestions.map((a) =>
            h("button", { class: "chip", testid: `suggest-${a.type}`, disabled: this.busy, onclick: () => void this.act(a) }, ...cardText(actionText(a))),
          ),
        )
      : "";

    const status = h(
      "div",
      { class: `status ${mine && !this.busy ? "mine" : ""}`, testid: "status", tabindex: -1, "aria-busy": this.busy ? "true" : "false" },
      this.busy ? "…" : this.statusLine(g, s),
      this.deadline !== null && g.timer?.seat !== null && g.timer?.seat !== undefined
        ? h(
            "span",
            { class: "countdown", title: interpolate(gettext("%(name)s to move before the timer runs out"), { name: this.nameOf(g.timer.seat) }) },
            `${gettext("time")} `,
            h("b", { testid: "countdown" }, clock(this.secondsLeft() ?? 0)),
          )
        : "",
    );

    const handCount = g.your_seat !== null ? counted(ngettext("%(count)s card", "%(count)s cards", s.hand?.length ?? 0), s.hand?.length ?? 0) : "";
    const youSection =
      g.your_seat !== null
        ? h(
            "section",
            { class: `you ${mine ? "active" : ""}`, "aria-labelledby": "your-hand-title" },
            h("header", {}, h("h2", { id: "your-hand-title" }, gettext("Your hand")), h("span", { class: "count", testid: "hand-count" }, handCount)),
            staged,
            handEl,
            g.status === "active" ? h("div", { class: "action-bar" }, this.messageEl(), actions) : this.messageEl(),
            familyBar,
            g.status === "active" ? hints : "",
            this.hintEl(g),
          )
        : h("p", { class: "muted" }, gettext("You are watching this table."));

    return h(
      "div",
      { class: "table", testid: "table" },
      standInBanner(g, (url) => void this.reclaim(url), this.busy),
      status,
      pausePanel(g, this.nameOf, this.pauseActions, this.busy),
      board,
      youSection,
      this.chat ? this.chatEl() : "",
      h(
        "details",
        { class: "log", open: true },
        h("summary", {}, gettext("What happened")),
        h("ul", { testid: "log" }, ...this.log.slice(0, 15).map((line) => h("li", {}, ...cardText(line)))),
      ),
      g.status === "finished" && g.rating_changes?.length
        ? h("section", { class: "panel" }, this.ratingChangesEl(g.rating_changes))
        : "",
      g.status === "finished"
        ? h(
            "p",
            { class: "row" },
            h("a", { class: "button primary", href: `#/replay/${g.id}` }, gettext("Replay this game")),
            this.rematchGame !== null
              ? h("a", { class: "button primary", href: `#/game/${this.rematchGame}`, testid: "rematch-ready" }, gettext("Go to the rematch"))
              : g.your_seat !== null
                ? h("button", { testid: "rematch", onclick: () => void this.rematch() }, gettext("Rematch"))
                : "",
            h("a", { class: "button", href: "#/" }, gettext("New game")),
          )
        : "",
    );
  }
}

/** A key for the element in focus that survives a redraw: its test id, its card and which of
 * the same it is. */
function focusKey(root: HTMLElement): string | null {
  const el = document.activeElement;
  if (!(el instanceof HTMLElement) || el === root || !root.contains(el)) return null;
  const testid = el.dataset.testid;
  if (!testid) return el.id ? `#${el.id}` : null;
  const card = el.dataset.card ?? "";
  const same = [...root.querySelectorAll<HTMLElement>(`[data-testid="${testid}"]`)].filter((x) => (x.dataset.card ?? "") === card);
  return `${testid}|${card}|${same.indexOf(el)}`;
}

function findByKey(root: HTMLElement, key: string): HTMLElement | null {
  if (key.startsWith("#")) return root.querySelector<HTMLElement>(`#${CSS.escape(key.slice(1))}`);
  const [testid, card, n] = key.split("|");
  const same = [...root.querySelectorAll<HTMLElement>(`[data-testid="${testid}"]`)].filter((x) => (x.dataset.card ?? "") === card);
  return same[Number(n)] ?? null;
}

/** What a re-render depends on besides the moves (seats fill up in the lobby, status). */
function signature(g: GameDetail | null): string {
  return g ? `${g.version}|${g.status}|${JSON.stringify(g.seats)}` : "";
}

function clock(seconds: number): string {
  if (seconds >= 3600) return durationText(seconds); // a correspondence turn: "2 days 3 h"
  const s = Math.ceil(seconds);
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
}

const ROUND_END_TEXT: Record<string, string> = {
  stock_exhausted: gettext_noop("The stock ran out."),
  last_red_three: gettext_noop("The last stock card was a red three."),
  last_three: gettext_noop("The last stock card was a three."),
  special_hand: gettext_noop("A special hand was declared."),
};

const COMPONENTS: [string, string][] = [
  ["meld_cards", gettext_noop("Melded cards")],
  ["hand_cards", gettext_noop("Cards left in hand")],
  ["natural_canastas", gettext_noop("Natural canastas")],
  ["mixed_canastas", gettext_noop("Mixed canastas")],
  ["wild_canastas", gettext_noop("Wild canastas")],
  ["red_threes", gettext_noop("Red threes")],
  ["going_out", gettext_noop("Going out")],
  ["concealed_bonus", gettext_noop("Concealed bonus")],
  ["total", gettext_noop("Round total")],
  ["cumulative", gettext_noop("Score")],
];

/** A team's number for a score component: its field, else (a variant family's round) its
 * `components` entry. */
function componentValue(t: unknown, key: string): number {
  const own = (t as Record<string, unknown>)[key];
  if (typeof own === "number") return own;
  const more = (t as { components?: Record<string, unknown> }).components?.[key];
  return typeof more === "number" ? more : 0;
}

/** The score components of a round's teams: the known ones in their order, then the other
 * numbers a variant family's round sends (`components`: its bonuses and penalties), each
 * named from its key. */
function componentsOf(teams: readonly unknown[]): [string, string][] {
  const known = new Set(COMPONENTS.map(([key]) => key));
  const extra: [string, string][] = [];
  for (const t of teams) {
    const more = (t as { components?: Record<string, unknown> }).components ?? {};
    for (const [key, value] of Object.entries(more))
      if (!known.has(key) && typeof value === "number" && !extra.some(([k]) => k === key))
        extra.push([key, key.replace(/_/g, " ").replace(/^./, (c) => c.toUpperCase())]);
  }
  const at = COMPONENTS.findIndex(([key]) => key === "total");
  const translated = (list: [string, string][]): [string, string][] => list.map(([key, text]) => [key, translate(text)]);
  return [...translated(COMPONENTS.slice(0, at)), ...extra, ...translated(COMPONENTS.slice(at))];
}

export function roundTable(card: Scorecard, round: number, teamLabel: (t: number) => string): HTMLElement {
  const r = card.rounds.find((x) => x.round === round);
  if (!r) return h("p", {}, "");
  return h(
    "table",
    { class: "scores" },
    h("thead", {}, h("tr", {}, h("th", { scope: "col" }, h("span", { class: "sr-only" }, gettext("Score"))), ...r.teams.map((t) => h("th", { scope: "col" }, teamLabel(t.team))))),
    h(
      "tbody",
      {},
      ...componentsOf(r.teams).filter(([key]) => key === "total" || key === "cumulative" || r.teams.some((t) => componentValue(t, key) !== 0)).map(([key, text]) =>
        h(
          "tr",
          { class: key === "total" || key === "cumulative" ? "sum" : "" },
          h("th", { scope: "row" }, text),
          ...r.teams.map((t) => h("td", {}, String(componentValue(t, key)))),
        ),
      ),
    ),
  );
}

export function scorecardTable(card: Scorecard, teamLabel: (t: number) => string): HTMLElement {
  return h(
    "table",
    { class: "scores" },
    h(
      "thead",
      {},
      h("tr", {}, h("th", { scope: "col" }, gettext("Round")), ...card.teams.map((t) => h("th", { scope: "colgroup", colspan: 2 }, teamLabel(t.team)))),
    ),
    h(
      "tbody",
      {},
      ...card.rounds.map((r) =>
        h(
          "tr",
          {},
          h("th", { scope: "row" }, String(r.round)),
          ...r.teams.flatMap((t) => [
            h("td", { title: COMPONENTS.map(([k, txt]) => `${translate(txt)}: ${componentValue(t, k)}`).join("\n") }, `${t.total >= 0 ? "+" : ""}${t.total}`),
            h("td", { class: "sum" }, String(t.cumulative)),
          ]),
        ),
      ),
      h("tr", { class: "sum" }, h("th", { scope: "row" }, gettext("Total")), ...card.totals.map((x) => h("td", { colspan: 2 }, String(x)))),
    ),
  );
}
