// At the table: "I'm back". After a run of turn timeouts a casual table hands a seat to a
// stand-in bot, which plays it until its player is back (GameDetail.timer.seats[i]: `stand_in`,
// `reclaim_url`). The player whose seat it is sees a banner saying so, with a button that takes
// the seat back (POST reclaim_url, answered with the game as they see it).
import type { GameDetail } from "./api";
import { h } from "./dom";
import { gettext } from "./i18n";

/** Where the viewer takes their own seat back from its stand-in bot: the `reclaim_url` of
 * their seat while the game is played and a stand-in holds it, else null (a spectator, another
 * seat's stand-in, no timer). */
export function ownReclaimUrl(g: Pick<GameDetail, "status" | "your_seat" | "timer">): string | null {
  if (g.status !== "active" || g.your_seat === null) return null;
  const seat = g.timer?.seats?.find((s) => s.index === g.your_seat);
  return seat?.reclaim_url ?? null;
}

/** The API path of a URL the server gave (`/api/v1/games/7/seat/reclaim/`, or the same with the
 * origin), as api.ts's requests take it (`/games/7/seat/reclaim/`). */
export function apiPath(url: string): string {
  const path = url.replace(/^[a-z][a-z0-9+.-]*:\/\/[^/]+/i, "");
  const at = path.indexOf("/api/v1/");
  return at >= 0 ? path.slice(at + "/api/v1".length) : path;
}

/** The banner at the top of the table while a stand-in bot plays the viewer's seat: a polite
 * live region (it says so when it appears; it never takes the focus), with the "I'm back"
 * button. */
export function standInBanner(g: GameDetail, onBack: (url: string) => void, busy: boolean): HTMLElement | "" {
  const url = ownReclaimUrl(g);
  if (url === null) return "";
  return h(
    "section",
    { class: "stand-in-banner", testid: "stand-in-banner", role: "status", "aria-labelledby": "stand-in-text" },
    h(
      "p",
      { id: "stand-in-text" },
      h("strong", {}, gettext("A bot is playing for you.")),
      " ",
      gettext("Your turns ran out, so a stand-in bot took your seat. Take it back whenever you are ready."),
    ),
    h("button", { class: "primary", testid: "reclaim", disabled: busy, onclick: () => onBack(url) }, gettext("I'm back!")),
  );
}
