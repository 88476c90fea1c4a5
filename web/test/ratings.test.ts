import { describe, expect, it } from "vitest";
import { describe as describeEvent } from "../src/replay";
import type { AroundMe, LeaderboardEntry, QueueStatus } from "../src/api";
import {
  aroundMeText,
  botsText,
  changeText,
  changeWords,
  isFormat,
  leaderboardRows,
  ordinal,
  pageText,
  presetFormat,
  queueRequest,
  queueView,
  ratingChangeLines,
  ratingsChangedText,
  waitedText,
  waitedWords,
} from "../src/ratings";

const NOW = new Date("2026-11-23T00:00:00Z");

function status(over: Partial<QueueStatus> = {}): QueueStatus {
  return {
    status: "waiting",
    preset: "two_player",
    format: "two_player",
    rated: true,
    joined_at: "2026-11-22T23:59:30Z",
    waited_seconds: 30,
    rating_window: 150,
    bots_at: null,
    game_id: null,
    ...over,
  };
}

function entry(rank: number, playerId: number, over: Partial<LeaderboardEntry> = {}): LeaderboardEntry {
  return { rank, player_id: playerId, display_name: `P${playerId}`, rating: 1100 - rank, mu: 25, sigma: 3, games: 12, wins: 7, provisional: false, ...over };
}

describe("waited time", () => {
  it("reads as a clock", () => {
    expect(waitedText(0)).toBe("0:00");
    expect(waitedText(5.9)).toBe("0:05");
    expect(waitedText(75)).toBe("1:15");
    expect(waitedText(3725)).toBe("1:02:05");
    expect(waitedText(-3)).toBe("0:00");
  });
  it("reads in words", () => {
    expect(waitedWords(1)).toBe("1 second");
    expect(waitedWords(10)).toBe("10 seconds");
    expect(waitedWords(60)).toBe("1 minute");
    expect(waitedWords(135)).toBe("2 minutes 15 seconds");
  });
});

describe("queue status → what the page shows", () => {
  it("is the form when not queued", () => {
    expect(queueView(null)).toEqual({ kind: "idle" });
  });
  it("shows a rated wait with its rating window and no bots", () => {
    const view = queueView(status(), NOW);
    expect(view.kind).toBe("waiting");
    if (view.kind !== "waiting") return;
    expect(view.title).toBe("Looking for players: Rated two player, 2 players");
    expect(view.waited).toBe(30);
    expect(view.window).toContain("within 150 points");
    expect(view.bots).toBe("Rated games are people only.");
  });
  it("shows a casual wait with the bots' countdown", () => {
    const view = queueView(status({ rated: false, rating_window: null, preset: "classic", format: "partnership", bots_at: "2026-11-23T00:00:10Z" }), NOW);
    expect(view).toMatchObject({ kind: "waiting", title: "Looking for players: Casual classic, Partnership (4 players)", window: "Casual: any players." });
    if (view.kind === "waiting") expect(view.bots).toBe("Bots fill the empty seats in 10 seconds if nobody comes.");
  });
  it("says when a rated window is unlimited", () => {
    const view = queueView(status({ rating_window: null, waited_seconds: 130 }), NOW);
    expect(view.kind === "waiting" && view.window).toBe("Pairing with players of any rating (you have waited long enough).");
  });
  it("says when bots are due or not coming", () => {
    expect(botsText("2026-11-22T23:59:59Z", NOW, false)).toBe("Bots fill the empty seats now.");
    expect(botsText(null, NOW, false)).toBe("Waiting for people only (no bots).");
  });
  it("waits for the deal once matched, then opens the table", () => {
    expect(queueView(status({ status: "matched" })).kind).toBe("dealing");
    expect(queueView(status({ status: "matched", game_id: 42 }))).toEqual({ kind: "matched", gameId: 42 });
  });
});

describe("queue request", () => {
  it("sends no bots for a rated queue", () => {
    expect(queueRequest({ preset: "classic", rated: true, botsAfter: 30, botLevel: "hard" })).toEqual({ preset: "classic", rated: true, bots_after_seconds: null, bot_level: "medium" });
  });
  it("sends the bots' wait and level for a casual queue", () => {
    expect(queueRequest({ preset: "two_player", rated: false, botsAfter: 10, botLevel: "easy" })).toEqual({ preset: "two_player", rated: false, bots_after_seconds: 10, bot_level: "easy" });
    expect(queueRequest({ preset: "hoyle", rated: false, botsAfter: null, botLevel: "medium" }).bots_after_seconds).toBeNull();
  });
  it("maps presets to rating formats", () => {
    expect([presetFormat("classic"), presetFormat("hoyle"), presetFormat("two_player"), presetFormat("three_player")]).toEqual(["partnership", "partnership", "two_player", "three_player"]);
    expect(isFormat("two_player")).toBe(true);
    expect(isFormat("classic")).toBe(false);
  });
});

describe("leaderboard rows", () => {
  it("marks your row and provisional ratings", () => {
    const rows = leaderboardRows([entry(1, 7), entry(2, 9, { provisional: true, rating: 1012 })], 9);
    expect(rows.map((r) => [r.rank, r.name, r.rating, r.ratingLabel, r.you])).toEqual([
      [1, "P7", "1099", "1099", false],
      [2, "P9", "1012?", "1012, provisional", true],
    ]);
  });
  it("says which ranks a page shows", () => {
    expect(pageText({ format: "partnership", total: 57, entries: [entry(21, 1), entry(40, 2)] })).toBe("Players 21–40 of 57");
    expect(pageText({ format: "partnership", total: 0, entries: [] })).toBe("No rated players yet.");
  });
  it("says where you stand, or nothing while unrated", () => {
    const around: AroundMe = { format: "two_player", total: 57, me: entry(7, 2, { rating: 1030 }), entries: [entry(6, 1), entry(7, 2, { rating: 1030 }), entry(8, 3)] };
    expect(aroundMeText(around, 2)).toBe("You are 7th of 57, rated 1030.");
    expect(aroundMeText({ ...around, me: null }, 2)).toBe("You are 7th of 57, rated 1030.");
    expect(aroundMeText({ ...around, me: entry(1, 2, { rating: 1200, provisional: true }) }, null)).toBe("You are 1st of 57, rated 1200? (provisional).");
    expect(aroundMeText({ format: "two_player", total: 57, entries: [], me: null }, 2)).toBeNull();
  });
  it("spells ordinals", () => {
    expect([1, 2, 3, 4, 11, 12, 13, 21, 22, 101, 111].map(ordinal)).toEqual(["1st", "2nd", "3rd", "4th", "11th", "12th", "13th", "21st", "22nd", "101st", "111th"]);
  });
});

describe("rating changes", () => {
  it("signs changes", () => {
    expect([changeText(12), changeText(-8), changeText(0)]).toEqual(["+12", "−8", "±0"]);
    expect([changeWords(12), changeWords(-8), changeWords(0)]).toEqual(["up 12", "down 8", "unchanged"]);
  });
  it("lists a game's changes by seat with names", () => {
    const lines = ratingChangeLines(
      [
        { seat: 1, player_id: 5, rating_before: 1000, rating_after: 985, change: -15, provisional: true, counted: true, unrated_reason: null },
        { seat: 0, player_id: 4, rating_before: 1000, rating_after: 1016, change: 16, provisional: false, counted: true, unrated_reason: null },
      ],
      (seat) => (seat === 0 ? "You" : "Bob"),
    );
    expect(lines).toEqual(["You: 1000 → 1016 (+16)", "Bob: 1000 → 985 (−15, provisional)"]);
  });
  it("says why a result did not count", () => {
    const line = { player_id: 4, rating_before: 1000, rating_after: 1000, change: 0, provisional: true, counted: false };
    const lines = ratingChangeLines(
      [
        { ...line, seat: 0, unrated_reason: "too_few_moves" },
        { ...line, seat: 1, unrated_reason: "repeated_opponents" },
      ],
      (seat) => (seat === 0 ? "You" : "Bob"),
    );
    expect(lines).toEqual(["You: 1000 (not rated: too few moves)", "Bob: 1000 (not rated: same opponents too often)"]);
  });
});

describe("the move log's ratings_changed entry", () => {
  const names = (seat: number) => ["You", "Bob"][seat];
  it("reads each player's change", () => {
    expect(ratingsChangedText([{ seat: 1, rating_before: 1000, rating_after: 985 }, { seat: 0, rating_before: 1000, rating_after: 1016 }], names)).toBe(
      "Ratings changed: You 1000 → 1016 (+16), Bob 1000 → 985 (−15).",
    );
    expect(ratingsChangedText([], names)).toBe("Ratings changed.");
  });
  it("is described in the game's log and the replay", () => {
    const payload = { format: "two_player", changes: [{ seat: 0, player: 4, team: 0, rank: 1, mu_before: 25, sigma_before: 8.3, mu_after: 27, sigma_after: 7.9, rating_before: 1000, rating_after: 1138 }] };
    expect(describeEvent({ type: "ratings_changed", payload, effects: [] }, names)).toEqual(["Ratings changed: You 1000 → 1138 (+138)."]);
    expect(describeEvent({ type: "game_conceded", effects: [] }, names)).toEqual([]);
  });
});
