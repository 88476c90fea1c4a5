// What the service worker (sw.ts) does, written against the few parts of the worker's API it
// uses so that it can be tested without a browser: a pushed notification shown, and a click
// on it opening (or focusing) the game's page.
//
// The worker is served at /sw.js, so its scope is / and it controls the client's page (it also
// caches the app shell, swCache.ts). Windows are found with includeUncontrolled (a page opened
// before the worker took over is not controlled yet); an open window of the client is focused
// and told where to go (a postMessage, which reaches any window of the client).

/** What a push carries (the notification's payload, `WebhookPayload`; never a card). */
export interface PushPayload {
  id?: string;
  kind?: string;
  title?: string;
  text?: string;
  url?: string;
  game_id?: number | null;
  deadline?: string | null;
}

export interface ShownNotification {
  title: string;
  options: { body: string; tag: string; data: { url: string; kind: string; game_id: number | null }; renotify: boolean; requireInteraction: boolean };
}

/** The message the worker posts to a window to send it to ``url``. */
export const OPEN_MESSAGE = "canasta-open";

/** The page a notification opens: the payload's URL when it is on this origin, else the
 * game's page (or the lobby). */
export function targetUrl(payload: PushPayload, origin: string): string {
  if (payload.url) {
    try {
      const url = new URL(payload.url, origin);
      if (url.origin === origin) return url.href;
    } catch {
      /* not a URL: fall through */
    }
  }
  return typeof payload.game_id === "number" ? `${origin}/#/game/${payload.game_id}` : `${origin}/`;
}

/** The pushed data (JSON text) → the notification to show. One notification per game and kind
 * (its tag): a newer one replaces the older. */
export function notificationOf(data: string | null, origin: string): ShownNotification {
  let payload: PushPayload = {};
  try {
    const parsed: unknown = data ? JSON.parse(data) : {};
    if (parsed && typeof parsed === "object") payload = parsed as PushPayload;
  } catch {
    payload = { text: data ?? "" };
  }
  const gameId = typeof payload.game_id === "number" ? payload.game_id : null;
  const kind = payload.kind ?? "notice";
  const urgent = kind === "your_turn" || kind === "reminder" || kind === "go_out_asked";
  return {
    title: payload.title || "Canasta",
    options: {
      body: payload.text ?? "",
      tag: gameId !== null ? `canasta-${gameId}-${kind}` : `canasta-${kind}`,
      data: { url: targetUrl(payload, origin), kind, game_id: gameId },
      renotify: urgent,
      requireInteraction: urgent,
    },
  };
}

export interface Registration {
  showNotification(title: string, options: ShownNotification["options"]): Promise<void>;
}

/** The push event: show the notification. */
export function onPush(registration: Registration, data: string | null, origin: string): Promise<void> {
  const shown = notificationOf(data, origin);
  return registration.showNotification(shown.title, shown.options);
}

export interface WindowLike {
  url: string;
  focus(): Promise<unknown>;
  postMessage(message: unknown): void;
}

export interface ClientsLike {
  matchAll(options: { type: "window"; includeUncontrolled: boolean }): Promise<readonly WindowLike[]>;
  openWindow(url: string): Promise<unknown>;
}

/** The click: focus a window already showing the page; else focus a window of the client and
 * send it there; else open a new one. */
export async function onClick(clients: ClientsLike, url: string, origin: string): Promise<void> {
  const windows = (await clients.matchAll({ type: "window", includeUncontrolled: true })).filter((w) => w.url.startsWith(origin));
  const same = windows.find((w) => w.url === url);
  if (same) {
    await same.focus();
    return;
  }
  const other = windows[0];
  if (other) {
    other.postMessage({ type: OPEN_MESSAGE, url });
    await other.focus();
    return;
  }
  await clients.openWindow(url);
}
