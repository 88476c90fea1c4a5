// The header of the lobby's pages: the way home, the page's title and the links to quick play,
// the leaderboard, your ratings, your games, the tournaments, your notifications, your friends and your account
// (the current one marked with aria-current).
import { api, myPlayerId, signedIn } from "./api";
import { h } from "./dom";
import { currentLanguage, gettext, languageTag, LANGUAGES, rememberLanguage } from "./i18n";

/** The language chooser: each language named in itself; the choice is kept in this browser and
 * the page is shown again in it. */
export function languageChooser(): HTMLElement {
  const select = h(
    "select",
    { id: "language", testid: "language", "aria-label": gettext("Language") },
    ...LANGUAGES.map((l) => h("option", { value: l.code, lang: languageTag(l.code), selected: l.code === currentLanguage() }, l.name)),
  ) as HTMLSelectElement;
  select.addEventListener("change", async () => {
    rememberLanguage(select.value);
    // Signed in: the account's setting too, so that the server answers in it everywhere.
    if (signedIn()) await api.setLanguage(languageTag(select.value)).catch(() => null);
    location.reload();
  });
  return h("span", { class: "language" }, select);
}

export type Place = "home" | "play" | "leaderboard" | "ratings" | "player" | "games" | "notifications" | "friends" | "tournaments" | "account";

export function pageHeader(title: string, place: Place, ...extra: HTMLElement[]): HTMLElement {
  const link = (href: string, text: string, here: boolean, testid: string) =>
    h("a", { class: here ? "button primary" : "button", href, testid, "aria-current": here ? "page" : undefined }, text);
  const me = myPlayerId();
  return h(
    "header",
    { class: "game-header" },
    place === "home" ? h("span", { class: "home" }, "♠ Canasta") : h("a", { class: "home", href: "#/", "aria-label": gettext("Canasta: back to the lobby") }, "♠ Canasta"),
    h("h1", { class: "game-title" }, title),
    h(
      "nav",
      { class: "header-buttons", "aria-label": gettext("Lobby pages") },
      link("#/games", gettext("My games"), place === "games", "nav-games"),
      link("#/play", gettext("Play now"), place === "play", "nav-play"),
      link("#/leaderboard/partnership", gettext("Leaderboard"), place === "leaderboard", "nav-leaderboard"),
      link(`#/player/${me ?? "me"}`, gettext("My ratings"), place === "ratings", "nav-ratings"),
      link("#/tournaments", gettext("Tournaments"), place === "tournaments", "nav-tournaments"),
      link("#/notifications", gettext("Notifications"), place === "notifications", "nav-notifications"),
      link("#/friends", gettext("Friends"), place === "friends", "nav-friends"),
      link("#/account", gettext("Account"), place === "account", "nav-account"),
    ),
    h("span", { class: "header-buttons" }, ...extra, languageChooser()),
  );
}
