// The table drawn from a plain model, shared by the live game and the replay.
import type { GameDetail, Seat, TableView } from "./api";
import { cardEl, cardName, cardNames, isBlackThree, isRedThree, isWild, labels, rankName } from "./cards";
import { h } from "./dom";
import {
  canastaWords,
  type Family,
  familyOf,
  idsShown,
  kindOf,
  meldCards,
  meldLabel,
  meldWords,
  type SpecialHandView,
  specialHandOf,
  specialHandWords,
} from "./family";
import { counted, gettext, interpolate, ngettext } from "./i18n";
import { seatName } from "./replay";

/** "7 cards". */
function cardCount(n: number): string {
  return counted(ngettext("%(count)s card", "%(count)s cards", n), n);
}

export interface BoardMeld {
  rank: string;
  cards: string[];
  /** The canasta's kind ("natural", "mixed", and the families' "samba", "wild", ...), or null. */
  canasta: string | null;
  /** samba and bolivia: the meld's id ("A3"). */
  id?: string | null;
  /** "group", "sequence" or "wild". */
  kind?: string;
  /** A sequence's suit. */
  suit?: string | null;
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
    /** mac: the black threes of the side's threes area. */
    blackThrees?: string[];
    /** mac: the special hand the side declared. */
    specialHand?: SpecialHandView | null;
    note?: string;
  }[];
  /** The rule family ("classic" when absent). */
  family?: Family;
  /** mac: the turn card has been drawn. */
  turnCardDrawn?: boolean;
  /** mac: the dead ranks. */
  deadRanks?: string[];
  /** mac: the talon the player to act takes after discarding (0: none). */
  talonDue?: number;
}

/** The model of a table view from the API (the live game, or a replay step). */
export function tableModel(g: Pick<GameDetail, "seats" | "your_seat">, s: TableView): BoardModel {
  const family = familyOf(s);
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
      melds: t.melds.map((m) => ({
        ...boardMeld(m.rank, m.cards),
        canasta: m.canasta_kind ?? null,
        id: m.id ?? null,
        kind: m.kind ?? (m.rank === "W" ? "wild" : "group"),
        suit: m.suit ?? null,
      })),
      redThrees: t.red_threes,
      blackThrees: t.black_threes ?? [],
      specialHand: specialHandOf(t),
      note: t.opened
        ? counted(ngettext("%(count)s canasta", "%(count)s canastas", t.canastas), t.canastas)
        : interpolate(gettext("needs %(points)s to open"), { points: t.initial_meld_minimum }),
    })),
    family,
    turnCardDrawn: s.turn_card_drawn ?? false,
    deadRanks: s.dead_ranks ?? [],
    talonDue: s.talon_due ?? 0,
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
  return interpolate(mine ? gettext("Us (%(names)s)") : gettext("Them (%(names)s)"), { names });
}

export interface BoardHandlers {
  onStock?: () => void;
  onPile?: () => void;
  onMeld?: (team: number, meld: BoardMeld) => void;
  stockEnabled?: boolean;
  pileEnabled?: boolean;
  meldTargets?: boolean;
}

export type Position = "bottom" | "left" | "top" | "right";

/** Where each seat sits around the table, seen from the viewer's chair (a spectator sits in
 * seat 0's): you at the bottom, the next to play on your left, your partner across. */
export function seatPositions(players: number, viewer: number | null): Position[] {
  const me = viewer ?? 0;
  const around: Record<number, Position[]> = {
    2: ["bottom", "top"],
    3: ["bottom", "left", "right"],
    4: ["bottom", "left", "top", "right"],
  };
  const order = around[players] ?? around[4];
  const out: Position[] = [];
  for (let seat = 0; seat < players; seat++) out[seat] = order[(seat - me + players) % players] ?? "top";
  return out;
}

/** A meld in words: "Kings, natural canasta, 7 cards: King of hearts, ..."; the families'
 * sequences and wild melds too, with the id where the side holds several of a rank. */
export function meldDescription(meld: BoardMeld, showId = false): string {
  if (meld.kind && meld.kind !== "group") return meldWords(meld, showId);
  if (showId || (meld.canasta && !["natural", "mixed"].includes(meld.canasta))) return meldWords(meld, showId);
  const kind = meld.canasta === "natural" ? `, ${gettext("natural canasta")}` : meld.canasta ? `, ${gettext("mixed canasta")}` : "";
  return `${rankName(meld.rank)}${kind}, ${cardCount(meld.cards.length)}: ${cardNames(meld.cards)}`;
}

/** The discard pile in words: its size, top card and whether it is frozen or blocked. */
export function pileDescription(model: BoardModel): string {
  const parts = [cardCount(model.pileSize)];
  if (model.pileTop) parts.push(interpolate(gettext("top card %(card)s"), { card: cardName(model.pileTop) }));
  if (model.pileFrozen) parts.push(gettext("frozen"));
  else if (model.pileFrozenForYou) parts.push(gettext("frozen for your side"));
  if (model.pileBlocked) parts.push(gettext("blocked"));
  return parts.join(", ");
}

/** A seat held by a bot account (a program playing through the API, shown as a bot): the
 * seat's `bot_account` (an older or newer server's `is_bot` on the seat or its player too). */
export function isBotAccount(seat: Seat | null | undefined): boolean {
  if (!seat) return false;
  const flagged = (o: unknown) =>
    Boolean(o && typeof o === "object" && ["bot_account", "is_bot", "is_bot_account"].some((k) => (o as Record<string, unknown>)[k] === true));
  return seat.bot_account === true || (seat.kind === "player" && (flagged(seat.player) || flagged(seat)));
}

/** The small "bot" badge beside a bot account's name (its name says it to screen readers). */
export function botBadge(seat: Seat | null | undefined): HTMLElement | string {
  return isBotAccount(seat) ? h("span", { class: "tag bot-badge", testid: "bot-badge", title: gettext("A bot account") }, gettext("bot")) : "";
}

/** A bot's level in words ("easy", "medium", "hard"). */
export function levelName(level: string): string {
  const names: Record<string, string> = { easy: gettext("easy"), medium: gettext("medium"), hard: gettext("hard") };
  return names[level] ?? level;
}

function isPartner(model: BoardModel, seat: number): boolean {
  const v = model.viewer;
  return v !== null && seat !== v && model.seats[seat]?.team === model.seats[v]?.team;
}

function seatEl(model: BoardModel, seat: number, position: Position): HTMLElement {
  const s = model.seats[seat];
  const name = seatName(model.seats, seat, model.viewer);
  const relation =
    model.viewer === null || seat === model.viewer ? "" : isPartner(model, seat) ? "partner" : "opponent";
  const level = levelName(s?.kind === "bot" ? (s.bot_level ?? "easy") : "easy");
  const bot = s?.kind === "bot" ? `${gettext("bot")}, ${level}` : isBotAccount(s) ? gettext("bot account") : "";
  const count = cardCount(model.handCounts[seat] ?? 0);
  const active = model.active === seat;
  const spokenText = [
    name,
    relation === "partner" ? gettext("your partner") : relation === "opponent" ? gettext("your opponent") : "",
    bot,
    count,
    active ? (seat === model.viewer ? gettext("your turn") : gettext("to play")) : "",
  ]
    .filter(Boolean)
    .join(", ");
  return h(
    "div",
    { class: `seat pos-${position} ${active ? "active" : ""} ${relation}`, testid: `seat-${seat}` },
    h("span", { class: "sr-only" }, spokenText),
    h(
      "span",
      { class: "seat-face", "aria-hidden": "true" },
      h("span", { class: "seat-name" }, name),
      relation ? h("span", { class: "tag" }, relation === "partner" ? gettext("partner") : gettext("opponent")) : "",
      s?.kind === "bot" ? h("span", { class: "tag" }, s?.bot_level ? levelName(s.bot_level) : gettext("bot")) : botBadge(s),
      h("span", { class: "count" }, h("span", { class: "back-icon" }, ""), count),
      active ? h("span", { class: "turn-mark" }, `▶ ${gettext("to play")}`) : "",
    ),
  );
}

function meldEl(team: number, meld: BoardMeld, handlers: BoardHandlers, own: boolean, showId: boolean): HTMLElement {
  const kind = `${meld.canasta ? `canasta ${meld.canasta}` : ""} kind-${kindOf(meld)}`;
  const clickable = own && handlers.meldTargets && handlers.onMeld;
  const described = meldDescription(meld, showId);
  const testid = `meld-${team}-${meld.id ?? meld.rank}`;
  const data = { "data-rank": meld.rank, "data-kind": kindOf(meld), "data-id": meld.id ?? undefined };
  const face = [
    h("span", { class: "meld-cards", "aria-hidden": "true" }, ...meldCards(meld).map((c) => cardEl(c, "meld-card"))),
    h(
      "span",
      { class: "meld-info", "aria-hidden": "true" },
      meld.kind || meld.id ? meldLabel(meld, showId) : `${meld.rank === "W" ? gettext("wild") : meld.rank} ×${meld.cards.length}`,
      meld.canasta ? h("b", {}, ` ${canastaWords(meld.canasta)}`) : "",
    ),
  ];
  // Named by their (hidden) text, which says what the visible cards show.
  if (clickable) {
    return h(
      "button",
      {
        class: `meld ${kind} target`,
        testid,
        ...data,
        title: interpolate(gettext("Lay the selected cards off on your %(meld)s"), { meld: `${kindOf(meld) === "group" ? rankName(meld.rank) : kindOf(meld) === "wild" ? gettext("wild meld") : gettext("sequence")}${meld.id ? ` ${meld.id}` : ""}` }),
        onclick: () => handlers.onMeld!(team, meld),
      },
      h("span", { class: "sr-only" }, interpolate(gettext("Lay the selected cards off on %(meld)s"), { meld: described })),
      ...face,
    );
  }
  return h(
    "div",
    { class: `meld ${kind}`, testid, ...data, title: labels(meldCards(meld)) },
    h("span", { class: "sr-only" }, described),
    ...face,
  );
}

function teamEl(model: BoardModel, t: BoardModel["teams"][number], handlers: BoardHandlers): HTMLElement {
  const own = model.viewer !== null && t.seats.includes(model.viewer);
  const shown = idsShown(t.melds);
  const headingId = `team-heading-${t.team}`;
  return h(
    "section",
    { class: `team ${own ? "own" : ""}`, testid: `team-${t.team}`, "aria-labelledby": headingId },
    h(
      "header",
      {},
      h("h3", { class: "team-name", id: headingId }, teamName(model, t.team)),
      h("span", { class: "team-score", testid: `score-${t.team}` }, h("span", { class: "sr-only" }, `${gettext("score")} `), `${t.score}`),
    ),
    t.note ? h("div", { class: "team-note" }, t.note) : "",
    model.family === "mac" ? threesArea(t) : t.redThrees.length
      ? h(
          "div",
          { class: "red-threes", testid: `red-threes-${t.team}` },
          `${gettext("Red threes")} `,
          ...t.redThrees.map((c) => cardEl(c, "mini")),
        )
      : "",
    t.specialHand ? specialHandArea(t.team, t.specialHand) : "",
    t.melds.length
      ? h(
          "ul",
          { class: "melds", "aria-label": interpolate(gettext("Melds: %(count)s"), { count: counted(ngettext("%(count)s meld", "%(count)s melds", t.melds.length), t.melds.length) }) },
          ...t.melds.map((m) => h("li", {}, meldEl(t.team, m, handlers, own, shown.has(m.id ?? "")))),
        )
      : h("p", { class: "melds none" }, t.specialHand ? gettext("No melds") : gettext("No melds yet")),
  );
}

/** mac: the side's threes area, red and black threes (each colour scores on its own). */
function threesArea(t: BoardModel["teams"][number]): HTMLElement | string {
  const black = t.blackThrees ?? [];
  if (!t.redThrees.length && !black.length) return "";
  const words = [
    t.redThrees.length ? `${counted(ngettext("%(count)s red three", "%(count)s red threes", t.redThrees.length), t.redThrees.length)}: ${cardNames(t.redThrees)}` : "",
    black.length ? `${counted(ngettext("%(count)s black three", "%(count)s black threes", black.length), black.length)}: ${cardNames(black)}` : "",
  ].filter(Boolean);
  return h(
    "div",
    { class: "red-threes threes-area", testid: `threes-${t.team}` },
    h("span", { class: "sr-only" }, interpolate(gettext("Threes: %(threes)s"), { threes: words.join("; ") })),
    h(
      "span",
      { class: "threes-face", "aria-hidden": "true" },
      `${gettext("Threes")} `,
      t.redThrees.length ? h("span", { class: "threes red", testid: `red-threes-${t.team}` }, ...t.redThrees.map((c) => cardEl(c, "mini"))) : "",
      black.length ? h("span", { class: "threes black", testid: `black-threes-${t.team}` }, ...black.map((c) => cardEl(c, "mini"))) : "",
    ),
  );
}

/** mac: the special hand a side declared, face up. */
function specialHandArea(team: number, hand: SpecialHandView): HTMLElement {
  return h(
    "div",
    { class: "special-hand", testid: `special-hand-${team}` },
    h("span", { class: "sr-only" }, interpolate(gettext("Special hand %(name)s: %(cards)s"), { name: specialHandWords(hand.name), cards: cardNames(hand.cards) })),
    h(
      "span",
      { "aria-hidden": "true" },
      h("b", {}, `${specialHandWords(hand.name)} `),
      h("span", { class: "special-cards" }, ...hand.cards.map((c) => cardEl(c, "mini"))),
    ),
  );
}

/** mac: the turn card, the dead ranks and the talon due, beside the stock and the pile. */
function familyFacts(model: BoardModel): HTMLElement | string {
  if (model.family !== "mac") return "";
  const dead = model.deadRanks ?? [];
  const talon = model.talonDue ?? 0;
  return h(
    "div",
    { class: "table-facts", testid: "table-facts" },
    h(
      "span",
      { class: `fact ${model.turnCardDrawn ? "on" : ""}`, testid: "turn-card" },
      model.turnCardDrawn ? gettext("Turn card drawn") : gettext("Turn card not drawn"),
    ),
    h(
      "span",
      { class: "fact", testid: "dead-ranks" },
      dead.length ? interpolate(gettext("Dead: %(ranks)s"), { ranks: dead.join(", ") }) : gettext("No dead ranks"),
      dead.length ? h("span", { class: "sr-only" }, ` (${dead.map((r) => rankName(r)).join(", ")})`) : "",
    ),
    talon ? h("span", { class: "fact on", testid: "talon-due" }, interpolate(gettext("Talon due: %(cards)s"), { cards: cardCount(talon) })) : "",
  );
}

export function renderBoard(model: BoardModel, handlers: BoardHandlers = {}): HTMLElement {
  const players = model.handCounts.length;
  const positions = seatPositions(players, model.viewer);
  const seats = positions.map((position, seat) => seatEl(model, seat, position));

  // The stock and the pile are named by a text for screen readers (what pressing them does,
  // the pile's size, top card and state); what is printed is hidden from them.
  const stockFace = [
    h("span", { class: "sr-only" }, `${handlers.onStock ? gettext("Draw from the stock") : gettext("Stock")}: ${cardCount(model.stock)}`),
    h("span", { class: "back", "aria-hidden": "true" }, ""),
    h("span", { class: "label", "aria-hidden": "true" }, `${gettext("Stock")} `, h("b", {}, String(model.stock))),
  ];
  const stock = handlers.onStock
    ? h(
        "button",
        {
          class: `stock ${handlers.stockEnabled ? "enabled" : ""}`,
          testid: "stock",
          disabled: !handlers.stockEnabled,
          onclick: handlers.onStock,
          title: gettext("Stock: draw from it when it is your turn"),
        },
        ...stockFace,
      )
    : h("div", { class: "stock", testid: "stock" }, ...stockFace);
  const pileFlagsEl = h(
    "span",
    { class: "flags" },
    model.pileFrozen
      ? h("span", { class: "flag frozen", testid: "pile-frozen", title: gettext("A wild card or red three is in the pile: take it only with a natural pair") }, gettext("frozen"))
      : model.pileFrozenForYou
        ? h("span", { class: "flag frozen", testid: "pile-frozen", title: gettext("Your side has not melded yet: take it only with a natural pair") }, gettext("frozen for you"))
        : "",
    model.pileBlocked ? h("span", { class: "flag blocked", testid: "pile-blocked" }, gettext("blocked")) : "",
  );
  const pileFace = [
    h("span", { class: "sr-only" }, `${handlers.onPile ? gettext("Take the discard pile") : gettext("Discard pile")}: ${pileDescription(model)}`),
    model.pileTop ? cardEl(model.pileTop) : h("span", { class: "empty" }, gettext("empty")),
    h("span", { class: "label" }, `${gettext("Pile")} `, h("b", {}, String(model.pileSize))),
    pileFlagsEl,
  ];
  for (const el of pileFace.slice(1)) el.setAttribute("aria-hidden", "true");
  const pile = handlers.onPile
    ? h(
        "button",
        {
          class: `pile ${handlers.pileEnabled ? "enabled" : ""} ${model.pileFrozen ? "is-frozen" : ""}`,
          testid: "pile",
          disabled: !handlers.pileEnabled,
          onclick: handlers.onPile,
          title: gettext("Discard pile: take it with the selected cards"),
        },
        ...pileFace,
      )
    : h("div", { class: `pile ${model.pileFrozen ? "is-frozen" : ""}`, testid: "pile" }, ...pileFace);

  const bottom = model.viewer ?? 0;
  const usTeam = model.seats[bottom]?.team ?? 0;
  const us = model.teams.filter((t) => t.team === usTeam);
  const them = model.teams.filter((t) => t.team !== usTeam);
  const at = (position: Position) => seats.filter((_el, seat) => positions[seat] === position);
  return h(
    "section",
    { class: `board players-${players}`, "aria-labelledby": "board-heading" },
    h("h2", { class: "sr-only", id: "board-heading" }, gettext("The table")),
    h("div", { class: "area-top" }, ...at("top")),
    h("div", { class: "area-left" }, ...at("left")),
    h("div", { class: "area-right" }, ...at("right")),
    h("div", { class: "area-them" }, ...them.map((t) => teamEl(model, t, handlers))),
    h("div", { class: "center area-center" }, stock, pile, familyFacts(model)),
    h("div", { class: "area-us" }, ...us.map((t) => teamEl(model, t, handlers))),
    h("div", { class: "area-bottom" }, ...at("bottom")),
  );
}
