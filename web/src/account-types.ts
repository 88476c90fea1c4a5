// Types of the account calls (sign-ins, personal tokens, friends, challenges, deletion, export)
// written by hand from their serializers until src/api-types.ts is regenerated from
// openapi.yaml; then these become aliases of components["schemas"][...].

export type SignInKind = "device" | "guest" | "browser";

/** One sign-in of the account (GET /account/sessions/). */
export interface SignIn {
  id: string;
  kind: SignInKind;
  device: string;
  user_agent: string;
  ip: string | null;
  created_at: string;
  last_seen_at: string | null;
  current: boolean;
}

/** A device session opened with a guest key (POST /account/sessions/). */
export interface SessionKeys {
  session_id: string;
  access_token: string;
  refresh_token: string;
  expires_in: number;
}

export interface PersonalToken {
  id: number;
  name: string;
  prefix: string;
  scopes: string[];
  created_at: string;
  expires_at: string | null;
  last_used_at: string | null;
}

export interface PersonalTokenCreated extends PersonalToken {
  token: string;
}

export interface PersonalTokenCreate {
  name: string;
  scopes: string[];
  days?: number | null;
}

export interface Someone {
  id: number;
  display_name: string;
  is_bot: boolean;
}

export interface Friend extends Someone {
  since: string;
}

export interface FriendRequest {
  id: number;
  from_player: Someone;
  to_player: Someone;
  status: "pending" | "accepted" | "declined" | "cancelled";
  created_at: string;
}

export interface FriendRequests {
  incoming: FriendRequest[];
  outgoing: FriendRequest[];
}

export type ChallengeStatus = "pending" | "expired" | "accepted" | "declined" | "cancelled";

export interface Challenge {
  id: number;
  challenger: Someone;
  invitee: Someone;
  preset: string;
  options: Record<string, unknown>;
  rated: boolean;
  seat: number | null;
  fill_with_bots: boolean;
  bot_level: string;
  status: ChallengeStatus;
  created_at: string;
  expires_at: string;
  answered_at: string | null;
  game_id: number | null;
}

export interface Challenges {
  incoming: Challenge[];
  outgoing: Challenge[];
}

export interface ChallengeCreate {
  player_id: number;
  preset: string;
  rated?: boolean;
  seat?: number | null;
  fill_with_bots?: boolean;
  bot_level?: string;
  expires_in?: number;
}

export interface AccountDelete {
  confirm: "delete";
  password?: string;
}
