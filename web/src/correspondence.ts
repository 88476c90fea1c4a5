// Correspondence play in words (pure): turn limits of hours or days, what is left of a turn,
// "My games" rows (my turn first), a pause and its proposal, the pause facts of the move log.
import type { MyGame, PauseView } from "./api";
import { counted, gettext, interpolate, ngettext } from "./i18n";
import { presetTitle } from "./options";

const days = (n: number) => counted(ngettext("%(count)s day", "%(count)s days", n), n);

/** The server's longest turn: 7 days. */
export const TURN_SECONDS_MAX = 604800;
const MINUTE = 60;
const HOUR = 3600;
const DAY = 86400;

/** The new-table form's timer choices: a few seconds or minutes for a live game, hours or days
 * for a correspondence game (1 h to 7 days). */
export const LIVE_TURNS = [30, 60, 120, 300];
export const CORRESPONDENCE_TURNS = [HOUR, 6 * HOUR, 12 * HOUR, DAY, 2 * DAY, 3 * DAY, 7 * DAY];

/** "30 s", "2 min", "1 hour", "12 hours", "1 day", "7 days": a turn limit. */
export function turnLimitText(seconds: number): string {
  if (seconds % DAY === 0) return days(seconds / DAY);
  if (seconds % HOUR === 0) return counted(ngettext("%(count)s hour", "%(count)s hours", seconds / HOUR), seconds / HOUR);
  if (seconds >= 120 && seconds % MINUTE === 0) return `${seconds / MINUTE} min`;
  return `${seconds} s`;
}

/** A turn longer than half an hour is played by correspondence (the server's sweep keeps it). */
export function isCorrespondence(turnSeconds: number | null | undefined): boolean {
  return !!turnSeconds && turnSeconds > 1800;
}

/** A span in its two largest units: "2 days 3 h", "5 h 20 min", "12 min", "45 s". */
export function durationText(seconds: number): string {
  const s = Math.max(0, Math.floor(seconds));
  if (s >= DAY) {
    const whole = Math.floor(s / DAY);
    const hours = Math.floor((s % DAY) / HOUR);
    return `${days(whole)}${hours ? ` ${hours} h` : ""}`;
  }
  if (s >= HOUR) {
    const hours = Math.floor(s / HOUR);
    const minutes = Math.floor((s % HOUR) / MINUTE);
    return `${hours} h${minutes ? ` ${minutes} min` : ""}`;
  }
  if (s >= MINUTE) return `${Math.floor(s / MINUTE)} min`;
  return `${s} s`;
}

/** What is left until ``deadline`` (ISO time), measured on the server's clock: ``serverNow`` is
 * the server's time (ms) now. "2 days 3 h left", or "time is up". */
export function timeLeftText(deadline: string | null, serverNow: number): string {
  if (!deadline) return "";
  const left = (Date.parse(deadline) - serverNow) / 1000;
  return left <= 0 ? gettext("time is up") : interpolate(gettext("%(time)s left"), { time: durationText(left) });
}

/** The server's clock now, from a response's ``server_time`` read at ``readAt`` (this page's
 * Date.now() then) and ``now`` (Date.now() now). */
export function serverClock(serverTime: string, readAt: number, now: number): number {
  return Date.parse(serverTime) + (now - readAt);
}

/** "My games": your turn first (the soonest deadline first), then the others by deadline (none
 * last), then the most recently changed. The server sorts so too; the page keeps that order
 * whatever it is sent. */
export function myGamesOrder(games: readonly MyGame[]): MyGame[] {
  const deadline = (g: MyGame) => (g.turn_deadline ? Date.parse(g.turn_deadline) : Number.POSITIVE_INFINITY);
  return [...games].sort(
    (a, b) =>
      Number(b.my_turn) - Number(a.my_turn) ||
      deadline(a) - deadline(b) ||
      Date.parse(b.updated_at) - Date.parse(a.updated_at),
  );
}

/** Who sits at a game of "My games": "You", a name ("Robo (bot)" for a bot account),
 * "Bot (easy)", "open seat". */
export function seatLabel(game: MyGame, seat: number): string {
  const p = game.players.find((x) => x.seat === seat);
  if (seat === game.seat) return gettext("You");
  if (!p) return interpolate(gettext("Seat %(seat)s"), { seat: seat + 1 });
  if (p.display_name) return p.bot_account ? interpolate(gettext("%(name)s (bot)"), { name: p.display_name }) : p.display_name;
  if (p.bot_level) return interpolate(gettext("Bot (%(level)s)"), { level: p.bot_level === "medium" ? gettext("medium") : p.bot_level === "hard" ? gettext("hard") : gettext("easy") });
  return gettext("open seat");
}

export interface MyGameRow {
  id: number;
  /** "Your turn", "Paused", "Waiting for players", "Bea to play". */
  state: string;
  /** "2 days 3 h left", "time is up", "" (no deadline running). */
  left: string;
  /** "classic · 3 days per turn · rated". */
  about: string;
  /** "You, Bea, Bot (easy), open seat". */
  players: string;
  mine: boolean;
  paused: boolean;
}

/** One row of "My games" in words, at the server's time ``serverNow`` (ms). */
export function myGameRow(game: MyGame, serverNow: number): MyGameRow {
  const state = game.paused
    ? gettext("Paused")
    : game.status === "lobby"
      ? gettext("Waiting for players")
      : game.my_turn
        ? gettext("Your turn")
        : game.to_act !== null
          ? interpolate(gettext("%(name)s to play"), { name: seatLabel(game, game.to_act) })
          : gettext("Playing");
  const about = [
    presetTitle(game.preset),
    game.turn_seconds ? interpolate(gettext("%(limit)s per turn"), { limit: turnLimitText(game.turn_seconds) }) : gettext("no timer"),
    game.rated ? gettext("rated") : "",
  ].filter(Boolean);
  return {
    id: game.game_id,
    state,
    left: game.paused ? "" : timeLeftText(game.turn_deadline, serverNow),
    about: about.join(" · "),
    players: game.players.map((p) => seatLabel(game, p.seat)).join(", "),
    mine: game.my_turn && !game.paused,
    paused: game.paused,
  };
}

/** "2 games, 1 your turn". */
export function myGamesSummary(games: readonly MyGame[]): string {
  const mine = games.filter((g) => g.my_turn && !g.paused).length;
  const count = counted(ngettext("%(count)s game", "%(count)s games", games.length), games.length);
  return mine
    ? interpolate(gettext("%(games)s, %(mine)s waiting for you."), { games: count, mine })
    : interpolate(gettext("%(games)s, none waiting for you."), { games: count });
}

// ---------------------------------------------------------------------------- pause
export interface PauseControls {
  /** What the page says about the pause (empty: nothing to say). */
  text: string;
  /** Propose a pause (nobody proposed one). */
  propose: boolean;
  /** Accept or decline the pending proposal (you have not accepted it yet). */
  answer: boolean;
  /** Withdraw your own proposal or decline another's (you accepted it: decline withdraws). */
  withdraw: boolean;
  /** Resume the paused game. */
  resume: boolean;
}

/** The pause as a seat sees it (``you``: your seat; null for a spectator) and the buttons it
 * offers. ``nameOf`` names a seat ("You", "Bea"). */
export function pauseControls(
  pause: PauseView | null | undefined,
  you: number | null,
  nameOf: (seat: number) => string,
  remainingText: (seconds: number) => string = durationText,
): PauseControls {
  const none = { text: "", propose: false, answer: false, withdraw: false, resume: false };
  if (!pause) return { ...none, propose: you !== null };
  if (pause.paused) {
    const kept = pause.remaining_seconds !== null ? ` ${interpolate(gettext("The turn keeps %(time)s for when it resumes."), { time: remainingText(pause.remaining_seconds) })}` : "";
    return { ...none, text: `${gettext("The game is paused by agreement.")}${kept}`, resume: you !== null };
  }
  const p = pause.proposal;
  if (!p) return { ...none, propose: you !== null };
  const waiting = p.waiting_for.map(nameOf);
  const by = nameOf(p.proposed_by);
  const mine = you !== null && p.proposed_by === you;
  const text = waiting.length
    ? mine
      ? interpolate(gettext("You propose to pause the game; waiting for %(names)s."), { names: waiting.join(", ") })
      : interpolate(gettext("%(name)s proposes to pause the game; waiting for %(names)s."), { name: by, names: waiting.join(", ") })
    : mine
      ? gettext("You propose to pause the game.")
      : interpolate(gettext("%(name)s proposes to pause the game."), { name: by });
  const mineToAnswer = you !== null && p.waiting_for.includes(you);
  return { ...none, text, answer: mineToAnswer, withdraw: you !== null && !mineToAnswer };
}

/** A pause fact of the move log in words (empty for any other entry). */
export function pauseFactText(
  event: { type: string; seat?: number | null; payload?: unknown },
  nameOf: (seat: number) => string,
): string {
  const who = event.seat !== null && event.seat !== undefined ? nameOf(event.seat) : gettext("A player");
  const you = who === gettext("You");
  const remaining = (event.payload as { remaining_seconds?: number | null } | undefined)?.remaining_seconds;
  switch (event.type) {
    case "pause_proposed":
      return you ? gettext("You proposed to pause the game.") : interpolate(gettext("%(name)s proposed to pause the game."), { name: who });
    case "pause_accepted":
      return you ? gettext("You agreed to pause the game.") : interpolate(gettext("%(name)s agreed to pause the game."), { name: who });
    case "pause_declined":
      return you ? gettext("You declined to pause the game.") : interpolate(gettext("%(name)s declined to pause the game."), { name: who });
    case "game_paused":
      return gettext("The game is paused.");
    case "game_resumed":
      return typeof remaining === "number"
        ? you
          ? interpolate(gettext("You resumed the game: %(time)s left for the turn."), { time: durationText(remaining) })
          : interpolate(gettext("%(name)s resumed the game: %(time)s left for the turn."), { name: who, time: durationText(remaining) })
        : you
          ? gettext("You resumed the game.")
          : interpolate(gettext("%(name)s resumed the game."), { name: who });
    default:
      return "";
  }
}
