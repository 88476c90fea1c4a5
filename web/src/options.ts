// The rule options in words, for the new-table form and the "How to play" panel.
import type { Rules } from "./api";

export const OPTION_TEXT: Record<string, string> = {
  players: "Players",
  draw_count: "Cards drawn per turn",
  canastas_to_go_out: "Canastas needed to go out",
  target_score: "Target score",
  wild_ratio: "Wild cards in a meld",
  pile_new_meld_needs_two_naturals: "Pile: new meld needs a natural pair",
  pile_to_canasta: "Pile top card may go on a canasta",
  one_card_pile_restriction: "One card in hand may not take a one-card pile",
  red_three_reveal: "Red threes revealed",
  stock_exhausted: "When the stock runs out",
  ask_partner_to_go_out: "May ask partner to go out",
  first_upcard_black_three_turns: "Black three upcard is covered",
  red_three_discard: "Red threes may be discarded",
  max_wilds_per_meld: "Most wild cards per meld",
  wild_canasta: "Wild canastas",
  concealed_requires_canasta: "Concealed going out needs a canasta",
  last_red_three: "Red three as last stock card",
};

export function optionTitle(name: string): string {
  return OPTION_TEXT[name] ?? name.replace(/_/g, " ");
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

/** An option's value in words: "yes", "no", "naturals exceed wilds", "5000". */
export function optionValue(value: unknown): string {
  if (value === true) return "yes";
  if (value === false) return "no";
  if (value === null || value === undefined) return "—";
  return String(value).replace(/_/g, " ");
}
