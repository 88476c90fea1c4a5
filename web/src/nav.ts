// The header of the lobby's pages: the way home, the page's title and the links to quick play,
// the leaderboard, your ratings, your games, your notifications, your friends and your account
// (the current one marked with aria-current).
import { myPlayerId } from "./api";
import { h } from "./dom";

export type Place = "home" | "play" | "leaderboard" | "ratings" | "player" | "games" | "notifications" | "friends" | "account";

export function pageHeader(title: string, place: Place, ...extra: HTMLElement[]): HTMLElement {
  const link = (href: string, text: string, here: boolean, testid: string) =>
    h("a", { class: here ? "button primary" : "button", href, testid, "aria-current": here ? "page" : undefined }, text);
  const me = myPlayerId();
  return h(
    "header",
    { class: "game-header" },
    place === "home" ? h("span", { class: "home" }, "♠ Canasta") : h("a", { class: "home", href: "#/", "aria-label": "Canasta: back to the lobby" }, "♠ Canasta"),
    h("h1", { class: "game-title" }, title),
    h(
      "nav",
      { class: "header-buttons", "aria-label": "Lobby pages" },
      link("#/games", "My games", place === "games", "nav-games"),
      link("#/play", "Play now", place === "play", "nav-play"),
      link("#/leaderboard/partnership", "Leaderboard", place === "leaderboard", "nav-leaderboard"),
      link(`#/player/${me ?? "me"}`, "My ratings", place === "ratings", "nav-ratings"),
      link("#/notifications", "Notifications", place === "notifications", "nav-notifications"),
      link("#/friends", "Friends", place === "friends", "nav-friends"),
      link("#/account", "Account", place === "account", "nav-account"),
    ),
    ...(extra.length ? [h("span", { class: "header-buttons" }, ...extra)] : []),
  );
}
