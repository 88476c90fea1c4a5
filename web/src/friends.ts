// Friends and challenges (#/friends): your player id (what friends ask you by), friend
// requests (send by player id, accept, decline, cancel), your friends (remove, challenge),
// challenges (send one to a friend with a preset, rated or not, how long it stays open;
// incoming: accept, which opens the table, or decline; outgoing: cancel).
import type { Challenge, ChallengeCreate, Friend, FriendRequests } from "./account-types";
import { CHALLENGE_EXPIRY, challengeText, friendRequestText, presetText } from "./accountWords";
import { announce } from "./announce";
import { ApiError, api, myPlayerId } from "./api";
import { clear, h } from "./dom";
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
      pageHeader("Friends", "friends"),
      h("div", { class: "home-grid settings account" }, h("div", {}, this.requestSlot, this.friendSlot), h("div", {}, this.challengeSlot)),
    );
    this.friendSlot.append(h("p", { class: "loading" }, "Loading your friends…"));
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
    const id = field("Player id", { id: "friend-id", type: "number", min: 1, inputmode: "numeric", required: true, testid: "friend-id" }, "The number on their profile (#/player/…) or that they tell you.");
    const send = h("button", { class: "primary", type: "submit", testid: "friend-send" }, "Send a friend request") as HTMLButtonElement;
    const all = [...requests.incoming, ...requests.outgoing];
    this.requestSlot.append(
      panel(
        "friend-requests",
        "Friend requests",
        h("p", { testid: "my-player-id" }, "Your player id is ", h("strong", {}, `#${me ?? "?"}`), ": friends add you with it."),
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
                          h("button", { class: "small primary", testid: "friend-accept", "aria-label": `Accept ${other.display_name}'s friend request`, onclick: this.act(box, () => api.friendRequestAccept(r.id), `You and ${other.display_name} are friends.`, "friend-id") }, "Accept"),
                          h("button", { class: "small", testid: "friend-decline", "aria-label": `Decline ${other.display_name}'s friend request`, onclick: this.act(box, () => api.friendRequestDecline(r.id), "Request declined.", "friend-id") }, "Decline"),
                        ]
                      : h("button", { class: "small", testid: "friend-cancel", "aria-label": `Cancel your request to ${other.display_name}`, onclick: this.act(box, () => api.friendRequestCancel(r.id), "Request cancelled.", "friend-id") }, "Cancel"),
                  ),
                );
              }),
            )
          : h("p", { class: "muted" }, "No pending request."),
        h(
          "form",
          {
            testid: "friend-form",
            onsubmit: async (e: Event) => {
              e.preventDefault();
              try {
                const made = await busy(send, () => api.friendRequestSend(Number(id.input.value)));
                const text = made.status === "accepted" ? `You and ${made.from_player.display_name} are friends.` : `Request sent to ${made.to_player.display_name}.`;
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
        "Your friends",
        this.friends.length
          ? h(
              "ul",
              { class: "games", testid: "friends" },
              ...this.friends.map((f) =>
                h(
                  "li",
                  { testid: "friend" },
                  h("a", { href: `#/player/${f.id}` }, f.display_name),
                  f.is_bot ? " (bot)" : "",
                  ` · #${f.id}`,
                  h(
                    "div",
                    { class: "row" },
                    h("button", {
                      class: "small",
                      testid: "friend-challenge",
                      "aria-label": `Challenge ${f.display_name}`,
                      onclick: () => {
                        const sel = document.getElementById("challenge-friend") as HTMLSelectElement | null;
                        if (sel) {
                          sel.value = String(f.id);
                          sel.focus();
                        }
                      },
                    }, "Challenge"),
                    h("button", { class: "small", testid: "friend-remove", "aria-label": `Remove ${f.display_name} from your friends`, onclick: this.act(box, () => api.friendRemove(f.id), `${f.display_name} removed.`, "friend-id") }, "Remove"),
                  ),
                ),
              ),
            )
          : h("p", { class: "muted" }, "No friends yet: send a request with their player id."),
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
    const expiry = h("select", { id: "challenge-expiry", testid: "challenge-expiry" }, ...CHALLENGE_EXPIRY.map((e) => h("option", { value: String(e.seconds), selected: e.seconds === 86400 }, e.name))) as HTMLSelectElement;
    const send = h("button", { class: "primary", type: "submit", testid: "challenge-send", disabled: !this.friends.length }, "Send the challenge") as HTMLButtonElement;
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
                          "aria-label": `Accept ${c.challenger.display_name}'s challenge`,
                          onclick: async () => {
                            try {
                              const accepted = await api.challengeAccept(c.id);
                              if (accepted.game_id !== null) location.hash = `#/game/${accepted.game_id}`;
                            } catch (err) {
                              say(box, problemText(err), "error");
                            }
                          },
                        }, "Accept and play"),
                        h("button", { class: "small", testid: "challenge-decline", "aria-label": `Decline ${c.challenger.display_name}'s challenge`, onclick: this.act(box, () => api.challengeDecline(c.id), "Challenge declined.", "challenge-send") }, "Decline"),
                      ]
                    : h("button", { class: "small", testid: "challenge-cancel", "aria-label": `Cancel your challenge to ${c.invitee.display_name}`, onclick: this.act(box, () => api.challengeCancel(c.id), "Challenge cancelled.", "challenge-send") }, "Cancel"),
                ),
              ),
            ),
          )
        : h("p", { class: "muted" }, incoming ? "No challenge waiting for you." : "None sent.");
    this.challengeSlot.append(
      panel(
        "challenges",
        "Challenges",
        h("h3", {}, "For you"),
        list(challenges.incoming, true),
        h("h3", {}, "Sent"),
        list(challenges.outgoing, false),
        h(
          "form",
          {
            testid: "challenge-form",
            onsubmit: async (e: Event) => {
              e.preventDefault();
              try {
                const made = await busy(send, () => api.challengeSend({ player_id: Number(friend.value), preset: preset.value as ChallengeCreate["preset"], fill_with_bots: false, bot_level: "easy", rated: rated.checked, expires_in: Number(expiry.value) }));
                announce(`Challenge sent to ${made.invitee.display_name}.`);
                await this.load("challenge-send");
              } catch (err) {
                say(box, problemText(err), "error");
              }
            },
          },
          h("h3", {}, "Challenge a friend"),
          h(
            "div",
            { class: "options-grid" },
            h("label", { for: "challenge-friend", class: "stack" }, h("span", {}, "Friend"), friend),
            h("label", { for: "challenge-preset", class: "stack" }, h("span", {}, "Rules"), preset),
            h("label", { for: "challenge-expiry", class: "stack" }, h("span", {}, "Open for"), expiry),
          ),
          h("label", { class: "inline", for: "challenge-rated" }, rated, " rated (standard rules, people only)"),
          h("div", { class: "row" }, send),
        ),
        box,
      ),
    );
  }
}
