import { describe as suite, expect, it } from "vitest";
import type { Seat } from "../src/api";
import { isBotAccount } from "../src/board";
import { currentHint, type Hint, hintAfterEvents, hintedIndices, hintsOn, hintSummary, hintText } from "../src/hints";

const HINT: Hint = {
  version: 14,
  seat: 0,
  level: "medium",
  action: { type: "meld", melds: [{ cards: ["KS", "KH", "2C"] }] },
  summary: "Open with the kings.",
};

suite("hints", () => {
  it("is current for its version only: any newer event makes it stale", () => {
    expect(currentHint(HINT, 14)).toBe(HINT);
    expect(currentHint(HINT, 15)).toBeNull();
    expect(currentHint(null, 14)).toBeNull();
    expect(currentHint(HINT, undefined)).toBeNull();
  });
  it("is cleared by any new event read", () => {
    expect(hintAfterEvents(HINT, [])).toBe(HINT);
    expect(hintAfterEvents(HINT, [{ seq: 15 }])).toBeNull();
    expect(hintAfterEvents(null, [{ seq: 15 }])).toBeNull();
  });
  it("says the move in words", () => {
    expect(hintText(HINT)).toBe("Hint (medium): Meld K♠ K♥ 2♣");
    expect(hintText({ ...HINT, level: "hard", action: { type: "discard", card: "7H" } })).toBe("Hint (hard): Discard 7♥");
    expect(hintSummary(HINT)).toBe("Open with the kings.");
    expect(hintSummary({ ...HINT, summary: "Meld K♠ K♥ 2♣ (K)" })).toBe(""); // says the move again
  });
  it("finds the hand's cards it uses, each card once", () => {
    const hand = ["2C", "5D", "KH", "KS", "KS"];
    expect([...hintedIndices(hand, HINT)].sort()).toEqual([0, 2, 3]);
    expect([...hintedIndices(hand, { ...HINT, action: { type: "discard", card: "KS" } })]).toEqual([3]);
    expect(hintedIndices(hand, null).size).toBe(0);
    expect(hintedIndices(hand, { ...HINT, action: { type: "draw" } }).size).toBe(0);
  });
  it("is on only at a table whose detail says hints: true", () => {
    expect(hintsOn({ hints: true })).toBe(true);
    expect(hintsOn({ hints: false })).toBe(false);
    expect(hintsOn({})).toBe(false);
    expect(hintsOn(null)).toBe(false);
  });
});

suite("bot accounts", () => {
  const seat = (player: unknown, kind: Seat["kind"] = "player"): Seat =>
    ({ index: 1, team: 1, kind, player, bot_level: null }) as Seat;
  it("are flagged by is_bot (or is_bot_account) on the seat's player", () => {
    expect(isBotAccount(seat({ id: 3, display_name: "Robo", is_bot: true }))).toBe(true);
    expect(isBotAccount(seat({ id: 3, display_name: "Robo", is_bot_account: true }))).toBe(true);
    expect(isBotAccount(seat({ id: 4, display_name: "Ada", is_bot: false }))).toBe(false);
    expect(isBotAccount(seat({ id: 4, display_name: "Ada" }))).toBe(false);
    expect(isBotAccount(seat(null, "bot"))).toBe(false); // a built-in bot has its own tag
    expect(isBotAccount(undefined)).toBe(false);
  });
});
