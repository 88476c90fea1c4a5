// allauth's headless API (/_allauth/{browser,app}/v1/): sign-up, sign-in (password, passkey,
// second factor), sign-out, codes by e-mail (verification, password reset), and the account
// (e-mail addresses, password, passkeys, TOTP, recovery codes).
//
// Two clients: "browser" (this page's session cookie, the CSRF token of the `csrftoken` cookie
// on every unsafe request) and "app" (`Authorization: Bearer <access key>` of a device
// session: how a guest, signed in with a guest key, reaches the account endpoints to keep the
// account). Every answer carries its status in the body; a 401 is not a failure but the state
// of a flow (what is pending: a code to type, a second factor, re-authentication).
import { csrfToken } from "./api";
import { currentLanguage, gettext, interpolate } from "./i18n";

export type FlowId =
  | "login"
  | "login_by_code"
  | "mfa_authenticate"
  | "mfa_reauthenticate"
  | "mfa_signup_webauthn"
  | "provider_redirect"
  | "provider_signup"
  | "provider_token"
  | "reauthenticate"
  | "reauthenticate_by_code"
  | "signup"
  | "verify_email"
  | "verify_phone"
  | "password_reset_by_code"
  | "mfa_login_webauthn";

export interface Flow {
  id: FlowId | string;
  is_pending?: boolean;
  types?: string[];
}

export interface AllauthUser {
  id: number | string;
  display: string;
  has_usable_password: boolean;
  email?: string | null;
  username?: string;
}

export interface EmailAddress {
  email: string;
  primary: boolean;
  verified: boolean;
}

export interface Authenticator {
  type: "totp" | "recovery_codes" | "webauthn";
  id?: number;
  name?: string;
  is_passwordless?: boolean;
  created_at: number;
  last_used_at: number | null;
  total_code_count?: number;
  unused_code_count?: number;
}

export interface AllauthError {
  code: string;
  message: string;
  param?: string;
}

/** Any answer of the API. */
export interface Answer<T = unknown> {
  status: number;
  data?: T;
  meta?: Record<string, unknown> & { is_authenticated?: boolean };
  errors?: AllauthError[];
}

/** What a sign-in, sign-up or code answer leaves us with. */
export interface AuthState {
  /** 200: signed in (or the session's user). */
  user: AllauthUser | null;
  /** 401: the flows; those pending say what is needed next. */
  flows: Flow[];
  meta: Answer["meta"];
}

/** A refused request: allauth's messages (400), 403, 409 (no such flow), 410 (session gone),
 * 429 (too many). */
export class AllauthFailure extends Error {
  constructor(
    public readonly status: number,
    public readonly errors: AllauthError[],
  ) {
    super(failureText(status, errors));
  }
  get codes(): string[] {
    return this.errors.map((e) => e.code);
  }
}

export function failureText(status: number, errors: AllauthError[]): string {
  if (errors.length) return errors.map((e) => e.message).join(" ");
  if (status === 0) return gettext("The server cannot be reached. Is it running?");
  if (status === 429) return gettext("Too many attempts: wait a minute and try again.");
  if (status === 409) return gettext("That step is no longer pending: start again.");
  if (status === 410) return gettext("This sign-in has ended: sign in again.");
  if (status === 403) return gettext("That is not allowed.");
  return interpolate(gettext("The request failed (HTTP %(status)s)."), { status });
}

export type ClientKind = "browser" | "app";

export interface AllauthClientOptions {
  kind: ClientKind;
  /** The app client's access key (asked for before each request: it may be renewed). */
  accessKey?: () => Promise<string | null>;
  fetch?: typeof fetch;
  csrf?: () => string | null;
}

const UNSAFE = new Set(["POST", "PUT", "PATCH", "DELETE"]);

export class AllauthClient {
  constructor(private readonly opts: AllauthClientOptions) {}

  get kind(): ClientKind {
    return this.opts.kind;
  }

  /** One request: the answer for 2xx and 401 (a flow's state), 404 when ``allow404`` (TOTP
   * not set up), else an AllauthFailure. */
  async request<T = unknown>(method: string, path: string, body?: unknown, allow404 = false): Promise<Answer<T>> {
    const headers: Record<string, string> = { Accept: "application/json", "Accept-Language": currentLanguage() };
    if (body !== undefined) headers["Content-Type"] = "application/json";
    if (this.opts.kind === "browser") {
      let csrf = (this.opts.csrf ?? csrfToken)();
      if (!csrf && UNSAFE.has(method)) {
        // No `csrftoken` cookie yet: any GET of the browser API sets it.
        await this.request("GET", "/config").catch(() => null);
        csrf = (this.opts.csrf ?? csrfToken)();
      }
      if (csrf && UNSAFE.has(method)) headers["X-CSRFToken"] = csrf;
    } else {
      const key = await this.opts.accessKey?.();
      if (key) headers.Authorization = `Bearer ${key}`;
    }
    let res: Response;
    try {
      res = await (this.opts.fetch ?? fetch)(`/_allauth/${this.opts.kind}/v1${path}`, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        credentials: this.opts.kind === "browser" ? "same-origin" : "omit",
      });
    } catch {
      throw new AllauthFailure(0, []);
    }
    const text = await res.text();
    let answer: Answer<T>;
    try {
      answer = text ? (JSON.parse(text) as Answer<T>) : { status: res.status };
    } catch {
      answer = { status: res.status };
    }
    if (res.ok || res.status === 401 || (allow404 && res.status === 404)) return { ...answer, status: res.status };
    throw new AllauthFailure(res.status, answer.errors ?? []);
  }

  private async auth(method: string, path: string, body?: unknown): Promise<AuthState> {
    return authState(await this.request<{ user?: AllauthUser; flows?: Flow[] }>(method, path, body));
  }

  // ---------------------------------------------------------------- authentication
  config = () => this.request<Record<string, unknown>>("GET", "/config");
  session = () => this.auth("GET", "/auth/session");
  signUp = (email: string, password: string, displayName: string) =>
    this.auth("POST", "/auth/signup", { email, password, ...(displayName ? { display_name: displayName } : {}) });
  signIn = (email: string, password: string) => this.auth("POST", "/auth/login", { email, password });
  signOut = () => this.auth("DELETE", "/auth/session");
  /** The code of a verification e-mail (at sign-up or sign-in, or of an added address). */
  verifyEmail = (code: string) => this.auth("POST", "/auth/email/verify", { key: code.trim() });
  resendVerification = () => this.request("POST", "/auth/email/verify/resend");
  passwordResetRequest = (email: string) => this.auth("POST", "/auth/password/request", { email });
  passwordReset = (code: string, password: string) => this.auth("POST", "/auth/password/reset", { key: code.trim(), password });
  /** The second factor (a TOTP or recovery code) of a sign-in. */
  secondFactor = (code: string) => this.auth("POST", "/auth/2fa/authenticate", { code: code.trim() });
  /** The second factor by passkey (an account with passkeys and a password). */
  passkeySecondFactorOptions = async () =>
    (await this.request<{ request_options: { publicKey: Record<string, unknown> } }>("GET", "/auth/webauthn/authenticate")).data!.request_options;
  passkeySecondFactor = (credential: unknown) => this.auth("POST", "/auth/webauthn/authenticate", { credential });
  reauthenticate = (password: string) => this.auth("POST", "/auth/reauthenticate", { password });
  passkeySignInOptions = async () =>
    (await this.request<{ request_options: { publicKey: Record<string, unknown> } }>("GET", "/auth/webauthn/login")).data!.request_options;
  passkeySignIn = (credential: unknown) => this.auth("POST", "/auth/webauthn/login", { credential });
  passkeyReauthOptions = async () =>
    (await this.request<{ request_options: { publicKey: Record<string, unknown> } }>("GET", "/auth/webauthn/reauthenticate")).data!.request_options;
  passkeyReauthenticate = (credential: unknown) => this.auth("POST", "/auth/webauthn/reauthenticate", { credential });
  /** Sign-up with a passkey: the e-mail first (a code follows), then the passkey. */
  passkeySignUp = (email: string, displayName: string) =>
    this.auth("POST", "/auth/webauthn/signup", { email, ...(displayName ? { display_name: displayName } : {}) });
  passkeySignUpOptions = async () =>
    (await this.request<{ creation_options: { publicKey: Record<string, unknown> } }>("GET", "/auth/webauthn/signup")).data!.creation_options;
  passkeySignUpFinish = (name: string, credential: unknown) => this.auth("PUT", "/auth/webauthn/signup", { name, credential });

  // ---------------------------------------------------------------- the account
  emails = async () => (await this.request<EmailAddress[]>("GET", "/account/email")).data ?? [];
  emailAdd = (email: string) => this.request<EmailAddress[]>("POST", "/account/email", { email });
  emailResend = (email: string) => this.request("PUT", "/account/email", { email });
  emailPrimary = (email: string) => this.request<EmailAddress[]>("PATCH", "/account/email", { email, primary: true });
  emailRemove = (email: string) => this.request<EmailAddress[]>("DELETE", "/account/email", { email });
  /** A new password; ``current`` for an account that has one. */
  passwordChange = (current: string | null, password: string) =>
    this.auth("POST", "/account/password/change", { ...(current ? { current_password: current } : {}), new_password: password });
  authenticators = async () => (await this.request<Authenticator[]>("GET", "/account/authenticators")).data ?? [];
  passkeyOptions = (passwordless = true) =>
    this.request<{ creation_options: { publicKey: Record<string, unknown> } }>("GET", `/account/authenticators/webauthn${passwordless ? "?passwordless" : ""}`);
  passkeyAdd = (name: string, credential: unknown) =>
    this.request<Authenticator>("POST", "/account/authenticators/webauthn", { name, credential });
  passkeyRemove = (ids: number[]) => this.request("DELETE", "/account/authenticators/webauthn", { authenticators: ids });
  /** TOTP: 200 when set up, 404 with a new secret and its otpauth URL when not. */
  totp = () => this.request<Authenticator>("GET", "/account/authenticators/totp", undefined, true);
  totpActivate = (code: string) => this.request<Authenticator>("POST", "/account/authenticators/totp", { code: code.trim() });
  totpDeactivate = () => this.request("DELETE", "/account/authenticators/totp");
  recoveryCodes = () => this.request<{ unused_codes?: string[]; unused_code_count: number }>("GET", "/account/authenticators/recovery-codes");
}

/** An answer → the user (200) or the flows (401). */
export function authState(answer: Answer<{ user?: AllauthUser; flows?: Flow[] }>): AuthState {
  if (answer.status === 200 && answer.data?.user) return { user: answer.data.user, flows: [], meta: answer.meta };
  return { user: null, flows: answer.data?.flows ?? [], meta: answer.meta };
}

/** The pending flow of a 401, if any. */
export function pendingFlow(state: AuthState): Flow | null {
  return state.flows.find((f) => f.is_pending) ?? null;
}

/** What the person has to do next, from an answer. */
export type NextStep = "done" | "verify_email" | "second_factor" | "reauthenticate" | "reset_code" | "passkey_signup" | "sign_in";

export function nextStep(state: AuthState): NextStep {
  if (state.user) return "done";
  const flow = pendingFlow(state);
  switch (flow?.id) {
    case "verify_email":
      return "verify_email";
    case "mfa_authenticate":
      return "second_factor";
    case "reauthenticate":
    case "mfa_reauthenticate":
      return "reauthenticate";
    case "password_reset_by_code":
      return "reset_code";
    case "mfa_signup_webauthn":
      return "passkey_signup";
    default:
      return "sign_in";
  }
}

/** A 401 that asks for re-authentication (adding a passkey, TOTP, a password change long
 * after signing in). */
export function needsReauthentication(answer: Answer): boolean {
  if (answer.status !== 401) return false;
  const flows = (answer.data as { flows?: Flow[] } | undefined)?.flows ?? [];
  return flows.some((f) => f.id === "reauthenticate" || f.id === "mfa_reauthenticate");
}

/** allauth's messages of one input, for the field's own error line. */
export function fieldErrors(err: unknown, param: string): string {
  if (!(err instanceof AllauthFailure)) return "";
  return err.errors.filter((e) => e.param === param).map((e) => e.message).join(" ");
}

/** The messages of a failure, or of anything thrown. */
export function errorText(err: unknown): string {
  if (err instanceof AllauthFailure) return err.message;
  if (err instanceof Error) {
    if (err.name === "NotAllowedError") return gettext("The passkey was not used (cancelled, or it timed out).");
    if (err.name === "InvalidStateError") return gettext("This device already holds a passkey of this account.");
    return err.message;
  }
  return String(err);
}

export const browserAuth = new AllauthClient({ kind: "browser" });
