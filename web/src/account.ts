// The account page (#/account): keep a guest's account (an e-mail and a password, or a
// passkey), e-mail addresses, the password, passkeys, the authenticator app (TOTP) and its
// recovery codes, sign-ins (end one, sign out everywhere), personal access tokens (shown
// once), the data export and deleting the account.
//
// allauth's endpoints are reached with this browser's session, or for a guest with the device
// session its guest key opens (src/deviceKeys.ts). A change that needs a recent sign-in asks
// for the password (or a passkey) in a dialog and is tried again.
import type { PersonalTokenCreated, SignIn } from "./account-types";
import { agoText, authenticatorText, daysText, passkeys, signInDetails, signInsOrdered, signInTitle, TOKEN_DAYS, TOKEN_SCOPES, tokenBody, tokenDetails, codeTyped } from "./accountWords";
import { type AllauthClient, type AllauthUser, type Answer, type Authenticator, browserAuth, type EmailAddress, errorText, fieldErrors, needsReauthentication } from "./allauth";
import { announce } from "./announce";
import { ApiError, api, browserSession, forget, playerName, token } from "./api";
import { accountAuth, deviceKeys } from "./deviceKeys";
import { openDialog } from "./dialog";
import { clear, h } from "./dom";
import { gettext, interpolate, translate } from "./i18n";
import { pageHeader } from "./nav";
import { busy, field, hush, say, statusLine } from "./signin";
import { createPasskey, passkeyName, passkeysSupported, usePasskey } from "./webauthn";

function problemText(err: unknown): string {
  if (err instanceof ApiError) {
    const fields = (err.problem.errors ?? []).map((e) => `${e.field ?? ""}: ${e.message}`).join("; ");
    return `${err.problem.detail || err.problem.title}${fields ? ` — ${fields}` : ""}`;
  }
  return errorText(err);
}

function panel(id: string, title: string, ...content: (Node | string | null | false)[]): HTMLElement {
  return h("section", { class: "panel", "aria-labelledby": `${id}-title`, testid: `${id}-panel` }, h("h2", { id: `${id}-title` }, title), ...content);
}

/** Asks for the password (or a passkey) again; true once allauth took it. */
function reauthenticate(auth: AllauthClient, user: AllauthUser | null): Promise<boolean> {
  return new Promise((resolve) => {
    let done = false;
    const box = statusLine("reauth-message");
    const password = field(gettext("Password"), { type: "password", id: "reauth-password", autocomplete: "current-password", testid: "reauth-password" });
    const submit = h("button", { class: "primary", type: "submit", testid: "reauth-submit" }, gettext("Confirm")) as HTMLButtonElement;
    const finish = (ok: boolean) => {
      done = ok;
      dialog.close();
    };
    const body = h(
      "div",
      { class: "modal-body account-dialog", testid: "reauth-dialog" },
      h("h2", {}, gettext("Confirm it is you")),
      h("p", {}, gettext("This change needs a recent sign-in.")),
      user?.has_usable_password
        ? h(
            "form",
            {
              onsubmit: async (e: Event) => {
                e.preventDefault();
                try {
                  const state = await busy(submit, () => auth.reauthenticate(password.input.value));
                  if (state.user) finish(true);
                  else say(box, gettext("That did not work."), "error");
                } catch (err) {
                  say(box, errorText(err), "error");
                }
              },
            },
            password.wrap,
            h("div", { class: "row" }, submit),
          )
        : null,
      passkeysSupported()
        ? h(
            "div",
            { class: "row" },
            h(
              "button",
              {
                type: "button",
                testid: "reauth-passkey",
                onclick: async () => {
                  try {
                    const state = await auth.passkeyReauthenticate(await usePasskey(await auth.passkeyReauthOptions()));
                    if (state.user) finish(true);
                  } catch (err) {
                    say(box, errorText(err), "error");
                  }
                },
              },
              gettext("Use a passkey"),
            ),
          )
        : null,
      box,
      h("div", { class: "row" }, h("button", { type: "button", onclick: () => finish(false) }, gettext("Cancel"))),
    );
    const dialog = openDialog(body, () => resolve(done));
  });
}

/** Opens a confirmation dialog; resolves true when confirmed. */
function confirmDialog(title: string, text: string, confirm: string, testid: string): Promise<boolean> {
  return new Promise((resolve) => {
    let ok = false;
    const body = h(
      "div",
      { class: "modal-body account-dialog", testid },
      h("h2", {}, title),
      h("p", {}, text),
      h(
        "div",
        { class: "row" },
        h("button", { class: "primary danger", type: "button", testid: `${testid}-yes`, onclick: () => { ok = true; dialog.close(); } }, confirm),
        h("button", { type: "button", onclick: () => dialog.close() }, gettext("Cancel")),
      ),
    );
    const dialog = openDialog(body, () => resolve(ok));
  });
}

export class AccountScreen {
  private disposed = false;
  private auth: AllauthClient = accountAuth();
  private user: AllauthUser | null = null;
  private emailList: EmailAddress[] = [];
  private authenticators: Authenticator[] = [];
  private readonly keepSlot = h("div");
  private readonly emailSlot = h("div");
  private readonly passwordSlot = h("div");
  private readonly passkeySlot = h("div");
  private readonly totpSlot = h("div");
  private readonly signInSlot = h("div");
  private readonly tokenSlot = h("div");
  private readonly appSlot = h("div");
  private readonly dataSlot = h("div");
  private readonly top = statusLine("account-message");

  constructor(private readonly root: HTMLElement) {}

  dispose(): void {
    this.disposed = true;
  }

  async mount(): Promise<void> {
    const signOut = h("button", { testid: "sign-out", onclick: () => void this.signOut() }, gettext("Sign out"));
    this.root.append(
      pageHeader(gettext("Account"), "account", signOut),
      this.top,
      h(
        "div",
        { class: "home-grid settings account" },
        h("div", {}, this.keepSlot, this.emailSlot, this.passwordSlot, this.passkeySlot, this.totpSlot),
        h("div", {}, this.signInSlot, this.tokenSlot, this.appSlot, this.dataSlot),
      ),
    );
    this.emailSlot.append(h("p", { class: "loading" }, gettext("Loading your account…")));
    // One request at a time: each signed-in request also records the sign-in's last use.
    await this.loadIdentity();
    await this.loadSignIns();
    await this.loadTokens();
    await this.loadApps();
    this.showData();
  }

  // ------------------------------------------------------------------ allauth parts
  private async loadIdentity(): Promise<void> {
    try {
      const state = await this.auth.session();
      if (this.disposed) return;
      this.user = state.user;
      if (!this.user) {
        say(this.top, gettext("Your sign-in has ended: sign in again."), "error");
        return;
      }
      this.emailList = await this.auth.emails();
      this.authenticators = await this.auth.authenticators();
    } catch (err) {
      if (!this.disposed) {
        clear(this.emailSlot);
        this.emailSlot.append(h("p", { class: "message error" }, problemText(err)));
      }
      return;
    }
    if (this.disposed) return;
    this.showKeep();
    this.showEmails();
    this.showPassword();
    this.showPasskeys();
    await this.showTotp();
  }

  private async reload(focusTestid?: string): Promise<void> {
    await this.loadIdentity();
    if (focusTestid) this.root.querySelector<HTMLElement>(`[data-testid="${focusTestid}"]`)?.focus();
  }

  /** Runs a change; if allauth asks for a recent sign-in, asks for it and runs it again. */
  private async withReauth<T>(run: () => Promise<Answer<T>>): Promise<Answer<T> | null> {
    const answer = await run();
    if (!needsReauthentication(answer)) return answer;
    if (!(await reauthenticate(this.auth, this.user))) return null;
    return run();
  }

  /** A guest: no e-mail, no password, no passkey. */
  private isGuest(): boolean {
    return !!this.user && !this.user.has_usable_password && this.emailList.length === 0 && passkeys(this.authenticators).length === 0;
  }

  private showKeep(): void {
    clear(this.keepSlot);
    if (!this.isGuest()) return;
    this.keepSlot.append(
      panel(
        "keep",
        gettext("Keep this account"),
        h("p", {}, interpolate(gettext("You play as a guest: this browser's key is all there is of %(name)s. Add an e-mail address and a password, or a passkey, to keep your games and ratings and sign in on any device."), { name: playerName() ?? gettext("you") })),
        h(
          "div",
          { class: "row" },
          h("button", { class: "primary", testid: "keep-email", onclick: () => document.getElementById("email-add")?.focus() }, gettext("Add an e-mail and a password")),
          passkeysSupported() ? h("button", { testid: "keep-passkey", onclick: () => document.getElementById("passkey-name")?.focus() }, gettext("Add a passkey")) : null,
        ),
      ),
    );
  }

  private showEmails(pendingCode: string | null = null): void {
    clear(this.emailSlot);
    const box = statusLine("email-message");
    const address = field(gettext("Add an e-mail address"), { type: "email", id: "email-add", autocomplete: "email", required: true, testid: "email-add" });
    const add = h("button", { type: "submit", testid: "email-add-submit" }, gettext("Add")) as HTMLButtonElement;
    const code = field(gettext("Code from the e-mail"), { id: "email-code", autocomplete: "one-time-code", required: true, spellcheck: "false", testid: "email-code" });
    const verify = h("button", { class: "primary", type: "submit", testid: "email-verify" }, gettext("Verify")) as HTMLButtonElement;
    const act = (fn: () => Promise<unknown>, done: string) => async () => {
      try {
        await fn();
        announce(done);
        await this.reload();
        say(this.emailSlot.querySelector<HTMLElement>("[data-testid=email-message]")!, done);
      } catch (err) {
        say(box, errorText(err), "error");
      }
    };
    this.emailSlot.append(
      panel(
        "email",
        gettext("E-mail"),
        this.emailList.length
          ? h(
              "ul",
              { class: "games", testid: "emails" },
              ...this.emailList.map((e) =>
                h(
                  "li",
                  { testid: "email" },
                  h("span", {}, e.email),
                  " · ",
                  h("span", { testid: "email-state" }, [e.verified ? gettext("verified") : gettext("not verified"), e.primary ? gettext("primary") : ""].filter(Boolean).join(", ")),
                  h(
                    "div",
                    { class: "row" },
                    e.verified ? null : h("button", { class: "small", "aria-label": interpolate(gettext("Send a code to %(email)s again"), { email: e.email }), onclick: act(async () => { await this.auth.emailResend(e.email); this.showEmails(e.email); }, interpolate(gettext("A code is on its way to %(email)s."), { email: e.email })) }, gettext("Send a code")),
                    e.verified && !e.primary ? h("button", { class: "small", "aria-label": interpolate(gettext("Make %(email)s primary"), { email: e.email }), onclick: act(() => this.auth.emailPrimary(e.email), interpolate(gettext("%(email)s is now primary."), { email: e.email })) }, gettext("Make primary")) : null,
                    e.primary && this.emailList.length === 1 ? null : h("button", { class: "small", "aria-label": interpolate(gettext("Remove %(email)s"), { email: e.email }), onclick: act(() => this.auth.emailRemove(e.email), interpolate(gettext("%(email)s removed."), { email: e.email })) }, gettext("Remove")),
                  ),
                ),
              ),
            )
          : h("p", { class: "muted" }, gettext("No e-mail address yet.")),
        pendingCode
          ? h(
              "form",
              {
                testid: "email-code-form",
                onsubmit: async (ev: Event) => {
                  ev.preventDefault();
                  code.error.textContent = "";
                  try {
                    await busy(verify, () => this.auth.verifyEmail(codeTyped(code.input.value)));
                    announce(gettext("E-mail verified."));
                    await this.reload("password-new");
                    say(this.emailSlot.querySelector<HTMLElement>("[data-testid=email-message]")!, interpolate(gettext("%(email)s is verified."), { email: pendingCode }));
                  } catch (err) {
                    code.error.textContent = fieldErrors(err, "key");
                    say(box, errorText(err), "error");
                  }
                },
              },
              h("p", {}, interpolate(gettext("We sent a code to %(email)s."), { email: pendingCode })),
              code.wrap,
              h("div", { class: "row" }, verify),
            )
          : null,
        h(
          "form",
          {
            testid: "email-form",
            onsubmit: async (ev: Event) => {
              ev.preventDefault();
              address.error.textContent = "";
              const email = address.input.value.trim();
              try {
                const answer = await busy(add, () => this.withReauth(() => this.auth.emailAdd(email)));
                if (!answer) return;
                this.emailList = answer.data ?? this.emailList;
                this.showEmails(email);
                announce(interpolate(gettext("A code is on its way to %(email)s."), { email }));
                document.getElementById("email-code")?.focus();
              } catch (err) {
                address.error.textContent = fieldErrors(err, "email");
                say(box, errorText(err), "error");
              }
            },
          },
          address.wrap,
          h("div", { class: "row" }, add),
        ),
        box,
      ),
    );
  }

  private showPassword(): void {
    clear(this.passwordSlot);
    const has = !!this.user?.has_usable_password;
    const box = statusLine("password-message");
    const current = has ? field(gettext("Current password"), { type: "password", id: "password-current", autocomplete: "current-password", required: true, testid: "password-current" }) : null;
    const fresh = field(has ? "New password" : "Password", { type: "password", id: "password-new", autocomplete: "new-password", required: true, minlength: 8, testid: "password-new" }, gettext("At least 8 characters, not a common one."));
    const submit = h("button", { class: "primary", type: "submit", testid: "password-submit" }, has ? gettext("Change the password") : gettext("Set the password")) as HTMLButtonElement;
    const verified = this.emailList.some((e) => e.verified);
    this.passwordSlot.append(
      panel(
        "password",
        gettext("Password"),
        !has && !verified ? h("p", { class: "muted" }, gettext("Verify an e-mail address first: you sign in with it and the password.")) : null,
        h(
          "form",
          {
            testid: "password-form",
            onsubmit: async (e: Event) => {
              e.preventDefault();
              fresh.error.textContent = "";
              if (current) current.error.textContent = "";
              try {
                const state = await busy(submit, () => this.auth.passwordChange(current?.input.value ?? null, fresh.input.value));
                if (!state.user) {
                  say(box, gettext("Sign in again to change the password."), "error");
                  return;
                }
                this.user = state.user;
                announce(gettext("Password saved."));
                this.showPassword();
                this.showKeep();
                say(this.passwordSlot.querySelector<HTMLElement>("[data-testid=password-message]")!, has ? gettext("Password changed.") : gettext("Password set: your account is kept. Sign in with your e-mail and it on any device."));
              } catch (err) {
                fresh.error.textContent = fieldErrors(err, "new_password");
                if (current) current.error.textContent = fieldErrors(err, "current_password");
                say(box, errorText(err), "error");
              }
            },
          },
          current?.wrap ?? null,
          fresh.wrap,
          h("div", { class: "row" }, submit),
        ),
        box,
      ),
    );
  }

  private showPasskeys(): void {
    clear(this.passkeySlot);
    const box = statusLine("passkey-message");
    const list = passkeys(this.authenticators);
    const now = Date.now();
    const name = field(gettext("Name of the new passkey"), { id: "passkey-name", maxlength: 60, value: passkeyName(navigator.userAgent), testid: "passkey-name" });
    const add = h("button", { class: "primary", type: "submit", testid: "passkey-add", disabled: !passkeysSupported() }, gettext("Add a passkey")) as HTMLButtonElement;
    this.passkeySlot.append(
      panel(
        "passkey",
        gettext("Passkeys"),
        h("p", { class: "muted" }, gettext("Sign in with this device's screen lock or a security key, no password typed.")),
        list.length
          ? h(
              "ul",
              { class: "games", testid: "passkeys" },
              ...list.map((a) =>
                h(
                  "li",
                  { testid: "passkey" },
                  authenticatorText(a, now),
                  h("button", {
                    class: "small",
                    "aria-label": interpolate(gettext("Remove the passkey %(name)s"), { name: a.name ?? "" }),
                    testid: "passkey-remove",
                    onclick: async () => {
                      if (!(await confirmDialog(gettext("Remove the passkey?"), interpolate(gettext("%(name)s will no longer sign you in."), { name: a.name ?? gettext("This passkey") }), gettext("Remove"), "passkey-remove-dialog"))) return;
                      try {
                        if (!(await this.withReauth(() => this.auth.passkeyRemove([a.id!])))) return;
                        announce(gettext("Passkey removed."));
                        await this.reload("passkey-add");
                      } catch (err) {
                        say(box, errorText(err), "error");
                      }
                    },
                  }, gettext("Remove")),
                ),
              ),
            )
          : h("p", { class: "muted", testid: "no-passkeys" }, gettext("No passkey yet.")),
        passkeysSupported()
          ? h(
              "form",
              {
                testid: "passkey-form",
                onsubmit: async (e: Event) => {
                  e.preventDefault();
                  try {
                    const added = await busy(add, async () => {
                      const options = await this.withReauth(() => this.auth.passkeyOptions(true));
                      if (!options?.data) return null;
                      const credential = await createPasskey(options.data.creation_options);
                      return this.withReauth(() => this.auth.passkeyAdd(name.input.value.trim() || passkeyName(navigator.userAgent), credential));
                    });
                    if (!added) return;
                    announce(gettext("Passkey added."));
                    await this.reload("passkey-add");
                    say(this.passkeySlot.querySelector<HTMLElement>("[data-testid=passkey-message]")!, gettext("Passkey added: use it to sign in."));
                  } catch (err) {
                    say(box, errorText(err), "error");
                  }
                },
              },
              name.wrap,
              h("div", { class: "row" }, add),
            )
          : h("p", { class: "muted" }, gettext("This page cannot make passkeys: it needs https (or localhost) and a browser that has them.")),
        box,
      ),
    );
  }

  private async showTotp(): Promise<void> {
    const box = statusLine("totp-message");
    let answer: Answer<Authenticator>;
    try {
      answer = await this.auth.totp();
    } catch (err) {
      clear(this.totpSlot);
      this.totpSlot.append(panel("totp", gettext("Authenticator app (optional)"), h("p", { class: "muted", testid: "totp-state" }, errorText(err) || "Verify an e-mail address first.")));
      return;
    }
    if (this.disposed) return;
    clear(this.totpSlot);
    if (answer.status === 200) {
      const codes = h("div", { testid: "recovery-codes" });
      this.totpSlot.append(
        panel(
          "totp",
          gettext("Authenticator app (optional)"),
          h("p", { testid: "totp-state" }, gettext("On: signing in with a password asks for a code from your app.")),
          h(
            "div",
            { class: "row" },
            h("button", {
              testid: "recovery-show",
              onclick: async () => {
                try {
                  const got = await this.withReauth(() => this.auth.recoveryCodes());
                  clear(codes);
                  const list = got?.data?.unused_codes ?? [];
                  codes.append(h("p", {}, gettext("Recovery codes (each works once, keep them safe):")), h("ul", { class: "codes" }, ...list.map((c) => h("li", {}, h("code", {}, c)))));
                } catch (err) {
                  say(box, errorText(err), "error");
                }
              },
            }, gettext("Show recovery codes")),
            h("button", {
              testid: "totp-off",
              onclick: async () => {
                try {
                  if (!(await this.withReauth(() => this.auth.totpDeactivate()))) return;
                  announce(gettext("Authenticator app turned off."));
                  await this.reload("totp-setup");
                } catch (err) {
                  say(box, errorText(err), "error");
                }
              },
            }, gettext("Turn off")),
          ),
          codes,
          box,
        ),
      );
      return;
    }
    const meta = (answer.meta ?? {}) as { secret?: string; totp_url?: string };
    const setup = h("div", { hidden: true, testid: "totp-setup-form" });
    const code = field(gettext("Code from the app"), { id: "totp-code", autocomplete: "one-time-code", inputmode: "numeric", required: true, testid: "totp-code" });
    const activate = h("button", { class: "primary", type: "submit", testid: "totp-activate" }, gettext("Turn on")) as HTMLButtonElement;
    setup.append(
      h("p", {}, gettext("Add this key to your authenticator app (or open the link on the phone that has it), then type the code it shows.")),
      h("p", { class: "message info secret" }, `${gettext("Key:")} `, h("code", { testid: "totp-secret" }, meta.secret ?? "")),
      meta.totp_url ? h("p", {}, h("a", { href: meta.totp_url }, gettext("Open in an authenticator app"))) : "",
      h(
        "form",
        {
          onsubmit: async (e: Event) => {
            e.preventDefault();
            code.error.textContent = "";
            try {
              const done = await busy(activate, () => this.withReauth(() => this.auth.totpActivate(code.input.value)));
              if (!done) return;
              announce(gettext("Authenticator app turned on."));
              await this.reload("recovery-show");
            } catch (err) {
              code.error.textContent = fieldErrors(err, "code");
              say(box, errorText(err), "error");
            }
          },
        },
        code.wrap,
        h("div", { class: "row" }, activate),
      ),
    );
    const open = h("button", { testid: "totp-setup", "aria-expanded": "false", onclick: () => { setup.hidden = false; open.setAttribute("aria-expanded", "true"); code.input.focus(); } }, gettext("Set up an authenticator app"));
    this.totpSlot.append(panel("totp", gettext("Authenticator app (optional)"), h("p", { class: "muted", testid: "totp-state" }, gettext("Off. A code from an app as a second step after the password.")), h("div", { class: "row" }, open), setup, box));
  }

  // ------------------------------------------------------------------ sign-ins
  private async loadSignIns(): Promise<void> {
    let list: SignIn[];
    try {
      list = signInsOrdered(await api.signIns());
    } catch (err) {
      if (this.disposed) return;
      clear(this.signInSlot);
      this.signInSlot.append(h("p", { class: "message error" }, problemText(err)));
      return;
    }
    if (this.disposed) return;
    clear(this.signInSlot);
    const box = statusLine("signins-message");
    const now = Date.now();
    this.signInSlot.append(
      panel(
        "signins",
        gettext("Where you are signed in"),
        h(
          "ul",
          { class: "games", testid: "signins" },
          ...list.map((s) =>
            h(
              "li",
              { testid: "signin", "data-current": s.current ? "true" : "false" },
              h("strong", {}, signInTitle(s)),
              h("br"),
              h("small", {}, signInDetails(s, now)),
              s.current
                ? null
                : h("button", {
                    class: "small",
                    testid: "signin-end",
                    "aria-label": interpolate(gettext("End the sign-in %(what)s, last seen %(when)s"), { what: signInTitle(s), when: agoText(s.last_seen_at, now) }),
                    onclick: async () => {
                      try {
                        await api.signInEnd(s.id);
                        if (s.id === deviceKeys.sessionId()) deviceKeys.forget();
                        announce(gettext("Signed out there."));
                        await this.loadSignIns();
                        this.signInSlot.querySelector<HTMLElement>("[data-testid=sign-out-everywhere]")?.focus();
                      } catch (err) {
                        say(box, problemText(err), "error");
                      }
                    },
                  }, gettext("Sign out there")),
            ),
          ),
        ),
        h(
          "div",
          { class: "row" },
          h("button", {
            testid: "sign-out-everywhere",
            onclick: async () => {
              if (!(await confirmDialog(gettext("Sign out everywhere?"), gettext("Every device, app and personal token of this account stops working, this browser too."), gettext("Sign out everywhere"), "everywhere-dialog"))) return;
              try {
                await api.signOutEverywhere();
                this.leave(gettext("You are signed out everywhere."));
              } catch (err) {
                say(box, problemText(err), "error");
              }
            },
          }, gettext("Sign out everywhere")),
        ),
        box,
      ),
    );
  }

  // ------------------------------------------------------------------ personal tokens
  private async loadTokens(made: PersonalTokenCreated | null = null): Promise<void> {
    let list;
    try {
      list = await api.tokens();
    } catch (err) {
      if (this.disposed) return;
      clear(this.tokenSlot);
      this.tokenSlot.append(h("p", { class: "message error" }, problemText(err)));
      return;
    }
    if (this.disposed) return;
    clear(this.tokenSlot);
    const box = statusLine("token-message");
    const now = Date.now();
    const name = field(gettext("What it is for"), { id: "token-name", maxlength: 80, required: true, placeholder: gettext("my bot"), testid: "token-name" });
    const boxes = TOKEN_SCOPES.map((s) => h("input", { type: "checkbox", id: `scope-${s.id.replace(":", "-")}`, value: s.id, testid: `scope-${s.id}` }) as HTMLInputElement);
    const days = h("select", { id: "token-days", testid: "token-days" }, ...TOKEN_DAYS.map((d) => h("option", { value: d === null ? "" : String(d), selected: d === 90 }, daysText(d)))) as HTMLSelectElement;
    const create = h("button", { class: "primary", type: "submit", testid: "token-create" }, gettext("Create the token")) as HTMLButtonElement;
    this.tokenSlot.append(
      panel(
        "tokens",
        gettext("Personal access tokens"),
        h("p", { class: "muted" }, gettext("Keys for your own programs (a bot, a script), each with only the rights it needs. Send one as Authorization: Bearer <token>.")),
        made
          ? h("div", { class: "message info secret", testid: "token-made" }, `${interpolate(gettext("Your token \"%(name)s\" (shown only now, copy it):"), { name: made.name })} `, h("code", { testid: "token-value", tabindex: -1 }, made.token))
          : null,
        list.length
          ? h(
              "ul",
              { class: "games", testid: "tokens" },
              ...list.map((t) =>
                h(
                  "li",
                  { testid: "token" },
                  h("strong", {}, t.name),
                  h("br"),
                  h("small", {}, tokenDetails(t, now)),
                  h("button", {
                    class: "small",
                    testid: "token-revoke",
                    "aria-label": interpolate(gettext("Revoke the token %(name)s"), { name: t.name }),
                    onclick: async () => {
                      try {
                        await api.tokenRevoke(t.id);
                        announce(interpolate(gettext("Token %(name)s revoked."), { name: t.name }));
                        await this.loadTokens();
                        document.getElementById("token-name")?.focus();
                      } catch (err) {
                        say(box, problemText(err), "error");
                      }
                    },
                  }, gettext("Revoke")),
                ),
              ),
            )
          : h("p", { class: "muted" }, gettext("No token yet.")),
        h(
          "form",
          {
            testid: "token-form",
            onsubmit: async (e: Event) => {
              e.preventDefault();
              const body = tokenBody(name.input.value, boxes.filter((b) => b.checked).map((b) => b.value), days.value ? Number(days.value) : null);
              if (!body.scopes.length) {
                say(box, gettext("Tick at least one thing the token may do."), "error");
                boxes[0].focus();
                return;
              }
              try {
                const created = await busy(create, () => api.tokenCreate(body));
                announce(gettext("Token created. Copy it now: it is shown only once."));
                await this.loadTokens(created);
                this.tokenSlot.querySelector<HTMLElement>("[data-testid=token-value]")?.focus();
              } catch (err) {
                say(box, problemText(err), "error");
              }
            },
          },
          h("h3", {}, gettext("New token")),
          name.wrap,
          h("fieldset", { class: "scopes" }, h("legend", {}, gettext("It may")), ...TOKEN_SCOPES.map((s, i) => h("label", { class: "inline", for: boxes[i].id }, boxes[i], ` ${translate(s.name)} `, h("small", { class: "muted" }, `(${s.id})`)))),
          h("div", { class: "option" }, h("label", { for: "token-days", class: "stack" }, h("span", {}, gettext("Valid for")), days)),
          h("div", { class: "row" }, create),
        ),
        box,
      ),
    );
  }

  // ------------------------------------------------------------------ connected apps
  private async loadApps(): Promise<void> {
    let list;
    try {
      list = await api.connectedApps();
    } catch (err) {
      if (this.disposed) return;
      clear(this.appSlot);
      this.appSlot.append(h("p", { class: "message error" }, problemText(err)));
      return;
    }
    if (this.disposed) return;
    clear(this.appSlot);
    const box = statusLine("app-message");
    this.appSlot.append(
      panel(
        "apps",
        gettext("Connected apps"),
        h("p", { class: "muted" }, gettext("Other apps you let into your account. Disconnecting one revokes its access at once.")),
        list.length
          ? h(
              "ul",
              { class: "games", testid: "apps" },
              ...list.map((a) =>
                h(
                  "li",
                  { testid: "app" },
                  h("strong", {}, a.name || a.client_id),
                  h("br"),
                  h("small", {}, interpolate(gettext("May: %(scopes)s; since %(date)s"), { scopes: a.scopes.join(", ") || gettext("sign you in"), date: new Date(a.first_authorized_at).toLocaleDateString() })),
                  h("button", {
                    class: "small",
                    testid: "app-disconnect",
                    "aria-label": interpolate(gettext("Disconnect %(name)s"), { name: a.name || a.client_id }),
                    onclick: async () => {
                      try {
                        await api.connectedAppRevoke(a.client_id);
                        announce(interpolate(gettext("%(name)s disconnected."), { name: a.name || a.client_id }));
                        await this.loadApps();
                      } catch (err) {
                        say(box, problemText(err), "error");
                      }
                    },
                  }, gettext("Disconnect")),
                ),
              ),
            )
          : h("p", { class: "muted" }, gettext("No app is connected.")),
        box,
      ),
    );
  }

  // ------------------------------------------------------------------ export, deletion
  private showData(): void {
    clear(this.dataSlot);
    const box = statusLine("data-message");
    const download = h("button", {
      testid: "export",
      onclick: async () => {
        try {
          const { text, filename } = await api.accountExport();
          const url = URL.createObjectURL(new Blob([text], { type: "application/json" }));
          const link = h("a", { href: url, download: filename, hidden: true });
          document.body.append(link);
          link.click();
          link.remove();
          setTimeout(() => URL.revokeObjectURL(url), 10_000);
          say(box, interpolate(gettext("Downloaded %(file)s."), { file: filename }));
        } catch (err) {
          say(box, problemText(err), "error");
        }
      },
    }, gettext("Download my data (JSON)"));
    const remove = h("button", { class: "danger", testid: "delete-account", onclick: () => void this.deleteAccount() }, gettext("Delete my account…"));
    this.dataSlot.append(
      panel(
        "data",
        gettext("Your data"),
        h("p", { class: "muted" }, gettext("The export holds your profile, friends, games, ratings and notification settings. Deleting the account concedes your running games and removes your personal data for good.")),
        h("div", { class: "row" }, download, remove),
        box,
      ),
    );
  }

  private deleteAccount(): void {
    const box = statusLine("delete-message");
    const typed = field(gettext("Type \"delete\" to confirm"), { id: "delete-confirm", autocomplete: "off", required: true, testid: "delete-confirm" });
    const password = this.user?.has_usable_password ? field(gettext("Your password"), { type: "password", id: "delete-password", autocomplete: "current-password", required: true, testid: "delete-password" }) : null;
    const submit = h("button", { class: "primary danger", type: "submit", testid: "delete-submit" }, gettext("Delete the account")) as HTMLButtonElement;
    const body = h(
      "div",
      { class: "modal-body account-dialog", testid: "delete-dialog" },
      h("h2", {}, gettext("Delete your account?")),
      h("p", {}, gettext("Your running games are conceded, your name becomes “Deleted player” in finished ones, and every sign-in ends. This cannot be undone.")),
      h(
        "form",
        {
          onsubmit: async (e: Event) => {
            e.preventDefault();
            if (typed.input.value.trim().toLowerCase() !== "delete") {
              typed.error.textContent = gettext("Type the word \"delete\".");
              typed.input.focus();
              return;
            }
            try {
              await busy(submit, () => api.accountDelete({ confirm: "delete", ...(password ? { password: password.input.value } : {}) }));
              dialog.close();
              this.leave(gettext("Your account is deleted."));
            } catch (err) {
              say(box, problemText(err), "error");
            }
          },
        },
        typed.wrap,
        password?.wrap ?? null,
        h("div", { class: "row" }, submit, h("button", { type: "button", onclick: () => dialog.close() }, gettext("Cancel"))),
        box,
      ),
    );
    const dialog = openDialog(body);
  }

  // ------------------------------------------------------------------ signing out
  private async signOut(): Promise<void> {
    hush(this.top);
    try {
      if (browserSession()) {
        await browserAuth.signOut();
      } else if (token()) {
        if (this.isGuest() && !(await confirmDialog(gettext("Sign out of a guest account?"), gettext("A guest has no e-mail, password or passkey: once signed out, nobody can sign in to it again. Keep the account first to come back to it."), gettext("Sign out and lose it"), "guest-signout-dialog"))) return;
        const list = await api.signIns().catch(() => []);
        const keys = deviceKeys.sessionId();
        for (const s of list) if (s.current || s.id === keys) await api.signInEnd(s.id).catch(() => undefined);
      }
    } catch (err) {
      say(this.top, errorText(err), "error");
      return;
    }
    this.leave(gettext("You are signed out."));
  }

  private leave(text: string): void {
    deviceKeys.forget();
    forget();
    sessionStorage.setItem("canasta.notice", text);
    location.hash = "#/account/signin";
  }
}
