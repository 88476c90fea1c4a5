// Step-by-step replay of a game from its move log (GET /games/{id}/events/), as you may see it.
import { allEvents, api, type GameDetail, type GameEvent } from "./api";
import { type BoardModel, boardMeld, pileFlags, renderBoard } from "./board";
import { cardEl, sortCards } from "./cards";
import { clear, h } from "./dom";
import { applyEvent, describe, emptyTable, type ReplayTable, seatName } from "./replay";

export class ReplayScreen {
  private game: GameDetail | null = null;
  private events: GameEvent[] = [];
  private tables: ReplayTable[] = [];
  private step = 0;
  private timer: number | undefined;
  private disposed = false;

  constructor(
    private readonly root: HTMLElement,
    private readonly id: number,
  ) {}

  async mount(): Promise<void> {
    this.root.append(h("p", { class: "loading" }, "Loading the move log…"));
    try {
      this.game = await api.game(this.id);
      this.events = await allEvents(this.id);
    } catch (err) {
      clear(this.root);
      this.root.append(h("p", { class: "message error", testid: "message" }, String((err as Error).message)), h("a", { href: "#/" }, "Back"));
      return;
    }
    const g = this.game;
    const teams = Math.max(...g.seats.map((s) => s.team)) + 1;
    const teamOf = (seat: number) => g.seats[seat]?.team ?? 0;
    let t = emptyTable(teams, g.seats.length);
    this.tables = [t];
    for (const ev of this.events) {
      t = applyEvent(t, ev, teamOf, g.your_seat);
      this.tables.push(t);
    }
    this.step = Math.min(1, this.events.length);
    this.render();
    window.addEventListener("keydown", this.onKey);
  }

  dispose(): void {
    this.disposed = true;
    window.clearInterval(this.timer);
    window.removeEventListener("keydown", this.onKey);
  }

  private onKey = (e: KeyboardEvent) => {
    if (e.key === "ArrowRight") this.go(this.step + 1);
    if (e.key === "ArrowLeft") this.go(this.step - 1);
  };

  private go(step: number): void {
    this.step = Math.max(0, Math.min(this.events.length, step));
    this.render();
  }

  private togglePlay = () => {
    if (this.timer !== undefined) {
      window.clearInterval(this.timer);
      this.timer = undefined;
    } else {
      this.timer = window.setInterval(() => {
        if (this.step >= this.events.length) this.togglePlay();
        else this.go(this.step + 1);
      }, 700);
    }
    this.render();
  };

  private render(): void {
    if (this.disposed || !this.game) return;
    const g = this.game;
    const t = this.tables[this.step];
    const ev = this.step > 0 ? this.events[this.step - 1] : null;
    const nameOf = (seat: number) => seatName(g.seats, seat, g.your_seat);
    const flags = pileFlags(t.pile);
    const model: BoardModel = {
      seats: g.seats,
      viewer: g.your_seat,
      active: ev?.seat ?? null,
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
    const roundEnd = ev?.effects.some((e) => e.kind === "round_ended") ? t.lastRound : null;
    clear(this.root);
    this.root.append(
      h(
        "header",
        { class: "game-header" },
        h("a", { href: "#/", class: "home" }, "♠ Canasta"),
        h("span", { class: "game-title" }, `Replay of table #${g.id}`, g.status !== "finished" ? " (in progress)" : ""),
        h("span", { class: "header-buttons" }, h("a", { class: "button", href: `#/game/${g.id}` }, "Back to the table")),
      ),
      h(
        "div",
        { class: "replay", testid: "replay" },
        h(
          "div",
          { class: "replay-controls" },
          h("button", { testid: "replay-first", onclick: () => this.go(0), title: "First step" }, "« first"),
          h("button", { testid: "replay-prev", onclick: () => this.go(this.step - 1), title: "Previous step" }, "‹ back"),
          h("button", { testid: "replay-play", onclick: this.togglePlay }, this.timer !== undefined ? "pause" : "play"),
          h("button", { testid: "replay-next", onclick: () => this.go(this.step + 1), title: "Next step" }, "next ›"),
          h("button", { testid: "replay-last", onclick: () => this.go(this.events.length), title: "Last step" }, "last »"),
          h("input", {
            type: "range",
            min: 0,
            max: this.events.length,
            value: this.step,
            testid: "replay-slider",
            oninput: (e: Event) => this.go(Number((e.target as HTMLInputElement).value)),
          }),
          h("span", { class: "step", testid: "replay-step" }, `Step ${this.step} / ${this.events.length}`),
        ),
        h(
          "div",
          { class: "status", testid: "replay-text" },
          ev ? describe(ev, nameOf).join(" ") : "Before the first move.",
          t.round ? h("span", { class: "muted" }, ` (round ${t.round})`) : "",
        ),
        renderBoard(model),
        t.hand !== null
          ? h(
              "section",
              { class: "you" },
              h("header", {}, h("span", {}, "Your hand"), h("span", { class: "count" }, `${t.hand.length} cards`)),
              h("div", { class: "hand", testid: "hand" }, ...sortCards(t.hand).map((c) => cardEl(c, "big"))),
            )
          : "",
        roundEnd
          ? h(
              "section",
              { class: "panel", testid: "replay-round-end" },
              h("h3", {}, `Round ${roundEnd.round}: scores ${roundEnd.scores.join(" – ")}`),
              h(
                "ul",
                {},
                ...roundEnd.hands.map((hand, seat) =>
                  h("li", {}, `${nameOf(seat)}: `, hand.length ? sortCards(hand).map((c) => cardEl(c, "mini")) : "no cards left"),
                ),
              ),
            )
          : "",
      ),
    );
  }
}
