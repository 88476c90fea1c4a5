// Types of the account calls (sign-ins, personal tokens, friends, challenges, deletion),
// aliases of the schemas generated from openapi.yaml (src/api-types.ts).
import type { components } from "./api-types";

type Schemas = components["schemas"];

export type SignIn = Schemas["SignIn"];
export type SignInKind = SignIn["kind"];
export type SessionKeys = Schemas["SessionKeys"];
export type PersonalToken = Schemas["Token"];
export type PersonalTokenCreated = Schemas["TokenCreated"];
export type PersonalTokenCreate = Schemas["TokenCreateRequest"];
export type Someone = Schemas["Someone"];
export type Friend = Schemas["Friend"];
export type FriendRequest = Schemas["FriendRequest"];
export type FriendRequests = Schemas["FriendRequests"];
export type Challenge = Schemas["Challenge"];
export type ChallengeStatus = Challenge["status"];
export type Challenges = Schemas["Challenges"];
export type ChallengeCreate = Schemas["ChallengeCreateRequest"];
export type AccountDelete = Schemas["AccountDeleteRequest"];
export type ConnectedApp = Schemas["ConnectedApp"];
