// Following a game as it is played (docs/live.md): the WebSocket first; the Server-Sent Events
// stream (read with fetch, so that the token travels in a header) when the socket cannot be
// opened; the caller's long-poll when neither can. The messages' types come from the OpenAPI
// schema (components LiveServerMessage, LiveClientMessageRequest).
import {
  type ActionMessage,
  type ActionResult,
  type ActionResultMessage,
  ApiError,
  type EndMessage,
  type GameEvent,
  type GameEventMessage,
  type LiveClientMessage,
  type LiveServerMessage,
  type Problem,
  type TableEvent,
  type TableEventMessage,
} from "./api";
import { gettext } from "./i18n";

// ------------------------------------------------------------------------------ positions
/** What a client has received: the move log's `seq` and the table events' `table_seq`. */
export interface Cursor {
  move: number;
  table: number;
}

/** `"12-3"` → `{move: 12, table: 3}`; anything else → null. */
export function parseCursor(text: string | null | undefined): Cursor | null {
  const m = /^(\d+)-(\d+)$/.exec(text ?? "");
  return m ? { move: Number(m[1]), table: Number(m[2]) } : null;
}

export const cursorText = (c: Cursor): string => `${c.move}-${c.table}`;

const later = (a: Cursor, b: Cursor): Cursor => ({
  move: Math.max(a.move, b.move),
  table: Math.max(a.table, b.table),
});

/** An action's answer as the HTTP POST gives it: the body of a 2xx, else an ApiError. */
export function actionBody(result: ActionResultMessage): ActionResult {
  if (result.status >= 200 && result.status < 300) return result.body as ActionResult;
  throw new ApiError(result.status, asProblem(result.body, result.status));
}

function asProblem(body: unknown, status: number): Problem {
  if (body && typeof body === "object" && "code" in body) return body as Problem;
  return { type: "about:blank", title: gettext("Refused"), status, detail: gettext("Refused"), code: "http_error" };
}

// ------------------------------------------------------------------------------ SSE
export interface SseFrame {
  event: string;
  data: string;
  /** The frame's own `id:` line, if it had one. */
  id: string | null;
}

/** An incremental text/event-stream parser (the WHATWG rules: CR, LF or CRLF line ends,
 * `:` comments, `data` lines joined by LF, one leading space dropped from a value). */
export class SseParser {
  retry: number | null = null;
  comments = 0;
  private rest = "";
  private skipLf = false;
  private data: string[] = [];
  private event = "";
  private id: string | null = null;

  push(chunk: string): SseFrame[] {
    const out: SseFrame[] = [];
    let text = chunk;
    if (this.skipLf && text.startsWith("\n")) text = text.slice(1);
    this.skipLf = false;
    const buf = this.rest + text;
    let start = 0;
    for (let i = 0; i < buf.length; i++) {
      const c = buf[i];
      if (c !== "\r" && c !== "\n") continue;
      this.line(buf.slice(start, i), out);
      if (c === "\r") {
        if (i + 1 === buf.length) this.skipLf = true;
        else if (buf[i + 1] === "\n") i++;
      }
      start = i + 1;
    }
    this.rest = buf.slice(start);
    return out;
  }

  private line(line: string, out: SseFrame[]): void {
    if (line === "") {
      if (this.data.length) out.push({ event: this.event || "message", data: this.data.join("\n"), id: this.id });
      this.data = [];
      this.event = "";
      this.id = null;
      return;
    }
    if (line.startsWith(":")) {
      this.comments++;
      return;
    }
    const colon = line.indexOf(":");
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (field === "data") this.data.push(value);
    else if (field === "event") this.event = value;
    else if (field === "id" && !value.includes("\0")) this.id = value;
    else if (field === "retry" && /^\d+$/.test(value)) this.retry = Number(value);
  }
}

const STREAM_FRAMES = new Set(["sync", "game_event", "table_event", "end"]);

/** A stream frame as the socket's message of the same type (null for anything else). */
export function frameMessage(frame: SseFrame): LiveServerMessage | null {
  if (!STREAM_FRAMES.has(frame.event)) return null;
  let data: unknown;
  try {
    data = JSON.parse(frame.data);
  } catch {
    return null;
  }
  if (!data || typeof data !== "object") return null;
  const msg = { ...(data as object), type: frame.event } as Record<string, unknown>;
  if (frame.id !== null) msg.id = frame.id;
  return msg as unknown as LiveServerMessage;
}

// ------------------------------------------------------------------------------ the feed
export type Transport = "socket" | "stream" | "poll";

/** What the feed needs from the page: where it stands, and what to do with news. */
export interface LiveOwner {
  /** The last move seq and table seq applied (the feed resumes after them). */
  position(): Cursor;
  /** The next move (its seq is position().move + 1). */
  gameEvent(event: GameEvent): void | Promise<void>;
  /** A table event after position().table (table seqs may skip: muted chat is left out). */
  tableEvent(event: TableEvent): void | Promise<void>;
  /** A move arrived out of order: read the game and the log again (GET), then go on. */
  resync(): Promise<void>;
  /** The game is over and everything was sent. */
  ended(): void;
  /** Neither the socket nor the stream can be opened here: long-poll instead. */
  fellBack(): void;
  /** Connected (after the server's `sync`) on a transport, or lost (null). */
  connected?(transport: Transport | null): void;
}

/** The part of the browser's WebSocket the feed uses (a fake one in the unit tests). */
export interface SocketLike {
  readyState: number;
  send(data: string): void;
  close(code?: number, reason?: string): void;
  onopen: ((ev: unknown) => void) | null;
  onmessage: ((ev: { data: unknown }) => void) | null;
  onclose: ((ev: { code: number }) => void) | null;
  onerror: ((ev: unknown) => void) | null;
}

export interface LiveOptions {
  gameId: number;
  token: () => string | null;
  /** The socket's URL for an API path (`/games/1/socket/?cursor=..`): ws(s)://host/api/v1... */
  socketUrl: (path: string) => string;
  openSocket?: (url: string) => SocketLike;
  fetch?: typeof fetch;
  /** Where to start (default: what last worked on this page). */
  start?: Transport;
}

export const BACKOFF_FIRST_MS = 1000;
export const BACKOFF_MAX_MS = 30_000;
/** Consecutive failures before any `sync` after which a transport is given up. */
export const FAILURES_TO_FALL_BACK = 2;
/** A stream closed this soon without `end` was not held open (a WSGI server sends what there
 * is and closes); two in a row and the feed long-polls instead. */
export const SHORT_STREAM_MS = 5000;
/** Nothing received for this long (heartbeats come every 15 s): reconnect. */
export const IDLE_MS = 45_000;
export const ACTION_TIMEOUT_MS = 15_000;
const OPEN = 1;

/** Reconnect delays: 1 s, 2 s, 4 s ... at most 30 s. */
export function backoffMs(attempt: number): number {
  return Math.min(BACKOFF_MAX_MS, BACKOFF_FIRST_MS * 2 ** Math.max(0, attempt));
}

/** What worked last on this page, so that the next table starts there. */
let remembered: Transport = "socket";
export function rememberedTransport(): Transport {
  return remembered;
}
export function rememberTransport(t: Transport): void {
  remembered = t;
}

/** The socket closed, or did not answer, before an action's result came. */
export class LiveLost extends Error {}

interface Waiting {
  resolve: (msg: ActionResultMessage) => void;
  reject: (err: Error) => void;
  timer: ReturnType<typeof setTimeout>;
}

/** Follows one game over the socket or the stream: resumes after what the owner has, applies
 * events in order (a gap resyncs), reconnects with backoff, falls back as described above. */
export class LiveFeed {
  transport: Transport;
  /** Reconnections planned so far since the last `sync` (the backoff's exponent). */
  attempt = 0;
  private stopped = false;
  private finished = false;
  private synced = false;
  private everSynced = false;
  private failures = 0;
  private shortStreams = 0;
  private lastId: Cursor = { move: 0, table: 0 };
  private socket: SocketLike | null = null;
  private aborter: AbortController | null = null;
  private retryTimer: ReturnType<typeof setTimeout> | undefined;
  private idleTimer: ReturnType<typeof setTimeout> | undefined;
  private queue: Promise<void> = Promise.resolve();
  private waiting = new Map<string, Waiting>();
  private requests = 0;

  constructor(
    private readonly owner: LiveOwner,
    private readonly opts: LiveOptions,
  ) {
    this.transport = opts.start ?? remembered;
  }

  start(): void {
    if (this.transport === "poll") {
      this.stopped = true;
      this.owner.fellBack();
      return;
    }
    this.connect();
  }

  /** Closes the connection; nothing is applied afterwards. */
  stop(): void {
    this.stopped = true;
    this.disconnect();
  }

  /** True while an action can go over the socket. */
  get canAct(): boolean {
    return this.socket !== null && this.synced && this.socket.readyState === OPEN;
  }

  /** Sends an action over the socket and resolves with its `action_result`; null when the
   * socket is not open (send it over HTTP). Rejects with LiveLost if the socket goes away
   * first (send it over HTTP with the same idempotency key), or with an ApiError for a
   * message the server could not read. */
  act(msg: Omit<ActionMessage, "type" | "request_id">): Promise<ActionResultMessage> | null {
    const ws = this.socket;
    if (!ws || !this.canAct) return null;
    const request_id = `a${++this.requests}`;
    return new Promise<ActionResultMessage>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiting.delete(request_id);
        reject(new LiveLost("no answer on the socket"));
      }, ACTION_TIMEOUT_MS);
      this.waiting.set(request_id, { resolve, reject, timer });
      this.send(ws, { type: "action", request_id, ...msg });
    });
  }

  // ---------------------------------------------------------------------------- connecting
  private cursor(): Cursor {
    return later(this.owner.position(), this.lastId);
  }

  private connect(): void {
    if (this.stopped) return;
    this.synced = false;
    if (this.transport === "socket") this.openSocket();
    else if (this.transport === "stream") void this.openStream();
  }

  private disconnect(): void {
    clearTimeout(this.retryTimer);
    clearTimeout(this.idleTimer);
    const ws = this.socket;
    this.socket = null;
    if (ws) {
      try {
        ws.close(1000);
      } catch {
        /* already closed */
      }
    }
    this.aborter?.abort();
    this.aborter = null;
    this.failWaiting(new LiveLost("closed"));
  }

  private openSocket(): void {
    const url = this.opts.socketUrl(`/games/${this.opts.gameId}/socket/?cursor=${cursorText(this.cursor())}`);
    let ws: SocketLike;
    try {
      ws = (this.opts.openSocket ?? ((u: string) => new WebSocket(u) as unknown as SocketLike))(url);
    } catch {
      this.dropped();
      return;
    }
    this.socket = ws;
    this.watch();
    ws.onopen = () => {
      const key = this.opts.token();
      if (key && this.socket === ws) this.send(ws, { type: "auth", token: key });
    };
    ws.onmessage = (ev) => {
      if (this.socket !== ws) return;
      let msg: LiveServerMessage;
      try {
        msg = JSON.parse(String(ev.data)) as LiveServerMessage;
      } catch {
        return;
      }
      this.receive(msg);
    };
    ws.onerror = () => undefined; // a close follows
    ws.onclose = () => {
      if (this.socket !== ws) return;
      this.socket = null;
      this.dropped();
    };
  }

  private send(ws: SocketLike, msg: LiveClientMessage): void {
    try {
      ws.send(JSON.stringify(msg));
    } catch {
      /* closing: onclose follows */
    }
  }

  private async openStream(): Promise<void> {
    const aborter = new AbortController();
    this.aborter = aborter;
    const opened = Date.now();
    const headers: Record<string, string> = {
      Accept: "text/event-stream",
      "Last-Event-ID": cursorText(this.cursor()),
    };
    const key = this.opts.token();
    if (key) headers.Authorization = `Token ${key}`;
    this.watch();
    try {
      const res = await (this.opts.fetch ?? fetch)(`/api/v1/games/${this.opts.gameId}/stream/`, {
        headers,
        signal: aborter.signal,
        cache: "no-store",
      });
      const kind = res.headers.get("Content-Type") ?? "";
      if (!res.ok || !res.body || !kind.startsWith("text/event-stream")) throw new Error(`stream: ${res.status}`);
      const reader = res.body.getReader();
      const decoder = new TextDecoder();
      const parser = new SseParser();
      for (;;) {
        const { done, value } = await reader.read();
        if (done || this.aborter !== aborter) break;
        this.watch();
        for (const frame of parser.push(decoder.decode(value, { stream: true }))) {
          const msg = frameMessage(frame);
          if (msg) this.receive(msg);
        }
      }
    } catch {
      /* refused, unreachable, or aborted */
    }
    if (this.aborter !== aborter) return; // stopped or replaced
    this.aborter = null;
    if (this.synced && !this.finished) {
      this.shortStreams = Date.now() - opened < SHORT_STREAM_MS ? this.shortStreams + 1 : 0;
      if (this.shortStreams >= FAILURES_TO_FALL_BACK) {
        this.fallBack();
        return;
      }
    }
    this.dropped();
  }

  /** Reconnect when nothing (not even a heartbeat) came for IDLE_MS. */
  private watch(): void {
    clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => {
      const ws = this.socket;
      if (ws) {
        this.socket = null;
        try {
          ws.close(4000);
        } catch {
          /* gone */
        }
        this.dropped();
      } else if (this.aborter) {
        const a = this.aborter;
        this.aborter = null;
        a.abort();
        this.dropped();
      }
    }, IDLE_MS);
  }

  /** The connection ended (or never opened): reconnect after the backoff, or fall back after
   * FAILURES_TO_FALL_BACK failures in a row on a transport that never synced. */
  private dropped(): void {
    clearTimeout(this.idleTimer);
    this.failWaiting(new LiveLost("the connection closed"));
    const wasSynced = this.synced;
    this.synced = false;
    if (this.stopped || this.finished) return;
    this.owner.connected?.(null);
    if (!wasSynced) {
      this.failures++;
      if (!this.everSynced && this.failures >= FAILURES_TO_FALL_BACK) {
        this.fallBack();
        return;
      }
    }
    const delay = backoffMs(this.attempt++);
    clearTimeout(this.retryTimer);
    this.retryTimer = setTimeout(() => this.connect(), delay);
  }

  private fallBack(): void {
    this.transport = this.transport === "socket" ? "stream" : "poll";
    remembered = this.transport;
    this.failures = 0;
    this.shortStreams = 0;
    this.attempt = 0;
    this.everSynced = false;
    if (this.transport === "poll") {
      this.stopped = true;
      this.disconnect();
      this.owner.fellBack();
    } else {
      this.connect();
    }
  }

  private failWaiting(err: Error): void {
    for (const w of this.waiting.values()) {
      clearTimeout(w.timer);
      w.reject(err);
    }
    this.waiting.clear();
  }

  // ---------------------------------------------------------------------------- receiving
  private receive(msg: LiveServerMessage): void {
    this.watch();
    switch (msg.type) {
      case "sync":
        this.synced = true;
        this.everSynced = true;
        this.failures = 0;
        this.attempt = 0;
        remembered = this.transport;
        this.owner.connected?.(this.transport);
        return;
      case "action_result": {
        const w = this.waiting.get(msg.request_id ?? "");
        if (!w || msg.request_id === null) return;
        this.waiting.delete(msg.request_id);
        clearTimeout(w.timer);
        w.resolve(msg);
        return;
      }
      case "error": {
        const problem = asProblem(msg.problem, 400);
        this.failWaiting(new ApiError(problem.status, problem));
        return;
      }
      case "game_event":
      case "table_event":
      case "end":
        this.queue = this.queue.then(() => this.apply(msg)).catch(() => undefined);
        return;
      default: // heartbeat, pong
        return;
    }
  }

  /** One ordered message, after the ones before it were applied. */
  private async apply(msg: GameEventMessage | TableEventMessage | EndMessage): Promise<void> {
    if (this.stopped && !this.finished) return;
    if (msg.type === "end") {
      this.finished = true;
      this.stop();
      this.owner.ended();
      return;
    }
    if (msg.type === "table_event") {
      if (msg.table_seq > this.owner.position().table) await this.owner.tableEvent(msg.event);
      this.advance(msg.id);
      return;
    }
    const seq = msg.event.seq;
    if (seq > this.owner.position().move + 1) {
      await this.owner.resync();
      if (this.stopped) return;
      // Still missing (the read lagged): keep the resume point; the next event resyncs again.
      if (seq > this.owner.position().move + 1) return;
    }
    if (seq === this.owner.position().move + 1) await this.owner.gameEvent(msg.event);
    this.advance(msg.id);
  }

  private advance(id: string): void {
    const c = parseCursor(id);
    if (c) this.lastId = later(this.lastId, c);
  }
}
