import { describe as suite, expect, it } from "vitest";
import type { GameEvent } from "../src/api";
import { type BoardModel, meldDescription, pileDescription, seatPositions } from "../src/board";
import { cardName, cardNames, rankName, spoken } from "../src/cards";
import { describe } from "../src/replay";
import { plural } from "../src/words";

suite("words", () => {
  it("says 1 card, 2 cards, 0 cards", () => {
    expect(plural(1, "card")).toBe("1 card");
    expect(plural(2, "card")).toBe("2 cards");
    expect(plural(0, "card")).toBe("0 cards");
    expect(plural(1, "more player")).toBe("1 more player");
  });
  it("names cards in words", () => {
    expect(cardName("KH")).toBe("King of hearts");
    expect(cardName("10S")).toBe("10 of spades");
    expect(cardName("2C")).toBe("2 of clubs");
    expect(cardName("AD")).toBe("Ace of diamonds");
    expect(cardName("JK")).toBe("Joker");
    expect(cardNames(["QH", "JK"])).toBe("Queen of hearts, Joker");
    expect([rankName("K"), rankName("6"), rankName("W"), rankName("A")]).toEqual(["Kings", "Sixes", "Wild cards", "Aces"]);
  });
  it("spells out card labels in text", () => {
    expect(spoken("Ada drew 10♠ Q♥ and Joker.")).toBe("Ada drew 10 of spades Queen of hearts and Joker.");
    expect(spoken("Round 2 dealt; upcard 3♣")).toBe("Round 2 dealt; upcard 3 of clubs");
    expect(spoken("needs 50 to open")).toBe("needs 50 to open");
  });
});

suite("the table in words", () => {
  it("seats the partner across and the opponents left and right", () => {
    expect(seatPositions(4, 0)).toEqual(["bottom", "left", "top", "right"]);
    expect(seatPositions(4, 2)).toEqual(["top", "right", "bottom", "left"]);
    expect(seatPositions(3, 1)).toEqual(["right", "bottom", "left"]);
    expect(seatPositions(2, 1)).toEqual(["top", "bottom"]);
    expect(seatPositions(4, null)).toEqual(["bottom", "left", "top", "right"]);
  });
  it("describes melds, canastas natural or mixed", () => {
    expect(meldDescription({ rank: "K", cards: ["KH", "KS", "JK"], canasta: null })).toBe(
      "Kings, 3 cards: King of hearts, King of spades, Joker",
    );
    expect(meldDescription({ rank: "7", cards: Array(7).fill("7D"), canasta: "natural" })).toMatch(
      /^Sevens, natural canasta, 7 cards: 7 of diamonds/,
    );
    expect(meldDescription({ rank: "5", cards: ["5C", "5C", "5C", "5C", "5C", "2H", "5S"], canasta: "mixed" })).toMatch(
      /^Fives, mixed canasta, 7 cards: .*2 of hearts/,
    );
  });
  it("describes the pile with its count and top card", () => {
    const model = { pileSize: 1, pileTop: "QS", pileFrozen: true, pileBlocked: false } as BoardModel;
    expect(pileDescription(model)).toBe("1 card, top card Queen of spades, frozen");
    expect(pileDescription({ ...model, pileSize: 0, pileTop: null, pileFrozen: false })).toBe("0 cards");
    expect(pileDescription({ ...model, pileFrozen: false, pileFrozenForYou: true, pileBlocked: true, pileSize: 4 })).toBe(
      "4 cards, top card Queen of spades, frozen for your side, blocked",
    );
  });
});

suite("the log in words", () => {
  it("counts the cards a pile take puts in the hand in the singular too", () => {
    const take = (n: number) =>
      ({
        seq: 1, type: "take_pile", seat: 1, source: "bot", created_at: "", payload: {},
        effects: [{ kind: "pile_taken", seat: 1, top: "KH", with: ["KS", "KD"], melds: [], cards_to_hand: n, red_threes: [] }],
      }) as unknown as GameEvent;
    const name = (seat: number) => `Bot ${seat + 1}`;
    expect(describe(take(1), name)).toEqual(["Bot 2 took the pile with K♥ K♠ K♦ (1 card to hand)."]);
    expect(describe(take(4), name)[0]).toContain("(4 cards to hand)");
  });
});
