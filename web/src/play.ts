// Turning a selection of cards into the API's meld and pile-take actions (pure, unit-tested).
import type { Action, MeldGroup } from "./api";
import { isBlackThree, isWild, meldRankOf, rankOf, removeCards } from "./cards";

/** Split a selection into meld groups: naturals by rank, wild cards added to the groups that
 * are short of three cards first (else to the first group). Wild cards alone make one group
 * without a rank (the server then asks for one: tap a meld to lay them off instead). */
export function autoGroups(cards: readonly string[]): MeldGroup[] {
  const byRank = new Map<string, string[]>();
  const wilds: string[] = [];
  for (const c of cards) {
    if (isWild(c)) wilds.push(c);
    else {
      const r = isBlackThree(c) ? "3" : rankOf(c);
      byRank.set(r, [...(byRank.get(r) ?? []), c]);
    }
  }
  const groups = [...byRank.entries()].map(([rank, cs]) => ({ rank, cards: cs }));
  if (groups.length === 0) return wilds.length ? [{ cards: wilds }] : [];
  for (const w of wilds) {
    const short = groups.find((g) => g.cards.length < 3) ?? groups[0];
    short.cards.push(w);
  }
  return groups;
}

/** Groups the player set aside one by one (each stays one group). */
export function stagedGroups(staged: readonly string[][]): MeldGroup[] {
  return staged.map((g) => autoGroups(g)[0] ?? { cards: [...g] });
}

/** Take the pile with the selection: the selected naturals of the top card's rank go with it
 * (plus one selected wild card when only one natural is chosen); everything else selected, and
 * every staged group, is melded in the same action (for the initial meld's minimum). */
export function pileTake(top: string, selected: readonly string[], staged: readonly string[][] = []): Action {
  const rank = meldRankOf(top);
  const same = selected.filter((c) => !isWild(c) && rankOf(c) === rank);
  let rest = removeCards(selected, same);
  const withTop = [...same];
  if (same.length === 1) {
    const wild = rest.find(isWild);
    if (wild) {
      withTop.push(wild);
      rest = removeCards(rest, [wild]);
    }
  }
  return { type: "take_pile", cards: withTop, melds: [...stagedGroups(staged), ...autoGroups(rest)] };
}
