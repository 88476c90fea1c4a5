// Words for counts ("1 card", "2 cards", "1 open seat") and for moves ("Discard 7♥", "Meld
// K♠ K♥ K♦"): the table's suggestions, the replay's review and the table's hints say a move the
// same way.
import { label, labels } from "./cards";
import { type FamilyAction, familyActionText } from "./family";
import { gettext, interpolate } from "./i18n";

/** ``count`` and the noun, singular for exactly one: plural(1, "card") is "1 card". */
export function plural(count: number, one: string, many = `${one}s`): string {
  return `${count} ${count === 1 ? one : many}`;
}

/** A move as the API writes it (an action of `legal_actions`, of a review, of a hint). */
export interface MoveLike {
  type: string;
  card?: string | null;
  allow?: boolean | null;
  cards?: string[] | null;
  melds?: { cards: string[]; rank?: string | null }[] | null;
  /** The variant families' fields (family.ts). */
  target?: string | null;
  merge?: string[] | null;
  keep_three?: boolean | null;
  name?: string | null;
}

function groups(a: MoveLike): string {
  return (a.melds ?? []).map((g) => labels(g.cards)).join(" | ");
}

/** A move in words, cards as short labels ("Q♥": cardText draws them, spoken() reads them). */
export function actionText(a: MoveLike): string {
  const family = familyActionText(a as unknown as FamilyAction);
  if (family) return family;
  switch (a.type) {
    case "draw":
      return gettext("Draw from the stock");
    case "discard":
      return a.card ? interpolate(gettext("Discard %(card)s"), { card: label(a.card) }) : gettext("Discard");
    case "meld":
      return interpolate(gettext("Meld %(cards)s"), { cards: groups(a) });
    case "take_pile": {
      const extra = (a.melds ?? []).length ? ` + ${interpolate(gettext("meld %(cards)s"), { cards: groups(a) })}` : "";
      return (a.cards ?? []).length
        ? interpolate(gettext("Take pile with %(cards)s"), { cards: labels(a.cards ?? []) }) + extra
        : gettext("Take pile (lay top card off)") + extra;
    }
    case "ask_partner":
      return gettext("Ask partner to go out");
    case "answer_partner":
      return a.allow ? gettext("Answer yes (partner may go out)") : gettext("Answer no (partner may not go out)");
    case "decline_pile":
      return gettext("Decline the pile");
    case "end_round":
      return gettext("End the round");
    default:
      return a.type.replace(/_/g, " ");
  }
}

/** The hand's cards a move uses: the discard, the cards taken with the pile, the melds'. */
export function actionCards(a: MoveLike): string[] {
  return [
    ...(a.card ? [a.card] : []),
    ...(a.cards ?? []),
    ...(a.melds ?? []).flatMap((g) => g.cards),
  ];
}
