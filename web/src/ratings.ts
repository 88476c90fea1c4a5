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
import { counted, currentLanguage, gettext, gettext_noop, interpolate, ngettext, translate } from "./i18n";
import { presetTitle } from "./options";

export const FORMATS: readonly RatingFormat[] = ["partnership", "two_player", "three_player"];
export const QUEUE_PRESETS: readonly Preset[] = ["classic", "hoyle", "two_player", "three_player"];
/** The casual queue's choices of "fill with bots after" (seconds; the server takes 10..600). */
export const BOT_WAITS: readonly number[] = [10, 30, 60, 120, 300];

export function isFormat(value: string): value is RatingFormat {
  return (FORMATS as readonly string[]).includes(value);
}

export function formatName(format: RatingFormat): string {
  return format === "partnership" ? gettext("Partnership (4 players)") : format === "two_player" ? gettext("2 players") : gettext("3 players");
}

export function presetName(preset: string): string {
  return presetTitle(preset);
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
  const secondsText = counted(ngettext("%(count)s second", "%(count)s seconds", rest), rest);
  const minutesText = counted(ngettext("%(count)s minute", "%(count)s minutes", minutes), minutes);
  if (!minutes) return secondsText;
  return rest ? `${minutesText} ${secondsText}` : minutesText;
}

/** +12, −8 (a real minus sign), ±0. */
export function changeText(change: number): string {
  if (change > 0) return `+${change}`;
  if (change < 0) return `−${-change}`;
  return "±0";
}

/** "up 12", "down 8", "unchanged": the change in words. */
export function changeWords(change: number): string {
  return change > 0 ? interpolate(gettext("up %(points)s"), { points: change }) : change < 0 ? interpolate(gettext("down %(points)s"), { points: -change }) : gettext("unchanged");
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
  const what = interpolate(status.rated ? gettext("Rated %(preset)s, %(format)s") : gettext("Casual %(preset)s, %(format)s"), { preset: presetName(status.preset), format: formatName(status.format) });
  if (status.status === "matched") {
    return status.game_id !== null ? { kind: "matched", gameId: status.game_id } : { kind: "dealing", title: interpolate(gettext("Matched: %(what)s. Dealing the table…"), { what }) };
  }
  return {
    kind: "waiting",
    title: interpolate(gettext("Looking for players: %(what)s"), { what }),
    waited: status.waited_seconds,
    window: windowText(status.rated, status.rating_window),
    bots: botsText(status.bots_at, now, status.rated),
  };
}

/** The rating window in words (a rated queue's window is unlimited after a long wait). */
export function windowText(rated: boolean, window: number | null): string {
  if (!rated) return gettext("Casual: any players.");
  return window === null
    ? gettext("Pairing with players of any rating (you have waited long enough).")
    : interpolate(gettext("Pairing with players rated within %(window)s points of you (the window widens as you wait)."), { window });
}

export function botsText(botsAt: string | null, now: Date, rated: boolean): string {
  if (rated) return gettext("Rated games are people only.");
  if (!botsAt) return gettext("Waiting for people only (no bots).");
  const left = Math.ceil((Date.parse(botsAt) - now.getTime()) / 1000);
  return left > 0 ? interpolate(gettext("Bots fill the empty seats in %(time)s if nobody comes."), { time: waitedWords(left) }) : gettext("Bots fill the empty seats now.");
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
    ratingLabel: e.provisional ? interpolate(gettext("%(rating)s, provisional"), { rating: e.rating }) : String(e.rating),
    games: e.games,
    wins: e.wins,
    you: e.player_id === me,
  }));
}

/** "Players 21–40 of 57" (or "No rated players yet"). */
export function pageText(board: Leaderboard): string {
  if (!board.entries.length)
    return board.total
      ? counted(ngettext("No players on this page (%(count)s rated player).", "No players on this page (%(count)s rated players).", board.total), board.total)
      : gettext("No rated players yet.");
  const first = board.entries[0].rank;
  const last = board.entries[board.entries.length - 1].rank;
  return interpolate(gettext("Players %(first)s–%(last)s of %(total)s"), { first, last, total: board.total });
}

/** "You are 7th of 57" (or null while unrated). */
export function aroundMeText(around: AroundMe, me: number | null): string | null {
  const mine = around.me ?? around.entries.find((e) => e.player_id === me);
  if (!mine) return null;
  return interpolate(mine.provisional ? gettext("You are %(rank)s of %(total)s, rated %(rating)s (provisional).") : gettext("You are %(rank)s of %(total)s, rated %(rating)s."), {
    rank: ordinal(mine.rank),
    total: around.total,
    rating: ratingText(mine.rating, mine.provisional),
  });
}

/** 1st, 2nd, 3rd (the page's language: "7.º", "7º", "7°", "7."). */
export function ordinal(n: number): string {
  const language = currentLanguage();
  if (language === "es") return `${n}.º`;
  if (language === "pt-br") return `${n}º`;
  if (language === "it") return `${n}°`;
  if (language === "de") return `${n}.`;
  const tens = n % 100;
  const suffix = tens >= 11 && tens <= 13 ? "th" : n % 10 === 1 ? "st" : n % 10 === 2 ? "nd" : n % 10 === 3 ? "rd" : "th";
  return `${n}${suffix}`;
}

// ---------------------------------------------------------------------------- end of a game
/** A rated game's changes as lines: "Ada: 1000 → 1012 (+12, provisional)". */
export function ratingChangeLines(changes: RatingChange[], nameOf: (seat: number) => string): string[] {
  return [...changes].sort((a, b) => a.seat - b.seat).map((c) => {
    if (!c.counted) return `${nameOf(c.seat)}: ${c.rating_before} (${unratedText(c.unrated_reason)})`;
    return `${nameOf(c.seat)}: ${c.rating_before} → ${c.rating_after} (${changeText(c.change)}${c.provisional ? `, ${gettext("provisional")}` : ""})`;
  });
}

const UNRATED_REASONS: Record<string, string> = {
  too_few_moves: gettext_noop("not rated: too few moves"),
  repeated_opponents: gettext_noop("not rated: same opponents too often"),
};

/** Why a rated game's result did not count, in words. */
export function unratedText(reason: string | null | undefined): string {
  return reason && UNRATED_REASONS[reason] ? translate(UNRATED_REASONS[reason]) : gettext("not rated");
}

/** A `ratings_changed` entry of the move log in words (the game's log and the replay):
 * "Ratings changed: You 1000 → 1016 (+16), Bob 1000 → 985 (−15)." */
export function ratingsChangedText(changes: Pick<RatingsChangedLine, "seat" | "rating_before" | "rating_after">[], nameOf: (seat: number) => string): string {
  if (!changes.length) return gettext("Ratings changed.");
  const parts = [...changes]
    .sort((a, b) => a.seat - b.seat)
    .map((c) => `${nameOf(c.seat)} ${c.rating_before} → ${c.rating_after} (${changeText(c.rating_after - c.rating_before)})`);
  return interpolate(gettext("Ratings changed: %(changes)s."), { changes: parts.join(", ") });
}
