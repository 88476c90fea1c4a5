// The rule options in words, for the new-table form and the "How to play" panel.
import type { Rules } from "./api";
import { gettext, gettext_noop, translate } from "./i18n";

export const OPTION_TEXT: Record<string, string> = {
  players: gettext_noop("Players"),
  draw_count: gettext_noop("Cards drawn per turn"),
  canastas_to_go_out: gettext_noop("Canastas needed to go out"),
  target_score: gettext_noop("Target score"),
  wild_ratio: gettext_noop("Wild cards in a meld"),
  pile_new_meld_needs_two_naturals: gettext_noop("Pile: new meld needs a natural pair"),
  pile_to_canasta: gettext_noop("Pile top card may go on a canasta"),
  one_card_pile_restriction: gettext_noop("One card in hand may not take a one-card pile"),
  red_three_reveal: gettext_noop("Red threes revealed"),
  stock_exhausted: gettext_noop("When the stock runs out"),
  ask_partner_to_go_out: gettext_noop("May ask partner to go out"),
  first_upcard_black_three_turns: gettext_noop("Black three upcard is covered"),
  red_three_discard: gettext_noop("Red threes may be discarded"),
  max_wilds_per_meld: gettext_noop("Most wild cards per meld"),
  wild_canasta: gettext_noop("Wild canastas"),
  concealed_requires_canasta: gettext_noop("Concealed going out needs a canasta"),
  last_red_three: gettext_noop("Red three as last stock card"),
  talons: gettext_noop("Talons after the initial meld"),
  rule_of_five: gettext_noop("Rule of five for wild cards"),
  special_hands: gettext_noop("Special hands"),
  initial_meld_core: gettext_noop("Initial meld must hold"),
  initial_meld_over_7000: gettext_noop("Initial meld from 7000"),
};

/** The presets' names as the form shows them (others: the name with spaces). */
export const PRESET_TITLE: Record<string, string> = {
  classic: gettext_noop("classic"),
  hoyle: gettext_noop("hoyle"),
  two_player: gettext_noop("two player"),
  three_player: gettext_noop("three player"),
  mac: gettext_noop("Modern American (MAC)"),
  mac_two_player: gettext_noop("Modern American, two players"),
  samba: gettext_noop("Samba"),
  bolivia: gettext_noop("Bolivia"),
};

export function presetTitle(name: string): string {
  return PRESET_TITLE[name] ? translate(PRESET_TITLE[name]) : name.replace(/_/g, " ");
}

/** Each preset's rule family, where its options do not say. */
const PRESET_FAMILY: Record<string, string> = {
  mac: "mac",
  mac_two_player: "mac",
  samba: "samba",
  bolivia: "bolivia",
};

/** The options a table of a family may change; the preset fixes every other one (the server
 * refuses a change with `invalid_option`). The classic family may change all of its own. */
const FAMILY_OVERRIDABLE: Record<string, readonly string[]> = {
  mac: ["target_score", "talons", "rule_of_five", "special_hands", "initial_meld_core", "red_three_reveal", "ask_partner_to_go_out"],
  samba: [
    "target_score",
    "initial_meld_over_7000",
    "red_three_reveal",
    "stock_exhausted",
    "ask_partner_to_go_out",
    "first_upcard_black_three_turns",
    "last_red_three",
  ],
};
FAMILY_OVERRIDABLE.bolivia = FAMILY_OVERRIDABLE.samba;

/** A preset's family: its options' `family`, else the known presets'. */
export function presetFamily(name: string, values: Record<string, unknown> | undefined): string {
  const f = values?.family;
  return typeof f === "string" ? f : (PRESET_FAMILY[name] ?? "classic");
}

/** The options of the variant families (absent from a classic preset's options). */
const FAMILY_OPTIONS = ["family", "talons", "rule_of_five", "special_hands", "initial_meld_core", "initial_meld_over_7000"];

/** The options a table of ``family`` may change: as GET /rules/ lists them (`families`), else
 * as the rule book has them. */
export function overridable(rules: Rules | null, family: string): readonly string[] | null {
  const served = (rules as { families?: Record<string, { overridable?: unknown }> } | null)?.families?.[family]?.overridable;
  if (Array.isArray(served)) return served.filter((x): x is string => typeof x === "string");
  return FAMILY_OVERRIDABLE[family] ?? null;
}

/** Does the new-table form offer ``option`` for ``preset`` (whose options are ``values``):
 * a classic preset its classic options; a family's preset the options its family lets a table
 * change (never the family itself). */
export function optionOffered(
  preset: string,
  values: Record<string, unknown> | undefined,
  option: string,
  rules: Rules | null = null,
): boolean {
  if (option === "family") return false;
  const family = presetFamily(preset, values);
  if (family === "classic") return !FAMILY_OPTIONS.includes(option) && values?.[option] !== undefined;
  if (option === "ask_partner_to_go_out" && values?.players !== 4) return false;
  return overridable(rules, family)?.includes(option) ?? false;
}

/** A preset's value of ``option``: its own, else (a family option the preset leaves at its
 * default, which the options leave out) the default. */
export function presetValue(rules: Rules, values: Record<string, unknown> | undefined, option: string): unknown {
  const own = values?.[option];
  return own !== undefined ? own : (rules.options[option] as { default?: unknown } | undefined)?.default;
}

/** The target score's range: 1000..10000 in the classic family, up to 20000 in the others. */
export function targetRange(family: string): [number, number] {
  return family === "classic" ? [1000, 10000] : [1000, 20000];
}

export function optionTitle(name: string): string {
  return OPTION_TEXT[name] ? translate(OPTION_TEXT[name]) : name.replace(/_/g, " ");
}

/** What an option does, as GET /rules/ explains it. */
export function optionExplanation(rules: Rules | null, name: string): string {
  const spec = rules?.options[name] as { description?: unknown } | undefined;
  return typeof spec?.description === "string" ? spec.description : "";
}

/** What a preset plays, as GET /rules/ explains it. */
export function presetExplanation(rules: Rules | null, name: string): string {
  const all = (rules as { preset_descriptions?: Record<string, unknown> } | null)?.preset_descriptions;
  return typeof all?.[name] === "string" ? all[name] : "";
}

/** The rule options' choices in words (others: the value with spaces). */
const CHOICE_TEXT: Record<string, string> = {
  naturals_exceed_wilds: gettext_noop("naturals exceed wilds"),
  wilds_not_exceed_naturals: gettext_noop("wilds not exceed naturals"),
  on_turn: gettext_noop("on turn"),
  at_deal: gettext_noop("at deal"),
  end_round: gettext_noop("end round"),
  play_on: gettext_noop("play on"),
  meld_then_end: gettext_noop("meld then end"),
  end_now: gettext_noop("end now"),
  basic: gettext_noop("basic"),
  none: gettext_noop("none"),
  clean_triple: gettext_noop("clean triple"),
  clean_triple_or_wild_meld: gettext_noop("clean triple or wild meld"),
};

/** A choice of a rule option in words: "naturals exceed wilds". */
export function choiceText(value: unknown): string {
  const text = String(value);
  return CHOICE_TEXT[text] ? translate(CHOICE_TEXT[text]) : text.replace(/_/g, " ");
}

/** An option's value in words: "yes", "no", "naturals exceed wilds", "5000". */
export function optionValue(value: unknown): string {
  if (value === true) return gettext("yes");
  if (value === false) return gettext("no");
  if (value === null || value === undefined) return "—";
  return choiceText(value);
}
