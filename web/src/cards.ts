// Cards in the API's text form: rank + suit ("QH", "10S", "2C") or "JK" for a joker.
import { gettext, interpolate } from "./i18n";

const RANK_ORDER = ["3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A", "2", "JK"];
const SUIT_ORDER = ["C", "D", "H", "S"];
const SUIT_SYMBOL: Record<string, string> = { C: "♣", D: "♦", H: "♥", S: "♠" };

export function rankOf(card: string): string {
  return card === "JK" ? "JK" : card.slice(0, -1);
}

export function suitOf(card: string): string {
  return card === "JK" ? "" : card.slice(-1);
}

export function isWild(card: string): boolean {
  return card === "JK" || rankOf(card) === "2";
}

export function isRedThree(card: string): boolean {
  return card === "3D" || card === "3H";
}

export function isBlackThree(card: string): boolean {
  return card === "3C" || card === "3S";
}

export function isRed(card: string): boolean {
  const s = suitOf(card);
  return s === "D" || s === "H";
}

/** The meld rank a natural card belongs to ("W" for wild cards). */
export function meldRankOf(card: string): string {
  return isWild(card) ? "W" : rankOf(card);
}

/** Point value (RULES.md section 1). */
export function valueOf(card: string): number {
  if (card === "JK") return 50;
  const r = rankOf(card);
  if (r === "A" || r === "2") return 20;
  if (["K", "Q", "J", "10", "9", "8"].includes(r)) return 10;
  return 5;
}

function sortKey(card: string): number {
  // Black threes first (they are discards), naturals 4..A, then the wild cards.
  return RANK_ORDER.indexOf(rankOf(card)) * 10 + SUIT_ORDER.indexOf(suitOf(card));
}

export function sortCards(cards: readonly string[]): string[] {
  return [...cards].sort((a, b) => sortKey(a) - sortKey(b));
}

/** A short human label: "Q♥", "10♠", "Joker". */
export function label(card: string): string {
  if (card === "JK") return gettext("Joker");
  return `${rankOf(card)}${SUIT_SYMBOL[suitOf(card)] ?? suitOf(card)}`;
}

export function labels(cards: readonly string[]): string {
  return cards.map(label).join(" ");
}

// Number cards keep their digits ("5 of hearts": read "five of hearts", and the name holds
// the "5" printed on the card, for speech input); the others are words.
// (Made when asked: the words are those of the page's language.)
const RANK_WORD = (): Record<string, [string, string]> => ({
  "2": ["2", gettext("Twos")], "3": ["3", gettext("Threes")], "4": ["4", gettext("Fours")], "5": ["5", gettext("Fives")],
  "6": ["6", gettext("Sixes")], "7": ["7", gettext("Sevens")], "8": ["8", gettext("Eights")], "9": ["9", gettext("Nines")],
  "10": ["10", gettext("Tens")], J: [gettext("Jack"), gettext("Jacks")], Q: [gettext("Queen"), gettext("Queens")], K: [gettext("King"), gettext("Kings")],
  A: [gettext("Ace"), gettext("Aces")], W: [gettext("Wild card"), gettext("Wild cards")],
});
const SUIT_WORD = (): Record<string, string> => ({ C: gettext("clubs"), D: gettext("diamonds"), H: gettext("hearts"), S: gettext("spades") });

/** A card in words, for screen readers: "King of hearts", "10 of spades", "Joker". */
export function cardName(card: string): string {
  if (card === "JK") return gettext("Joker");
  const rank = RANK_WORD()[rankOf(card)]?.[0] ?? rankOf(card);
  return interpolate(gettext("%(rank)s of %(suit)s"), { rank, suit: SUIT_WORD()[suitOf(card)] ?? suitOf(card) });
}

export function cardNames(cards: readonly string[]): string {
  return cards.map(cardName).join(", ");
}

/** A meld's rank in words: "Kings", "Sevens", "Wild cards" ("W"). */
export function rankName(rank: string): string {
  return RANK_WORD()[rank]?.[1] ?? rank;
}

/** Text with the short labels of cards ("Q♥", "10♠") spelled out ("Queen of hearts"). */
export function spoken(text: string): string {
  return text.replace(/\b(10|[2-9JQKA])([♣♦♥♠])/g, (_m, rank: string, symbol: string) => {
    const suit = Object.keys(SUIT_SYMBOL).find((k) => SUIT_SYMBOL[k] === symbol) ?? "";
    return cardName(`${rank}${suit}`);
  });
}

/** Remove each of ``cards`` once from ``from`` (a multiset difference). */
export function removeCards(from: readonly string[], cards: readonly string[]): string[] {
  const out = [...from];
  for (const c of cards) {
    const i = out.indexOf(c);
    if (i >= 0) out.splice(i, 1);
  }
  return out;
}

/** A card element, named in words for screen readers; ``extra`` classes such as "mini". */
export function cardEl(card: string, extra = ""): HTMLElement {
  const el = document.createElement("span");
  el.className = `card ${isRed(card) ? "red" : "black"} ${card === "JK" ? "joker" : ""} ${extra}`;
  el.dataset.card = card;
  el.setAttribute("role", "img");
  el.setAttribute("aria-label", cardName(card));
  el.title = cardName(card);
  el.append(...cardFace(card));
  return el;
}

/** The face of a card, drawn by CSS from data-face (a picture: the card's name is what
 * screen readers and speech input get). */
export function cardFace(card: string): HTMLElement[] {
  const rank = document.createElement("span");
  rank.className = "rank";
  rank.dataset.face = card === "JK" ? "Joker" : rankOf(card);
  const suit = document.createElement("span");
  suit.className = "suit";
  suit.dataset.face = card === "JK" ? "★" : (SUIT_SYMBOL[suitOf(card)] ?? suitOf(card));
  for (const part of [rank, suit]) part.setAttribute("aria-hidden", "true");
  return [rank, suit];
}

/** Text with card labels ("Q♥") as nodes that screen readers read in words. */
export function cardText(text: string): (string | HTMLElement)[] {
  const out: (string | HTMLElement)[] = [];
  let last = 0;
  for (const m of text.matchAll(/\b(10|[2-9JQKA])([♣♦♥♠])/g)) {
    out.push(text.slice(last, m.index));
    const el = document.createElement("span");
    el.setAttribute("role", "img");
    el.setAttribute("aria-label", spoken(m[0]));
    el.className = /[♦♥]/.test(m[2]) ? "card-text red" : "card-text";
    el.textContent = m[0];
    out.push(el);
    last = (m.index ?? 0) + m[0].length;
  }
  out.push(text.slice(last));
  return out.filter((x) => x !== "");
}
