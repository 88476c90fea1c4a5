// Notifications (#/notifications): when a correspondence turn's reminder comes, the e-mail
// address, which kinds go out by which channel; Web Push in this browser (subscribe, the
// subscriptions, remove); webhooks (register — the signing secret shown once —, the delivery
// log with the last failures, enable a disabled one, remove).
import { announce } from "./announce";
import { ApiError, api, type NotificationPreferences, type PushSubscriptionView, type Webhook } from "./api";
import { clear, h } from "./dom";
import { pageHeader } from "./nav";
import { CHANNELS, deliveryText, endpointText, KINDS, preferencesBody, REMINDER_FRACTIONS, reminderText, settingsForm, webhookState } from "./notifyWords";
import { gettext, interpolate, translate } from "./i18n";
import { currentSubscription, pushSupported, subscribe, unsubscribe } from "./webpush";

function problemText(err: unknown): string {
  if (err instanceof ApiError) {
    const fields = (err.problem.errors ?? []).map((e) => `${e.field ?? ""}: ${e.message}`).join("; ");
    return `${err.problem.detail || err.problem.title}${fields ? ` — ${fields}` : ""}`;
  }
  return err instanceof Error ? err.message : String(err);
}

function messageBox(testid: string): HTMLElement {
  return h("div", { class: "message empty", testid, role: "status" });
}

function say(box: HTMLElement, text: string, kind: "error" | "info" = "info"): void {
  box.className = `message ${kind}`;
  box.textContent = text;
}

export class NotificationsScreen {
  private disposed = false;
  private readonly prefsSlot = h("div");
  private readonly pushSlot = h("div");
  private readonly hooksSlot = h("div");

  constructor(private readonly root: HTMLElement) {}

  async mount(): Promise<void> {
    this.root.append(pageHeader(gettext("Notifications"), "notifications"), h("div", { class: "home-grid settings" }, this.prefsSlot, h("div", {}, this.pushSlot, this.hooksSlot)));
    this.prefsSlot.append(h("p", { class: "loading" }, gettext("Loading your settings…")));
    await Promise.all([this.loadPrefs(), this.loadPush(), this.loadHooks()]);
  }

  dispose(): void {
    this.disposed = true;
  }

  // ------------------------------------------------------------------ preferences
  private async loadPrefs(): Promise<void> {
    try {
      const prefs = await api.notifications();
      if (!this.disposed) this.showPrefs(prefs);
    } catch (err) {
      if (this.disposed) return;
      clear(this.prefsSlot);
      this.prefsSlot.append(h("p", { class: "message error" }, problemText(err)));
    }
  }

  private showPrefs(prefs: NotificationPreferences): void {
    clear(this.prefsSlot);
    const form = settingsForm(prefs);
    const box = messageBox("settings-message");
    const fraction = h(
      "select",
      { id: "reminder-fraction", testid: "reminder-fraction" },
      ...[...new Set([...REMINDER_FRACTIONS, form.reminderFraction])].sort().map((f) => h("option", { value: String(f), selected: f === form.reminderFraction }, reminderText(f))),
    ) as HTMLSelectElement;
    const email = h("input", { id: "notify-email", type: "email", autocomplete: "email", value: form.email, placeholder: "you@example.com", testid: "notify-email", "aria-describedby": "notify-email-help" }) as HTMLInputElement;
    const boxes = new Map<string, HTMLInputElement>();
    const table = h(
      "table",
      { class: "switches", testid: "switches" },
      h("caption", {}, gettext("What to send, by channel")),
      h("thead", {}, h("tr", {}, h("th", { scope: "col" }, gettext("Notification")), ...CHANNELS.map((c) => h("th", { scope: "col" }, translate(c.name))))),
      h(
        "tbody",
        {},
        ...KINDS.map((k) =>
          h(
            "tr",
            {},
            h("th", { scope: "row", id: `kind-${k.id}` }, translate(k.name)),
            ...CHANNELS.map((c) => {
              const input = h("input", { type: "checkbox", id: `switch-${c.id}-${k.id}`, testid: `switch-${c.id}-${k.id}`, checked: form.switches[c.id][k.id] ?? true, "aria-label": interpolate(gettext("%(kind)s by %(channel)s"), { kind: translate(k.name), channel: translate(c.name) }) }) as HTMLInputElement;
              boxes.set(`${c.id}|${k.id}`, input);
              return h("td", {}, input);
            }),
          ),
        ),
      ),
    );
    const save = async (e: Event) => {
      e.preventDefault();
      form.reminderFraction = Number(fraction.value);
      form.email = email.value;
      for (const [key, input] of boxes) {
        const [c, k] = key.split("|") as [keyof typeof form.switches, (typeof KINDS)[number]["id"]];
        form.switches[c][k] = input.checked;
      }
      try {
        const saved = await api.notificationsSet(preferencesBody(form));
        this.showPrefs(saved);
        const again = this.prefsSlot.querySelector<HTMLElement>("[data-testid=settings-message]")!;
        say(again, gettext("Saved."));
        announce(gettext("Notification settings saved."));
        this.prefsSlot.querySelector<HTMLElement>("[data-testid=save-settings]")?.focus();
      } catch (err) {
        say(box, problemText(err), "error");
      }
    };
    this.prefsSlot.append(
      h(
        "form",
        { class: "panel", onsubmit: save, testid: "settings-form", "aria-labelledby": "settings-title" },
        h("h2", { id: "settings-title" }, gettext("When to tell you")),
        h("div", { class: "option" }, h("label", { for: "reminder-fraction", class: "stack" }, h("span", {}, gettext("Reminder in a correspondence game")), fraction)),
        h("div", { class: "option" }, h("label", { for: "notify-email", class: "stack" }, h("span", {}, gettext("E-mail address")), email), h("small", { class: "hint", id: "notify-email-help" }, gettext("Leave it empty for no e-mail."))),
        h("div", { class: "table-scroll" }, table),
        h("div", { class: "row" }, h("button", { class: "primary", type: "submit", testid: "save-settings" }, gettext("Save"))),
        box,
      ),
    );
  }

  // ------------------------------------------------------------------ Web Push
  private async loadPush(): Promise<void> {
    const box = messageBox("push-message");
    let subs: PushSubscriptionView[] = [];
    let problem = "";
    try {
      subs = (await api.pushSubscriptions()).subscriptions;
    } catch (err) {
      problem = problemText(err);
    }
    let available = true;
    try {
      await api.pushKey();
    } catch (err) {
      available = false;
      problem ||= problemText(err);
    }
    const mine = await currentSubscription().catch(() => null);
    if (this.disposed) return;
    clear(this.pushSlot);
    const here = subs.find((s) => s.endpoint === mine?.endpoint) ?? null;
    const supported = pushSupported();
    const button = h(
      "button",
      {
        class: "primary",
        testid: "push-subscribe",
        disabled: !supported || !available,
        onclick: async () => {
          button.disabled = true;
          say(box, gettext("Asking this browser…"));
          try {
            await subscribe();
            announce(gettext("Web Push is on in this browser."));
            await this.loadPush();
            say(this.pushSlot.querySelector<HTMLElement>("[data-testid=push-message]")!, "Web Push is on in this browser.");
          } catch (err) {
            say(box, problemText(err), "error");
            button.disabled = false;
          }
        },
      },
      here ? gettext("Subscribe this browser again") : gettext("Turn on Web Push in this browser"),
    );
    this.pushSlot.append(
      h(
        "section",
        { class: "panel", "aria-labelledby": "push-title", testid: "push-panel" },
        h("h2", { id: "push-title" }, "Web Push"),
        h(
          "p",
          { class: "muted", testid: "push-state" },
          !supported
            ? gettext("This browser cannot receive Web Push notifications.")
            : !available
              ? problem
                ? interpolate(gettext("Web Push is off on this server: %(problem)s"), { problem })
                : gettext("Web Push is off on this server.")
              : here
                ? gettext("This browser receives your notifications.")
                : gettext("Get your turn on this device even when the game is closed."),
        ),
        h("div", { class: "row" }, button),
        subs.length
          ? h(
              "ul",
              { class: "games", testid: "push-subscriptions" },
              ...subs.map((s) =>
                h(
                  "li",
                  { testid: "push-subscription" },
                  endpointText(s.endpoint),
                  s.endpoint === mine?.endpoint ? ` (${gettext("this browser")})` : "",
                  s.enabled ? "" : ` · ${gettext("off: its push service says it is gone")}`,
                  h("button", { class: "small", testid: "push-remove", "aria-label": interpolate(gettext("Remove the subscription %(endpoint)s"), { endpoint: endpointText(s.endpoint) }), onclick: async () => {
                    try {
                      if (s.endpoint === mine?.endpoint) await unsubscribe(s.id);
                      else await api.pushUnsubscribe(s.id);
                      announce(gettext("Subscription removed."));
                      await this.loadPush();
                    } catch (err) {
                      say(box, problemText(err), "error");
                    }
                  } }, gettext("Remove")),
                ),
              ),
            )
          : h("p", { class: "muted" }, gettext("No browser subscribed yet.")),
        box,
      ),
    );
  }

  // ------------------------------------------------------------------ webhooks
  private async loadHooks(secret: { id: number; secret: string } | null = null): Promise<void> {
    let hooks: Webhook[];
    let limit = 0;
    try {
      const list = await api.webhooks();
      hooks = list.webhooks;
      limit = list.limit;
    } catch (err) {
      if (this.disposed) return;
      clear(this.hooksSlot);
      this.hooksSlot.append(h("p", { class: "message error" }, problemText(err)));
      return;
    }
    if (this.disposed) return;
    clear(this.hooksSlot);
    const box = messageBox("webhook-message");
    const url = h("input", { id: "webhook-url", type: "url", required: true, placeholder: "https://example.com/canasta", testid: "webhook-url" }) as HTMLInputElement;
    const description = h("input", { id: "webhook-description", maxlength: 100, placeholder: gettext("optional"), testid: "webhook-description" }) as HTMLInputElement;
    const create = async (e: Event) => {
      e.preventDefault();
      try {
        const made = await api.webhookCreate(url.value.trim(), description.value.trim());
        announce(gettext("Webhook added. Copy its secret now: it is shown only once."));
        await this.loadHooks({ id: made.id, secret: made.secret });
        this.hooksSlot.querySelector<HTMLElement>("[data-testid=webhook-secret]")?.focus();
      } catch (err) {
        say(box, problemText(err), "error");
      }
    };
    const act = (fn: () => Promise<unknown>, done: string) => async () => {
      try {
        await fn();
        announce(done);
        await this.loadHooks();
      } catch (err) {
        say(box, problemText(err), "error");
      }
    };
    this.hooksSlot.append(
      h(
        "section",
        { class: "panel", "aria-labelledby": "hooks-title", testid: "webhooks-panel" },
        h("h2", { id: "hooks-title" }, gettext("Webhooks")),
        h("p", { class: "muted" }, interpolate(gettext("Each notification is POSTed to your URL as JSON, signed (header Canasta-Signature: HMAC-SHA256 of \"<t>.<body>\" with the secret). At most %(limit)s."), { limit })),
        hooks.length
          ? h(
              "ul",
              { class: "games", testid: "webhooks" },
              ...hooks.map((w) =>
                h(
                  "li",
                  { testid: "webhook", "data-webhook": String(w.id) },
                  h("div", {}, h("code", {}, w.url), w.description ? ` · ${w.description}` : "", " · ", h("span", { testid: "webhook-state" }, webhookState(w))),
                  secret?.id === w.id
                    ? h("p", { class: "message info secret" }, `${gettext("Signing secret (shown only now):")} `, h("code", { testid: "webhook-secret", tabindex: -1 }, secret.secret))
                    : "",
                  h(
                    "div",
                    { class: "row" },
                    h("button", { class: "small", testid: "webhook-log", "aria-label": interpolate(gettext("Delivery log of %(url)s"), { url: w.url }), "aria-expanded": "false", onclick: (e: Event) => void this.toggleLog(w, e.currentTarget as HTMLButtonElement) }, gettext("Delivery log")),
                    w.enabled ? "" : h("button", { class: "small", testid: "webhook-enable", "aria-label": interpolate(gettext("Enable %(url)s"), { url: w.url }), onclick: act(() => api.webhookEnable(w.id), gettext("Webhook enabled.")) }, gettext("Enable")),
                    h("button", { class: "small", testid: "webhook-delete", "aria-label": interpolate(gettext("Remove %(url)s"), { url: w.url }), onclick: act(() => api.webhookDelete(w.id), gettext("Webhook removed.")) }, gettext("Remove")),
                  ),
                  h("div", { class: "delivery-log", testid: "delivery-log", hidden: true }),
                ),
              ),
            )
          : h("p", { class: "muted" }, gettext("No webhook yet.")),
        h(
          "form",
          { onsubmit: create, testid: "webhook-form", "aria-labelledby": "hook-new-title" },
          h("h3", { id: "hook-new-title" }, gettext("Add a webhook")),
          h("div", { class: "options-grid" }, h("label", { for: "webhook-url" }, h("span", {}, gettext("URL (https)")), url), h("label", { for: "webhook-description" }, h("span", {}, gettext("Note")), description)),
          h("div", { class: "row" }, h("button", { type: "submit", testid: "webhook-add" }, gettext("Add the webhook"))),
        ),
        box,
      ),
    );
  }

  private async toggleLog(w: Webhook, button: HTMLButtonElement): Promise<void> {
    const log = button.closest("li")?.querySelector<HTMLElement>("[data-testid=delivery-log]");
    if (!log) return;
    if (!log.hidden) {
      log.hidden = true;
      button.setAttribute("aria-expanded", "false");
      return;
    }
    clear(log);
    log.hidden = false;
    button.setAttribute("aria-expanded", "true");
    try {
      const list = await api.webhookDeliveries(w.id);
      log.append(
        list.deliveries.length
          ? h("ul", {}, ...list.deliveries.map((d) => h("li", { testid: "delivery" }, new Date(d.created_at).toLocaleString(), " · ", deliveryText(d))))
          : h("p", { class: "muted" }, gettext("Nothing sent yet.")),
      );
    } catch (err) {
      log.append(h("p", { class: "message error" }, problemText(err)));
    }
  }
}
