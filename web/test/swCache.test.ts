import { describe, expect, it } from "vitest";
import { CACHE_PREFIX, cacheName, cacheShell, dropOldShells, fromShell, networkFirst, strategyFor, type CacheLike, type CacheStorageLike } from "../src/swCache";
import { connectionState } from "../src/offline";

const ORIGIN = "https://canasta.example";
const SHELL = new Set(["/", "/manifest.webmanifest", "/static/client/app.js", "/static/client/index.css", "/static/client/icons/icon-192.png"]);
const req = (url: string, mode = "no-cors", method = "GET") => ({ url: `${ORIGIN}${url}`, mode, method });

class FakeCache implements CacheLike {
  store = new Map<string, Response>();
  async match(request: RequestInfo | string, options?: { ignoreSearch?: boolean }): Promise<Response | undefined> {
    const key = String(request);
    const found = this.store.get(options?.ignoreSearch ? key.split("?")[0] : key);
    return found?.clone();
  }
  async put(request: RequestInfo | string, response: Response): Promise<void> {
    this.store.set(String(request), response);
  }
}

class FakeCaches implements CacheStorageLike {
  caches = new Map<string, FakeCache>();
  async open(name: string): Promise<FakeCache> {
    if (!this.caches.has(name)) this.caches.set(name, new FakeCache());
    return this.caches.get(name)!;
  }
  async keys(): Promise<string[]> {
    return [...this.caches.keys()];
  }
  async delete(name: string): Promise<boolean> {
    return this.caches.delete(name);
  }
}

describe("the service worker's strategies", () => {
  it("serves a navigation to the page from the shell, leaves other pages to the network", () => {
    expect(strategyFor(req("/", "navigate"), ORIGIN, SHELL)).toBe("shell");
    expect(strategyFor(req("/?from=push", "navigate"), ORIGIN, SHELL)).toBe("shell");
    expect(strategyFor(req("/admin/", "navigate"), ORIGIN, SHELL)).toBe("network");
    expect(strategyFor(req("/api/docs/", "navigate"), ORIGIN, SHELL)).toBe("network");
  });

  it("serves the shell's files from the cache first", () => {
    expect(strategyFor(req("/static/client/app.js"), ORIGIN, SHELL)).toBe("cache-first");
    expect(strategyFor(req("/manifest.webmanifest"), ORIGIN, SHELL)).toBe("cache-first");
    expect(strategyFor(req("/static/client/other.js"), ORIGIN, SHELL)).toBe("network");
    expect(strategyFor(req("/static/admin/css/base.css"), ORIGIN, SHELL)).toBe("network");
  });

  it("never caches the API's game state, only its public translations and rules", () => {
    for (const path of ["/api/v1/games/3/", "/api/v1/games/3/events/?after=2", "/api/v1/players/me/", "/api/v1/games/3/replay/?at=4"]) {
      expect(strategyFor(req(path), ORIGIN, SHELL)).toBe("network");
    }
    expect(strategyFor(req("/api/v1/i18n/catalog/?lang=es"), ORIGIN, SHELL)).toBe("network-first");
    expect(strategyFor(req("/api/v1/rules/"), ORIGIN, SHELL)).toBe("network-first");
    expect(strategyFor(req("/api/v1/rules/", "cors", "POST"), ORIGIN, SHELL)).toBe("network");
  });

  it("leaves writes and other origins alone", () => {
    expect(strategyFor(req("/", "navigate", "POST"), ORIGIN, SHELL)).toBe("network");
    expect(strategyFor({ url: "https://push.example/app.js", mode: "cors", method: "GET" }, ORIGIN, SHELL)).toBe("network");
  });
});

describe("the service worker's caches", () => {
  it("caches the shell at install, answers from it offline and drops older shells", async () => {
    const caches = new FakeCaches();
    await caches.open(`${CACHE_PREFIX}old`);
    const fetched: string[] = [];
    await cacheShell(caches, "v2", ["/", "/static/client/app.js"], async (r) => {
      const url = typeof r === "string" ? r : new URL(r.url).pathname;
      fetched.push(url);
      return new Response(`body of ${url}`);
    }, ORIGIN);
    expect(fetched.sort()).toEqual(["/", "/static/client/app.js"]);
    await dropOldShells(caches, "v2");
    expect(await caches.keys()).toEqual([cacheName("v2")]);
    const offline = async (): Promise<Response> => {
      throw new TypeError("offline");
    };
    const page = await fromShell(caches, "v2", new Request(`${ORIGIN}/?x=1`), "/", offline);
    expect(await page.text()).toBe("body of /");
  });

  it("refuses to install a shell with a missing file", async () => {
    const caches = new FakeCaches();
    await expect(cacheShell(caches, "v3", ["/gone.js"], async () => new Response("", { status: 404 }), ORIGIN)).rejects.toThrow("404");
  });

  it("keeps a public answer for offline, never an error", async () => {
    const caches = new FakeCaches();
    const url = `${ORIGIN}/api/v1/rules/`;
    const first = await networkFirst(caches, "v1", new Request(url), async () => new Response("rules"));
    expect(await first.text()).toBe("rules");
    await networkFirst(caches, "v1", new Request(url), async () => new Response("down", { status: 500 }));
    const offline = await networkFirst(caches, "v1", new Request(url), async () => {
      throw new TypeError("offline");
    });
    expect(await offline.text()).toBe("rules");
    await expect(
      networkFirst(caches, "v1", new Request(`${ORIGIN}/api/v1/i18n/catalog/?lang=de`), async () => {
        throw new TypeError("offline");
      }),
    ).rejects.toThrow("offline");
  });
});

describe("the connection banner", () => {
  it("says offline first, then an unreachable server, then a reconnecting table", () => {
    expect(connectionState(false, false, true)).toBe("offline");
    expect(connectionState(true, false, true)).toBe("unreachable");
    expect(connectionState(true, true, true)).toBe("reconnecting");
    expect(connectionState(true, true, false)).toBe("online");
  });
});
