import { describe, expect, it } from "vitest";
import { meldDescription } from "../src/board";
import {
  canKeepThree,
  familyOf,
  idsShown,
  isSequence,
  layOffGroup,
  legalMerges,
  meldLabel,
  meldsTaking,
  mergePairs,
  ontoGroup,
  sequenceGroup,
  specialHandNames,
  specialHandWords,
  wildGroup,
} from "../src/family";
import { optionOffered, presetFamily, presetTitle, targetRange } from "../src/options";
import { describe as describeEvent } from "../src/replay";
import { actionText } from "../src/words";
import type { Action, GameEvent } from "../src/api";

const kings1 = { id: "A1", rank: "K", kind: "group", cards: ["KH", "KS", "KD"], canasta: null };
const kings3 = { id: "A3", rank: "K", kind: "group", cards: ["KC", "KC", "2D"], canasta: null };
const hearts = { id: "A2", rank: "4", kind: "sequence", suit: "H", cards: ["6H", "4H", "5H", "7H"], canasta: null };
const wilds = { id: "A4", rank: "W", kind: "wild", cards: ["2C", "JK", "2S"], canasta: null };

describe("the families' melds", () => {
  it("knows a sequence: one suit, consecutive ranks 4..A, 3 to 7 cards", () => {
    expect(isSequence(["5H", "4H", "6H"])).toBe(true);
    expect(isSequence(["QS", "KS", "AS", "JS"])).toBe(true);
    expect(isSequence(["4H", "5H"])).toBe(false);
    expect(isSequence(["4H", "5H", "6D"])).toBe(false);
    expect(isSequence(["3H", "4H", "5H"])).toBe(false);
    expect(isSequence(["4H", "5H", "2H"])).toBe(false);
    expect(isSequence(["4H", "5H", "7H"])).toBe(false);
    expect(isSequence(["4H", "5H", "5H"])).toBe(false);
  });
  it("labels groups, sequences in rank order with their suit, and wild melds", () => {
    expect(meldLabel(kings1, false)).toBe("K ×3");
    expect(meldLabel(kings1, true)).toBe("A1 K ×3");
    expect(meldLabel(hearts, false)).toBe("4–7♥");
    expect(meldLabel(wilds, false)).toBe("wild ×3");
  });
  it("says melds in words, with the id and the family's canasta kinds", () => {
    expect(meldDescription(hearts)).toBe(
      "Sequence of hearts, 4 to 7, 4 cards: 4 of hearts, 5 of hearts, 6 of hearts, 7 of hearts",
    );
    expect(meldDescription({ ...kings1, cards: Array(7).fill("KH"), canasta: "natural" }, true)).toMatch(
      /^Kings A1, natural canasta, 7 cards/,
    );
    const samba = { ...hearts, cards: ["4H", "5H", "6H", "7H", "8H", "9H", "10H"], canasta: "samba" };
    expect(meldDescription(samba)).toMatch(/^Sequence of hearts, 4 to 10, samba, 7 cards/);
    expect(meldDescription({ ...wilds, canasta: "bolivia" })).toMatch(/^Wild meld, bolivia, 3 cards/);
    expect(meldDescription({ rank: "7", cards: Array(7).fill("7D"), canasta: "natural_sevens" })).toMatch(
      /^Sevens, natural sevens canasta, 7 cards/,
    );
    // The classic words are unchanged.
    expect(meldDescription({ rank: "K", cards: ["KH", "KS", "JK"], canasta: null })).toBe(
      "Kings, 3 cards: King of hearts, King of spades, Joker",
    );
  });
  it("shows ids only where a side holds several melds of a rank", () => {
    expect([...idsShown([kings1, kings3, hearts, wilds])].sort()).toEqual(["A1", "A3"]);
    expect([...idsShown([kings1, hearts])]).toEqual([]);
  });
  it("finds the melds a group could go to, and the merges", () => {
    expect(meldsTaking([kings1, kings3, hearts, wilds], "K").map((m) => m.id)).toEqual(["A1", "A3"]);
    expect(meldsTaking([kings1, kings3, hearts, wilds], "W").map((m) => m.id)).toEqual(["A4"]);
    expect(mergePairs([kings1, hearts, kings3]).map(([a, b]) => [a.id, b.id])).toEqual([
      ["A1", "A3"],
      ["A3", "A1"],
    ]);
  });
});

describe("the families' action forms", () => {
  it("names the meld a group goes to, or asks for a new one", () => {
    expect(ontoGroup({ rank: "K", cards: ["KH", "KS"] }, "A3")).toEqual({ rank: "K", cards: ["KH", "KS"], target: "A3" });
    expect(ontoGroup({ rank: "K", cards: ["KH", "KS", "KD"] }, "new")).toEqual({ rank: "K", cards: ["KH", "KS", "KD"], new: true });
    expect(ontoGroup({ rank: "K", cards: ["KH"] }, "")).toEqual({ rank: "K", cards: ["KH"] });
  });
  it("makes sequences (in rank order) and wild melds", () => {
    expect(sequenceGroup(["6H", "4H", "5H"])).toEqual({ kind: "sequence", cards: ["4H", "5H", "6H"] });
    expect(sequenceGroup(["8H"], "A2")).toEqual({ kind: "sequence", cards: ["8H"], target: "A2" });
    expect(sequenceGroup(["4S", "5S", "6S"], "new")).toEqual({ kind: "sequence", cards: ["4S", "5S", "6S"] });
    expect(wildGroup(["2C", "JK", "2H"])).toEqual({ kind: "wild", rank: "W", cards: ["2C", "JK", "2H"] });
    expect(wildGroup(["2C", "JK", "2H"], "new")).toEqual({ kind: "wild", rank: "W", cards: ["2C", "JK", "2H"], new: true });
  });
  it("lays cards off on the meld tapped: by id where melds have one, by rank in mac", () => {
    expect(layOffGroup(kings3, ["KH"])).toEqual({ rank: "K", cards: ["KH"], target: "A3" });
    expect(layOffGroup(hearts, ["8H"])).toEqual({ kind: "sequence", cards: ["8H"], target: "A2" });
    expect(layOffGroup(wilds, ["JK"])).toEqual({ kind: "wild", rank: "W", cards: ["JK"], target: "A4" });
    expect(layOffGroup({ rank: "W", kind: "wild", id: null, cards: ["2C", "2D", "2H"], canasta: null }, ["2S"])).toEqual({
      kind: "wild",
      rank: "W",
      cards: ["2S"],
    });
    expect(layOffGroup({ rank: "9", id: null, cards: ["9C", "9D", "9H"], canasta: null }, ["9S"])).toEqual({ rank: "9", cards: ["9S"] });
  });
  it("reads the special hands, keep-three draws and merges the legal actions offer", () => {
    const legal: Action[] = [
      { type: "draw" },
      { type: "draw", keep_three: true },
      { type: "declare_special_hand", name: "garbage" },
      { type: "declare_special_hand", name: "pairs" },
      { type: "meld", melds: [], merge: ["A1", "A3"] },
    ];
    expect(specialHandNames(legal)).toEqual(["garbage", "pairs"]);
    expect(canKeepThree(legal)).toBe(true);
    expect(canKeepThree([{ type: "draw" }])).toBe(false);
    expect(legalMerges(legal)).toEqual([["A1", "A3"]]);
    expect(specialHandWords("dream_plus_4")).toBe("Dream hand plus four");
    expect(specialHandWords("zip_code")).toBe("Zip code");
  });
  it("says the family forms in words", () => {
    expect(actionText({ type: "draw", keep_three: true })).toBe("Draw, keeping a 3 for a Straight");
    expect(actionText({ type: "declare_special_hand", name: "garbage" })).toBe("Declare Garbage");
    expect(actionText({ type: "meld", melds: [{ rank: "K", cards: ["KH", "KS"], target: "A3" } as never] })).toBe("Meld K♥ K♠ → A3");
    expect(actionText({ type: "meld", melds: [{ kind: "sequence", cards: ["5H", "4H", "6H"] } as never] })).toBe("Meld sequence 4♥ 5♥ 6♥");
    expect(actionText({ type: "meld", melds: [], merge: ["A1", "A3"] })).toBe("Merge A3 into A1");
    expect(actionText({ type: "take_pile", cards: ["9C", "9S"], melds: [], target: "A2" })).toBe("Take pile with 9♣ 9♠ onto A2");
    expect(actionText({ type: "take_pile", cards: [], melds: [], target: "A2" })).toBe("Take pile (top card onto A2)");
    // Classic forms read as before.
    expect(actionText({ type: "meld", melds: [{ rank: "K", cards: ["KH", "KS", "KD"] }] })).toBe("Meld K♥ K♠ K♦");
    expect(actionText({ type: "draw" })).toBe("Draw from the stock");
  });
  it("knows the view's family", () => {
    expect(familyOf({ family: "samba" })).toBe("samba");
    expect(familyOf({})).toBe("classic");
    expect(familyOf(null)).toBe("classic");
  });
});

describe("the families in the log", () => {
  const nameOf = (seat: number) => (seat === 0 ? "You" : `Bot ${seat + 1}`);
  const ev = (effects: unknown[]) => ({ type: "move", seq: 5, seat: 1, effects }) as unknown as GameEvent;
  it("tells talons, special hands, merges and black threes", () => {
    expect(describeEvent(ev([{ kind: "talon_drawn", seat: 1, count: 4 }]), nameOf)).toEqual(["Bot 2 took a talon of 4 cards."]);
    expect(describeEvent(ev([{ kind: "talon_drawn", seat: 0, count: 3, cards: ["4H", "5H", "KS"] }]), nameOf)).toEqual([
      "You took a talon: 4♥ 5♥ K♠.",
    ]);
    expect(describeEvent(ev([{ kind: "special_hand_declared", seat: 1, name: "garbage", cards: ["4H"] }]), nameOf)).toEqual([
      "Bot 2 declared a special hand: Garbage 4♥.",
    ]);
    expect(describeEvent(ev([{ kind: "melds_merged", seat: 1, into: "B1", from: "B3" }]), nameOf)).toEqual(["Bot 2 merged B3 into B1."]);
    expect(describeEvent(ev([{ kind: "red_three_revealed", seat: 1, card: "3S", replacements: 1 }]), nameOf)).toEqual([
      "Bot 2 laid out a black three 3♠.",
    ]);
  });
});

describe("the new-table form", () => {
  it("names the family presets and offers only the options a family lets a table change", () => {
    expect(presetTitle("mac_two_player")).toBe("Modern American, two players");
    expect(presetTitle("two_player")).toBe("two player");
    const mac = { family: "mac", players: 4, target_score: 8500, talons: true, draw_count: 1, ask_partner_to_go_out: true };
    expect(presetFamily("mac", mac)).toBe("mac");
    expect(presetFamily("samba", { players: 4 })).toBe("samba");
    expect(optionOffered("mac", mac, "talons")).toBe(true);
    expect(optionOffered("mac", mac, "draw_count")).toBe(false);
    expect(optionOffered("mac", mac, "family")).toBe(false);
    expect(optionOffered("mac", { ...mac, players: 2 }, "ask_partner_to_go_out")).toBe(false);
    expect(optionOffered("classic", { players: 4, draw_count: 1 }, "draw_count")).toBe(true);
    expect(optionOffered("classic", { players: 4 }, "talons")).toBe(false);
    expect(targetRange("bolivia")).toEqual([1000, 20000]);
    expect(targetRange("classic")).toEqual([1000, 10000]);
  });
});
