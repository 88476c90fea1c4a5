import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { type ActionResult, ApiError, type GameEvent, type TableEvent } from "../src/api";
import {
  actionBody,
  backoffMs,
  type Cursor,
  cursorText,
  frameMessage,
  LiveFeed,
  LiveLost,
  type LiveOwner,
  parseCursor,
  rememberTransport,
  SseParser,
  type SocketLike,
  type Transport,
} from "../src/live";

// ------------------------------------------------------------------------------ fakes
class FakeSocket implements SocketLike {
  readyState = 0;
  sent: Record<string, unknown>[] = [];
  closed: number | null = null;
  onopen: ((ev: unknown) => void) | null = null;
  onmessage: ((ev: { data: unknown }) => void) | null = null;
  onclose: ((ev: { code: number }) => void) | null = null;
  onerror: ((ev: unknown) => void) | null = null;
  constructor(readonly url: string) {}
  send(data: string): void {
    this.sent.push(JSON.parse(data));
  }
  close(code = 1000): void {
    this.closed = code;
    this.readyState = 3;
  }
  open(): void {
    this.readyState = 1;
    this.onopen?.({});
  }
  push(msg: Record<string, unknown>): void {
    this.onmessage?.({ data: JSON.stringify(msg) });
  }
  /** The server closes (or the upgrade failed: a close without open). */
  drop(code = 1006): void {
    this.readyState = 3;
    this.onclose?.({ code });
  }
}

const ev = (seq: number): GameEvent =>
  ({ seq, type: "draw", seat: 1, source: "bot", created_at: "", payload: { type: "draw" }, effects: [] }) as GameEvent;
const tev = (seq: number): TableEvent =>
  ({ seq, kind: "chat", seat: 1, player: null, data: { phrase: "hi" }, created_at: "" }) as TableEvent;
const gameMsg = (seq: number, table = 0) => ({ type: "game_event", id: `${seq}-${table}`, version: seq, event: ev(seq) });

/** A page that applies what the feed gives it and records it. */
class Page implements LiveOwner {
  moves: number[] = [];
  table: number[] = [];
  resyncs = 0;
  ends = 0;
  fellBacks = 0;
  seen: (Transport | null)[] = [];
  /** What a resync's GET brings (the game's version). */
  versionOnServer = 0;
  constructor(public pos: Cursor) {}
  position = () => ({ ...this.pos });
  gameEvent = (e: GameEvent) => {
    this.moves.push(e.seq);
    this.pos.move = e.seq;
  };
  tableEvent = (e: TableEvent) => {
    this.table.push(e.seq);
    this.pos.table = e.seq;
  };
  resync = async () => {
    this.resyncs++;
    for (let s = this.pos.move + 1; s <= this.versionOnServer; s++) this.gameEvent(ev(s));
  };
  ended = () => {
    this.ends++;
  };
  fellBack = () => {
    this.fellBacks++;
  };
  connected = (t: Transport | null) => {
    this.seen.push(t);
  };
}

function setup(pos: Cursor = { move: 0, table: 0 }, start: Transport = "socket") {
  const page = new Page(pos);
  const sockets: FakeSocket[] = [];
  const requests: { url: string; headers: Record<string, string> }[] = [];
  let streamBodies: string[][] = [];
  const fetchImpl = vi.fn(async (url: string, init: RequestInit) => {
    requests.push({ url, headers: init.headers as Record<string, string> });
    const chunks = streamBodies.shift();
    if (!chunks) return new Response("not found", { status: 404 });
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        for (const c of chunks) controller.enqueue(new TextEncoder().encode(c));
        controller.close();
      },
    });
    return new Response(body, { headers: { "Content-Type": "text/event-stream; charset=utf-8" } });
  });
  const feed = new LiveFeed(page, {
    gameId: 7,
    token: () => "k3y",
    socketUrl: (path) => `ws://test/api/v1${path}`,
    openSocket: (url) => {
      const s = new FakeSocket(url);
      sockets.push(s);
      return s;
    },
    fetch: fetchImpl as unknown as typeof fetch,
    start,
  });
  return {
    page,
    feed,
    sockets,
    requests,
    streams: (bodies: string[][]) => {
      streamBodies = bodies;
    },
    last: () => sockets[sockets.length - 1],
  };
}

const settle = () => vi.advanceTimersByTimeAsync(0);

beforeEach(() => {
  vi.useFakeTimers();
  rememberTransport("socket");
});
afterEach(() => {
  vi.useRealTimers();
});

// ------------------------------------------------------------------------------ pure parts
describe("cursors and backoff", () => {
  it("parses and writes cursors", () => {
    expect(parseCursor("12-3")).toEqual({ move: 12, table: 3 });
    expect(parseCursor("12")).toBeNull();
    expect(parseCursor(null)).toBeNull();
    expect(cursorText({ move: 0, table: 4 })).toBe("0-4");
  });
  it("backs off 1 s, 2 s, 4 s ... at most 30 s", () => {
    expect([0, 1, 2, 3, 4, 5, 6, 10].map(backoffMs)).toEqual([1000, 2000, 4000, 8000, 16000, 30000, 30000, 30000]);
  });
});

describe("SseParser", () => {
  it("reads frames split anywhere, with comments, CRLF and multi-line data", () => {
    const p = new SseParser();
    const text =
      "retry: 2000\r\n\r\nevent: sync\r\ndata: {\"version\":3,\r\ndata: \"cursor\":\"3-0\",\"resumed\":false}\r\n\r\n" +
      ": keep-alive\n\nid: 4-0\nevent: game_event\ndata:{\"version\":4}\n\n";
    const frames = [];
    for (let i = 0; i < text.length; i += 7) frames.push(...p.push(text.slice(i, i + 7)));
    expect(p.retry).toBe(2000);
    expect(p.comments).toBe(1);
    expect(frames).toEqual([
      { event: "sync", data: '{"version":3,\n"cursor":"3-0","resumed":false}', id: null },
      { event: "game_event", data: '{"version":4}', id: "4-0" },
    ]);
  });
  it("handles a CR at the end of one chunk and an LF at the start of the next", () => {
    const p = new SseParser();
    expect(p.push("data: a\r")).toEqual([]);
    expect(p.push("\n\r")).toEqual([{ event: "message", data: "a", id: null }]);
    expect(p.push("\ndata: b\n\n")).toEqual([{ event: "message", data: "b", id: null }]);
  });
  it("turns stream frames into the socket's messages", () => {
    expect(frameMessage({ event: "game_event", data: '{"version":4,"event":{"seq":4}}', id: "4-1" })).toEqual({
      type: "game_event",
      id: "4-1",
      version: 4,
      event: { seq: 4 },
    });
    expect(frameMessage({ event: "message", data: "{}", id: null })).toBeNull();
    expect(frameMessage({ event: "sync", data: "not json", id: null })).toBeNull();
  });
});

describe("actionBody", () => {
  it("gives a 2xx body and throws the problem of a refusal", () => {
    const body = { event: ev(3), game: { version: 3 } } as unknown as ActionResult;
    expect(actionBody({ type: "action_result", request_id: "a", status: 201, replayed: false, body })).toBe(body);
    const problem = { type: "x", title: "Stale", status: 409, detail: "d", code: "stale_version" };
    try {
      actionBody({ type: "action_result", request_id: "a", status: 409, replayed: false, body: problem });
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(ApiError);
      expect((err as ApiError).code).toBe("stale_version");
    }
  });
});

// ------------------------------------------------------------------------------ the socket
describe("LiveFeed over the socket", () => {
  it("opens at the page's cursor, authenticates, applies moves in order once", async () => {
    const t = setup({ move: 5, table: 2 });
    t.feed.start();
    const s = t.last();
    expect(s.url).toBe("ws://test/api/v1/games/7/socket/?cursor=5-2");
    s.open();
    expect(s.sent).toEqual([{ type: "auth", token: "k3y" }]);
    s.push({ type: "sync", version: 6, cursor: "5-2", resumed: true });
    s.push(gameMsg(5, 2)); // already applied
    s.push(gameMsg(6, 2));
    s.push({ type: "table_event", id: "6-2", version: 6, table_seq: 2, event: tev(2) }); // had it
    s.push({ type: "table_event", id: "6-4", version: 6, table_seq: 4, event: tev(4) }); // 3 muted
    s.push({ type: "heartbeat", at: "now" });
    s.push(gameMsg(7, 4));
    await settle();
    expect(t.page.moves).toEqual([6, 7]);
    expect(t.page.table).toEqual([4]);
    expect(t.page.resyncs).toBe(0);
    expect(t.page.seen).toEqual(["socket"]);
  });

  it("resyncs on a gap, then drops what the resync already brought", async () => {
    const t = setup({ move: 3, table: 0 });
    t.feed.start();
    const s = t.last();
    s.open();
    s.push({ type: "sync", version: 3, cursor: "3-0", resumed: true });
    t.page.versionOnServer = 6;
    s.push(gameMsg(6)); // 4 and 5 missing: GET brings 4..6
    s.push(gameMsg(7));
    await settle();
    expect(t.page.resyncs).toBe(1);
    expect(t.page.moves).toEqual([4, 5, 6, 7]);

    t.page.versionOnServer = 8; // the GET lags behind the pushed event: nothing is skipped
    s.push(gameMsg(10));
    await settle();
    expect(t.page.resyncs).toBe(2);
    expect(t.page.moves).toEqual([4, 5, 6, 7, 8]);
    s.drop();
    await vi.advanceTimersByTimeAsync(1000);
    expect(t.last().url).toContain("cursor=8-0"); // resumes before the missing 9
  });

  it("reconnects with backoff, resuming from the last id received", async () => {
    const t = setup({ move: 1, table: 0 });
    t.feed.start();
    let s = t.last();
    s.open();
    s.push({ type: "sync", version: 1, cursor: "1-0", resumed: true });
    s.push(gameMsg(2, 0));
    s.push({ type: "table_event", id: "2-3", version: 2, table_seq: 3, event: tev(3) });
    await settle();
    s.drop(1011);
    expect(t.sockets).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(999);
    expect(t.sockets).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    s = t.last();
    expect(t.sockets).toHaveLength(2);
    expect(s.url).toContain("cursor=2-3");
    // Failures of a transport that did sync before never give it up: 2 s, 4 s, 8 s...
    for (const delay of [2000, 4000, 8000, 16000, 30000, 30000]) {
      t.last().drop();
      await vi.advanceTimersByTimeAsync(delay - 1);
      const count = t.sockets.length;
      await vi.advanceTimersByTimeAsync(1);
      expect(t.sockets.length).toBe(count + 1);
    }
    t.last().open();
    t.last().push({ type: "sync", version: 2, cursor: "2-3", resumed: true });
    t.last().drop();
    await vi.advanceTimersByTimeAsync(1000); // a sync starts the backoff again
    expect(t.sockets).toHaveLength(9);
    expect(t.requests).toHaveLength(0);
  });

  it("reconnects when nothing, not even a heartbeat, comes for 45 s", async () => {
    const t = setup();
    t.feed.start();
    t.last().open();
    t.last().push({ type: "sync", version: 0, cursor: "0-0", resumed: false });
    await vi.advanceTimersByTimeAsync(30_000);
    t.last().push({ type: "heartbeat", at: "now" });
    await vi.advanceTimersByTimeAsync(44_000);
    expect(t.sockets).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1000);
    expect(t.sockets[0].closed).toBe(4000);
    await vi.advanceTimersByTimeAsync(1000);
    expect(t.sockets).toHaveLength(2);
  });

  it("stops at the end", async () => {
    const t = setup();
    t.feed.start();
    const s = t.last();
    s.open();
    s.push({ type: "sync", version: 1, cursor: "0-0", resumed: false });
    s.push(gameMsg(1));
    s.push({ type: "end", version: 1, cursor: "1-0" });
    await settle();
    s.drop(1000);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(t.page.moves).toEqual([1]);
    expect(t.page.ends).toBe(1);
    expect(t.sockets).toHaveLength(1);
  });

  it("sends actions over the open socket and hands back their result", async () => {
    const t = setup();
    t.feed.start();
    expect(t.feed.act({ action: { type: "draw" }, expected_version: 0 })).toBeNull(); // not open
    const s = t.last();
    s.open();
    expect(t.feed.act({ action: { type: "draw" }, expected_version: 0 })).toBeNull(); // not synced
    s.push({ type: "sync", version: 4, cursor: "0-0", resumed: false });
    const answer = t.feed.act({ action: { type: "draw" }, expected_version: 4, idempotency_key: "key1" });
    expect(s.sent[1]).toEqual({
      type: "action",
      request_id: "a1",
      action: { type: "draw" },
      expected_version: 4,
      idempotency_key: "key1",
    });
    s.push({ type: "action_result", request_id: "zzz", status: 201, replayed: false, body: {} });
    s.push({ type: "action_result", request_id: "a1", status: 409, replayed: false, body: { code: "stale_version" } });
    await expect(answer).resolves.toMatchObject({ request_id: "a1", status: 409 });

    const lost = t.feed.act({ action: { type: "draw" }, expected_version: 4 });
    s.drop();
    await expect(lost).rejects.toBeInstanceOf(LiveLost);
  });

  it("answers a server error message with the problem", async () => {
    const t = setup();
    t.feed.start();
    const s = t.last();
    s.open();
    s.push({ type: "sync", version: 0, cursor: "0-0", resumed: false });
    const answer = t.feed.act({ action: { type: "draw" }, expected_version: 0 });
    s.push({
      type: "error",
      problem: { type: "x", code: "invalid_request", title: "Bad", detail: "Unreadable", status: 400 },
    });
    await expect(answer).rejects.toMatchObject({ status: 400, code: "invalid_request" });
    await expect(answer).rejects.toBeInstanceOf(ApiError);
  });
});

// ------------------------------------------------------------------------------ fallbacks
describe("LiveFeed falls back", () => {
  it("to the stream after two socket failures before any sync, then long-polls when streams are not held", async () => {
    const t = setup({ move: 2, table: 1 });
    const sse = (seq: number) => `id: ${seq}-1\nevent: game_event\ndata: {"version":${seq},"event":${JSON.stringify(ev(seq))}}\n\n`;
    t.streams([
      ['retry: 2000\n\nevent: sync\ndata: {"version":3,"cursor":"2-1","resumed":true}\n\n', sse(3)],
      ['event: sync\ndata: {"version":3,"cursor":"3-1","resumed":true}\n\n'],
    ]);
    t.feed.start();
    t.last().drop(); // the upgrade failed (a WSGI server: 404)
    await vi.advanceTimersByTimeAsync(1000);
    expect(t.sockets).toHaveLength(2);
    t.last().drop();
    await settle();
    expect(t.feed.transport).toBe("stream");
    expect(t.requests[0]).toEqual({
      url: "/api/v1/games/7/stream/",
      headers: { Accept: "text/event-stream", "Last-Event-ID": "2-1", Authorization: "Token k3y" },
    });
    expect(t.page.moves).toEqual([3]);
    expect(t.page.seen).toContain("stream");
    // That stream closed at once without `end`: once more after 1 s, then the long-poll.
    await vi.advanceTimersByTimeAsync(1000);
    expect(t.requests[1].headers["Last-Event-ID"]).toBe("3-1");
    await settle();
    expect(t.feed.transport).toBe("poll");
    expect(t.page.fellBacks).toBe(1);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(t.requests).toHaveLength(2);
    expect(t.sockets).toHaveLength(2);

    // The next table on this page starts where the last one ended up.
    const again = new LiveFeed(new Page({ move: 0, table: 0 }), { gameId: 8, token: () => null, socketUrl: (p) => p });
    expect(again.transport).toBe("poll");
  });

  it("to the long-poll when the stream is refused too", async () => {
    const t = setup({ move: 0, table: 0 }, "stream");
    t.feed.start();
    await settle();
    expect(t.requests).toHaveLength(1);
    expect(t.page.fellBacks).toBe(0);
    await vi.advanceTimersByTimeAsync(1000);
    expect(t.requests).toHaveLength(2);
    expect(t.page.fellBacks).toBe(1);
    expect(t.sockets).toHaveLength(0);
  });

  it("not after a socket that synced once", async () => {
    const t = setup();
    t.feed.start();
    t.last().open();
    t.last().push({ type: "sync", version: 0, cursor: "0-0", resumed: false });
    for (let i = 0; i < 4; i++) {
      t.last().drop();
      await vi.advanceTimersByTimeAsync(30_000);
    }
    expect(t.feed.transport).toBe("socket");
    expect(t.requests).toHaveLength(0);
  });
});
