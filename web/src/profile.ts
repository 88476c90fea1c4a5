// A player's profile (#/player/{id}, #/player/me): the record, a rating per format (rank,
// games, provisional) and the latest rated games with their rating changes.
import { ApiError, api, myPlayerId, type PlayerProfile, type ProfileRating, type RatedGame } from "./api";
import { clear, h } from "./dom";
import { gettext, interpolate } from "./i18n";
import { pageHeader } from "./nav";
import { changeText, changeWords, formatName, ordinal, ratingText, unratedText } from "./ratings";

function problemText(err: unknown): string {
  return err instanceof ApiError ? err.problem.detail || err.problem.title : String(err);
}

export function ratingsTable(ratings: ProfileRating[]): HTMLElement {
  return h(
    "div",
    { class: "table-scroll" },
    h(
      "table",
      { class: "ranking", testid: "ratings" },
      h("caption", { class: "sr-only" }, gettext("Ratings per format")),
      h("thead", {}, h("tr", {}, h("th", { scope: "col" }, gettext("Format")), h("th", { scope: "col" }, gettext("Rating")), h("th", { scope: "col" }, gettext("Rank")), h("th", { scope: "col" }, gettext("Games")), h("th", { scope: "col" }, gettext("Wins")))),
      h(
        "tbody",
        {},
        ...ratings.map((r) =>
          h(
            "tr",
            { testid: `rating-${r.format}` },
            h("th", { scope: "row" }, h("a", { href: `#/leaderboard/${r.format}` }, formatName(r.format))),
            h("td", {}, ratingText(r.rating, r.provisional), r.provisional ? h("span", { class: "sr-only" }, ` ${gettext("provisional")}`) : ""),
            h("td", {}, r.rank === null ? "—" : ordinal(r.rank)),
            h("td", {}, String(r.games)),
            h("td", {}, String(r.wins)),
          ),
        ),
      ),
    ),
  );
}

// A rated game's line: a private table's id is null to those who did not sit at it; a result
// that did not count says why (the fields are optional until the client's types have them).
type RatedGameLine = Omit<RatedGame, "game_id"> & {
  game_id: number | null;
  private?: boolean;
  counted?: boolean;
  unrated_reason?: string | null;
};

function ratedGameLink(g: RatedGameLine): HTMLElement | string {
  if (g.game_id === null) return gettext("Private table");
  return h("a", { href: `#/replay/${g.game_id}`, "aria-label": interpolate(gettext("Replay table #%(id)s"), { id: g.game_id }) }, `#${g.game_id}`);
}

export function ratedGamesList(games: RatedGameLine[]): HTMLElement {
  if (!games.length) return h("p", { class: "muted" }, gettext("No rated games yet."));
  return h(
    "ul",
    { class: "games", testid: "rated-games" },
    ...games.map((g) =>
      h(
        "li",
        {},
        ratedGameLink(g),
        ` ${formatName(g.format)} · ${ordinal(g.rank)} · ${g.rating_before} → ${g.rating_after} `,
        g.counted === false
          ? h("span", { class: "change muted", testid: "unrated" }, unratedText(g.unrated_reason))
          : h("span", { class: g.change > 0 ? "change up" : g.change < 0 ? "change down" : "change", "aria-label": interpolate(gettext("rating %(change)s"), { change: changeWords(g.change) }) }, changeText(g.change)),
      ),
    ),
  );
}

export class PlayerScreen {
  private disposed = false;

  constructor(
    private readonly root: HTMLElement,
    private readonly who: number | "me",
  ) {}

  async mount(): Promise<void> {
    const body = h("div", { class: "profile" }, h("p", { class: "loading" }, gettext("Loading the profile…")));
    let id = this.who;
    const mine = id === "me" || id === myPlayerId();
    this.root.append(pageHeader(mine ? gettext("My ratings") : gettext("Player"), mine ? "ratings" : "player"), body);
    let profile: PlayerProfile;
    try {
      if (id === "me") id = (await api.me()).id;
      profile = await api.profile(id);
    } catch (err) {
      if (this.disposed) return;
      clear(body);
      body.append(h("p", { class: "message error", testid: "message" }, problemText(err)));
      return;
    }
    if (this.disposed) return;
    clear(body);
    const r = profile.record;
    body.append(
      h(
        "section",
        { class: "panel", "aria-labelledby": "profile-name", testid: "profile" },
        h("h2", { id: "profile-name" }, mine ? interpolate(gettext("%(name)s (you)"), { name: profile.display_name }) : profile.display_name),
        h(
          "p",
          {},
          interpolate(r.conceded ? gettext("Played %(played)s: won %(won)s, lost %(lost)s (%(conceded)s conceded).") : gettext("Played %(played)s: won %(won)s, lost %(lost)s."), {
            played: r.played,
            won: r.won,
            lost: r.lost,
            conceded: r.conceded,
          }),
        ),
      ),
      h(
        "section",
        { class: "panel", "aria-labelledby": "ratings-title" },
        h("h2", { id: "ratings-title" }, gettext("Ratings")),
        ratingsTable(profile.ratings),
        h("p", { class: "muted" }, gettext("A question mark: provisional, fewer than 10 rated games in that format.")),
      ),
      h("section", { class: "panel", "aria-labelledby": "rated-title" }, h("h2", { id: "rated-title" }, gettext("Recent rated games")), ratedGamesList(profile.rated_games)),
    );
  }

  dispose(): void {
    this.disposed = true;
  }
}
