// Signing in and up with the browser flow of allauth's API (the session cookie, CSRF):
//   #/account/signin[?next=/path]   e-mail and password, or a passkey (no name typed: a
//                                   discoverable credential); then a second factor if the
//                                   account has one, or the e-mail's code if it is unverified
//   #/account/signup                e-mail, password, optional display name (or a passkey
//                                   instead of the password), then the code sent by e-mail
//   #/account/verify                the code of a pending verification
//   #/account/reset                 password reset by code: the e-mail, then the code and a
//                                   new password
// Each step replaces the panel's body and moves the focus to its heading; messages go to a
// status line (role=alert for errors).
import { type AuthState, browserAuth, errorText, fieldErrors, nextStep, pendingFlow } from "./allauth";
import { browserSession, forget, playerName, startBrowserSession, token } from "./api";
import { codeTyped, hashQuery, safeNext } from "./accountWords";
import { deviceKeys } from "./deviceKeys";
import { clear, h } from "./dom";
import { gettext, interpolate } from "./i18n";
import { languageChooser } from "./nav";
import { createPasskey, passkeyName, passkeysSupported, usePasskey } from "./webauthn";

export type AuthMode = "signin" | "signup" | "verify" | "reset";

// ---------------------------------------------------------------- small form pieces
let fieldCounter = 0;

/** A labelled input with its help and its own error line (aria-describedby both). */
export function field(label: string, attrs: Record<string, unknown>, help = ""): { wrap: HTMLElement; input: HTMLInputElement; error: HTMLElement } {
  const id = String(attrs.id ?? `field-${++fieldCounter}`);
  const error = h("small", { class: "field-error", id: `${id}-error` });
  const helpEl = help ? h("small", { class: "hint", id: `${id}-help` }, help) : null;
  const input = h("input", { ...attrs, id, "aria-describedby": [helpEl ? `${id}-help` : "", `${id}-error`].filter(Boolean).join(" ") }) as HTMLInputElement;
  return { wrap: h("div", { class: "option" }, h("label", { for: id, class: "stack" }, h("span", {}, label), input), helpEl, error), input, error };
}

export function statusLine(testid: string): HTMLElement {
  return h("div", { class: "message empty", testid, role: "status", "aria-live": "polite" });
}

export function say(box: HTMLElement, text: string, kind: "error" | "info" = "info"): void {
  box.className = `message ${kind}`;
  box.setAttribute("role", kind === "error" ? "alert" : "status");
  box.textContent = text;
}

export function hush(box: HTMLElement): void {
  box.className = "message empty";
  box.textContent = "";
}

/** Runs ``fn`` with ``button`` disabled (no double submits) and its text saying so. */
export async function busy<T>(button: HTMLButtonElement, fn: () => Promise<T>): Promise<T> {
  const text = button.textContent;
  button.disabled = true;
  button.setAttribute("aria-busy", "true");
  try {
    return await fn();
  } finally {
    button.disabled = false;
    button.removeAttribute("aria-busy");
    button.textContent = text;
  }
}

// ---------------------------------------------------------------- the screen
export class AuthScreen {
  private readonly body = h("div", { class: "auth-body" });
  private readonly box = statusLine("auth-message");
  private readonly title = h("h1", { class: "auth-title", tabindex: -1, testid: "auth-title" });
  private disposed = false;
  private email = "";
  private readonly next: string;

  constructor(
    private readonly root: HTMLElement,
    private readonly mode: AuthMode,
    hash: string,
  ) {
    this.next = safeNext(hashQuery(hash).get("next"));
  }

  dispose(): void {
    this.disposed = true;
  }

  mount(): void {
    this.root.append(
      h("header", { class: "game-header" }, h("a", { class: "home", href: "#/", "aria-label": gettext("Canasta: back to the start") }, "♠ Canasta"), h("span", { class: "game-title" }, ""), h("span", { class: "header-buttons" }, languageChooser())),
      h("section", { class: "panel auth", testid: "auth-panel", "aria-labelledby": "auth-title" }, this.title, this.box, this.body),
    );
    this.title.id = "auth-title";
    const notice = sessionStorage.getItem("canasta.notice");
    sessionStorage.removeItem("canasta.notice");
    if (this.mode === "signup") this.signUpStep();
    else if (this.mode === "verify") this.codeStep("verify");
    else if (this.mode === "reset") this.resetRequestStep();
    else this.signInStep();
    if (notice) say(this.box, notice);
  }

  private step(title: string, ...content: (HTMLElement | string | null)[]): void {
    if (this.disposed) return;
    this.title.textContent = title;
    clear(this.body);
    this.body.append(...content.filter((c): c is HTMLElement | string => c !== null));
    this.title.focus();
  }

  private fail(err: unknown): void {
    say(this.box, errorText(err), "error");
  }

  /** Where an answer leads: signed in, or the next step of the flow. */
  private async follow(state: AuthState): Promise<void> {
    switch (nextStep(state)) {
      case "done":
        return this.signedIn();
      case "verify_email":
        say(this.box, interpolate(gettext("We sent a code to %(email)s. Type it below."), { email: this.email || gettext("your e-mail address") }));
        return this.codeStep("verify");
      case "second_factor":
        hush(this.box);
        return this.codeStep("second_factor", pendingFlow(state)?.types ?? []);
      case "passkey_signup":
        return this.passkeySignUpStep();
      case "reset_code":
        say(this.box, interpolate(gettext("If %(email)s has an account, a code is on its way there."), { email: this.email }));
        return this.resetCodeStep();
      default:
        say(this.box, gettext("You are not signed in yet."), "error");
        return this.signInStep();
    }
  }

  private async signedIn(): Promise<void> {
    deviceKeys.forget();
    await startBrowserSession();
    if (this.disposed) return;
    if (this.next) location.assign(this.next);
    else location.hash = "#/";
  }

  private guestWarning(): HTMLElement | null {
    if (!token()) return null;
    return h(
      "p",
      { class: "message info", testid: "guest-warning" },
      `${interpolate(gettext("You are playing as the guest %(name)s. Signing in to an account leaves this guest; to keep it, first add an e-mail or a passkey on your account page."), { name: playerName() ?? "" })} `,
      h("a", { href: "#/account" }, gettext("Your account page")),
    );
  }

  // ------------------------------------------------------------ sign in
  private signInStep(prefill = ""): void {
    const email = field(gettext("E-mail"), { type: "email", id: "signin-email", autocomplete: "username webauthn", required: true, value: prefill || this.email, testid: "signin-email" });
    const password = field(gettext("Password"), { type: "password", id: "signin-password", autocomplete: "current-password", required: true, testid: "signin-password" });
    const submit = h("button", { class: "primary", type: "submit", testid: "signin-submit" }, gettext("Sign in")) as HTMLButtonElement;
    const form = h(
      "form",
      {
        testid: "signin-form",
        onsubmit: async (e: Event) => {
          e.preventDefault();
          this.email = email.input.value.trim();
          email.error.textContent = password.error.textContent = "";
          try {
            const state = await busy(submit, () => browserAuth.signIn(this.email, password.input.value));
            await this.follow(state);
          } catch (err) {
            email.error.textContent = fieldErrors(err, "email");
            password.error.textContent = fieldErrors(err, "password");
            this.fail(err);
          }
        },
      },
      email.wrap,
      password.wrap,
      h("div", { class: "row" }, submit),
    );
    const passkey = passkeysSupported()
      ? h(
          "div",
          { class: "row" },
          h("button", { type: "button", testid: "signin-passkey", onclick: (e: Event) => void this.passkeySignIn(e.currentTarget as HTMLButtonElement) }, gettext("Sign in with a passkey")),
        )
      : h("p", { class: "muted" }, gettext("Passkeys need a secure page (https) and a browser that has them."));
    this.step(
      gettext("Sign in"),
      this.guestWarning(),
      form,
      passkey,
      h(
        "p",
        { class: "links" },
        h("a", { href: "#/account/reset", testid: "to-reset" }, gettext("Forgot your password?")),
        " · ",
        h("a", { href: "#/account/signup", testid: "to-signup" }, gettext("Create an account")),
        " · ",
        h("a", { href: "#/" }, gettext("Play as a guest")),
      ),
    );
    email.input.focus();
  }

  private async passkeySignIn(button: HTMLButtonElement): Promise<void> {
    hush(this.box);
    try {
      const state = await busy(button, async () => {
        const options = await browserAuth.passkeySignInOptions();
        const credential = await usePasskey(options);
        return browserAuth.passkeySignIn(credential);
      });
      await this.follow(state);
    } catch (err) {
      this.fail(err);
    }
  }

  private async passkeySecondFactor(button: HTMLButtonElement): Promise<void> {
    hush(this.box);
    try {
      const state = await busy(button, async () => browserAuth.passkeySecondFactor(await usePasskey(await browserAuth.passkeySecondFactorOptions())));
      await this.follow(state);
    } catch (err) {
      this.fail(err);
    }
  }

  // ------------------------------------------------------------ sign up
  private signUpStep(): void {
    const email = field(gettext("E-mail"), { type: "email", id: "signup-email", autocomplete: "email", required: true, value: this.email, testid: "signup-email" });
    const name = field(gettext("Display name (optional)"), { id: "signup-name", maxlength: 40, autocomplete: "nickname", testid: "signup-name" }, gettext("What other players see; your e-mail's name if left empty."));
    const password = field(gettext("Password"), { type: "password", id: "signup-password", autocomplete: "new-password", minlength: 8, testid: "signup-password" }, gettext("At least 8 characters, not a common one. Leave it empty to use a passkey instead."));
    const submit = h("button", { class: "primary", type: "submit", testid: "signup-submit" }, gettext("Create the account")) as HTMLButtonElement;
    const form = h(
      "form",
      {
        testid: "signup-form",
        onsubmit: async (e: Event) => {
          e.preventDefault();
          this.email = email.input.value.trim();
          for (const f of [email, name, password]) f.error.textContent = "";
          const withPasskey = !password.input.value;
          if (withPasskey && !passkeysSupported()) {
            password.error.textContent = gettext("Choose a password: this browser cannot make passkeys here.");
            password.input.focus();
            return;
          }
          try {
            const state = await busy(submit, () =>
              withPasskey ? browserAuth.passkeySignUp(this.email, name.input.value.trim()) : browserAuth.signUp(this.email, password.input.value, name.input.value.trim()),
            );
            await this.follow(state);
          } catch (err) {
            email.error.textContent = fieldErrors(err, "email");
            name.error.textContent = fieldErrors(err, "display_name");
            password.error.textContent = fieldErrors(err, "password");
            this.fail(err);
          }
        },
      },
      email.wrap,
      name.wrap,
      password.wrap,
      h("div", { class: "row" }, submit),
    );
    this.step(gettext("Create an account"), this.guestWarning(), form, h("p", { class: "links" }, `${gettext("Have one?")} `, h("a", { href: "#/account/signin", testid: "to-signin" }, gettext("Sign in"))));
    email.input.focus();
  }

  private passkeySignUpStep(): void {
    const make = h("button", { class: "primary", type: "button", testid: "signup-passkey" }, gettext("Make the passkey")) as HTMLButtonElement;
    make.addEventListener("click", async () => {
      try {
        const state = await busy(make, async () => {
          const options = await browserAuth.passkeySignUpOptions();
          const credential = await createPasskey(options);
          return browserAuth.passkeySignUpFinish(passkeyName(navigator.userAgent), credential);
        });
        await this.follow(state);
      } catch (err) {
        this.fail(err);
      }
    });
    say(this.box, gettext("Your e-mail is verified. Now make the passkey you will sign in with."));
    this.step(gettext("Make your passkey"), h("div", { class: "row" }, make));
  }

  // ------------------------------------------------------------ codes
  private codeStep(kind: "verify" | "second_factor", types: string[] = []): void {
    const isVerify = kind === "verify";
    const code = field(
      isVerify ? gettext("Code from the e-mail") : types.includes("totp") ? gettext("Code from your authenticator app (or a recovery code)") : gettext("Or a recovery code"),
      { id: "auth-code", autocomplete: "one-time-code", required: true, autocapitalize: "characters", spellcheck: "false", testid: "auth-code" },
    );
    const submit = h("button", { class: "primary", type: "submit", testid: "code-submit" }, isVerify ? gettext("Verify") : gettext("Continue")) as HTMLButtonElement;
    const resend = isVerify
      ? h(
          "button",
          {
            type: "button",
            testid: "code-resend",
            onclick: async () => {
              try {
                await browserAuth.resendVerification();
                say(this.box, gettext("Another code is on its way."));
              } catch (err) {
                this.fail(err);
              }
            },
          },
          gettext("Send another code"),
        )
      : null;
    const form = h(
      "form",
      {
        testid: "code-form",
        onsubmit: async (e: Event) => {
          e.preventDefault();
          code.error.textContent = "";
          try {
            const state = await busy(submit, () => (isVerify ? browserAuth.verifyEmail(codeTyped(code.input.value)) : browserAuth.secondFactor(codeTyped(code.input.value))));
            await this.follow(state);
          } catch (err) {
            code.error.textContent = fieldErrors(err, isVerify ? "key" : "code");
            this.fail(err);
          }
        },
      },
      code.wrap,
      h("div", { class: "row" }, submit, resend),
    );
    const byPasskey =
      !isVerify && types.includes("webauthn") && passkeysSupported()
        ? h("div", { class: "row" }, h("button", { type: "button", testid: "second-factor-passkey", onclick: (e: Event) => void this.passkeySecondFactor(e.currentTarget as HTMLButtonElement) }, gettext("Use a passkey")))
        : null;
    const codes = types.filter((t) => t !== "webauthn");
    this.step(isVerify ? gettext("Verify your e-mail") : gettext("Second step"), byPasskey, isVerify || codes.length ? form : null);
    if (byPasskey) byPasskey.querySelector("button")?.focus();
    else code.input.focus();
  }

  // ------------------------------------------------------------ password reset
  private resetRequestStep(): void {
    const email = field(gettext("E-mail"), { type: "email", id: "reset-email", autocomplete: "email", required: true, value: this.email, testid: "reset-email" });
    const submit = h("button", { class: "primary", type: "submit", testid: "reset-request" }, gettext("Send me a code")) as HTMLButtonElement;
    const form = h(
      "form",
      {
        testid: "reset-form",
        onsubmit: async (e: Event) => {
          e.preventDefault();
          this.email = email.input.value.trim();
          email.error.textContent = "";
          try {
            await this.follow(await busy(submit, () => browserAuth.passwordResetRequest(this.email)));
          } catch (err) {
            email.error.textContent = fieldErrors(err, "email");
            this.fail(err);
          }
        },
      },
      email.wrap,
      h("div", { class: "row" }, submit),
    );
    this.step(gettext("Reset your password"), form, h("p", { class: "links" }, h("a", { href: "#/account/signin" }, gettext("Back to sign in"))));
    email.input.focus();
  }

  private resetCodeStep(): void {
    const code = field(gettext("Code from the e-mail"), { id: "reset-code", autocomplete: "one-time-code", required: true, spellcheck: "false", testid: "reset-code" });
    const password = field(gettext("New password"), { type: "password", id: "reset-password", autocomplete: "new-password", required: true, minlength: 8, testid: "reset-password" });
    const submit = h("button", { class: "primary", type: "submit", testid: "reset-submit" }, gettext("Set the new password")) as HTMLButtonElement;
    const form = h(
      "form",
      {
        testid: "reset-code-form",
        onsubmit: async (e: Event) => {
          e.preventDefault();
          code.error.textContent = password.error.textContent = "";
          try {
            const state = await busy(submit, () => browserAuth.passwordReset(codeTyped(code.input.value), password.input.value));
            if (state.user) return this.signedIn();
            say(this.box, gettext("Your password is changed. Sign in with it."));
            this.signInStep(this.email);
          } catch (err) {
            code.error.textContent = fieldErrors(err, "key");
            password.error.textContent = fieldErrors(err, "password");
            this.fail(err);
          }
        },
      },
      code.wrap,
      password.wrap,
      h("div", { class: "row" }, submit),
    );
    this.step(gettext("Type the code and a new password"), form);
    code.input.focus();
  }
}

/** At start-up without a guest key: is this browser signed in by its session cookie (after
 * the identity provider's pages, say)? Remembers who, or forgets a session that ended. */
export async function checkBrowserSession(): Promise<void> {
  if (token()) return;
  try {
    const state = await browserAuth.session();
    if (state.user) await startBrowserSession();
    else if (browserSession()) forget();
  } catch {
    /* offline: the pages say so */
  }
}
