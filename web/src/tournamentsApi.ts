// The tournaments' API calls (`/api/v1/tournaments/`, tag `tournaments` of openapi.yaml), typed
// from the generated schema: the list, an event, entry, the organiser's controls, pairings,
// standings, your next game, the log's check and a duplicate's boards. Errors are `ApiError`s.
import { ApiError, authHeaders, type Problem } from "./api";
import type { components } from "./api-types";
import { currentLanguage, gettext } from "./i18n";
import { reportNetwork } from "./network";

type S = components["schemas"];
export type Tournament = S["Tournament"];
export type TournamentSummary = S["TournamentSummary"];
export type TournamentList = S["TournamentList"];
export type TournamentCreate = S["TournamentCreateRequest"];
export type TournamentFormat = S["TournamentFormatEnum"];
export type TournamentStatus = S["TournamentStatusEnum"];
export type TournamentUnit = S["UnitEnum"];
export type TournamentPace = S["PaceEnum"];
export type TieRule = S["TieRuleEnum"];
export type DuplicateScoring = S["DuplicateScoringEnum"];
export type TableStatus = S["TournamentTableStatusEnum"];
export type EntryStatus = S["TournamentEntryStatusEnum"];
export type Entry = S["Entry"];
export type TournamentTable = S["Table"];
export type Tables = S["Tables"];
export type Standings = S["Standings"];
export type NextGame = S["NextGame"];
export type Verify = S["Verify"];
export type Boards = S["Boards"];
export type Board = S["Board"];
export type BoardTable = S["BoardTable"];
export type BotLevel = S["BotLevelEnum"];

/** The list's filters (none: every event you may see). */
export interface ListFilters {
  status?: TournamentStatus | "";
  format?: TournamentFormat | "";
  mine?: boolean;
}

async function call<T>(method: string, path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = { Accept: "application/json", "Accept-Language": currentLanguage(), ...authHeaders(method) };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  let res: Response;
  try {
    res = await fetch(`/api/v1${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), credentials: "same-origin" });
  } catch {
    reportNetwork(false);
    throw new ApiError(0, { type: "about:blank", title: gettext("Network error"), status: 0, detail: gettext("The server cannot be reached. Is it running?"), code: "network_error" });
  }
  reportNetwork(true);
  const text = await res.text();
  const data: unknown = text ? JSON.parse(text) : null;
  if (!res.ok) {
    const problem: Problem =
      data && typeof data === "object" && "code" in data
        ? (data as Problem)
        : { type: "about:blank", title: res.statusText, status: res.status, detail: res.statusText, code: "http_error" };
    throw new ApiError(res.status, problem);
  }
  return data as T;
}

/** The query string of the list's filters and page. */
export function listQuery(filters: ListFilters, limit: number, offset: number): string {
  const q = new URLSearchParams();
  if (filters.status) q.set("status", filters.status);
  if (filters.format) q.set("format", filters.format);
  if (filters.mine) q.set("mine", "true");
  q.set("limit", String(limit));
  q.set("offset", String(offset));
  return q.toString();
}

const base = (id: number) => `/tournaments/${id}`;

export const tournamentsApi = {
  list: (filters: ListFilters, limit = 20, offset = 0) => call<TournamentList>("GET", `/tournaments/?${listQuery(filters, limit, offset)}`),
  create: (body: TournamentCreate) => call<Tournament>("POST", "/tournaments/", body),
  get: (id: number) => call<Tournament>("GET", `${base(id)}/`),
  /** Enter (with a partner's player id in a pairs event); withdraw. */
  register: (id: number, partner: number | null) => call<Tournament>("POST", `${base(id)}/registration/`, { partner }),
  withdraw: (id: number) => call<Tournament>("DELETE", `${base(id)}/registration/`),
  nextGame: (id: number) => call<NextGame>("GET", `${base(id)}/next-game/`),
  tables: (id: number, round: number | null = null, limit = 100, offset = 0) =>
    call<Tables>("GET", `${base(id)}/tables/?limit=${limit}&offset=${offset}${round === null ? "" : `&round=${round}`}`),
  standings: (id: number, limit = 20, offset = 0) => call<Standings>("GET", `${base(id)}/standings/?limit=${limit}&offset=${offset}`),
  verify: (id: number) => call<Verify>("GET", `${base(id)}/verify/`),
  boards: (id: number) => call<Boards>("GET", `${base(id)}/boards/`),
  // The organiser's controls: each answers the tournament.
  entryOpen: (id: number) => call<Tournament>("POST", `${base(id)}/entry/open/`),
  entryClose: (id: number) => call<Tournament>("POST", `${base(id)}/entry/close/`),
  botsEnter: (id: number, count: number, level: BotLevel) => call<Tournament>("POST", `${base(id)}/bots/`, { count, level }),
  start: (id: number) => call<Tournament>("POST", `${base(id)}/start/`),
  cancel: (id: number) => call<Tournament>("POST", `${base(id)}/cancel/`),
  roundPair: (id: number) => call<S["RoundTables"]>("POST", `${base(id)}/rounds/`, {}),
  roundPublish: (id: number) => call<Tournament>("POST", `${base(id)}/rounds/publish/`),
  roundDiscard: (id: number) => call<Tournament>("POST", `${base(id)}/rounds/discard/`),
  invite: (id: number, players: number[]) => call<S["Invited"]>("POST", `${base(id)}/invites/`, { players }),
  entryRemove: (id: number, entryId: number, disqualify: boolean) =>
    call<Tournament>("POST", `${base(id)}/entries/${entryId}/withdraw/`, { disqualify }),
};
