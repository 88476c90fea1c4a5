// The installed app: the service worker that caches the app shell (sw.ts, served at /sw.js,
// scope /) is registered when the page loads, and a banner (#connection, role=status, outside
// the redrawn screen) says when the page is offline or reconnecting, until the network, the
// server and the table's live connection are back.
//
// What counts: the browser's online/offline events, the API calls (api.ts reports, through
// network.ts, each one that could not reach the server, and each answer), and at a table the live feed's state
// (#app[data-live] is "connecting" while the socket or the stream reconnects).
import { api, signedIn } from "./api";
import { gettext } from "./i18n";
import { onNetwork } from "./network";
import { OLD_SW_SCOPE, subscribe, SW_SCOPE, SW_URL } from "./webpush";

/** A reconnection shorter than this shows no banner (a table's first connection, a blip). */
export const RECONNECT_GRACE_MS = 1500;
/** While the server cannot be reached: how often it is asked again. */
export const PROBE_MS = 3000;

export type Connection = "online" | "offline" | "unreachable" | "reconnecting";

/** The banner's state from what is known (pure). */
export function connectionState(browserOnline: boolean, serverReached: boolean, liveReconnecting: boolean): Connection {
  if (!browserOnline) return "offline";
  if (!serverReached) return "unreachable";
  return liveReconnecting ? "reconnecting" : "online";
}

export function connectionText(state: Connection): string {
  switch (state) {
    case "offline":
      return gettext("You are offline. Reconnecting when the network is back…");
    case "unreachable":
      return gettext("The server cannot be reached. Reconnecting…");
    case "reconnecting":
      return gettext("Reconnecting to the table…");
    default:
      return "";
  }
}

let serverReached = true;
let liveReconnecting = false;
let liveTimer: ReturnType<typeof setTimeout> | undefined;
let probeTimer: ReturnType<typeof setTimeout> | undefined;
let missed = false; // a call failed while offline: the screen is drawn again when back
let shown: Connection = "online";

/** A call reached the server (true) or could not (false): api.ts through network.ts. */
function reportNetwork(reached: boolean): void {
  if (reached === serverReached) return;
  serverReached = reached;
  if (!reached) missed = true;
  update();
}

function banner(): HTMLElement | null {
  return typeof document === "undefined" ? null : document.getElementById("connection");
}

function update(): void {
  const el = banner();
  const state = connectionState(navigator.onLine, serverReached, liveReconnecting);
  if (el && state !== shown) {
    el.dataset.state = state;
    el.textContent = connectionText(state);
    el.hidden = state === "online";
  }
  const back = shown !== "online" && state === "online";
  shown = state;
  clearTimeout(probeTimer);
  if (state === "unreachable" || (state === "offline" && !serverReached)) probeTimer = setTimeout(probe, PROBE_MS);
  if (back && missed) {
    // What failed while offline is asked again: the current screen is drawn anew.
    missed = false;
    window.dispatchEvent(new HashChangeEvent("hashchange"));
  }
}

/** Ask the server whether it can be reached again (a HEAD of the page: any answer will do;
 * the worker leaves a HEAD to the network). */
async function probe(): Promise<void> {
  if (!navigator.onLine) {
    update();
    return;
  }
  try {
    await fetch("/", { method: "HEAD", cache: "no-store" });
    reportNetwork(true);
  } catch {
    reportNetwork(false);
  }
  if (!serverReached) probeTimer = setTimeout(probe, PROBE_MS);
}

/** The table's live feed: "connecting" for longer than the grace period shows the banner. */
function watchLive(app: HTMLElement): void {
  const seen = () => {
    const connecting = app.dataset.live === "connecting";
    clearTimeout(liveTimer);
    if (!connecting) {
      if (liveReconnecting) {
        liveReconnecting = false;
        update();
      }
      return;
    }
    liveTimer = setTimeout(() => {
      liveReconnecting = app.dataset.live === "connecting";
      update();
    }, RECONNECT_GRACE_MS);
  };
  new MutationObserver(seen).observe(app, { attributes: true, attributeFilter: ["data-live"] });
}

/** The worker at the root; a worker of the old scope (push only) hands its subscription over
 * and goes. */
async function registerWorker(): Promise<void> {
  if (!("serviceWorker" in navigator) || !window.isSecureContext) return;
  await navigator.serviceWorker.register(SW_URL, { scope: SW_SCOPE });
  const old = await navigator.serviceWorker.getRegistration(OLD_SW_SCOPE);
  if (!old || old.scope !== new URL(OLD_SW_SCOPE, location.origin).href) return;
  const sub = await old.pushManager?.getSubscription();
  if (sub && signedIn() && "Notification" in window && Notification.permission === "granted") {
    const { subscriptions } = await api.pushSubscriptions();
    const known = subscriptions.find((s) => s.endpoint === sub.endpoint);
    await subscribe();
    if (known) await api.pushUnsubscribe(known.id);
  }
  await old.unregister();
}

/** At start-up: the banner follows the connection, the worker is registered. */
export function startOffline(): void {
  onNetwork(reportNetwork);
  window.addEventListener("online", () => {
    update();
    void probe();
  });
  window.addEventListener("offline", update);
  const app = document.getElementById("app");
  if (app) watchLive(app);
  update();
  registerWorker().catch(() => undefined); // no worker: the page works, only not offline
}
