// Friends and challenges (#/friends): your player id (what friends ask you by), friend
// requests (send by player id, accept, decline, cancel), your friends (remove, challenge),
// challenges (send one to a friend with a preset, rated or not, how long it stays open;
// incoming: accept, which opens the table, or decline; outgoing: cancel).
import type { Challenge, ChallengeCreate, Friend, FriendRequests } from "./account-types";
import { CHALLENGE_EXPIRY, challengeText, friendRequestText, presetText } from "./accountWords";
import { announce } from "./announce";
import { ApiError, api, myPlayerId } from "./api";
import { clear, h } from "./dom";
import { gettext, interpolate, translate } from "./i18n";
import { pageHeader } from "./nav";
import { busy, field, say, statusLine } from "./signin";

function problemText(err: unknown): string {
  if (err instanceof ApiError) {
    const fields = (err.problem.errors ?? []).map((e) => `${e.field ?? ""}: ${e.message}`).join("; ");
    return `${err.problem.detail || err.problem.title}${fields ? ` — ${fields}` : ""}`;
  }
  return err instanceof Error ? err.message : String(err);
}

function panel(id: string, title: string, ...content: (Node | string | null)[]): HTMLElement {
  return h("section", { class: "panel", "aria-labelledby": `${id}-title`, testid: `${id}-panel` }, h("h2", { id: `${id}-title` }, title), ...content);
}

export class FriendsScreen {
  private disposed = false;
  private friends: Friend[] = [];
  private readonly requestSlot = h("div");
  private readonly friendSlot = h("div");
  private readonly challengeSlot = h("div");

  constructor(private readonly root: HTMLElement) {}

  dispose(): void {
    this.disposed = true;
  }

  async mount(): Promise<void> {
    this.root.append(
      pageHeader(gettext("Friends"), "friends"),
      h("div", { class: "home-grid settings account" }, h("div", {}, this.requestSlot, this.friendSlot), h("div", {}, this.challengeSlot)),
    );
    this.friendSlot.append(h("p", { class: "loading" }, gettext("Loading your friends…")));
    await this.load();
  }

  private async load(focus?: string): Promise<void> {
    let requests: FriendRequests;
    let challenges: { incoming: Challenge[]; outgoing: Challenge[] };
    let presets: string[] = ["classic", "two_player", "three_player"];
    try {
      // One request at a time: each signed-in request also records the sign-in's last use.
      this.friends = (await api.friends()).friends;
      requests = await api.friendRequests();
      challenges = await api.challenges();
      const rules = await api.rules().catch(() => null);
      if (rules) presets = Object.keys(rules.presets);
    } catch (err) {
      if (this.disposed) return;
      clear(this.friendSlot);
      this.friendSlot.append(h("p", { class: "message error" }, problemText(err)));
      return;
    }
    if (this.disposed) return;
    this.showRequests(requests);
    this.showFriends();
    this.showChallenges(challenges, presets.length ? presets : ["classic"]);
    if (focus) this.root.querySelector<HTMLElement>(`[data-testid="${focus}"]`)?.focus();
  }

  private act(box: HTMLElement, fn: () => Promise<unknown>, done: string, focus?: string) {
    return async () => {
      try {
        await fn();
        announce(done);
        await this.load(focus);
      } catch (err) {
        say(box, problemText(err), "error");
      }
    };
  }

  private showRequests(requests: FriendRequests): void {
    clear(this.requestSlot);
    const me = myPlayerId();
    const box = statusLine("friend-request-message");
    const id = field(gettext("Player id"), { id: "friend-id", type: "number", min: 1, inputmode: "numeric", required: true, testid: "friend-id" }, gettext("The number on their profile (#/player/…) or that they tell you."));
    const send = h("button", { class: "primary", type: "submit", testid: "friend-send" }, gettext("Send a friend request")) as HTMLButtonElement;
    const all = [...requests.incoming, ...requests.outgoing];
    this.requestSlot.append(
      panel(
        "friend-requests",
        gettext("Friend requests"),
        h("p", { testid: "my-player-id" }, `${gettext("Your player id:")} `, h("strong", {}, `#${me ?? "?"}`), `. ${gettext("Friends add you with it.")}`),
        all.length
          ? h(
              "ul",
              { class: "games", testid: "friend-requests" },
              ...all.map((r) => {
                const incoming = r.to_player.id === me;
                const other = incoming ? r.from_player : r.to_player;
                return h(
                  "li",
                  { testid: incoming ? "friend-request-in" : "friend-request-out" },
                  friendRequestText(r, me),
                  h(
                    "div",
                    { class: "row" },
                    incoming
                      ? [
                          h("button", { class: "small primary", testid: "friend-accept", "aria-label": interpolate(gettext("Accept %(name)s's friend request"), { name: other.display_name }), onclick: this.act(box, () => api.friendRequestAccept(r.id), interpolate(gettext("You and %(name)s are friends."), { name: other.display_name }), "friend-id") }, gettext("Accept")),
                          h("button", { class: "small", testid: "friend-decline", "aria-label": interpolate(gettext("Decline %(name)s's friend request"), { name: other.display_name }), onclick: this.act(box, () => api.friendRequestDecline(r.id), gettext("Request declined."), "friend-id") }, gettext("Decline")),
                        ]
                      : h("button", { class: "small", testid: "friend-cancel", "aria-label": interpolate(gettext("Cancel your request to %(name)s"), { name: other.display_name }), onclick: this.act(box, () => api.friendRequestCancel(r.id), gettext("Request cancelled."), "friend-id") }, gettext("Cancel")),
                  ),
                );
              }),
            )
          : h("p", { class: "muted" }, gettext("No pending request.")),
        h(
          "form",
          {
            testid: "friend-form",
            onsubmit: async (e: Event) => {
              e.preventDefault();
              try {
                const made = await busy(send, () => api.friendRequestSend(Number(id.input.value)));
                const text = made.status === "accepted" ? interpolate(gettext("You and %(name)s are friends."), { name: made.from_player.display_name }) : interpolate(gettext("Request sent to %(name)s."), { name: made.to_player.display_name });
                announce(text);
                await this.load("friend-id");
                say(this.requestSlot.querySelector<HTMLElement>("[data-testid=friend-request-message]")!, text);
              } catch (err) {
                say(box, problemText(err), "error");
              }
            },
          },
          id.wrap,
          h("div", { class: "row" }, send),
        ),
        box,
      ),
    );
  }

  private showFriends(): void {
    clear(this.friendSlot);
    const box = statusLine("friends-message");
    this.friendSlot.append(
      panel(
        "friends",
        gettext("Your friends"),
        this.friends.length
          ? h(
              "ul",
              { class: "games", testid: "friends" },
              ...this.friends.map((f) =>
                h(
                  "li",
                  { testid: "friend" },
                  h("a", { href: `#/player/${f.id}` }, f.display_name),
                  f.is_bot ? ` (${gettext("bot")})` : "",
                  ` · #${f.id}`,
                  h(
                    "div",
                    { class: "row" },
                    h("button", {
                      class: "small",
                      testid: "friend-challenge",
                      "aria-label": interpolate(gettext("Challenge %(name)s"), { name: f.display_name }),
                      onclick: () => {
                        const sel = document.getElementById("challenge-friend") as HTMLSelectElement | null;
                        if (sel) {
                          sel.value = String(f.id);
                          sel.focus();
                        }
                      },
                    }, gettext("Challenge")),
                    h("button", { class: "small", testid: "friend-remove", "aria-label": interpolate(gettext("Remove %(name)s from your friends"), { name: f.display_name }), onclick: this.act(box, () => api.friendRemove(f.id), interpolate(gettext("%(name)s removed."), { name: f.display_name }), "friend-id") }, gettext("Remove")),
                  ),
                ),
              ),
            )
          : h("p", { class: "muted" }, gettext("No friends yet: send a request with their player id.")),
        box,
      ),
    );
  }

  private showChallenges(challenges: { incoming: Challenge[]; outgoing: Challenge[] }, presets: string[]): void {
    clear(this.challengeSlot);
    const me = myPlayerId();
    const box = statusLine("challenge-message");
    const friend = h("select", { id: "challenge-friend", testid: "challenge-friend", required: true, disabled: !this.friends.length }, ...this.friends.map((f) => h("option", { value: String(f.id) }, f.display_name))) as HTMLSelectElement;
    const preset = h("select", { id: "challenge-preset", testid: "challenge-preset" }, ...presets.map((p) => h("option", { value: p }, presetText(p)))) as HTMLSelectElement;
    const rated = h("input", { type: "checkbox", id: "challenge-rated", testid: "challenge-rated" }) as HTMLInputElement;
    const expiry = h("select", { id: "challenge-expiry", testid: "challenge-expiry" }, ...CHALLENGE_EXPIRY.map((e) => h("option", { value: String(e.seconds), selected: e.seconds === 86400 }, translate(e.name)))) as HTMLSelectElement;
    const send = h("button", { class: "primary", type: "submit", testid: "challenge-send", disabled: !this.friends.length }, gettext("Send the challenge")) as HTMLButtonElement;
    const list = (items: Challenge[], incoming: boolean) =>
      items.length
        ? h(
            "ul",
            { class: "games", testid: incoming ? "challenges-in" : "challenges-out" },
            ...items.map((c) =>
              h(
                "li",
                { testid: "challenge" },
                challengeText(c, me),
                h(
                  "div",
                  { class: "row" },
                  incoming
                    ? [
                        h("button", {
                          class: "small primary",
                          testid: "challenge-accept",
                          "aria-label": interpolate(gettext("Accept %(name)s's challenge"), { name: c.challenger.display_name }),
                          onclick: async () => {
                            try {
                              const accepted = await api.challengeAccept(c.id);
                              if (accepted.game_id !== null) location.hash = `#/game/${accepted.game_id}`;
                            } catch (err) {
                              say(box, problemText(err), "error");
                            }
                          },
                        }, gettext("Accept and play")),
                        h("button", { class: "small", testid: "challenge-decline", "aria-label": interpolate(gettext("Decline %(name)s's challenge"), { name: c.challenger.display_name }), onclick: this.act(box, () => api.challengeDecline(c.id), gettext("Challenge declined."), "challenge-send") }, gettext("Decline")),
                      ]
                    : h("button", { class: "small", testid: "challenge-cancel", "aria-label": interpolate(gettext("Cancel your challenge to %(name)s"), { name: c.invitee.display_name }), onclick: this.act(box, () => api.challengeCancel(c.id), gettext("Challenge cancelled."), "challenge-send") }, gettext("Cancel")),
                ),
              ),
            ),
          )
        : h("p", { class: "muted" }, incoming ? gettext("No challenge waiting for you.") : gettext("None sent."));
    this.challengeSlot.append(
      panel(
        "challenges",
        gettext("Challenges"),
        h("h3", {}, gettext("For you")),
        list(challenges.incoming, true),
        h("h3", {}, gettext("Sent")),
        list(challenges.outgoing, false),
        h(
          "form",
          {
            testid: "challenge-form",
            onsubmit: async (e: Event) => {
              e.preventDefault();
              try {
                const made = await busy(send, () => api.challengeSend({ player_id: Number(friend.value), preset: preset.value as ChallengeCreate["preset"], fill_with_bots: false, bot_level: "easy", rated: rated.checked, expires_in: Number(expiry.value) }));
                announce(interpolate(gettext("Challenge sent to %(name)s."), { name: made.invitee.display_name }));
                await this.load("challenge-send");
              } catch (err) {
                say(box, problemText(err), "error");
              }
            },
          },
          h("h3", {}, gettext("Challenge a friend")),
          h(
            "div",
            { class: "options-grid" },
            h("label", { for: "challenge-friend", class: "stack" }, h("span", {}, gettext("Friend")), friend),
            h("label", { for: "challenge-preset", class: "stack" }, h("span", {}, gettext("Rules")), preset),
            h("label", { for: "challenge-expiry", class: "stack" }, h("span", {}, gettext("Open for")), expiry),
          ),
          h("label", { class: "inline", for: "challenge-rated" }, rated, ` ${gettext("rated (standard rules, people only)")}`),
          h("div", { class: "row" }, send),
        ),
        box,
      ),
    );
  }
}
