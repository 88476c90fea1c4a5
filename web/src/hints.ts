// Hints at a table with the `hints` option (pure): the server's suggestion for the seat to act
// (GET /games/{id}/hint/?level=medium|hard) in words, which cards of the hand it uses, and
// when it is stale: a hint is for one version of the game, and any new event ends it.
import type { components } from "./api-types";
import { gettext, interpolate } from "./i18n";
import { actionCards, actionText } from "./words";

export type HintLevel = Hint["level"];
export const HINT_LEVELS: HintLevel[] = ["medium", "hard"];

/** The server's suggestion (`GET /games/{id}/hint/`): `version` is the game's version it
 * was chosen at (the `expected_version` to play it with). */
export type Hint = components["schemas"]["Hint"];

/** The hint while it is current: null once the game has moved on past the version it was
 * computed for (a client a move behind keeps it until it reads that move, which clears it). */
export function currentHint(hint: Hint | null, version: number | undefined): Hint | null {
  return hint && version !== undefined && hint.version >= version ? hint : null;
}

/** The hint after new events were read: gone as soon as there is any. */
export function hintAfterEvents(hint: Hint | null, fresh: readonly unknown[]): Hint | null {
  return fresh.length ? null : hint;
}

/** The hint's move in words ("Hint (medium): Discard 7♥"). */
export function hintText(hint: Hint): string {
  const level = hint.level === "hard" ? gettext("hard") : gettext("medium");
  return interpolate(gettext("Hint (%(level)s): %(move)s"), { level, move: actionText(hint.action) });
}

/** The server's few words when they add to the move's own ("" when they only repeat it). */
export function hintSummary(hint: Hint): string {
  const summary = (hint.summary ?? "").trim();
  return summary.startsWith(actionText(hint.action)) ? "" : summary;
}

/** The positions in ``hand`` of the cards the hinted move uses (each card used once). */
export function hintedIndices(hand: readonly string[], hint: Hint | null): Set<number> {
  const out = new Set<number>();
  if (!hint) return out;
  for (const card of actionCards(hint.action)) {
    const i = hand.findIndex((c, j) => c === card && !out.has(j));
    if (i >= 0) out.add(i);
  }
  return out;
}

/** Whether a table offers hints (`hints: true` in the game's detail). */
export function hintsOn(g: unknown): boolean {
  return Boolean(g && typeof g === "object" && (g as { hints?: unknown }).hints === true);
}
