// The table drawn from a plain model, shared by the live game and the replay.
import type { GameDetail, Seat, TableView } from "./api";
import { cardEl, isBlackThree, isRedThree, isWild, labels } from "./cards";
import { h } from "./dom";
import { seatName } from "./replay";

export interface BoardMeld {
  rank: string;
  cards: string[];
  canasta: "natural" | "mixed" | null;
}

export interface BoardModel {
  seats: Seat[];
  viewer: number | null;
  active: number | null;
  stock: number;
  pileTop: string | null;
  pileSize: number;
  pileFrozen: boolean;
  /** Frozen only for the viewer's side (it has not made its initial meld). */
  pileFrozenForYou?: boolean;
  pileBlocked: boolean;
  handCounts: number[];
  teams: {
    team: number;
    seats: number[];
    score: number;
    melds: BoardMeld[];
    redThrees: string[];
    note?: string;
  }[];
}

/** The model of a table view from the API (the live game, or a replay step). */
export function tableModel(g: Pick<GameDetail, "seats" | "your_seat">, s: TableView): BoardModel {
  return {
    seats: g.seats,
    viewer: g.your_seat,
    active: s.to_act >= 0 ? s.to_act : null,
    stock: s.stock_count,
    pileTop: s.pile.top,
    pileSize: s.pile.size,
    pileFrozen: s.pile.frozen,
    pileFrozenForYou: !s.pile.frozen && s.pile.frozen_for_viewer === true,
    pileBlocked: s.pile.blocked,
    handCounts: s.hand_counts,
    teams: s.teams.map((t) => ({
      team: t.team,
      seats: t.seats,
      score: t.score,
      melds: t.melds.map((m) => ({ ...boardMeld(m.rank, m.cards), canasta: m.canasta_kind ?? null })),
      redThrees: t.red_threes,
      note: t.opened
        ? `${t.canastas} canasta${t.canastas === 1 ? "" : "s"}`
        : `needs ${t.initial_meld_minimum} to open`,
    })),
  };
}

export function boardMeld(rank: string, cards: string[]): BoardMeld {
  const canasta = cards.length >= 7 ? (cards.some(isWild) ? "mixed" : "natural") : null;
  return { rank, cards, canasta };
}

/** Frozen / blocked from the pile's cards (for the replay, which knows the whole pile). */
export function pileFlags(pile: string[]): { frozen: boolean; blocked: boolean } {
  const top = pile[pile.length - 1];
  return {
    frozen: pile.some((c) => isWild(c) || isRedThree(c)),
    blocked: top !== undefined && (isWild(top) || isRedThree(top) || isBlackThree(top)),
  };
}

export function teamName(model: BoardModel, team: number): string {
  const t = model.teams[team];
  const names = t.seats.map((s) => seatName(model.seats, s, model.viewer)).join(" & ");
  if (t.seats.length === 1) return names;
  const mine = model.viewer !== null && t.seats.includes(model.viewer);
  return `${mine ? "Us" : "Them"} (${names})`;
}

export interface BoardHandlers {
  onStock?: () => void;
  onPile?: () => void;
  onMeld?: (team: number, rank: string) => void;
  stockEnabled?: boolean;
  pileEnabled?: boolean;
  meldTargets?: boolean;
}

function meldEl(team: number, meld: BoardMeld, handlers: BoardHandlers, own: boolean): HTMLElement {
  const kind = meld.canasta ? `canasta ${meld.canasta}` : "";
  const clickable = own && handlers.meldTargets && handlers.onMeld;
  const el = h(
    clickable ? "button" : "div",
    {
      class: `meld ${kind} ${clickable ? "target" : ""}`,
      testid: `meld-${team}-${meld.rank}`,
      title: clickable ? `Lay the selected cards off on your ${meld.rank}s` : labels(meld.cards),
      onclick: clickable ? () => handlers.onMeld!(team, meld.rank) : undefined,
    },
    h("span", { class: "meld-cards" }, ...meld.cards.map((c) => cardEl(c, "mini"))),
    h(
      "span",
      { class: "meld-info" },
      `${meld.rank === "W" ? "wild" : meld.rank} ×${meld.cards.length}`,
      meld.canasta ? h("b", {}, meld.canasta === "natural" ? " natural canasta" : " mixed canasta") : "",
    ),
  );
  return el;
}

export function renderBoard(model: BoardModel, handlers: BoardHandlers = {}): HTMLElement {
  const players = model.handCounts.length;
  const others: number[] = [];
  const start = model.viewer ?? 0;
  for (let i = 0; i < players; i++) {
    const seat = (start + i) % players;
    if (seat !== model.viewer) others.push(seat);
  }
  const seatsRow = h(
    "div",
    { class: "seats" },
    ...others.map((seat) => {
      const s = model.seats[seat];
      const partner =
        model.viewer !== null &&
        s !== undefined &&
        model.seats[model.viewer] !== undefined &&
        s.team === model.seats[model.viewer].team;
      return h(
        "div",
        {
          class: `seat ${model.active === seat ? "active" : ""} ${partner ? "partner" : ""}`,
          testid: `seat-${seat}`,
        },
        h("span", { class: "seat-name" }, seatName(model.seats, seat, model.viewer)),
        partner ? h("span", { class: "tag" }, "partner") : "",
        s?.kind === "bot" ? h("span", { class: "tag" }, s.bot_level ?? "bot") : "",
        h("span", { class: "count" }, `${model.handCounts[seat]} card${model.handCounts[seat] === 1 ? "" : "s"}`),
      );
    }),
  );

  const stock = h(
    handlers.onStock ? "button" : "div",
    {
      class: `stock ${handlers.stockEnabled ? "enabled" : ""}`,
      testid: "stock",
      disabled: handlers.onStock ? !handlers.stockEnabled : undefined,
      onclick: handlers.onStock,
      title: "Stock: tap to draw when it is your turn",
    },
    h("span", { class: "back" }, ""),
    h("span", { class: "label" }, `Stock ${model.stock}`),
  );
  const pileFlagsEl = h(
    "span",
    { class: "flags" },
    model.pileFrozen
      ? h("span", { class: "flag frozen", testid: "pile-frozen", title: "A wild card or red three is in the pile: take it only with a natural pair" }, "frozen")
      : model.pileFrozenForYou
        ? h("span", { class: "flag frozen", testid: "pile-frozen", title: "Your side has not melded yet: take it only with a natural pair" }, "frozen for you")
        : "",
    model.pileBlocked ? h("span", { class: "flag blocked", testid: "pile-blocked" }, "blocked") : "",
  );
  const pile = h(
    handlers.onPile ? "button" : "div",
    {
      class: `pile ${handlers.pileEnabled ? "enabled" : ""} ${model.pileFrozen ? "is-frozen" : ""}`,
      testid: "pile",
      disabled: handlers.onPile ? !handlers.pileEnabled : undefined,
      onclick: handlers.onPile,
      title: "Discard pile: tap to take it with the selected cards",
    },
    model.pileTop ? cardEl(model.pileTop) : h("span", { class: "empty" }, "empty"),
    h("span", { class: "label" }, `Pile ${model.pileSize}`),
    pileFlagsEl,
  );

  const order = [...model.teams].sort((a, b) => {
    const mine = (t: { seats: number[] }) => (model.viewer !== null && t.seats.includes(model.viewer) ? 0 : 1);
    return mine(a) - mine(b) || a.team - b.team;
  });
  const teams = h(
    "div",
    { class: "teams" },
    ...order.map((t) => {
      const own = model.viewer !== null && t.seats.includes(model.viewer);
      return h(
        "section",
        { class: `team ${own ? "own" : ""}`, testid: `team-${t.team}` },
        h(
          "header",
          {},
          h("span", { class: "team-name" }, teamName(model, t.team)),
          h("span", { class: "team-score", testid: `score-${t.team}` }, `${t.score}`),
        ),
        t.note ? h("div", { class: "team-note" }, t.note) : "",
        t.redThrees.length
          ? h(
              "div",
              { class: "red-threes", testid: `red-threes-${t.team}` },
              "Red threes ",
              ...t.redThrees.map((c) => cardEl(c, "mini")),
            )
          : "",
        h(
          "div",
          { class: "melds" },
          t.melds.length ? t.melds.map((m) => meldEl(t.team, m, handlers, own)) : h("span", { class: "none" }, "No melds yet"),
        ),
      );
    }),
  );
  return h("div", { class: "board" }, seatsRow, h("div", { class: "center" }, stock, pile), teams);
}
