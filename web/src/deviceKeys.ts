// The account endpoints for a guest: a guest key cannot call allauth's API, so the client
// trades it (POST /api/v1/account/sessions/) for a device session's access and refresh keys
// and calls /_allauth/app/v1/ with `Authorization: Bearer <access key>` (add an e-mail and a
// password, or a passkey: "keep this account"). The keys are kept in this browser beside the
// guest key, renewed before they expire (a refresh rotates both), and a new device session is
// opened if renewing fails. A browser signed in with the session cookie uses the browser
// client instead.
import { AllauthClient, browserAuth } from "./allauth";
import { api, browserSession } from "./api";
import type { SessionKeys } from "./account-types";

const KEYS = "canasta.deviceKeys";
/** Renew this many seconds before the access key expires. */
const MARGIN = 60;

export interface StoredKeys {
  session_id: string;
  access_token: string;
  refresh_token: string;
  /** ms since the epoch. */
  expires_at: number;
}

export interface KeyStore {
  load(): StoredKeys | null;
  save(keys: StoredKeys | null): void;
}

export const localKeyStore: KeyStore = {
  load() {
    try {
      return JSON.parse(localStorage.getItem(KEYS) ?? "null") as StoredKeys | null;
    } catch {
      return null;
    }
  },
  save(keys) {
    if (keys) localStorage.setItem(KEYS, JSON.stringify(keys));
    else localStorage.removeItem(KEYS);
  },
};

export function storedFrom(keys: SessionKeys, now: number): StoredKeys {
  return { session_id: keys.session_id, access_token: keys.access_token, refresh_token: keys.refresh_token, expires_at: now + keys.expires_in * 1000 };
}

export interface DeviceKeyDeps {
  store: KeyStore;
  open: () => Promise<SessionKeys>;
  refresh: (refreshToken: string) => Promise<{ access_token: string; refresh_token: string; expires_in?: number } | null>;
  now: () => number;
}

/** The access key to send: the kept one, renewed when it is about to expire, else a new
 * device session's. One renewal at a time (a refresh key presented twice ends the session). */
export class DeviceKeys {
  private pending: Promise<string> | null = null;

  constructor(private readonly deps: DeviceKeyDeps) {}

  accessKey(): Promise<string> {
    this.pending ??= this.fresh().finally(() => {
      this.pending = null;
    });
    return this.pending;
  }

  private async fresh(): Promise<string> {
    const now = this.deps.now();
    const kept = this.deps.store.load();
    if (kept && kept.expires_at - MARGIN * 1000 > now) return kept.access_token;
    if (kept) {
      const renewed = await this.deps.refresh(kept.refresh_token).catch(() => null);
      if (renewed) {
        const keys = { ...kept, access_token: renewed.access_token, refresh_token: renewed.refresh_token, expires_at: now + (renewed.expires_in ?? 300) * 1000 };
        this.deps.store.save(keys);
        return keys.access_token;
      }
    }
    const opened = storedFrom(await this.deps.open(), now);
    this.deps.store.save(opened);
    return opened.access_token;
  }

  /** The device session's id ("device-<n>"), if one is open. */
  sessionId(): string | null {
    return this.deps.store.load()?.session_id ?? null;
  }

  forget(): void {
    this.deps.store.save(null);
  }
}

async function refreshKeys(refreshToken: string): Promise<{ access_token: string; refresh_token: string; expires_in?: number } | null> {
  const res = await fetch("/_allauth/app/v1/tokens/refresh", {
    method: "POST",
    headers: { "Content-Type": "application/json", Accept: "application/json" },
    body: JSON.stringify({ refresh_token: refreshToken }),
    credentials: "omit",
  });
  if (!res.ok) return null;
  const body = (await res.json()) as { data?: { access_token: string; refresh_token: string; expires_in?: number } };
  return body.data ?? null;
}

export const deviceKeys = new DeviceKeys({
  store: localKeyStore,
  open: () => api.deviceSessionOpen("Web client (account settings)"),
  refresh: refreshKeys,
  now: () => Date.now(),
});

const guestAuth = new AllauthClient({ kind: "app", accessKey: () => deviceKeys.accessKey() });

/** The allauth client for this browser: its session, else the guest key's device session. */
export function accountAuth(): AllauthClient {
  return browserSession() ? browserAuth : guestAuth;
}
