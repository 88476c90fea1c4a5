// The table rebuilt from the move log as one viewer may see it (the events feed is already
// redacted for the requester: a seat sees its own draws, everyone sees discards and melds).
// Used for the step-by-step replay and for the activity log's sentences.
import type { GameEvent, Seat } from "./api";
import { labels, rankOf, removeCards } from "./cards";

type Effect = Record<string, unknown> & { kind: string; seat: number | null };

export interface RoundEnd {
  round: number;
  reason: string;
  went_out: number | null;
  concealed: boolean;
  teams: Record<string, number>[];
  scores: number[];
  hands: string[][];
}

export interface ReplayTable {
  round: number;
  dealer: number;
  pile: string[];
  stock: number;
  handCounts: number[];
  /** Per team: rank -> cards. */
  melds: Record<string, string[]>[];
  redThrees: string[][];
  scores: number[];
  /** The viewer's hand (null for a spectator). */
  hand: string[] | null;
  lastRound: RoundEnd | null;
  winner: number | null;
  lastSeat: number | null;
}

export function emptyTable(teams: number, players: number): ReplayTable {
  return {
    round: 0,
    dealer: 0,
    pile: [],
    stock: 0,
    handCounts: Array(players).fill(0),
    melds: Array.from({ length: teams }, () => ({})),
    redThrees: Array.from({ length: teams }, () => []),
    scores: Array(teams).fill(0),
    hand: null,
    lastRound: null,
    winner: null,
    lastSeat: null,
  };
}

function clone(t: ReplayTable): ReplayTable {
  return {
    ...t,
    pile: [...t.pile],
    handCounts: [...t.handCounts],
    melds: t.melds.map((m) => Object.fromEntries(Object.entries(m).map(([k, v]) => [k, [...v]]))),
    redThrees: t.redThrees.map((r) => [...r]),
    scores: [...t.scores],
    hand: t.hand ? [...t.hand] : null,
  };
}

function strings(v: unknown): string[] {
  return Array.isArray(v) ? v.map(String) : [];
}

function groups(v: unknown): { rank: string; cards: string[] }[] {
  if (!Array.isArray(v)) return [];
  return v.map((g: { rank?: string | null; cards?: unknown }) => {
    const cards = strings(g.cards);
    const natural = cards.find((c) => c !== "JK" && rankOf(c) !== "2");
    return { rank: g.rank ?? (natural ? rankOf(natural) : "W"), cards };
  });
}

/** Apply one event to the table (returns a new table). */
export function applyEvent(
  table: ReplayTable,
  event: GameEvent,
  teamOf: (seat: number) => number,
  viewer: number | null,
): ReplayTable {
  const t = clone(table);
  t.lastSeat = event.seat;
  for (const raw of event.effects) {
    const e = raw as Effect;
    const seat = e.seat ?? -1;
    const mine = viewer !== null && seat === viewer && t.hand !== null;
    switch (e.kind) {
      case "round_started": {
        t.round = Number(e.round);
        t.dealer = Number(e.dealer);
        t.pile = strings(e.upcards);
        t.stock = Number(e.stock_count);
        t.handCounts = (e.hand_counts as number[]) ?? t.handCounts;
        t.melds = t.melds.map(() => ({}));
        t.redThrees = t.redThrees.map(() => []);
        t.hand = "hand" in e ? strings(e.hand) : null;
        break;
      }
      case "card_drawn": {
        const n = Number(e.count);
        t.stock -= n;
        t.handCounts[seat] += n;
        if (mine) t.hand!.push(...strings(e.cards));
        break;
      }
      case "red_three_revealed": {
        const n = Number(e.replacements ?? 0);
        t.redThrees[teamOf(seat)].push(String(e.card));
        t.stock -= n;
        t.handCounts[seat] += n - 1;
        if (mine) t.hand = [...removeCards(t.hand!, [String(e.card)]), ...strings(e.drawn)];
        break;
      }
      case "card_discarded": {
        t.pile.push(String(e.card));
        t.handCounts[seat] -= 1;
        if (mine) t.hand = removeCards(t.hand!, [String(e.card)]);
        break;
      }
      case "melded": {
        const team = teamOf(seat);
        for (const g of groups(e.melds)) {
          (t.melds[team][g.rank] ??= []).push(...g.cards);
          t.handCounts[seat] -= g.cards.length;
          if (mine) t.hand = removeCards(t.hand!, g.cards);
        }
        break;
      }
      case "pile_taken": {
        const team = teamOf(seat);
        const top = String(e.top);
        const withCards = strings(e.with);
        (t.melds[team][rankOf(top)] ??= []).push(top, ...withCards);
        let fromHand = withCards.length;
        const extra = groups(e.melds);
        for (const g of extra) {
          (t.melds[team][g.rank] ??= []).push(...g.cards);
          fromHand += g.cards.length;
        }
        t.redThrees[team].push(...strings(e.red_threes));
        t.handCounts[seat] += Number(e.cards_to_hand ?? 0) - fromHand;
        t.pile = [];
        if (mine) {
          t.hand = removeCards(t.hand!, [...withCards, ...extra.flatMap((g) => g.cards)]);
          t.hand.push(...strings(e.cards));
        }
        break;
      }
      case "round_ended": {
        t.scores = (e.scores as number[]) ?? t.scores;
        t.lastRound = {
          round: Number(e.round),
          reason: String(e.reason),
          went_out: (e.went_out as number | null) ?? null,
          concealed: Boolean(e.concealed),
          teams: (e.teams as Record<string, number>[]) ?? [],
          scores: t.scores,
          hands: (e.hands as string[][]) ?? [],
        };
        break;
      }
      case "game_ended": {
        t.winner = (e.winner_team as number | null) ?? null;
        t.scores = (e.scores as number[]) ?? t.scores;
        break;
      }
      default:
        break;
    }
  }
  return t;
}

const REASONS: Record<string, string> = {
  went_out: "went out",
  stock_exhausted: "the stock ran out",
  last_red_three: "the last stock card was a red three",
};

/** One sentence per effect of an event, for the activity log and the replay. */
export function describe(
  event: Pick<GameEvent, "effects"> & { type: string },
  nameOf: (seat: number) => string,
  teamName: (team: number) => string = (team) => `team ${team + 1}`,
): string[] {
  const out: string[] = event.type === "game_started" ? ["The game started."] : [];
  for (const raw of event.effects) {
    const e = raw as Effect;
    const who = e.seat === null ? "" : nameOf(e.seat);
    switch (e.kind) {
      case "round_started":
        out.push(
          `Round ${e.round} dealt by ${nameOf(Number(e.dealer))}; upcard ${labels(strings(e.upcards))}` +
            (e.pile_frozen ? " (pile frozen)." : "."),
        );
        break;
      case "card_drawn":
        out.push(
          "cards" in e
            ? `${who} drew ${labels(strings(e.cards))}.`
            : `${who} drew ${e.count === 1 ? "a card" : `${e.count} cards`}.`,
        );
        break;
      case "red_three_revealed":
        out.push(`${who} revealed a red three ${labels([String(e.card)])}.`);
        break;
      case "card_discarded":
        out.push(`${who} discarded ${labels([String(e.card)])}.`);
        break;
      case "melded":
        out.push(
          `${who} melded ${groups(e.melds)
            .map((g) => labels(g.cards))
            .join(" | ")}.`,
        );
        break;
      case "pile_taken":
        out.push(
          `${who} took the pile with ${labels([String(e.top), ...strings(e.with)])}` +
            ` (${e.cards_to_hand} cards to hand).`,
        );
        break;
      case "pile_declined":
        out.push(`${who} declined the pile.`);
        break;
      case "partner_asked":
        out.push(`${who} asked ${nameOf(Number(e.partner))} for permission to go out.`);
        break;
      case "partner_answered":
        out.push(`${who} answered ${e.allow ? "yes" : "no"}.`);
        break;
      case "round_ended": {
        const reason = REASONS[String(e.reason)] ?? String(e.reason);
        const scores = (e.scores as number[]) ?? [];
        out.push(
          e.reason === "went_out" && e.went_out !== null
            ? `Round ${e.round} over: ${nameOf(Number(e.went_out))} ${reason}${e.concealed ? " concealed" : ""}. Scores ${scores.join(" – ")}.`
            : `Round ${e.round} over: ${reason}. Scores ${scores.join(" – ")}.`,
        );
        break;
      }
      case "game_ended":
        out.push(`Game over: ${teamName(Number(e.winner_team))} won.`);
        break;
      default:
        out.push(`${who} ${e.kind.replace(/_/g, " ")}.`);
    }
  }
  return out;
}

export function seatName(seats: readonly Seat[], seat: number, viewer: number | null): string {
  if (seat === viewer) return "You";
  const s = seats[seat];
  if (!s) return `Seat ${seat + 1}`;
  if (s.player) return s.player.display_name;
  if (s.kind === "bot") return `Bot ${seat + 1}`;
  return `Seat ${seat + 1}`;
}
