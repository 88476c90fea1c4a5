// The service worker, served at /sw.js (scope /, so it controls the page at /; built to
// /static/client/sw.js): caches the app shell at install and answers from it, so the installed
// app opens offline (swCache.ts: the API is never cached but for the public translations and
// rules); shows what the server pushes and opens the game when the notification is clicked
// (swHandlers.ts). Written without the webworker lib (it cannot share a program with the
// DOM's), so the few parts used are typed here.
import { cacheShell, dropOldShells, fromShell, networkFirst, strategyFor, type CacheStorageLike } from "./swCache";
import { onClick, onPush, type ClientsLike, type Registration } from "./swHandlers";

// The build (appShell.ts) writes the shell's files and their version in place of these names.
declare const __SHELL_FILES__: string[];
declare const __SHELL_VERSION__: string;

interface ExtendableEvent extends Event {
  waitUntil(promise: Promise<unknown>): void;
}
interface FetchEvent extends ExtendableEvent {
  request: Request;
  respondWith(response: Promise<Response>): void;
}
interface PushEvent extends ExtendableEvent {
  data: { text(): string } | null;
}
interface NotificationEvent extends ExtendableEvent {
  notification: { data?: { url?: string }; close(): void };
}
interface WorkerScope {
  location: Location;
  registration: Registration;
  clients: ClientsLike & { claim(): Promise<void> };
  caches: CacheStorageLike;
  fetch(request: Request | string): Promise<Response>;
  skipWaiting(): Promise<void>;
  addEventListener(type: "install" | "activate", listener: (event: ExtendableEvent) => void): void;
  addEventListener(type: "fetch", listener: (event: FetchEvent) => void): void;
  addEventListener(type: "push", listener: (event: PushEvent) => void): void;
  addEventListener(type: "notificationclick", listener: (event: NotificationEvent) => void): void;
}

const worker = self as unknown as WorkerScope;
const origin = worker.location.origin;
const VERSION = __SHELL_VERSION__;
const FILES = __SHELL_FILES__;
const SHELL = new Set(FILES);
const fetcher = (request: Request | string) => worker.fetch(request);

worker.addEventListener("install", (event) => {
  event.waitUntil(cacheShell(worker.caches, VERSION, FILES, fetcher, origin).then(() => worker.skipWaiting()));
});
worker.addEventListener("activate", (event) => {
  event.waitUntil(dropOldShells(worker.caches, VERSION).then(() => worker.clients.claim()));
});
worker.addEventListener("fetch", (event) => {
  const request = event.request;
  const strategy = strategyFor(request, origin, SHELL);
  if (strategy === "shell") event.respondWith(fromShell(worker.caches, VERSION, request, "/", fetcher));
  else if (strategy === "cache-first") event.respondWith(fromShell(worker.caches, VERSION, request, new URL(request.url).pathname, fetcher));
  else if (strategy === "network-first") event.respondWith(networkFirst(worker.caches, VERSION, request, fetcher));
  // "network": not answered here, the browser fetches it as if there were no worker.
});
worker.addEventListener("push", (event) => {
  event.waitUntil(onPush(worker.registration, event.data ? event.data.text() : null, origin));
});
worker.addEventListener("notificationclick", (event) => {
  event.notification.close();
  event.waitUntil(onClick(worker.clients, event.notification.data?.url ?? `${origin}/`, origin));
});
