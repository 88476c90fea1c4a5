// "My games" (#/games): every table I sit at in the lobby or in play, those waiting for me
// first, each with what is left of its turn ("2 days 3 h left", counted on the server's clock),
// paused ones marked; a link opens each. Read again every 30 s while open (deadlines move).
import { ApiError, api, type MyGames } from "./api";
import { durationText, myGameRow, myGamesOrder, myGamesSummary, serverClock } from "./correspondence";
import { clear, h } from "./dom";
import { gettext, interpolate } from "./i18n";
import { pageHeader } from "./nav";

const REFRESH_MS = 30_000;

function problemText(err: unknown): string {
  return err instanceof ApiError ? err.problem.detail || err.problem.title : String(err);
}

export class MyGamesScreen {
  private disposed = false;
  private timer: number | undefined;
  private readonly body = h("div", { class: "my-games" });

  constructor(private readonly root: HTMLElement) {}

  async mount(): Promise<void> {
    this.root.append(pageHeader(gettext("My games"), "games"), this.body);
    this.body.append(h("p", { class: "loading" }, gettext("Loading your games…")));
    await this.load();
    this.timer = window.setInterval(() => void this.load(), REFRESH_MS);
  }

  dispose(): void {
    this.disposed = true;
    window.clearInterval(this.timer);
  }

  private async load(): Promise<void> {
    let list: MyGames;
    const readAt = Date.now();
    try {
      list = await api.myTurns();
    } catch (err) {
      if (this.disposed) return;
      clear(this.body);
      this.body.append(h("p", { class: "message error", testid: "message" }, problemText(err)));
      return;
    }
    if (this.disposed) return;
    this.show(list, serverClock(list.server_time, readAt, Date.now()));
  }

  private show(list: MyGames, serverNow: number): void {
    const hadFocus = document.activeElement instanceof HTMLElement && this.body.contains(document.activeElement) ? document.activeElement.dataset.testid : undefined;
    clear(this.body);
    const games = myGamesOrder(list.games);
    const section = h(
      "section",
      { class: "panel", "aria-labelledby": "my-games-title" },
      h("h2", { id: "my-games-title" }, gettext("Tables you sit at")),
      h("p", { class: "muted", testid: "my-games-summary" }, myGamesSummary(games)),
    );
    if (!games.length) {
      section.append(h("p", {}, `${gettext("No game in play.")} `, h("a", { href: "#/" }, gettext("Start a table")), " · ", h("a", { href: "#/play" }, gettext("play now"))));
    } else {
      section.append(
        h(
          "ul",
          { class: "games my-games-list", testid: "my-games" },
          ...games.map((g) => {
            const row = myGameRow(g, serverNow);
            const label = [interpolate(gettext("Table #%(id)s"), { id: row.id }), row.state, row.left].filter(Boolean).join(", ");
            return h(
              "li",
              { class: `${row.mine ? "mine" : ""} ${row.paused ? "paused" : ""}`, testid: "my-game", "data-game": String(row.id) },
              h("a", { href: `#/game/${row.id}`, testid: `open-game-${row.id}`, "aria-label": interpolate(gettext("Open %(table)s"), { table: label }) }, interpolate(gettext("Table #%(id)s"), { id: row.id })),
              " ",
              h("span", { class: `state ${row.mine ? "your-turn" : ""}`, testid: "my-game-state" }, row.state),
              row.left ? h("span", { class: "left", testid: "my-game-left", title: g.turn_deadline ? new Date(g.turn_deadline).toLocaleString() : undefined }, ` · ${row.left}`) : "",
              row.paused && g.turn_seconds ? h("span", { class: "muted" }, ` · ${gettext("the turn's time is kept")}`) : "",
              h("div", { class: "muted" }, row.about, " · ", row.players),
            );
          }),
        ),
      );
    }
    this.body.append(
      section,
      h(
        "p",
        { class: "muted" },
        `${interpolate(gettext("Finished games are listed in the lobby. Correspondence turns last up to %(time)s."), { time: durationText(604800) })} `,
        h("a", { href: "#/notifications" }, gettext("Turn on notifications to hear when it is your turn.")),
      ),
    );
    if (hadFocus) this.body.querySelector<HTMLElement>(`[data-testid="${hadFocus}"]`)?.focus();
  }
}
