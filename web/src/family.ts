// The variant families at the table (Modern American Canasta, Samba, Bolivia): their meld and
// action forms and their words (pure, unit-tested). The view's fields (`family`, a meld's `id`,
// `kind` and `suit`, the mac threes area, special hand, turn card, dead ranks and talon) and
// the actions' (`target`, `new`, `kind`, `merge`, `keep_three`, `name`) are the schema's.
import type { Action, MeldGroup, TableView, TeamView } from "./api";
import { cardNames, isWild, labels, rankName, rankOf, suitOf } from "./cards";
import { counted, gettext, gettext_noop, interpolate, ngettext, translate } from "./i18n";

export type Family = "classic" | "mac" | "samba" | "bolivia";
export type MeldKind = "group" | "sequence" | "wild";
export type FamilyTableView = TableView;
export type FamilyTeamView = TeamView;
export type FamilyMeldGroup = MeldGroup;
/** An action with the families' fields (what `legal_actions` lists and the API accepts). */
export type FamilyAction = Action;

export interface SpecialHandView {
  name: string;
  cards: string[];
}

/** The view's family ("classic" when the server says none). */
export function familyOf(view: unknown): Family {
  const f = (view as { family?: unknown } | null | undefined)?.family;
  return f === "mac" || f === "samba" || f === "bolivia" ? f : "classic";
}

/** Families with several melds of one rank, sequences and meld ids. */
export function hasMeldIds(family: Family): boolean {
  return family === "samba" || family === "bolivia";
}

/** Families with wild melds (mac: one per side; bolivia: several). */
export function hasWildMelds(family: Family): boolean {
  return family === "mac" || family === "bolivia";
}

/** A team's special hand (the schema's null marker read as none). */
export function specialHandOf(t: FamilyTeamView): SpecialHandView | null {
  const hand = t.special_hand as SpecialHandView | null | undefined;
  return hand && typeof hand === "object" && Array.isArray(hand.cards) ? hand : null;
}

// ---------------------------------------------------------------------------- melds
const NATURAL_ORDER = ["4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"];
const SUIT_WORD: Record<string, string> = { C: gettext_noop("clubs"), D: gettext_noop("diamonds"), H: gettext_noop("hearts"), S: gettext_noop("spades") };
const SUIT_SYMBOL: Record<string, string> = { C: "♣", D: "♦", H: "♥", S: "♠" };

/** A sequence's cards in rank order (4 up to A). */
export function sequenceOrder(cards: readonly string[]): string[] {
  return [...cards].sort((a, b) => NATURAL_ORDER.indexOf(rankOf(a)) - NATURAL_ORDER.indexOf(rankOf(b)));
}

/** Do these cards make a sequence: 3 to 7 natural cards of one suit in consecutive ranks
 * 4..A, each rank once? */
export function isSequence(cards: readonly string[]): boolean {
  if (cards.length < 3 || cards.length > 7) return false;
  if (cards.some((c) => isWild(c) || rankOf(c) === "3")) return false;
  const suit = suitOf(cards[0]);
  if (cards.some((c) => suitOf(c) !== suit)) return false;
  const idx = cards.map((c) => NATURAL_ORDER.indexOf(rankOf(c))).sort((a, b) => a - b);
  return idx.every((v, i) => i === 0 || v === idx[i - 1] + 1);
}

const CANASTA_WORDS: Record<string, string> = {
  natural: gettext_noop("natural canasta"),
  mixed: gettext_noop("mixed canasta"),
  wild: gettext_noop("wild canasta"),
  natural_sevens: gettext_noop("natural sevens canasta"),
  natural_aces: gettext_noop("natural aces canasta"),
  samba: gettext_noop("samba"),
  escalera: gettext_noop("escalera"),
  bolivia: gettext_noop("bolivia"),
};

/** A canasta's kind in words: "natural canasta", "samba", "natural sevens canasta". */
export function canastaWords(kind: string | null | undefined): string {
  if (!kind) return "";
  return CANASTA_WORDS[kind] ? translate(CANASTA_WORDS[kind]) : interpolate(gettext("%(kind)s canasta"), { kind: kind.replace(/_/g, " ") });
}

export interface MeldLike {
  rank: string;
  cards: string[];
  id?: string | null;
  kind?: MeldKind | string;
  suit?: string | null;
  canasta: string | null;
}

/** The meld's kind: "sequence", "wild" (rank W) or "group". */
export function kindOf(m: Pick<MeldLike, "kind" | "rank">): MeldKind {
  if (m.kind === "sequence" || m.kind === "wild") return m.kind;
  return m.rank === "W" ? "wild" : "group";
}

/** The cards as the meld shows them: a sequence in rank order, others as they are. */
export function meldCards(m: MeldLike): string[] {
  return kindOf(m) === "sequence" ? sequenceOrder(m.cards) : m.cards;
}

/** The meld's short label: "K ×4", "A1 K ×4" (several melds of a rank), "4–8♥", "wild ×3". */
export function meldLabel(m: MeldLike, showId: boolean): string {
  const id = showId && m.id ? `${m.id} ` : "";
  const kind = kindOf(m);
  if (kind === "sequence") {
    const cards = sequenceOrder(m.cards);
    const suit = m.suit ?? suitOf(cards[0] ?? "");
    const low = cards.length ? rankOf(cards[0]) : m.rank;
    const high = cards.length ? rankOf(cards[cards.length - 1]) : m.rank;
    return `${id}${low}–${high}${SUIT_SYMBOL[suit] ?? suit}`;
  }
  return `${id}${kind === "wild" ? gettext("wild") : m.rank} ×${m.cards.length}`;
}

/** The meld in words: "Kings A1, natural canasta, 7 cards: ...", "Sequence of hearts, 4 to 8,
 * 5 cards: ...", "Wild meld, 3 cards: ...". */
export function meldWords(m: MeldLike, showId: boolean): string {
  const id = showId && m.id ? ` ${m.id}` : "";
  const kind = kindOf(m);
  const canasta = m.canasta ? `, ${canastaWords(m.canasta)}` : "";
  const cards = meldCards(m);
  let name: string;
  if (kind === "sequence") {
    const suit = m.suit ?? suitOf(cards[0] ?? "");
    const low = cards.length ? rankOf(cards[0]) : m.rank;
    const high = cards.length ? rankOf(cards[cards.length - 1]) : m.rank;
    name = interpolate(gettext("Sequence of %(suit)s%(id)s, %(low)s to %(high)s"), {
      suit: SUIT_WORD[suit] ? translate(SUIT_WORD[suit]) : suit,
      id,
      low: rankWord(low),
      high: rankWord(high),
    });
  } else if (kind === "wild") {
    name = `${gettext("Wild meld")}${id}`;
  } else {
    name = `${rankName(m.rank)}${id}`;
  }
  return `${name}${canasta}, ${counted(ngettext("%(count)s card", "%(count)s cards", cards.length), cards.length)}: ${cardNames(cards)}`;
}

function rankWord(rank: string): string {
  return ({ J: gettext("Jack"), Q: gettext("Queen"), K: gettext("King"), A: gettext("Ace") } as Record<string, string>)[rank] ?? rank;
}

/** Which melds show their id: those of a rank (or kind) the side holds more than one of. */
export function idsShown(melds: readonly MeldLike[]): Set<string> {
  const count = new Map<string, number>();
  const key = (m: MeldLike) => `${kindOf(m)}|${kindOf(m) === "sequence" ? (m.suit ?? "") : m.rank}`;
  for (const m of melds) count.set(key(m), (count.get(key(m)) ?? 0) + 1);
  return new Set(melds.filter((m) => m.id && (count.get(key(m)) ?? 0) > 1).map((m) => m.id!));
}

/** The side's melds that a group of ``rank`` could go to (group melds of that rank; wild
 * melds for "W"). */
export function meldsTaking(melds: readonly MeldLike[], rank: string): MeldLike[] {
  return melds.filter((m) => (rank === "W" ? kindOf(m) === "wild" : kindOf(m) === "group" && m.rank === rank));
}

/** Pairs of the side's group melds of one rank that could be merged: [into, from]. */
export function mergePairs(melds: readonly MeldLike[]): [MeldLike, MeldLike][] {
  const out: [MeldLike, MeldLike][] = [];
  const groups = melds.filter((m) => kindOf(m) === "group" && m.id);
  for (let i = 0; i < groups.length; i++)
    for (let j = 0; j < groups.length; j++)
      if (i !== j && groups[i].rank === groups[j].rank) out.push([groups[i], groups[j]]);
  return out;
}

// ---------------------------------------------------------------------------- actions
/** Where a meld goes: "" (the server decides: the only meld of the rank, or a new one),
 * "new" (a new meld), or a meld id ("A3"). */
export type Onto = string;

/** A selection as one group of a family: wild cards alone make a wild meld where the family
 * has them; ``onto`` names the meld they go to or asks for a new one. */
export function ontoGroup(group: FamilyMeldGroup, onto: Onto): FamilyMeldGroup {
  if (onto === "new") return { ...group, new: true };
  if (onto) return { ...group, target: onto };
  return group;
}

export function wildGroup(cards: readonly string[], onto: Onto = ""): FamilyMeldGroup {
  return ontoGroup({ kind: "wild", rank: "W", cards: [...cards] }, onto);
}

export function sequenceGroup(cards: readonly string[], onto: Onto = ""): FamilyMeldGroup {
  const g: FamilyMeldGroup = { kind: "sequence", cards: sequenceOrder(cards) };
  return onto && onto !== "new" ? { ...g, target: onto } : g;
}

/** The group that lays ``cards`` off on ``meld`` (tapped at the table). */
export function layOffGroup(meld: MeldLike, cards: readonly string[]): FamilyMeldGroup {
  const kind = kindOf(meld);
  const target = meld.id ? { target: meld.id } : {};
  if (kind === "sequence") return { kind, cards: [...cards], ...target };
  if (kind === "wild") return { kind, rank: "W", cards: [...cards], ...target };
  return { rank: meld.rank, cards: [...cards], ...target };
}

/** The names of the special hands `legal_actions` offers, in their order. */
export function specialHandNames(legal: readonly FamilyAction[]): string[] {
  const out: string[] = [];
  for (const a of legal) if (a.type === "declare_special_hand" && a.name && !out.includes(a.name)) out.push(a.name);
  return out;
}

/** Merges `legal_actions` lists, as [into, from]. */
export function legalMerges(legal: readonly FamilyAction[]): [string, string][] {
  const out: [string, string][] = [];
  for (const a of legal) if (a.type === "meld" && a.merge && a.merge.length === 2) out.push([a.merge[0], a.merge[1]]);
  return out;
}

/** Does `legal_actions` offer a draw that keeps a 3 for a Straight? */
export function canKeepThree(legal: readonly FamilyAction[]): boolean {
  return legal.some((a) => a.type === "draw" && a.keep_three === true);
}

const SPECIAL_HAND_WORDS: Record<string, string> = {
  pairs: gettext_noop("Pairs"),
  wild_pairs: gettext_noop("Wild pairs"),
  miami_pairs: gettext_noop("Miami pairs"),
  zip_code: gettext_noop("Zip code"),
  straight: gettext_noop("Straight"),
  garbage: gettext_noop("Garbage"),
  blast_off: gettext_noop("Blast off"),
  triples: gettext_noop("Triples"),
  quads: gettext_noop("Quads"),
  dream_plus_4: gettext_noop("Dream hand plus four"),
  dream_plus_5: gettext_noop("Dream hand plus five"),
};

/** A special hand's name in words: "Garbage", "Miami pairs". */
export function specialHandWords(name: string): string {
  return SPECIAL_HAND_WORDS[name] ? translate(SPECIAL_HAND_WORDS[name]) : name.replace(/_/g, " ").replace(/^./, (c) => c.toUpperCase());
}

/** One meld group of an action in words (short labels): "K♠ K♥ → A3", "sequence 4♥ 5♥ 6♥",
 * "wild 2♣ 2♦ Joker (new)". */
export function groupText(g: FamilyMeldGroup): string {
  const kind = g.kind === "sequence" ? `${gettext("sequence")} ` : g.kind === "wild" ? `${gettext("wild")} ` : "";
  const where = g.target ? ` → ${g.target}` : g.new ? ` (${gettext("new")})` : "";
  return `${kind}${labels(g.kind === "sequence" ? sequenceOrder(g.cards) : g.cards)}${where}`;
}

/** Does the action use a field of the families (its words then say it)? */
export function isFamilyForm(a: FamilyAction): boolean {
  return (
    a.type === "declare_special_hand" ||
    a.keep_three === true ||
    !!a.target ||
    !!a.merge?.length ||
    (a.melds ?? []).some((g) => (g.kind && g.kind !== "group") || g.target || g.new)
  );
}

/** The family forms of a move in words ("" for a classic form: words.ts says those). */
export function familyActionText(a: FamilyAction): string {
  if (!isFamilyForm(a)) return "";
  const groups = (a.melds ?? []).map(groupText).join(" | ");
  switch (a.type) {
    case "draw":
      return gettext("Draw, keeping a 3 for a Straight");
    case "declare_special_hand":
      return interpolate(gettext("Declare %(hand)s"), { hand: specialHandWords(a.name ?? "") });
    case "meld": {
      const merge = a.merge?.length === 2 ? interpolate(gettext("Merge %(from)s into %(into)s"), { from: a.merge[1], into: a.merge[0] }) : "";
      return [merge, groups ? interpolate(gettext("Meld %(cards)s"), { cards: groups }) : ""].filter(Boolean).join(" + ");
    }
    case "take_pile": {
      const extra = groups ? ` + ${interpolate(gettext("meld %(cards)s"), { cards: groups })}` : "";
      const onto = a.target ? ` ${interpolate(gettext("onto %(meld)s"), { meld: a.target })}` : "";
      return (a.cards ?? []).length
        ? `${interpolate(gettext("Take pile with %(cards)s"), { cards: labels(a.cards ?? []) })}${onto}${extra}`
        : a.target
          ? `${interpolate(gettext("Take pile (top card onto %(meld)s)"), { meld: a.target })}${extra}`
          : `${gettext("Take pile (top card laid off)")}${extra}`;
    }
    default:
      return "";
  }
}
