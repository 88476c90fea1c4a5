// Web Push in this browser: ask for permission, register the service worker (sw.ts, served at
// /sw.js: scope /, it caches the app shell, shows pushes and opens games), subscribe
// with the server's VAPID key (GET /push/key/) and send the subscription's toJSON() to the
// server; unsubscribe; and go where a clicked notification points.
import { api, ApiError, type PushSubscriptionCreate, type PushSubscriptionView } from "./api";
import { gettext } from "./i18n";
import { base64UrlToBytes } from "./notifyWords";

export const SW_URL = "/sw.js";
export const SW_SCOPE = "/";
/** Where the worker lived before it cached the shell (push only): offline.ts moves its
 * subscription to the worker at the root. */
export const OLD_SW_SCOPE = "/static/client/";
/** The worker's message to a window it sends to a game (OPEN_MESSAGE in swHandlers.ts, which
 * the page does not import: the worker's bundle stays one classic script). */
export const OPEN_MESSAGE = "canasta-open";

export function pushSupported(): boolean {
  return "serviceWorker" in navigator && "PushManager" in window && "Notification" in window;
}

/** Wait for this registration's worker to be active (not `navigator.serviceWorker.ready`: it
 * waits for a worker controlling the page, which a page loaded before it never has). */
async function activated(reg: ServiceWorkerRegistration): Promise<void> {
  const worker = reg.installing ?? reg.waiting ?? reg.active;
  if (!worker || worker.state === "activated") return;
  await new Promise<void>((resolve) => {
    worker.addEventListener("statechange", () => {
      if (worker.state === "activated" || worker.state === "redundant") resolve();
    });
  });
}

export async function registration(): Promise<ServiceWorkerRegistration> {
  const reg = await navigator.serviceWorker.register(SW_URL, { scope: SW_SCOPE });
  await activated(reg);
  return reg;
}

/** This browser's subscription now, if any. */
export async function currentSubscription(): Promise<PushSubscription | null> {
  if (!pushSupported()) return null;
  const reg = await navigator.serviceWorker.getRegistration(SW_SCOPE);
  return reg ? reg.pushManager.getSubscription() : null;
}

/** Ask for permission, subscribe (again, if the server's key changed) and register the
 * subscription with the server. Throws an Error saying what went wrong. */
export async function subscribe(): Promise<PushSubscriptionView> {
  if (!pushSupported()) throw new Error(gettext("This browser cannot receive Web Push notifications."));
  const permission = await Notification.requestPermission();
  if (permission !== "granted") {
    throw new Error(gettext("Notifications are blocked for this site: allow them in the browser's site settings, then try again."));
  }
  const { public_key } = await api.pushKey();
  const key = base64UrlToBytes(public_key);
  const reg = await registration();
  let sub = await reg.pushManager.getSubscription();
  const sameKey = (s: PushSubscription) => {
    const k = s.options.applicationServerKey;
    return !!k && new Uint8Array(k).join() === key.join();
  };
  if (sub && !sameKey(sub)) {
    await sub.unsubscribe();
    sub = null;
  }
  const fresh = () => reg.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: key.buffer as ArrayBuffer });
  sub ??= await fresh();
  try {
    return await api.pushSubscribe(sub.toJSON() as PushSubscriptionCreate);
  } catch (err) {
    if (!(err instanceof ApiError) || err.code !== "push_endpoint_taken") throw err;
    // Another account registered this browser's subscription (a shared browser): a new
    // subscription has an endpoint of its own.
    await sub.unsubscribe();
    return api.pushSubscribe((await fresh()).toJSON() as PushSubscriptionCreate);
  }
}

/** Stop pushes to this browser: the server forgets the subscription, the browser drops it. */
export async function unsubscribe(id: number | null): Promise<void> {
  if (id !== null) await api.pushUnsubscribe(id);
  const sub = await currentSubscription();
  await sub?.unsubscribe();
}

/** A clicked notification in a window of the client: go to the game it is about. */
export function followNotificationClicks(): void {
  if (!("serviceWorker" in navigator)) return;
  navigator.serviceWorker.addEventListener("message", (event: MessageEvent) => {
    const data = event.data as { type?: string; url?: string } | null;
    if (data?.type !== OPEN_MESSAGE || typeof data.url !== "string") return;
    const url = new URL(data.url, location.origin);
    if (url.origin === location.origin) location.href = url.href;
  });
}
