import { describe, expect, it } from "vitest";
import type { GameEvent } from "../src/api";
import { applyEvent, describe as say, emptyTable } from "../src/replay";

function ev(seq: number, type: string, seat: number | null, effects: Record<string, unknown>[]): GameEvent {
  return { seq, type, seat, source: "player", created_at: "", payload: {}, effects } as unknown as GameEvent;
}

const teamOf = (seat: number) => seat % 2;
const names = (seat: number) => (seat === 0 ? "You" : `Bot ${seat + 1}`);

const LOG: GameEvent[] = [
  ev(1, "game_started", null, [
    {
      kind: "round_started", seat: null, round: 1, dealer: 3, upcards: ["2D", "9H"], pile_frozen: true,
      stock_count: 61, hand_counts: [11, 11, 11, 11], hand: ["QH", "QS", "KD", "KC", "KS", "4C", "5D", "6H", "7S", "8C", "2C"],
    },
  ]),
  ev(2, "draw", 0, [
    { kind: "card_drawn", seat: 0, count: 1, cards: ["3H"] },
    { kind: "red_three_revealed", seat: 0, card: "3H", replacements: 1, drawn: ["QD"] },
  ]),
  ev(3, "meld", 0, [{ kind: "melded", seat: 0, melds: [{ rank: "Q", cards: ["QH", "QS", "QD"] }, { rank: "K", cards: ["KD", "KC", "KS"] }] }]),
  ev(4, "discard", 0, [{ kind: "card_discarded", seat: 0, card: "4C" }]),
  ev(5, "draw", 1, [{ kind: "card_drawn", seat: 1, count: 1 }]),
  ev(6, "discard", 1, [{ kind: "card_discarded", seat: 1, card: "KH" }]),
  ev(7, "take_pile", 2, [
    { kind: "pile_taken", seat: 2, top: "KH", with: [], melds: [], cards_to_hand: 3, red_threes: [] },
  ]),
];

describe("the table rebuilt from the log", () => {
  const tables = [emptyTable(2, 4)];
  for (const e of LOG) tables.push(applyEvent(tables[tables.length - 1], e, teamOf, 0));

  it("deals", () => {
    const t = tables[1];
    expect(t.round).toBe(1);
    expect(t.pile).toEqual(["2D", "9H"]);
    expect(t.stock).toBe(61);
    expect(t.hand).toHaveLength(11);
  });
  it("draws, reveals red threes and replaces them", () => {
    const t = tables[2];
    expect(t.stock).toBe(59);
    expect(t.handCounts[0]).toBe(12);
    expect(t.redThrees[0]).toEqual(["3H"]);
    expect(t.hand).toContain("QD");
    expect(t.hand).not.toContain("3H");
  });
  it("melds and discards", () => {
    const t = tables[4];
    expect(t.melds[0]).toEqual({ Q: ["QH", "QS", "QD"], K: ["KD", "KC", "KS"] });
    expect(t.handCounts[0]).toBe(5);
    expect(t.hand).toHaveLength(5);
    expect(t.pile).toEqual(["2D", "9H", "4C"]);
  });
  it("counts an opponent's hidden draw", () => {
    expect(tables[5].handCounts[1]).toBe(12);
    expect(tables[5].hand).toHaveLength(5);
  });
  it("takes the pile onto the partner's meld", () => {
    const t = tables[7];
    expect(t.pile).toEqual([]);
    expect(t.melds[0].K).toEqual(["KD", "KC", "KS", "KH"]);
    expect(t.handCounts[2]).toBe(14);
  });
  it("describes each step", () => {
    expect(say(LOG[0], names).join(" ")).toContain("Round 1 dealt by Bot 4");
    expect(say(LOG[1], names)).toEqual(["You drew 3♥.", "You revealed a red three 3♥."]);
    expect(say(LOG[4], names)).toEqual(["Bot 2 drew a card."]);
    expect(say(LOG[6], names)[0]).toContain("Bot 3 took the pile with K♥");
  });
});
