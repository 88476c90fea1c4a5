// The leaderboard (#/leaderboard/{format}[/{offset}]): one tab per rating format, the top
// players a page at a time, and "around me" (the players just above and below you).
import { ApiError, api, type LeaderboardEntry, myPlayerId, type RatingFormat } from "./api";
import { clear, h } from "./dom";
import { gettext, interpolate } from "./i18n";
import { pageHeader } from "./nav";
import { aroundMeText, FORMATS, formatName, leaderboardRows, pageText } from "./ratings";

export const PAGE_SIZE = 20;

function problemText(err: unknown): string {
  return err instanceof ApiError ? err.problem.detail || err.problem.title : String(err);
}

/** A table of leaderboard entries; your own row is marked. */
export function leaderboardTable(entries: LeaderboardEntry[], caption: string, testid: string): HTMLElement {
  const rows = leaderboardRows(entries, myPlayerId());
  return h(
    "div",
    { class: "table-scroll" },
    h(
      "table",
      { class: "ranking", testid },
      h("caption", { class: "sr-only" }, caption),
      h(
        "thead",
        {},
        h("tr", {}, h("th", { scope: "col" }, gettext("Rank")), h("th", { scope: "col" }, gettext("Player")), h("th", { scope: "col" }, gettext("Rating")), h("th", { scope: "col" }, gettext("Games")), h("th", { scope: "col" }, gettext("Wins"))),
      ),
      h(
        "tbody",
        {},
        ...rows.map((r) =>
          h(
            "tr",
            { class: r.you ? "you" : "", testid: "leaderboard-row", "aria-current": r.you ? "true" : undefined },
            h("td", {}, String(r.rank)),
            h("th", { scope: "row" }, h("a", { href: `#/player/${r.playerId}` }, r.name), r.you ? h("span", { class: "tag" }, ` (${gettext("you")})`) : ""),
            h("td", {}, h("span", { "aria-hidden": "true" }, r.rating), h("span", { class: "sr-only" }, r.ratingLabel)),
            h("td", {}, String(r.games)),
            h("td", {}, String(r.wins)),
          ),
        ),
      ),
    ),
  );
}

export class LeaderboardScreen {
  private disposed = false;
  private readonly body = h("div", { class: "leaderboard" });

  constructor(
    private readonly root: HTMLElement,
    private readonly format: RatingFormat,
    private readonly offset: number,
  ) {}

  async mount(): Promise<void> {
    const tabs = h(
      "nav",
      { class: "row tabs", "aria-label": gettext("Rating formats") },
      ...FORMATS.map((f) =>
        h("a", { class: f === this.format ? "button primary" : "button", href: `#/leaderboard/${f}`, "aria-current": f === this.format ? "page" : undefined, testid: `format-${f}` }, formatName(f)),
      ),
    );
    this.root.append(pageHeader(interpolate(gettext("Leaderboard: %(format)s"), { format: formatName(this.format) }), "leaderboard"), tabs, this.body);
    this.body.append(h("p", { class: "loading" }, gettext("Loading the leaderboard…")));
    const [top, around] = await Promise.allSettled([api.leaderboard(this.format, PAGE_SIZE, this.offset), api.aroundMe(this.format, 5)]);
    if (this.disposed) return;
    clear(this.body);
    if (top.status === "rejected") {
      this.body.append(h("p", { class: "message error", testid: "message" }, problemText(top.reason)));
      return;
    }
    const board = top.value;
    const prev = this.offset > 0 ? h("a", { class: "button", href: `#/leaderboard/${this.format}/${Math.max(0, this.offset - PAGE_SIZE)}`, testid: "leaderboard-prev" }, gettext("Higher ranks")) : "";
    const next = this.offset + PAGE_SIZE < board.total ? h("a", { class: "button", href: `#/leaderboard/${this.format}/${this.offset + PAGE_SIZE}`, testid: "leaderboard-next" }, gettext("Lower ranks")) : "";
    this.body.append(
      h(
        "section",
        { class: "panel", "aria-labelledby": "top-title" },
        h("h2", { id: "top-title" }, this.offset ? gettext("Ranks") : gettext("Top players")),
        h("p", { class: "muted", testid: "leaderboard-count" }, pageText(board), ". ", gettext("A question mark: provisional (fewer than 10 rated games).")),
        board.entries.length ? leaderboardTable(board.entries, `${formatName(this.format)}: ${pageText(board)}`, "leaderboard") : "",
        prev || next ? h("div", { class: "row" }, prev, next) : "",
      ),
      this.aroundMe(around),
    );
  }

  private aroundMe(around: PromiseSettledResult<Awaited<ReturnType<typeof api.aroundMe>>>): HTMLElement {
    const section = h("section", { class: "panel", "aria-labelledby": "around-title", testid: "around-me" }, h("h2", { id: "around-title" }, gettext("Around you")));
    if (around.status === "rejected") {
      section.append(h("p", { class: "message error" }, problemText(around.reason)));
      return section;
    }
    const said = aroundMeText(around.value, myPlayerId());
    if (!said) {
      section.append(h("p", {}, `${gettext("You have no rating in this format yet.")} `, h("a", { href: "#/play" }, gettext("Play a rated game to get one."))));
      return section;
    }
    section.append(h("p", { testid: "around-me-text" }, said), leaderboardTable(around.value.entries, interpolate(gettext("Players around you, %(format)s"), { format: formatName(this.format) }), "around-me-table"));
    return section;
  }

  dispose(): void {
    this.disposed = true;
  }
}
