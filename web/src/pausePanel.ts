// At the table: a pause by agreement (a vacation) — its state and proposal (GameDetail.pause,
// re-read after each pause fact of the live feed), the buttons to propose, accept, decline or
// resume — the turn limit of a correspondence game, and muting this game's notifications.
import type { GameDetail } from "./api";
import { isCorrespondence, pauseControls, turnLimitText } from "./correspondence";
import { h } from "./dom";
import { gettext, interpolate } from "./i18n";

export interface PauseActions {
  propose(): void;
  decline(): void;
  resume(): void;
  mute(muted: boolean): void;
}

/** Whether you muted this game, as last answered by the server (no read exists: remembered
 * in this browser per game). */
export function mutedHere(gameId: number): boolean {
  return localStorage.getItem(`canasta.muted.${gameId}`) === "1";
}

export function rememberMuted(gameId: number, muted: boolean): void {
  if (muted) localStorage.setItem(`canasta.muted.${gameId}`, "1");
  else localStorage.removeItem(`canasta.muted.${gameId}`);
}

export function pausePanel(g: GameDetail, nameOf: (seat: number) => string, actions: PauseActions, busy: boolean): HTMLElement | "" {
  if (g.status !== "active") return "";
  const you = g.your_seat;
  const c = pauseControls(g.pause, you, nameOf);
  const turn = g.timer?.turn_seconds ?? null;
  const muted = mutedHere(g.id);
  const button = (testid: string, text: string, onclick: () => void, cls = "") =>
    h("button", { testid, class: `small ${cls}`, disabled: busy, onclick }, text);
  const correspondence = isCorrespondence(turn);
  if (!correspondence && !c.text && you === null) return "";
  return h(
    "section",
    { class: `pause-panel ${g.pause?.paused ? "paused" : ""}`, testid: "pause-panel", "aria-label": gettext("Pause and notifications") },
    correspondence ? h("span", { class: "muted", testid: "turn-limit" }, `${interpolate(gettext("Correspondence: %(limit)s per turn."), { limit: turnLimitText(turn!) })} `) : "",
    c.text ? h("span", { testid: "pause-state", class: "pause-state" }, c.text, " ") : "",
    c.propose ? button("pause-propose", gettext("Propose a pause"), actions.propose) : "",
    c.answer ? button("pause-accept", gettext("Agree to pause"), actions.propose, "primary") : "",
    c.answer ? button("pause-decline", gettext("Decline"), actions.decline) : "",
    c.withdraw ? button("pause-withdraw", gettext("Withdraw the proposal"), actions.decline) : "",
    c.resume ? button("resume", gettext("Resume the game"), actions.resume, "primary") : "",
    you !== null
      ? h("button", { testid: "mute", class: "small", "aria-pressed": String(muted), disabled: busy, onclick: () => actions.mute(!muted) }, muted ? gettext("Notifications muted for this game") : gettext("Mute notifications for this game"))
      : "",
  );
}
