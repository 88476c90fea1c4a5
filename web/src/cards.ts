// Cards in the API's text form: rank + suit ("QH", "10S", "2C") or "JK" for a joker.

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
  if (card === "JK") return "Joker";
  return `${rankOf(card)}${SUIT_SYMBOL[suitOf(card)] ?? suitOf(card)}`;
}

export function labels(cards: readonly string[]): string {
  return cards.map(label).join(" ");
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

/** A card element; ``extra`` classes such as "selected". */
export function cardEl(card: string, extra = ""): HTMLElement {
  const el = document.createElement("span");
  el.className = `card ${isRed(card) ? "red" : "black"} ${card === "JK" ? "joker" : ""} ${extra}`;
  el.dataset.card = card;
  if (card === "JK") {
    el.innerHTML = '<span class="rank">JK</span><span class="suit">★</span>';
  } else {
    el.innerHTML = `<span class="rank">${rankOf(card)}</span><span class="suit">${SUIT_SYMBOL[suitOf(card)]}</span>`;
  }
  el.title = label(card);
  return el;
}
