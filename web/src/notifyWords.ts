// Notifications in words (pure): the kinds and channels, the settings form's values → the
// PUT body, a webhook's state and its deliveries, the VAPID key → applicationServerKey bytes.
import type { Delivery, NotificationKind, NotificationPreferences, NotificationPreferencesUpdate, Webhook } from "./api";
import { counted, gettext, gettext_noop, interpolate, ngettext, translate } from "./i18n";

export type ChannelName = keyof NotificationPreferences["preferences"];

export const CHANNELS: { id: ChannelName; name: string }[] = [
  { id: "web_push", name: gettext_noop("Web Push (this browser)") },
  { id: "webhook", name: gettext_noop("Webhooks") },
  { id: "email", name: gettext_noop("E-mail") },
];

export const KINDS: { id: NotificationKind; name: string }[] = [
  { id: "your_turn", name: gettext_noop("Your turn") },
  { id: "reminder", name: gettext_noop("Reminder before the deadline") },
  { id: "go_out_asked", name: gettext_noop("Your partner asks to go out") },
  { id: "game_started", name: gettext_noop("A game started") },
  { id: "chat", name: gettext_noop("Table chat") },
  { id: "game_over", name: gettext_noop("Game over") },
  { id: "challenge", name: gettext_noop("A challenge to a game") },
];

/** The reminder's choices: when this share of a correspondence turn has passed. */
export const REMINDER_FRACTIONS = [0.5, 0.75, 0.9];

export function reminderText(fraction: number): string {
  return interpolate(gettext("when %(percent)s of the turn has passed"), { percent: `${Math.round(fraction * 100)}%` });
}

/** What the settings form holds. */
export interface SettingsForm {
  reminderFraction: number;
  email: string;
  /** channel → kind → on. */
  switches: Record<ChannelName, Partial<Record<NotificationKind, boolean>>>;
}

export function settingsForm(p: NotificationPreferences): SettingsForm {
  const switches = {} as SettingsForm["switches"];
  for (const c of CHANNELS) switches[c.id] = { ...(p.preferences[c.id] as Record<NotificationKind, boolean>) };
  return { reminderFraction: p.reminder_fraction, email: p.email, switches };
}

/** The form → the PUT body: every switch of every channel, the reminder and the e-mail address
 * (trimmed; empty stops e-mail). */
export function preferencesBody(form: SettingsForm): NotificationPreferencesUpdate {
  const preferences: Record<string, Record<string, boolean>> = {};
  for (const c of CHANNELS) {
    preferences[c.id] = {};
    for (const k of KINDS) preferences[c.id][k.id] = form.switches[c.id]?.[k.id] ?? true;
  }
  return {
    reminder_fraction: form.reminderFraction,
    email: form.email.trim(),
    preferences: preferences as NotificationPreferencesUpdate["preferences"],
  };
}

/** A webhook's state: "on", or "off: <the notice>", with its failures in a row. */
export function webhookState(w: Webhook): string {
  if (!w.enabled) return w.disabled_reason ? interpolate(gettext("off: %(reason)s"), { reason: w.disabled_reason }) : gettext("off");
  return w.consecutive_failures
    ? counted(ngettext("on, %(count)s failed in a row", "on, %(count)s failed in a row", w.consecutive_failures), w.consecutive_failures)
    : gettext("on");
}

/** One delivery of a webhook's log: "your_turn · delivered · 1 attempt", "... · failed · 8
 * attempts · HTTP 500: <error>". */
export function deliveryText(d: Delivery): string {
  const name = KINDS.find((k) => k.id === d.kind)?.name;
  const kind = name ? translate(name) : d.kind;
  const attempts = counted(ngettext("%(count)s attempt", "%(count)s attempts", d.attempts), d.attempts);
  const last = [d.last_status_code !== null ? `HTTP ${d.last_status_code}` : "", d.last_error].filter(Boolean).join(": ");
  return [kind, d.status, attempts, last].filter(Boolean).join(" · ");
}

/** A VAPID public key (URL-safe base64, unpadded) → the bytes `applicationServerKey` takes. */
export function base64UrlToBytes(text: string): Uint8Array {
  const b64 = text.replace(/-/g, "+").replace(/_/g, "/").replace(/\s/g, "");
  const padded = b64 + "=".repeat((4 - (b64.length % 4)) % 4);
  const raw = atob(padded);
  const out = new Uint8Array(raw.length);
  for (let i = 0; i < raw.length; i++) out[i] = raw.charCodeAt(i);
  return out;
}

/** A push service's endpoint, shortened for a list: its host and the end of its path. */
export function endpointText(endpoint: string): string {
  try {
    const url = new URL(endpoint);
    const tail = url.pathname.length > 16 ? `…${url.pathname.slice(-12)}` : url.pathname;
    return `${url.host}${tail}`;
  } catch {
    return endpoint;
  }
}
