// Translations through Django's JavaScript catalogue: GET /api/v1/i18n/catalog/?lang=xx answers
// {catalog, formats, plural} (django.views.i18n.JSONCatalog, the djangojs domain, whose
// catalogues live in locale/<lang>/LC_MESSAGES/djangojs.po). The page loads it before its first
// render; without it (offline, an error) every string stays in English, the source language.
// Strings are marked with gettext("..."), ngettext("...", "...", n) and gettext_noop("...")
// (marked, translated later), which `manage.py webmessages` extracts into the catalogues.

export interface Language {
  code: string; // Django's language code (LANGUAGES)
  name: string; // the language's name in that language
}

/** The languages of the client, each named in itself. */
export const LANGUAGES: readonly Language[] = [
  { code: "en", name: "English" },
  { code: "es", name: "Español" },
  { code: "pt-br", name: "Português (Brasil)" },
  { code: "it", name: "Italiano" },
  { code: "de", name: "Deutsch" },
];

const STORAGE_KEY = "canasta.language";

type Entry = string | string[];
interface Catalogue {
  catalog: Record<string, Entry>;
  plural: string | null;
}

let catalog: Record<string, Entry> = {};
let pluralIndex: (n: number) => number = (n) => (n === 1 ? 0 : 1);
let current = "en";

/** A supported language code for a browser's tag ("pt-BR" → "pt-br", "es-AR" → "es"), or null. */
export function supportedLanguage(tag: string | null | undefined): string | null {
  if (!tag) return null;
  const lower = tag.toLowerCase().replace("_", "-");
  if (LANGUAGES.some((l) => l.code === lower)) return lower;
  const base = lower.split("-")[0];
  if (base === "pt") return "pt-br";
  return LANGUAGES.some((l) => l.code === base) ? base : null;
}

/** The language chosen in this browser, else the browser's own preference, else English. */
export function preferredLanguage(): string {
  let stored: string | null = null;
  try {
    stored = localStorage.getItem(STORAGE_KEY);
  } catch {
    /* storage refused */
  }
  const chosen = supportedLanguage(stored);
  if (chosen) return chosen;
  const browser = typeof navigator === "undefined" ? [] : (navigator.languages ?? [navigator.language]);
  for (const tag of browser) {
    const found = supportedLanguage(tag);
    if (found) return found;
  }
  return "en";
}

/** The BCP 47 tag of a language code ("pt-br" → "pt-BR"), as the API's `language` has it. */
export function languageTag(code: string): string {
  const [base, region] = code.split("-");
  return region ? `${base}-${region.toUpperCase()}` : base;
}

/** Whether this browser holds a chosen language. */
export function languageChosen(): boolean {
  try {
    return supportedLanguage(localStorage.getItem(STORAGE_KEY)) !== null;
  } catch {
    return false;
  }
}

/** Remember a language for this browser. */
export function rememberLanguage(code: string): void {
  try {
    localStorage.setItem(STORAGE_KEY, code);
  } catch {
    /* storage refused: the choice lasts for this page */
  }
}

/** The language the page is shown in (a code of LANGUAGES). */
export function currentLanguage(): string {
  return current;
}

/** Use a catalogue (the JSON of Django's JSONCatalog) for language `code`. */
export function useCatalogue(code: string, data: Catalogue | null): void {
  current = code;
  catalog = data?.catalog ?? {};
  pluralIndex = data?.plural ? pluralFunction(data.plural) : (n) => (n === 1 ? 0 : 1);
  if (typeof document !== "undefined") document.documentElement.lang = languageTag(code);
}

/** Fetch and use the catalogue of `code`; English (no catalogue) when it fails. */
export async function loadLanguage(code: string): Promise<void> {
  if (code === "en") {
    useCatalogue("en", null);
    return;
  }
  try {
    const res = await fetch(`/api/v1/i18n/catalog/?lang=${encodeURIComponent(code)}`, { headers: { Accept: "application/json" } });
    if (!res.ok) throw new Error(String(res.status));
    useCatalogue(code, (await res.json()) as Catalogue);
  } catch {
    useCatalogue("en", null);
  }
}

/** The translation of `msgid`, or `msgid` itself. */
export function gettext(msgid: string): string {
  const entry = catalog[msgid];
  if (typeof entry === "string") return entry || msgid;
  if (Array.isArray(entry) && entry[0]) return entry[0];
  return msgid;
}

/** The translation of a string marked elsewhere with gettext_noop (a table's entry). */
export function translate(msgid: string): string {
  return gettext(msgid);
}

/** Marks a string for the catalogues without translating it (translated where it is shown). */
export function gettext_noop(msgid: string): string {
  return msgid;
}

/** The singular or plural translation for `n`. */
export function ngettext(singular: string, plural: string, n: number): string {
  const entry = catalog[singular];
  if (Array.isArray(entry)) {
    const form = entry[pluralIndex(n)];
    if (form) return form;
  }
  return n === 1 ? singular : plural;
}

/** A count's words: counted(ngettext("%(count)s card", "%(count)s cards", n), n). */
export function counted(text: string, count: number): string {
  return interpolate(text, { count });
}

/** Fills placeholders: `%s` from an array in order, `%(name)s` from an object. */
export function interpolate(fmt: string, values: readonly unknown[] | Record<string, unknown>): string {
  if (Array.isArray(values)) {
    let i = 0;
    return fmt.replace(/%s/g, () => String(values[i++]));
  }
  const named = values as Record<string, unknown>;
  return fmt.replace(/%\(([a-zA-Z_][a-zA-Z0-9_]*)\)s/g, (whole, name: string) => (name in named ? String(named[name]) : whole));
}

// ------------------------------------------------------------------------- plural expressions
// The catalogue's `plural` is a C expression of n ("(n != 1)", "n == 1 ? 0 : n != 0 && n %
// 1000000 == 0 ? 1 : 2"). It is parsed here (numbers, n, parentheses, ! % * / + - < > <= >= ==
// != && || ?:), never evaluated as code; an expression that does not parse falls back to n != 1.
type Node = (n: number) => number;

export function pluralFunction(expr: string): (n: number) => number {
  try {
    const tokens = expr.match(/\d+|n|&&|\|\||[<>!=]=|[-+*/%<>!?:()]/g) ?? [];
    if (tokens.join("") !== expr.replace(/\s+/g, "").replace(/;$/, "")) throw new Error("unexpected character");
    let pos = 0;
    const peek = () => tokens[pos];
    const take = (t?: string) => {
      const tok = tokens[pos++];
      if (tok === undefined || (t !== undefined && tok !== t)) throw new Error(`expected ${t ?? "more"}`);
      return tok;
    };
    const binary = (ops: string[], next: () => Node): (() => Node) => () => {
      let left = next();
      while (ops.includes(peek() ?? "")) {
        const op = take();
        const l = left;
        const r = next();
        left = (n) => apply(op, l(n), r(n));
      }
      return left;
    };
    const primary = (): Node => {
      const tok = take();
      if (tok === "(") {
        const inner = ternary();
        take(")");
        return inner;
      }
      if (tok === "!") {
        const inner = primary();
        return (n) => (inner(n) ? 0 : 1);
      }
      if (tok === "-") {
        const inner = primary();
        return (n) => -inner(n);
      }
      if (tok === "n") return (n) => n;
      if (/^\d+$/.test(tok)) {
        const value = Number(tok);
        return () => value;
      }
      throw new Error(`unexpected ${tok}`);
    };
    const mul = binary(["*", "/", "%"], primary);
    const add = binary(["+", "-"], mul);
    const rel = binary(["<", ">", "<=", ">="], add);
    const eq = binary(["==", "!="], rel);
    const and = binary(["&&"], eq);
    const or = binary(["||"], and);
    function ternary(): Node {
      const cond = or();
      if (peek() !== "?") return cond;
      take("?");
      const yes = ternary();
      take(":");
      const no = ternary();
      return (n) => (cond(n) ? yes(n) : no(n));
    }
    const root = ternary();
    if (pos !== tokens.length) throw new Error("trailing tokens");
    return (n) => Number(root(n));
  } catch {
    return (n) => (n === 1 ? 0 : 1);
  }
}

function apply(op: string, a: number, b: number): number {
  switch (op) {
    case "*": return a * b;
    case "/": return b === 0 ? 0 : Math.trunc(a / b);
    case "%": return b === 0 ? 0 : a % b;
    case "+": return a + b;
    case "-": return a - b;
    case "<": return Number(a < b);
    case ">": return Number(a > b);
    case "<=": return Number(a <= b);
    case ">=": return Number(a >= b);
    case "==": return Number(a === b);
    case "!=": return Number(a !== b);
    case "&&": return Number(Boolean(a) && Boolean(b));
    case "||": return Number(Boolean(a) || Boolean(b));
    default: throw new Error(op);
  }
}
