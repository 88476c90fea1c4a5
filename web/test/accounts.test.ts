import { describe, expect, it } from "vitest";
import type { Challenge, FriendRequest, PersonalToken, SignIn } from "../src/account-types";
import { agoText, authenticatorText, challengeText, codeTyped, friendRequestText, hashQuery, safeNext, signInDetails, signInsOrdered, signInTitle, tokenBody, tokenDetails } from "../src/accountWords";
import { AllauthClient, AllauthFailure, authState, needsReauthentication, nextStep } from "../src/allauth";
import { authHeaders, csrfToken } from "../src/api";
import { DeviceKeys, type StoredKeys } from "../src/deviceKeys";
import { base64urlToBuffer, bufferToBase64url, creationOptions, credentialJson, passkeyName, requestOptions } from "../src/webauthn";

const NOW = Date.parse("2026-03-12T12:00:00Z");
const CHROME = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0 Safari/537.36";

function signIn(over: Partial<SignIn>): SignIn {
  return { id: "browser-1", kind: "browser", device: "", user_agent: CHROME, ip: "203.0.113.9", created_at: "2026-03-01T10:00:00Z", last_seen_at: "2026-03-12T11:55:00Z", current: false, ...over };
}

describe("sign-ins in words", () => {
  it("names the device by its name, else its browser and system, else its kind", () => {
    expect(signInTitle(signIn({ current: true }))).toBe("Chrome on Linux (this one)");
    expect(signInTitle(signIn({ device: "Ada's phone", kind: "device" }))).toBe("Ada's phone");
    expect(signInTitle(signIn({ user_agent: "", kind: "guest" }))).toBe("Guest key");
  });
  it("says when and where from", () => {
    expect(signInDetails(signIn({}), NOW)).toBe("Web browser · last seen 5 min ago · from 203.0.113.9 · since 1 Mar 2026");
    expect(signInDetails(signIn({ ip: null, last_seen_at: null }), NOW)).toBe("Web browser · last seen never · since 1 Mar 2026");
  });
  it("puts this sign-in first, then the most recently seen", () => {
    const list = [signIn({ id: "a", last_seen_at: "2026-03-10T00:00:00Z" }), signIn({ id: "b", last_seen_at: "2026-03-12T00:00:00Z" }), signIn({ id: "c", current: true, last_seen_at: "2026-03-01T00:00:00Z" })];
    expect(signInsOrdered(list).map((s) => s.id)).toEqual(["c", "b", "a"]);
  });
  it("tells times ago", () => {
    expect(agoText("2026-03-12T11:59:30Z", NOW)).toBe("just now");
    expect(agoText("2026-03-12T09:00:00Z", NOW)).toBe("3 h ago");
    expect(agoText("2026-03-09T12:00:00Z", NOW)).toBe("3 days ago");
    expect(agoText(NOW / 1000 - 120, NOW)).toBe("2 min ago"); // allauth's epoch seconds
  });
});

describe("personal tokens", () => {
  it("sends the checked scopes in catalogue order, the name trimmed", () => {
    expect(tokenBody("  my bot ", ["play", "profile:read", "nonsense"], 90)).toEqual({ name: "my bot", scopes: ["profile:read", "play"], days: 90 });
    expect(tokenBody("x", [], null).scopes).toEqual([]);
  });
  it("describes a token without its secret", () => {
    const t: PersonalToken = { id: 1, name: "bot", prefix: "cnst_ab12", scopes: ["bot:play"], created_at: "2026-03-01T00:00:00Z", expires_at: "2026-03-01T00:00:00Z", last_used_at: null };
    expect(tokenDetails(t, NOW)).toBe("cnst_ab12… · bot:play · expired 1 Mar 2026 · last used never");
    expect(tokenDetails({ ...t, expires_at: null }, NOW)).toContain("no expiry");
  });
});

describe("friends, challenges, authenticators", () => {
  const ada = { id: 1, display_name: "Ada", is_bot: false };
  const bea = { id: 2, display_name: "Bea", is_bot: false };
  it("tells a friend request from either side", () => {
    const r: FriendRequest = { id: 5, from_player: ada, to_player: bea, status: "pending", created_at: "2026-03-01T00:00:00Z" };
    expect(friendRequestText(r, 2)).toBe("Ada (#1) asks to be friends");
    expect(friendRequestText(r, 1)).toBe("You asked Bea (#2)");
  });
  it("tells a challenge from either side", () => {
    const c: Challenge = { id: 3, challenger: ada, invitee: bea, preset: "two_player", options: {}, rated: true, seat: null, fill_with_bots: false, bot_level: "easy", status: "pending", created_at: "2026-03-01T00:00:00Z", expires_at: "2026-03-13T00:00:00Z", answered_at: null, game_id: null };
    expect(challengeText(c, 2)).toBe("Ada challenges you: two players, rated · open until 13 Mar 2026");
    expect(challengeText(c, 1)).toBe("You challenged Bea: two players, rated · open until 13 Mar 2026");
  });
  it("lists passkeys and recovery codes", () => {
    expect(authenticatorText({ type: "webauthn", id: 1, name: "Key", created_at: NOW / 1000 - 86400 * 3, last_used_at: null }, NOW)).toBe("Key · added 9 Mar 2026 · last used never");
    expect(authenticatorText({ type: "recovery_codes", created_at: 0, last_used_at: null, total_code_count: 10, unused_code_count: 7 }, NOW)).toBe("Recovery codes · 7 of 10 left");
  });
});

describe("the sign-in page's next and codes", () => {
  it("keeps local paths only", () => {
    expect(safeNext("/identity/o/authorize?client_id=x")).toBe("/identity/o/authorize?client_id=x");
    expect(safeNext("https://evil.example/")).toBe("");
    expect(safeNext("//evil.example/")).toBe("");
    expect(safeNext("/\\evil.example")).toBe("");
    expect(safeNext(null)).toBe("");
  });
  it("reads the hash route's query", () => {
    expect(hashQuery("/account/signin?next=%2Fidentity%2Fo%2F").get("next")).toBe("/identity/o/");
    expect(hashQuery("/account/signin").get("next")).toBeNull();
  });
  it("drops the spaces of a pasted code", () => {
    expect(codeTyped(" ABCD - EFGH\n")).toBe("ABCD-EFGH");
  });
});

describe("the browser's CSRF token", () => {
  it("is read from the csrftoken cookie", () => {
    expect(csrfToken("a=1; csrftoken=abc%3D; b=2")).toBe("abc=");
    expect(csrfToken("a=1")).toBeNull();
  });
  it("goes with unsafe requests when no key is kept", () => {
    const store = new Map<string, string>();
    Object.assign(globalThis, {
      localStorage: { getItem: (k: string) => store.get(k) ?? null, setItem: (k: string, v: string) => store.set(k, v), removeItem: (k: string) => store.delete(k) },
      document: { cookie: "csrftoken=tok" },
    });
    expect(authHeaders("POST")).toEqual({ "X-CSRFToken": "tok" });
    expect(authHeaders("GET")).toEqual({});
    store.set("canasta.token", "guest");
    expect(authHeaders("DELETE")).toEqual({ Authorization: "Token guest" });
  });
});

type Sent = { url: string; init: RequestInit };
function fakeFetch(answers: { status: number; body: unknown }[], sent: Sent[]): typeof fetch {
  return (async (url: string, init: RequestInit) => {
    sent.push({ url, init });
    const next = answers.shift()!;
    return new Response(JSON.stringify(next.body), { status: next.status });
  }) as unknown as typeof fetch;
}

describe("allauth's headless API", () => {
  it("sends the CSRF token with the browser client, the access key with the app client", async () => {
    const sent: Sent[] = [];
    const browser = new AllauthClient({ kind: "browser", csrf: () => "tok", fetch: fakeFetch([{ status: 401, body: { status: 401, data: { flows: [{ id: "verify_email", is_pending: true }] } } }], sent) });
    const state = await browser.signUp("ada@example.org", "pw", "Ada");
    expect(sent[0].url).toBe("/_allauth/browser/v1/auth/signup");
    expect((sent[0].init.headers as Record<string, string>)["X-CSRFToken"]).toBe("tok");
    expect(JSON.parse(String(sent[0].init.body))).toEqual({ email: "ada@example.org", password: "pw", display_name: "Ada" });
    expect(nextStep(state)).toBe("verify_email");

    const app = new AllauthClient({ kind: "app", accessKey: async () => "acc", fetch: fakeFetch([{ status: 200, body: { status: 200, data: [] } }], sent) });
    await app.emails();
    expect(sent[1].url).toBe("/_allauth/app/v1/account/email");
    expect((sent[1].init.headers as Record<string, string>).Authorization).toBe("Bearer acc");
    expect(sent[1].init.credentials).toBe("omit");
  });
  it("fetches the CSRF cookie first when there is none", async () => {
    const sent: Sent[] = [];
    let cookie: string | null = null;
    const fetcher = fakeFetch([{ status: 200, body: { status: 200, data: {} } }, { status: 200, body: { status: 200, data: { user: { id: 1, display: "Ada", has_usable_password: true } } } }], sent);
    const browser = new AllauthClient({ kind: "browser", csrf: () => cookie, fetch: (async (u: string, i: RequestInit) => { const r = await fetcher(u, i); cookie = "fresh"; return r; }) as typeof fetch });
    const state = await browser.signIn("ada@example.org", "pw");
    expect(sent.map((s) => s.url)).toEqual(["/_allauth/browser/v1/config", "/_allauth/browser/v1/auth/login"]);
    expect((sent[1].init.headers as Record<string, string>)["X-CSRFToken"]).toBe("fresh");
    expect(nextStep(state)).toBe("done");
  });
  it("throws allauth's messages for a refusal", async () => {
    const browser = new AllauthClient({ kind: "browser", csrf: () => "t", fetch: fakeFetch([{ status: 400, body: { status: 400, errors: [{ code: "incorrect_code", message: "Incorrect code.", param: "key" }] } }], []) });
    const err = await browser.verifyEmail("X").catch((e) => e);
    expect(err).toBeInstanceOf(AllauthFailure);
    expect(err.message).toBe("Incorrect code.");
    expect(err.codes).toEqual(["incorrect_code"]);
  });
  it("reads a flow's next step", () => {
    const flows = (id: string) => authState({ status: 401, data: { flows: [{ id: "login" }, { id, is_pending: true }] } });
    expect(nextStep(flows("mfa_authenticate"))).toBe("second_factor");
    expect(nextStep(flows("password_reset_by_code"))).toBe("reset_code");
    expect(nextStep(flows("mfa_signup_webauthn"))).toBe("passkey_signup");
    expect(nextStep(authState({ status: 401, data: { flows: [{ id: "login" }] } }))).toBe("sign_in");
    expect(needsReauthentication({ status: 401, data: { flows: [{ id: "reauthenticate" }] } })).toBe(true);
    expect(needsReauthentication({ status: 200, data: {} })).toBe(false);
  });
});

describe("passkeys", () => {
  it("turns base64url into bytes and back", () => {
    const bytes = new Uint8Array([0, 250, 251, 252, 253, 254, 255]);
    const text = bufferToBase64url(bytes);
    expect(text).not.toMatch(/[+/=]/);
    expect(new Uint8Array(base64urlToBuffer(text))).toEqual(bytes);
  });
  it("decodes the binary fields of the server's options", () => {
    const made = creationOptions({ challenge: "AAEC", rp: { id: "localhost", name: "Canasta" }, user: { id: "MQ", name: "ada", displayName: "Ada" }, pubKeyCredParams: [], excludeCredentials: [{ type: "public-key", id: "AQI" }] });
    expect(new Uint8Array(made.challenge as ArrayBuffer)).toEqual(new Uint8Array([0, 1, 2]));
    expect(new TextDecoder().decode(made.user.id as ArrayBuffer)).toBe("1");
    expect(new Uint8Array(made.excludeCredentials![0].id as ArrayBuffer)).toEqual(new Uint8Array([1, 2]));
    const asked = requestOptions({ challenge: "AAEC", rpId: "localhost", allowCredentials: [] });
    expect(asked.allowCredentials).toEqual([]);
  });
  it("encodes a credential without toJSON", () => {
    const json = credentialJson({ id: "abc", rawId: new Uint8Array([1, 2]).buffer, type: "public-key", authenticatorAttachment: "platform", response: { clientDataJSON: new Uint8Array([3]).buffer, attestationObject: new Uint8Array([4]).buffer, getTransports: () => ["internal"] }, getClientExtensionResults: () => ({ credProps: { rk: true } }) });
    expect(json).toEqual({ id: "abc", rawId: "AQI", type: "public-key", authenticatorAttachment: "platform", response: { clientDataJSON: "Aw", attestationObject: "BA", transports: ["internal"] }, clientExtensionResults: { credProps: { rk: true } } });
  });
  it("names a passkey after the browser and system", () => {
    expect(passkeyName(CHROME)).toBe("Chrome on Linux");
    expect(passkeyName("Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 Version/17.0 Mobile/15E148 Safari/604.1")).toBe("Safari on iOS");
  });
});

describe("a guest's device keys", () => {
  function keys(initial: StoredKeys | null, refresh: (r: string) => Promise<{ access_token: string; refresh_token: string; expires_in?: number } | null>) {
    let kept = initial;
    let opened = 0;
    let now = 1_000_000;
    const k = new DeviceKeys({
      store: { load: () => kept, save: (v) => { kept = v; } },
      open: async () => ({ session_id: `device-${++opened}`, access_token: `acc-${opened}`, refresh_token: `ref-${opened}`, expires_in: 900 }),
      refresh,
      now: () => now,
    });
    return { k, kept: () => kept, opened: () => opened, later: (ms: number) => { now += ms; } };
  }
  it("opens one device session, reuses its key, renews it before it expires", async () => {
    const t = keys(null, async (r) => ({ access_token: `${r}-acc2`, refresh_token: `${r}-ref2`, expires_in: 900 }));
    const [a, b] = await Promise.all([t.k.accessKey(), t.k.accessKey()]);
    expect([a, b, t.opened()]).toEqual(["acc-1", "acc-1", 1]);
    t.later(850_000);
    expect(await t.k.accessKey()).toBe("ref-1-acc2");
    expect(t.kept()!.refresh_token).toBe("ref-1-ref2");
    expect(t.k.sessionId()).toBe("device-1");
  });
  it("opens a new session when the refresh is refused", async () => {
    const t = keys({ session_id: "device-9", access_token: "old", refresh_token: "r", expires_at: 0 }, async () => null);
    expect(await t.k.accessKey()).toBe("acc-1");
    t.k.forget();
    expect(t.kept()).toBeNull();
  });
});
