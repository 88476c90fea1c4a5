// The service worker (built to /static/client/sw.js): shows what the server pushes and opens
// the game when the notification is clicked (swHandlers.ts). Written without the webworker
// lib (it cannot share a program with the DOM's), so the few parts used are typed here.
import { onClick, onPush, type ClientsLike, type Registration } from "./swHandlers";

interface ExtendableEvent extends Event {
  waitUntil(promise: Promise<unknown>): void;
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
  skipWaiting(): Promise<void>;
  addEventListener(type: "install" | "activate", listener: (event: ExtendableEvent) => void): void;
  addEventListener(type: "push", listener: (event: PushEvent) => void): void;
  addEventListener(type: "notificationclick", listener: (event: NotificationEvent) => void): void;
}

const worker = self as unknown as WorkerScope;
const origin = worker.location.origin;

worker.addEventListener("install", (event) => event.waitUntil(worker.skipWaiting()));
worker.addEventListener("activate", (event) => event.waitUntil(worker.clients.claim()));
worker.addEventListener("push", (event) => {
  event.waitUntil(onPush(worker.registration, event.data ? event.data.text() : null, origin));
});
worker.addEventListener("notificationclick", (event) => {
  event.notification.close();
  event.waitUntil(onClick(worker.clients, event.notification.data?.url ?? `${origin}/`, origin));
});
