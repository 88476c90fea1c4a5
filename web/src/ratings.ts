// Competitive play in words and numbers (pure): rating formats, the quick-play queue's status
// as what the page shows, waited times, rating changes and leaderboard rows.
import type {
  AroundMe,
  BotLevel,
  Leaderboard,
  LeaderboardEntry,
  Preset,
  QueueRequest,
  QueueStatus,
  RatingChange,
  RatingFormat,
  RatingsChangedLine,
} from "./api";
import { plural } from "./words";

export const FORMATS: readonly RatingFormat[] = ["partnership", "two_player", "three_player"];
export const QUEUE_PRESETS: readonly Preset[] = ["classic", "hoyle", "two_player", "three_player"];
/** The casual queue's choices of "fill with bots after" (seconds; the server takes 10..600). */
export const BOT_WAITS: readonly number[] = [10, 30, 60, 120, 300];

export function isFormat(value: string): value is RatingFormat {
  return (FORMATS as readonly string[]).includes(value);
}

export function formatName(format: RatingFormat): string {
  return format === "partnership" ? "Partnership (4 players)" : format === "two_player" ? "2 players" : "3 players";
}

export function presetName(preset: string): string {
  return preset.replace(/_/g, " ");
}

/** The rating format a preset is played in. */
export function presetFormat(preset: Preset): RatingFormat {
  return preset === "two_player" ? "two_player" : preset === "three_player" ? "three_player" : "partnership";
}

/** 5 → "0:05", 75 → "1:15", 3725 → "1:02:05" (never negative). */
export function waitedText(seconds: number): string {
  const s = Math.max(0, Math.floor(seconds));
  const hours = Math.floor(s / 3600);
  const minutes = Math.floor((s % 3600) / 60);
  const rest = String(s % 60).padStart(2, "0");
  return hours ? `${hours}:${String(minutes).padStart(2, "0")}:${rest}` : `${minutes}:${rest}`;
}

/** The same time in words, for screen readers: "1 minute 15 seconds". */
export function waitedWords(seconds: number): string {
  const s = Math.max(0, Math.floor(seconds));
  const minutes = Math.floor(s / 60);
  const rest = s % 60;
  if (!minutes) return plural(rest, "second");
  return rest ? `${plural(minutes, "minute")} ${plural(rest, "second")}` : plural(minutes, "minute");
}

/** +12, −8 (a real minus sign), ±0. */
export function changeText(change: number): string {
  if (change > 0) return `+${change}`;
  if (change < 0) return `−${-change}`;
  return "±0";
}

/** "up 12", "down 8", "unchanged": the change in words. */
export function changeWords(change: number): string {
  return change > 0 ? `up ${change}` : change < 0 ? `down ${-change}` : "unchanged";
}

/** A shown rating, with a question mark while provisional. */
export function ratingText(rating: number, provisional: boolean): string {
  return provisional ? `${rating}?` : String(rating);
}

// ---------------------------------------------------------------------------- the queue
export type QueueView =
  | { kind: "idle" }
  | {
      kind: "waiting";
      title: string;
      /** Waited seconds at `since` (performance.now() on this page). */
      waited: number;
      window: string;
      bots: string;
    }
  | { kind: "dealing"; title: string }
  | { kind: "matched"; gameId: number };

/** What the Play-now page shows for the queue's status (null: not queued). ``now`` is the
 * page's clock as a Date (for the bots' time). */
export function queueView(status: QueueStatus | null, now: Date = new Date()): QueueView {
  if (!status) return { kind: "idle" };
  const what = `${status.rated ? "Rated" : "Casual"} ${presetName(status.preset)}, ${formatName(status.format)}`;
  if (status.status === "matched") {
    return status.game_id !== null ? { kind: "matched", gameId: status.game_id } : { kind: "dealing", title: `Matched: ${what}. Dealing the table…` };
  }
  return {
    kind: "waiting",
    title: `Looking for players: ${what}`,
    waited: status.waited_seconds,
    window: windowText(status.rated, status.rating_window),
    bots: botsText(status.bots_at, now, status.rated),
  };
}

/** The rating window in words (a rated queue's window is unlimited after a long wait). */
export function windowText(rated: boolean, window: number | null): string {
  if (!rated) return "Casual: any players.";
  return window === null
    ? "Pairing with players of any rating (you have waited long enough)."
    : `Pairing with players rated within ${window} points of you (the window widens as you wait).`;
}

export function botsText(botsAt: string | null, now: Date, rated: boolean): string {
  if (rated) return "Rated games are people only.";
  if (!botsAt) return "Waiting for people only (no bots).";
  const left = Math.ceil((Date.parse(botsAt) - now.getTime()) / 1000);
  return left > 0 ? `Bots fill the empty seats in ${waitedWords(left)} if nobody comes.` : "Bots fill the empty seats now.";
}

/** The queue request's body from the form's choices. */
export function queueRequest(choice: {
  preset: Preset;
  rated: boolean;
  botsAfter: number | null;
  botLevel: BotLevel;
}): QueueRequest {
  // A rated queue has no bots: the level is the server's default, unused.
  if (choice.rated) return { preset: choice.preset, rated: true, bots_after_seconds: null, bot_level: "medium" };
  return { preset: choice.preset, rated: false, bots_after_seconds: choice.botsAfter, bot_level: choice.botLevel };
}

// ---------------------------------------------------------------------------- leaderboards
export interface LeaderboardRow {
  rank: number;
  playerId: number;
  name: string;
  rating: string;
  /** Spoken rating: "1012, provisional". */
  ratingLabel: string;
  games: number;
  wins: number;
  you: boolean;
}

export function leaderboardRows(entries: LeaderboardEntry[], me: number | null): LeaderboardRow[] {
  return entries.map((e) => ({
    rank: e.rank,
    playerId: e.player_id,
    name: e.display_name,
    rating: ratingText(e.rating, e.provisional),
    ratingLabel: e.provisional ? `${e.rating}, provisional` : String(e.rating),
    games: e.games,
    wins: e.wins,
    you: e.player_id === me,
  }));
}

/** "Players 21–40 of 57" (or "No rated players yet"). */
export function pageText(board: Leaderboard): string {
  if (!board.entries.length) return board.total ? `No players on this page (${plural(board.total, "rated player")}).` : "No rated players yet.";
  const first = board.entries[0].rank;
  const last = board.entries[board.entries.length - 1].rank;
  return `Players ${first}–${last} of ${board.total}`;
}

/** "You are 7th of 57" (or null while unrated). */
export function aroundMeText(around: AroundMe, me: number | null): string | null {
  const mine = around.me ?? around.entries.find((e) => e.player_id === me);
  if (!mine) return null;
  return `You are ${ordinal(mine.rank)} of ${around.total}, rated ${ratingText(mine.rating, mine.provisional)}${mine.provisional ? " (provisional)" : ""}.`;
}

export function ordinal(n: number): string {
  const tens = n % 100;
  const suffix = tens >= 11 && tens <= 13 ? "th" : n % 10 === 1 ? "st" : n % 10 === 2 ? "nd" : n % 10 === 3 ? "rd" : "th";
  return `${n}${suffix}`;
}

// ---------------------------------------------------------------------------- end of a game
/** A rated game's changes as lines: "Ada: 1000 → 1012 (+12, provisional)". */
export function ratingChangeLines(changes: RatingChange[], nameOf: (seat: number) => string): string[] {
  return [...changes].sort((a, b) => a.seat - b.seat).map((c) => {
    if (!c.counted) return `${nameOf(c.seat)}: ${c.rating_before} (${unratedText(c.unrated_reason)})`;
    return `${nameOf(c.seat)}: ${c.rating_before} → ${c.rating_after} (${changeText(c.change)}${c.provisional ? ", provisional" : ""})`;
  });
}

const UNRATED_REASONS: Record<string, string> = {
  too_few_moves: "not rated: too few moves",
  repeated_opponents: "not rated: same opponents too often",
};

/** Why a rated game's result did not count, in words. */
export function unratedText(reason: string | null | undefined): string {
  return (reason && UNRATED_REASONS[reason]) || "not rated";
}

/** A `ratings_changed` entry of the move log in words (the game's log and the replay):
 * "Ratings changed: You 1000 → 1016 (+16), Bob 1000 → 985 (−15)." */
export function ratingsChangedText(changes: Pick<RatingsChangedLine, "seat" | "rating_before" | "rating_after">[], nameOf: (seat: number) => string): string {
  if (!changes.length) return "Ratings changed.";
  const parts = [...changes]
    .sort((a, b) => a.seat - b.seat)
    .map((c) => `${nameOf(c.seat)} ${c.rating_before} → ${c.rating_after} (${changeText(c.rating_after - c.rating_before)})`);
  return `Ratings changed: ${parts.join(", ")}.`;
}
