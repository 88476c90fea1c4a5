// A small typed client written against types generated from openapi.yaml alone
// (`openapi-typescript openapi.yaml -o schema.d.ts`). Type-checked by tests/api/test_schema_client.py.
import type { components, paths } from "./schema";

type Schemas = components["schemas"];
type GameDetail = Schemas["GameDetail"];
type Action = Schemas["Action"];
type Problem = Schemas["GameProblem"];

type Json<T> = T extends { content: { "application/json": infer B } } ? B : never;
type Body<P extends keyof paths, M extends keyof paths[P]> = paths[P][M] extends {
  requestBody?: infer R;
}
  ? Json<NonNullable<R>>
  : never;

type SignUp = Body<"/api/v1/players/", "post">;
type SignedUp = Json<paths["/api/v1/players/"]["post"]["responses"][201]>;
type CreateGame = Body<"/api/v1/games/", "post">;
type OpenTables = Json<paths["/api/v1/games/"]["get"]["responses"][200]>;
type StartGame = Body<"/api/v1/games/{game_id}/start/", "post">;
type PlayAction = Body<"/api/v1/games/{game_id}/actions/", "post">;
type Played = Json<paths["/api/v1/games/{game_id}/actions/"]["post"]["responses"][201]>;
type Stale =
  paths["/api/v1/games/{game_id}/actions/"]["post"]["responses"][409]["content"]["application/problem+json"];
type Events = Json<paths["/api/v1/games/{game_id}/events/"]["get"]["responses"][200]>;
type Scorecard = Json<paths["/api/v1/games/{game_id}/scorecard/"]["get"]["responses"][200]>;

export class ApiError extends Error {
  constructor(readonly problem: Problem) {
    super(`${problem.code}: ${problem.detail}`);
  }
}

export class CanastaClient {
  constructor(
    private readonly base: string,
    private token: string | null = null,
  ) {}

  private async call<T>(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<T> {
    const response = await fetch(this.base + path, {
      method,
      headers: {
        "Content-Type": "application/json",
        ...(this.token ? { Authorization: `Token ${this.token}` } : {}),
        ...headers,
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (!response.ok) throw new ApiError((await response.json()) as Problem);
    return (await response.json()) as T;
  }

  async signUp(body: SignUp): Promise<SignedUp> {
    const me = await this.call<SignedUp>("POST", "/api/v1/players/", body);
    this.token = me.token;
    return me;
  }
  createGame(body: CreateGame): Promise<GameDetail> {
    return this.call("POST", "/api/v1/games/", body);
  }
  openTables(page = 1): Promise<OpenTables> {
    return this.call("GET", `/api/v1/games/?page=${page}`);
  }
  start(gameId: number, body: StartGame): Promise<GameDetail> {
    return this.call("POST", `/api/v1/games/${gameId}/start/`, body);
  }
  game(gameId: number): Promise<GameDetail> {
    return this.call("GET", `/api/v1/games/${gameId}/`);
  }
  act(gameId: number, body: PlayAction, idempotencyKey: string): Promise<Played> {
    return this.call("POST", `/api/v1/games/${gameId}/actions/`, body, { "Idempotency-Key": idempotencyKey });
  }
  events(gameId: number, after: number): Promise<Events> {
    return this.call("GET", `/api/v1/games/${gameId}/events/?after=${after}`);
  }
  scorecard(gameId: number): Promise<Scorecard> {
    return this.call("GET", `/api/v1/games/${gameId}/scorecard/`);
  }
}

/** Plays one legal action when it is this player's turn; returns the game's version. */
export async function playWhenToAct(client: CanastaClient, gameId: number, choose: (legal: Action[]) => Action): Promise<number> {
  const game = await client.game(gameId);
  const table = game.state;
  if (table === null || game.status !== "active" || table.to_act !== game.your_seat) return game.version;
  const hand: string[] | null = table.hand;
  const top: string | null = table.pile.top;
  void hand;
  void top;
  try {
    const played = await client.act(gameId, { action: choose(table.legal_actions), expected_version: game.version }, `v${game.version}`);
    if (!("event" in played)) return played.version; // the short answer (Prefer: return=minimal)
    const seq: number = played.event.seq;
    return played.game.version + seq * 0;
  } catch (error) {
    if (error instanceof ApiError && error.problem.code === "stale_version") {
      const stale: Stale = error.problem;
      return stale.current_version ?? game.version;
    }
    throw error;
  }
}

/** A whole session: sign up, create a table with bots, start it and read the final scores. */
export async function quickGame(base: string): Promise<number[]> {
  const client = new CanastaClient(base);
  await client.signUp({ display_name: "TypeScript" });
  const created = await client.createGame({
    preset: "classic",
    options: { target_score: 1000, wild_ratio: "naturals_exceed_wilds" },
    bots: [{ seat: 1, level: "easy" }, { seat: 2 }, { seat: 3, level: "hard" }],
    is_public: false,
  });
  await client.start(created.id, { fill_with_bots: true, bot_level: "medium" });
  for (let i = 0; i < 10000; i++) {
    const version = await playWhenToAct(client, created.id, (legal) => legal[0]);
    const log = await client.events(created.id, version - 1);
    if (log.events.some((event) => event.effects.some((effect) => effect["kind"] === "game_ended"))) break;
  }
  const card = await client.scorecard(created.id);
  const components = card.rounds.flatMap((round) => round.teams.map((team) => team.meld_cards + team.concealed_bonus));
  void components;
  const tables = await client.openTables();
  void tables.results.map((table) => table.free_seats);
  return card.totals;
}
