import { describe, expect, it } from "vitest";
import { label, sortCards, valueOf } from "../src/cards";
import { autoGroups, pileTake, stagedGroups } from "../src/play";

describe("cards", () => {
  it("sorts black threes first, naturals up to aces, wild cards last", () => {
    expect(sortCards(["2C", "AH", "JK", "3S", "10D", "4C", "KS"])).toEqual(["3S", "4C", "10D", "KS", "AH", "2C", "JK"]);
  });
  it("labels and values", () => {
    expect(label("10H")).toBe("10♥");
    expect(label("JK")).toBe("Joker");
    expect([valueOf("JK"), valueOf("2D"), valueOf("AS"), valueOf("9C"), valueOf("7H")]).toEqual([50, 20, 20, 10, 5]);
  });
});

describe("autoGroups", () => {
  it("groups naturals by rank and gives wild cards to short groups first", () => {
    expect(autoGroups(["QH", "QS", "KD", "KC", "KS", "2C"])).toEqual([
      { rank: "Q", cards: ["QH", "QS", "2C"] },
      { rank: "K", cards: ["KD", "KC", "KS"] },
    ]);
  });
  it("keeps wild cards alone without a rank", () => {
    expect(autoGroups(["2C", "JK"])).toEqual([{ cards: ["2C", "JK"] }]);
    expect(autoGroups([])).toEqual([]);
  });
  it("treats black threes as their own rank", () => {
    expect(autoGroups(["3C", "3S", "3C"])).toEqual([{ rank: "3", cards: ["3C", "3S", "3C"] }]);
  });
  it("keeps staged groups whole", () => {
    expect(stagedGroups([["AH", "AS", "2D"], ["7C", "7D", "7S"]])).toEqual([
      { rank: "A", cards: ["AH", "AS", "2D"] },
      { rank: "7", cards: ["7C", "7D", "7S"] },
    ]);
  });
});

describe("pileTake", () => {
  it("uses a natural pair with the top card", () => {
    expect(pileTake("QH", ["QS", "QD"])).toEqual({ type: "take_pile", cards: ["QS", "QD"], melds: [] });
  });
  it("adds one wild card to a single natural", () => {
    expect(pileTake("QH", ["2C", "QS"])).toEqual({ type: "take_pile", cards: ["QS", "2C"], melds: [] });
  });
  it("melds the rest of the selection and the staged groups for the minimum", () => {
    expect(pileTake("9H", ["9S", "9C", "KD", "KC", "KS"], [["AH", "AS", "JK"]])).toEqual({
      type: "take_pile",
      cards: ["9S", "9C"],
      melds: [
        { rank: "A", cards: ["AH", "AS", "JK"] },
        { rank: "K", cards: ["KD", "KC", "KS"] },
      ],
    });
  });
  it("with nothing of the top's rank lays the top card off", () => {
    expect(pileTake("5H", [])).toEqual({ type: "take_pile", cards: [], melds: [] });
  });
});
