import { describe, expect, it, vi } from "vitest";
import type { Delivery, NotificationPreferences, Webhook } from "../src/api";
import { base64UrlToBytes, CHANNELS, deliveryText, endpointText, KINDS, preferencesBody, settingsForm, webhookState } from "../src/notifyWords";
import { notificationOf, onClick, onPush, OPEN_MESSAGE, targetUrl, type WindowLike } from "../src/swHandlers";
import { OPEN_MESSAGE as PAGE_OPEN_MESSAGE } from "../src/webpush";

const ORIGIN = "https://canasta.example";

function prefs(): NotificationPreferences {
  const on = { your_turn: true, game_started: true, go_out_asked: true, chat: true, reminder: true, game_over: true, challenge: true };
  return { reminder_fraction: 0.75, email: "", preferences: { webhook: { ...on }, web_push: { ...on }, email: { ...on, chat: false }, fcm: { ...on }, apns: { ...on } } };
}

describe("the settings form", () => {
  it("sends every switch of every channel, the reminder and the trimmed address", () => {
    const form = settingsForm(prefs());
    expect(form.switches.email.chat).toBe(false);
    form.reminderFraction = 0.5;
    form.email = "  ada@example.com ";
    form.switches.web_push.chat = false;
    const body = preferencesBody(form);
    expect(body.reminder_fraction).toBe(0.5);
    expect(body.email).toBe("ada@example.com");
    expect(Object.keys(body.preferences!)).toEqual(CHANNELS.map((c) => c.id));
    for (const c of CHANNELS) expect(Object.keys(body.preferences![c.id]!).sort()).toEqual(KINDS.map((k) => k.id).sort());
    expect(body.preferences!.web_push!.chat).toBe(false);
    expect(body.preferences!.web_push!.your_turn).toBe(true);
    expect(body.preferences!.email!.chat).toBe(false);
  });

  it("does not change the preferences it was made from", () => {
    const p = prefs();
    const form = settingsForm(p);
    form.switches.webhook.your_turn = false;
    expect(p.preferences.webhook.your_turn).toBe(true);
  });
});

describe("webhooks in words", () => {
  const hook = (over: Partial<Webhook> = {}): Webhook => ({
    id: 1, url: "https://bot.example/hook", description: "", enabled: true, consecutive_failures: 0,
    disabled_at: null, disabled_reason: "", created_at: "2026-11-23T00:00:00Z", ...over,
  });

  it("says whether a webhook is on, failing, or off with its notice", () => {
    expect(webhookState(hook())).toBe("on");
    expect(webhookState(hook({ consecutive_failures: 2 }))).toBe("on, 2 failed in a row");
    expect(webhookState(hook({ enabled: false, disabled_reason: "5 deliveries in a row failed" }))).toBe("off: 5 deliveries in a row failed");
  });

  it("tells a delivery with its attempts and last failure", () => {
    const d = {
      id: 3, idempotency_key: "k", kind: "your_turn", status: "failed", attempts: 8, next_attempt_at: null,
      last_status_code: 500, last_error: "server error", delivered_at: null, created_at: "2026-11-23T00:00:00Z", payload: {},
    } as unknown as Delivery;
    expect(deliveryText(d)).toBe("Your turn · failed · 8 attempts · HTTP 500: server error");
    expect(deliveryText({ ...d, status: "delivered", attempts: 1, last_status_code: 200, last_error: "" })).toBe("Your turn · delivered · 1 attempt · HTTP 200");
  });

  it("shortens a push endpoint", () => {
    expect(endpointText("https://fcm.googleapis.com/fcm/send/abcdefghijklmnopqrstuvwxyz")).toBe("fcm.googleapis.com…opqrstuvwxyz");
    expect(endpointText("not a url")).toBe("not a url");
  });
});

describe("the VAPID key", () => {
  it("decodes URL-safe base64 without padding to the key's bytes", () => {
    expect([...base64UrlToBytes("AQID")]).toEqual([1, 2, 3]);
    expect([...base64UrlToBytes("-_8")]).toEqual([0xfb, 0xff]);
    expect([...base64UrlToBytes("_w")]).toEqual([0xff]);
    const point = new Uint8Array(65).map((_, i) => (i * 37 + 4) % 256);
    const text = btoa(String.fromCharCode(...point)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
    expect(base64UrlToBytes(text)).toEqual(point);
  });
});

describe("the service worker", () => {
  const payload = { id: "n1", kind: "your_turn", title: "Your turn", text: "Your turn in game #5.", url: "/#/game/5", game_id: 5, deadline: null };

  it("shows the pushed payload, one notification per game and kind", async () => {
    const shown: [string, unknown][] = [];
    await onPush({ showNotification: async (title, options) => void shown.push([title, options]) }, JSON.stringify(payload), ORIGIN);
    expect(shown).toEqual([
      ["Your turn", { body: "Your turn in game #5.", tag: "canasta-5-your_turn", data: { url: `${ORIGIN}/#/game/5`, kind: "your_turn", game_id: 5 }, renotify: true, requireInteraction: true }],
    ]);
    const chat = notificationOf(JSON.stringify({ kind: "chat", title: "Table chat", text: "Game #5: Well played", game_id: 5 }), ORIGIN);
    expect(chat.options).toMatchObject({ tag: "canasta-5-chat", renotify: false, data: { url: `${ORIGIN}/#/game/5` } });
    expect(notificationOf(null, ORIGIN).title).toBe("Canasta");
    expect(notificationOf("not json", ORIGIN).options.body).toBe("not json");
  });

  it("opens only pages of its own origin", () => {
    expect(targetUrl({ url: "https://evil.example/#/game/5", game_id: 5 }, ORIGIN)).toBe(`${ORIGIN}/#/game/5`);
    expect(targetUrl({ url: `${ORIGIN}/#/game/9` }, ORIGIN)).toBe(`${ORIGIN}/#/game/9`);
    expect(targetUrl({}, ORIGIN)).toBe(`${ORIGIN}/`);
  });

  function windowAt(url: string): WindowLike & { focused: boolean; messages: unknown[] } {
    const w = { url, focused: false, messages: [] as unknown[], focus: async () => { w.focused = true; }, postMessage: (m: unknown) => void w.messages.push(m) };
    return w;
  }

  it("focuses the window showing the game", async () => {
    const lobby = windowAt(`${ORIGIN}/#/`);
    const table = windowAt(`${ORIGIN}/#/game/5`);
    const openWindow = vi.fn();
    await onClick({ matchAll: async () => [lobby, table], openWindow }, `${ORIGIN}/#/game/5`, ORIGIN);
    expect(table.focused).toBe(true);
    expect(lobby.focused).toBe(false);
    expect(openWindow).not.toHaveBeenCalled();
  });

  it("sends another window of the client to the game, else opens one", async () => {
    const lobby = windowAt(`${ORIGIN}/#/`);
    const elsewhere = windowAt("https://other.example/");
    const openWindow = vi.fn();
    await onClick({ matchAll: async () => [elsewhere, lobby], openWindow }, `${ORIGIN}/#/game/5`, ORIGIN);
    expect(lobby.messages).toEqual([{ type: OPEN_MESSAGE, url: `${ORIGIN}/#/game/5` }]);
    expect(lobby.focused).toBe(true);
    expect(elsewhere.messages).toEqual([]);
    expect(OPEN_MESSAGE).toBe(PAGE_OPEN_MESSAGE); // the page listens for the worker's message
    await onClick({ matchAll: async () => [elsewhere], openWindow }, `${ORIGIN}/#/game/5`, ORIGIN);
    expect(openWindow).toHaveBeenCalledWith(`${ORIGIN}/#/game/5`);
  });
});
