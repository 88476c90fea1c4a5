// The service worker's caching (sw.ts), written against the few parts of the Cache API it uses
// so that it can be tested without a browser.
//
// The app shell (the page at /, the built script and styles, the manifest and the icons) is
// cached when the worker installs and served from the cache first, so the installed app opens
// offline. The API is the network's: a game's state holds the viewer's hand, so no /api/
// answer is ever stored, except the few that are the same for everybody and hold no game
// (the translations, the rules' explanations), which are fetched first and kept for offline.
// Anything else (the admin, the API's docs, the sign-in flows) is not touched.

/** The caches' names start with this; each shell version has its own. */
export const CACHE_PREFIX = "canasta-shell-";

/** GET answers of the API that hold no game and nobody's data: network first, else the cache. */
export const PUBLIC_API = ["/api/v1/i18n/catalog/", "/api/v1/rules/"] as const;

export type Strategy =
  | "shell" // a navigation to the page: the cached page, else the network
  | "cache-first" // a file of the shell
  | "network-first" // a public answer of the API
  | "network"; // left to the browser: never cached

export interface RequestLike {
  method: string;
  mode: string;
  url: string;
}

/** How the worker answers a request. */
export function strategyFor(request: RequestLike, origin: string, shell: ReadonlySet<string>): Strategy {
  if (request.method !== "GET") return "network";
  let url: URL;
  try {
    url = new URL(request.url);
  } catch {
    return "network";
  }
  if (url.origin !== origin) return "network";
  if (request.mode === "navigate") return url.pathname === "/" ? "shell" : "network";
  if (url.pathname.startsWith("/api/")) {
    return PUBLIC_API.some((prefix) => url.pathname === prefix) ? "network-first" : "network";
  }
  return shell.has(url.pathname) && !url.search ? "cache-first" : "network";
}

export interface CacheLike {
  match(request: RequestInfo | string, options?: { ignoreSearch?: boolean }): Promise<Response | undefined>;
  put(request: RequestInfo | string, response: Response): Promise<void>;
}

export interface CacheStorageLike {
  open(name: string): Promise<CacheLike>;
  keys(): Promise<string[]>;
  delete(name: string): Promise<boolean>;
}

export type Fetcher = (request: Request | string) => Promise<Response>;

export const cacheName = (version: string): string => `${CACHE_PREFIX}${version}`;

/** At install: fetch every file of the shell past the HTTP cache and store it. */
export async function cacheShell(caches: CacheStorageLike, version: string, files: readonly string[], fetcher: Fetcher, origin: string): Promise<void> {
  const cache = await caches.open(cacheName(version));
  await Promise.all(
    files.map(async (file) => {
      const response = await fetcher(new Request(new URL(file, origin), { cache: "reload", credentials: "same-origin" }));
      if (!response.ok) throw new Error(`${file}: ${response.status}`);
      await cache.put(file, response);
    }),
  );
}

/** At activation: drop the caches of older shells. */
export async function dropOldShells(caches: CacheStorageLike, version: string): Promise<void> {
  const keep = cacheName(version);
  const names = await caches.keys();
  await Promise.all(names.filter((name) => name.startsWith(CACHE_PREFIX) && name !== keep).map((name) => caches.delete(name)));
}

/** The cached copy (the page: whatever its query), else the network. */
export async function fromShell(caches: CacheStorageLike, version: string, request: Request, key: string, fetcher: Fetcher): Promise<Response> {
  const cache = await caches.open(cacheName(version));
  const hit = await cache.match(key, { ignoreSearch: key === "/" });
  return hit ?? fetcher(request);
}

/** The network, its good answers kept; offline, the last kept answer (else the error). */
export async function networkFirst(caches: CacheStorageLike, version: string, request: Request, fetcher: Fetcher): Promise<Response> {
  const cache = await caches.open(cacheName(version));
  try {
    const response = await fetcher(request);
    if (response.ok) await cache.put(request.url, response.clone());
    return response;
  } catch (err) {
    const hit = await cache.match(request.url);
    if (hit) return hit;
    throw err;
  }
}
