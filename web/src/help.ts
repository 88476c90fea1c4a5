// "How to play": the rule book (docs/rules.md, rendered at build time), the keyboard, and the
// rule options (this table's, or every option with its default) with the server's explanations.
import ruleBook from "virtual:rule-book";
import type { Rules } from "./api";
import { openDialog } from "./dialog";
import { h } from "./dom";
import { gettext } from "./i18n";
import { optionExplanation, optionTitle, optionValue } from "./options";

const KEYS = (): [string, string][] => [
  [gettext("Tab, Shift+Tab"), gettext("move between the cards, the stock, the pile, the melds and the buttons")],
  [gettext("Enter or Space"), gettext("select or unselect the card in focus; press the button in focus")],
  [gettext("Left and Right arrows"), gettext("move along your hand (and step through a replay)")],
  [gettext("Escape"), gettext("close a panel such as this one")],
];

export interface HelpContext {
  rules: Rules | null;
  /** The table's options (its panel shows them), else every option with its default. */
  options?: Record<string, unknown> | null;
}

function optionsSection(ctx: HelpContext): HTMLElement | "" {
  const rules = ctx.rules;
  const names = Object.keys(ctx.options ?? rules?.options ?? {});
  if (!names.length) return "";
  const value = (name: string) => (ctx.options ? ctx.options[name] : rules?.options[name]?.default);
  return h(
    "details",
    { class: "help-options", testid: "help-options" },
    h("summary", {}, ctx.options ? gettext("This table's rules") : gettext("The rule options and their usual setting")),
    h(
      "dl",
      {},
      ...names.flatMap((name) => [
        h("dt", {}, `${optionTitle(name)}: `, h("b", {}, optionValue(value(name)))),
        optionExplanation(rules, name) ? h("dd", {}, optionExplanation(rules, name)) : "",
      ]),
    ),
  );
}

function keysSection(): HTMLElement {
  return h(
    "details",
    { class: "help-keys", testid: "help-keys" },
    h("summary", {}, gettext("Playing with the keyboard or a screen reader")),
    h("dl", {}, ...KEYS().flatMap(([keys, what]) => [h("dt", {}, keys), h("dd", {}, what)])),
    h(
      "p",
      {},
      gettext("Every card, the stock, the pile and the melds are named in words; the other players' moves and whose turn it is are read out as they happen."),
    ),
  );
}

/** The panel's content. */
export function helpBody(ctx: HelpContext, close: () => void): HTMLElement {
  const body = h(
    "div",
    { class: "modal-body help", testid: "help" },
    h(
      "div",
      { class: "help-top" },
      h("h2", {}, gettext("How to play")),
      h("button", { testid: "close-help", onclick: close, "aria-label": gettext("Close How to play") }, gettext("Close")),
    ),
    optionsSection(ctx),
    keysSection(),
  );
  const book = h("div", { class: "rule-book", testid: "rule-book" });
  book.innerHTML = ruleBook.html; // rendered and escaped by markdown.ts at build time
  body.append(book);
  // The rule book's links to its sections move within the panel (the page's address belongs
  // to its router).
  body.addEventListener("click", (e) => {
    const a = (e.target as HTMLElement).closest<HTMLAnchorElement>("a[data-anchor]");
    if (!a) return;
    e.preventDefault();
    const target = body.querySelector<HTMLElement>(`#${CSS.escape(a.dataset.anchor!)}`);
    if (!target) return;
    target.tabIndex = -1;
    target.scrollIntoView({ block: "start" });
    target.focus({ preventScroll: true });
  });
  return body;
}

/** Open the panel over the page. */
export function openHelp(ctx: HelpContext, restore?: () => void): void {
  let dialog: { close(): void } | null = null;
  const body = helpBody(ctx, () => dialog?.close());
  dialog = openDialog(body, undefined, restore);
}
