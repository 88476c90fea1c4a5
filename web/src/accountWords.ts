// The account in words (pure): sign-ins ("Chrome on Linux · last seen 5 min ago · from
// 203.0.113.9"), personal tokens and their scopes, the token form → the POST body, friend
// requests and challenges, the sign-in page's `next`, the passkeys and authenticators list.
import type { Challenge, FriendRequest, PersonalToken, PersonalTokenCreate, SignIn } from "./account-types";
import type { Authenticator } from "./allauth";
import { counted, currentLanguage, gettext, gettext_noop, interpolate, languageTag, ngettext, translate } from "./i18n";
import { passkeyName } from "./webauthn";

/** The scopes a personal token can be given (never `account:write`), each in words. */
export const TOKEN_SCOPES: { id: string; name: string }[] = [
  { id: "profile:read", name: gettext_noop("Read your profile, games and friends") },
  { id: "profile:write", name: gettext_noop("Change your profile, friends and lists") },
  { id: "play", name: gettext_noop("Play your games (move, chat, join tables)") },
  { id: "bot:play", name: gettext_noop("Play as a bot") },
  { id: "challenge:write", name: gettext_noop("Send and answer challenges") },
  { id: "tournament:write", name: gettext_noop("Enter tournaments") },
  { id: "notifications:write", name: gettext_noop("Change notification settings") },
];

/** A token's lifetime choices, in days (null: until revoked). */
export const TOKEN_DAYS: (number | null)[] = [7, 30, 90, 366, null];

export function daysText(days: number | null): string {
  if (days === null) return gettext("until revoked");
  if (days === 366) return gettext("1 year");
  return counted(ngettext("%(count)s day", "%(count)s days", days), days);
}

export function scopeName(id: string): string {
  const name = TOKEN_SCOPES.find((s) => s.id === id)?.name;
  return name ? translate(name) : id;
}

/** The token form → the POST body (trimmed name, the checked scopes in catalogue order). */
export function tokenBody(name: string, checked: Iterable<string>, days: number | null): PersonalTokenCreate {
  const on = new Set(checked);
  return { name: name.trim(), scopes: TOKEN_SCOPES.filter((s) => on.has(s.id)).map((s) => s.id), days };
}

/** "5 min ago", "3 h ago", "2 days ago", "just now" (``now`` in ms). */
export function agoText(when: string | number | null, now: number): string {
  if (when === null) return gettext("never");
  const at = typeof when === "number" ? when * 1000 : Date.parse(when);
  const sec = Math.max(0, Math.round((now - at) / 1000));
  if (sec < 60) return gettext("just now");
  const min = Math.floor(sec / 60);
  if (min < 60) return interpolate(gettext("%(count)s min ago"), { count: min });
  const hours = Math.floor(min / 60);
  if (hours < 48) return interpolate(gettext("%(count)s h ago"), { count: hours });
  const days = Math.floor(hours / 24);
  return counted(ngettext("%(count)s day ago", "%(count)s days ago", days), days);
}

/** A date in words for lists: "12 Mar 2026". */
export function dateText(when: string | number): string {
  const at = typeof when === "number" ? new Date(when * 1000) : new Date(when);
  const language = currentLanguage();
  return at.toLocaleDateString(language === "en" ? "en-GB" : languageTag(language), { day: "numeric", month: "short", year: "numeric" });
}

const KIND_NAMES: Record<SignIn["kind"], string> = {
  browser: gettext_noop("Web browser"),
  device: gettext_noop("App"),
  guest: gettext_noop("Guest key"),
};

/** What a sign-in is: the device's name if it gave one, else its browser and system. */
export function signInTitle(s: SignIn): string {
  const device = s.device.trim();
  const agent = s.user_agent ? passkeyName(s.user_agent) : "";
  const what = device || (agent && agent !== "Browser" ? agent : translate(KIND_NAMES[s.kind]));
  return s.current ? interpolate(gettext("%(what)s (this one)"), { what }) : what;
}

/** "Web browser · last seen 5 min ago · from 203.0.113.9 · since 12 Mar 2026". */
export function signInDetails(s: SignIn, now: number): string {
  return [
    translate(KIND_NAMES[s.kind]),
    interpolate(gettext("last seen %(when)s"), { when: agoText(s.last_seen_at, now) }),
    s.ip ? interpolate(gettext("from %(ip)s"), { ip: s.ip }) : "",
    interpolate(gettext("since %(date)s"), { date: dateText(s.created_at) }),
  ]
    .filter(Boolean)
    .join(" · ");
}

/** The current sign-in first, then the most recently seen. */
export function signInsOrdered(list: SignIn[]): SignIn[] {
  const seen = (s: SignIn) => Date.parse(s.last_seen_at ?? s.created_at);
  return [...list].sort((a, b) => Number(b.current) - Number(a.current) || seen(b) - seen(a));
}

/** "cnst_ab12… · play, profile:read · expires 12 Mar 2026 · last used 2 days ago". */
export function tokenDetails(t: PersonalToken, now: number): string {
  const expired = t.expires_at !== null && Date.parse(t.expires_at) <= now;
  return [
    `${t.prefix}…`,
    t.scopes.join(", "),
    t.expires_at === null
      ? gettext("no expiry")
      : interpolate(expired ? gettext("expired %(date)s") : gettext("expires %(date)s"), { date: dateText(t.expires_at) }),
    interpolate(gettext("last used %(when)s"), { when: agoText(t.last_used_at, now) }),
  ].join(" · ");
}

/** A passkey in a list: its name, when it was added and last used. */
export function authenticatorText(a: Authenticator, now: number): string {
  const added = interpolate(gettext("added %(date)s"), { date: dateText(a.created_at) });
  const used = interpolate(gettext("last used %(when)s"), { when: agoText(a.last_used_at, now) });
  if (a.type === "webauthn") return `${a.name || gettext("Passkey")} · ${added} · ${used}`;
  if (a.type === "totp") return `${gettext("Authenticator app")} · ${added} · ${used}`;
  return `${gettext("Recovery codes")} · ${interpolate(gettext("%(left)s of %(total)s left"), { left: a.unused_code_count ?? 0, total: a.total_code_count ?? 0 })}`;
}

export function passkeys(list: Authenticator[]): Authenticator[] {
  return list.filter((a) => a.type === "webauthn");
}

/** The friend request in words from ``me``'s side. */
export function friendRequestText(r: FriendRequest, me: number | null): string {
  return r.to_player.id === me
    ? interpolate(gettext("%(name)s (#%(id)s) asks to be friends"), { name: r.from_player.display_name, id: r.from_player.id })
    : interpolate(gettext("You asked %(name)s (#%(id)s)"), { name: r.to_player.display_name, id: r.to_player.id });
}

const PRESET_NAMES: Record<string, string> = {
  classic: gettext_noop("classic"),
  two_player: gettext_noop("two players"),
  three_player: gettext_noop("three players"),
};

export function presetText(preset: string): string {
  return PRESET_NAMES[preset] ? translate(PRESET_NAMES[preset]) : preset.replace(/_/g, " ");
}

/** "Bea challenges you: two players, rated · until 13 Mar 2026" (or "You challenged Bea: ..."). */
export function challengeText(c: Challenge, me: number | null): string {
  const what = [
    presetText(c.preset),
    c.rated ? gettext("rated") : gettext("casual"),
    c.fill_with_bots ? interpolate(gettext("bots (%(level)s) in the other seats"), { level: c.bot_level }) : "",
  ]
    .filter(Boolean)
    .join(", ");
  const who =
    c.invitee.id === me
      ? interpolate(gettext("%(name)s challenges you"), { name: c.challenger.display_name })
      : interpolate(gettext("You challenged %(name)s"), { name: c.invitee.display_name });
  return `${who}: ${what} · ${interpolate(gettext("open until %(date)s"), { date: dateText(c.expires_at) })}`;
}

/** How long a challenge stays open: the form's choices (seconds). */
export const CHALLENGE_EXPIRY: { seconds: number; name: string }[] = [
  { seconds: 3600, name: gettext_noop("1 hour") },
  { seconds: 86400, name: gettext_noop("1 day") },
  { seconds: 3 * 86400, name: gettext_noop("3 days") },
  { seconds: 7 * 86400, name: gettext_noop("7 days") },
];

/** The sign-in page's `next` (where the identity provider sends people back): a path on this
 * site only, never another host; "" when there is none or it is not one. */
export function safeNext(next: string | null | undefined): string {
  if (!next) return "";
  if (!next.startsWith("/") || next.startsWith("//") || next.startsWith("/\\")) return "";
  if (/[\u0000-\u001f]/.test(next)) return "";
  return next;
}

/** The query of a hash route: "#/account/signin?next=%2Fx" → {next: "/x"}. */
export function hashQuery(hash: string): URLSearchParams {
  const at = hash.indexOf("?");
  return new URLSearchParams(at < 0 ? "" : hash.slice(at + 1));
}

/** A verification or reset code as typed, its spaces gone (pasted codes carry some). */
export function codeTyped(text: string): string {
  return text.replace(/\s+/g, "");
}
