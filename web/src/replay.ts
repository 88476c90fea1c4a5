// The table rebuilt from the move log as one viewer may see it (the events feed is already
// redacted for the requester: a seat sees its own draws, everyone sees discards and melds).
// Used for the step-by-step replay and for the activity log's sentences.
import type { Effect, GameEvent, RatingsChangedLine, Seat } from "./api";
import { isBlackThree, labels, rankOf, removeCards } from "./cards";
import { specialHandWords } from "./family";
import { pauseFactText } from "./correspondence";
import { ratingsChangedText } from "./ratings";
import { counted, gettext, gettext_noop, interpolate, ngettext, translate } from "./i18n";

type RoundEnded = Extract<Effect, { kind: "round_ended" }>;

export interface RoundEnd {
  round: number;
  reason: RoundEnded["reason"];
  went_out: number | null;
  concealed: boolean;
  teams: RoundEnded["teams"];
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

/** An event of the log or of a replay (the same effects). */
type EffectsOf = Pick<GameEvent, "effects" | "seat">;

/** Apply one event to the table (returns a new table). */
export function applyEvent(
  table: ReplayTable,
  event: EffectsOf,
  teamOf: (seat: number) => number,
  viewer: number | null,
): ReplayTable {
  const t = clone(table);
  t.lastSeat = event.seat;
  for (const e of event.effects) {
    const mine = (seat: number) => viewer !== null && seat === viewer && t.hand !== null;
    switch (e.kind) {
      case "round_started": {
        t.round = e.round;
        t.dealer = e.dealer;
        t.pile = [...e.upcards];
        t.stock = e.stock_count;
        t.handCounts = [...e.hand_counts];
        t.melds = t.melds.map(() => ({}));
        t.redThrees = t.redThrees.map(() => []);
        t.hand = e.hand ? [...e.hand] : null;
        break;
      }
      case "card_drawn": {
        t.stock -= e.count;
        t.handCounts[e.seat] += e.count;
        if (mine(e.seat)) t.hand!.push(...(e.cards ?? []));
        break;
      }
      case "red_three_revealed": {
        t.redThrees[teamOf(e.seat)].push(e.card);
        t.stock -= e.replacements;
        t.handCounts[e.seat] += e.replacements - 1;
        if (mine(e.seat)) t.hand = [...removeCards(t.hand!, [e.card]), ...(e.drawn ?? [])];
        break;
      }
      case "card_discarded": {
        t.pile.push(e.card);
        t.handCounts[e.seat] -= 1;
        if (mine(e.seat)) t.hand = removeCards(t.hand!, [e.card]);
        break;
      }
      case "melded": {
        const team = teamOf(e.seat);
        for (const g of e.melds) {
          (t.melds[team][g.rank] ??= []).push(...g.cards);
          t.handCounts[e.seat] -= g.cards.length;
          if (mine(e.seat)) t.hand = removeCards(t.hand!, g.cards);
        }
        break;
      }
      case "pile_taken": {
        const team = teamOf(e.seat);
        (t.melds[team][rankOf(e.top)] ??= []).push(e.top, ...e.with);
        let fromHand = e.with.length;
        for (const g of e.melds) {
          (t.melds[team][g.rank] ??= []).push(...g.cards);
          fromHand += g.cards.length;
        }
        t.redThrees[team].push(...e.red_threes);
        t.handCounts[e.seat] += e.cards_to_hand - fromHand;
        t.pile = [];
        if (mine(e.seat)) {
          t.hand = removeCards(t.hand!, [...e.with, ...e.melds.flatMap((g) => g.cards)]);
          t.hand.push(...(e.cards ?? []));
        }
        break;
      }
      case "round_ended": {
        t.scores = [...e.scores];
        t.lastRound = {
          round: e.round,
          reason: e.reason,
          went_out: e.went_out,
          concealed: e.concealed,
          teams: e.teams,
          scores: t.scores,
          hands: e.hands,
        };
        break;
      }
      case "game_ended": {
        t.winner = e.winner_team;
        t.scores = [...e.scores];
        break;
      }
      case "talon_drawn": {
        t.stock -= e.count;
        t.handCounts[e.seat] += e.count;
        if (mine(e.seat)) t.hand!.push(...(e.cards ?? []));
        break;
      }
      case "special_hand_declared": {
        t.handCounts[e.seat] -= e.cards.length;
        if (mine(e.seat)) t.hand = removeCards(t.hand!, e.cards);
        break;
      }
      case "melds_merged":
      case "stock_exhausted":
      case "pile_declined":
      case "partner_asked":
      case "partner_answered":
        break;
      default:
        e satisfies never; // every kind of the schema is handled
    }
  }
  return t;
}

const REASONS: Record<RoundEnded["reason"], string> = {
  went_out: gettext_noop("went out"),
  stock_exhausted: gettext_noop("the stock ran out"),
  last_red_three: gettext_noop("the last stock card was a red three"),
  last_three: gettext_noop("the last stock card was a three"),
  special_hand: gettext_noop("a special hand was declared"),
};

/** One sentence per effect of an event, for the activity log and the replay. */
export function describe(
  event: Pick<GameEvent, "effects"> & { type: string; payload?: unknown },
  nameOf: (seat: number) => string,
  teamName: (team: number) => string = (team) => interpolate(gettext("team %(team)s"), { team: team + 1 }),
): string[] {
  // A sentence about a seat: its "you" form for the viewer ("You drew"), else with the name.
  const you = gettext("You");
  const who = (seat: number, yours: string, theirs: string, values: Record<string, unknown> = {}): string =>
    nameOf(seat) === you ? interpolate(yours, values) : interpolate(theirs, { name: nameOf(seat), ...values });
  const out: string[] = event.type === "game_started" ? [gettext("The game started.")] : [];
  if (event.type === "ratings_changed") {
    const changes = (event.payload as { changes?: RatingsChangedLine[] } | undefined)?.changes ?? [];
    out.push(ratingsChangedText(changes, nameOf));
  }
  const pause = pauseFactText(event as { type: string; seat?: number | null; payload?: unknown }, nameOf);
  if (pause) out.push(pause);
  for (const e of event.effects) {
    switch (e.kind) {
      case "round_started":
        out.push(
          interpolate(
            e.upcards.length
              ? e.pile_frozen
                ? gettext("Round %(round)s dealt by %(dealer)s; upcard %(cards)s (pile frozen).")
                : gettext("Round %(round)s dealt by %(dealer)s; upcard %(cards)s.")
              : gettext("Round %(round)s dealt by %(dealer)s; no upcard."),
            { round: e.round, dealer: nameOf(e.dealer), cards: labels(e.upcards) },
          ),
        );
        break;
      case "card_drawn":
        out.push(
          e.cards
            ? who(e.seat, gettext("You drew %(cards)s."), gettext("%(name)s drew %(cards)s."), { cards: labels(e.cards) })
            : who(
                e.seat,
                ngettext("You drew a card.", "You drew %(count)s cards.", e.count),
                ngettext("%(name)s drew a card.", "%(name)s drew %(count)s cards.", e.count),
                { count: e.count },
              ),
        );
        break;
      case "red_three_revealed":
        out.push(
          isBlackThree(e.card)
            ? who(e.seat, gettext("You laid out a black three %(card)s."), gettext("%(name)s laid out a black three %(card)s."), { card: labels([e.card]) })
            : who(e.seat, gettext("You revealed a red three %(card)s."), gettext("%(name)s revealed a red three %(card)s."), { card: labels([e.card]) }),
        );
        break;
      case "card_discarded":
        out.push(who(e.seat, gettext("You discarded %(card)s."), gettext("%(name)s discarded %(card)s."), { card: labels([e.card]) }));
        break;
      case "melded":
        out.push(who(e.seat, gettext("You melded %(cards)s."), gettext("%(name)s melded %(cards)s."), { cards: e.melds.map((g) => labels(g.cards)).join(" | ") }));
        break;
      case "pile_taken":
        out.push(
          who(
            e.seat,
            ngettext("You took the pile with %(cards)s (%(count)s card to hand).", "You took the pile with %(cards)s (%(count)s cards to hand).", e.cards_to_hand),
            ngettext("%(name)s took the pile with %(cards)s (%(count)s card to hand).", "%(name)s took the pile with %(cards)s (%(count)s cards to hand).", e.cards_to_hand),
            { cards: labels([e.top, ...e.with]), count: e.cards_to_hand },
          ),
        );
        break;
      case "pile_declined":
        out.push(who(e.seat, gettext("You declined the pile."), gettext("%(name)s declined the pile.")));
        break;
      case "partner_asked":
        out.push(who(e.seat, gettext("You asked %(partner)s for permission to go out."), gettext("%(name)s asked %(partner)s for permission to go out."), { partner: nameOf(e.partner) }));
        break;
      case "partner_answered":
        out.push(
          e.allow
            ? who(e.seat, gettext("You answered yes."), gettext("%(name)s answered yes."))
            : who(e.seat, gettext("You answered no."), gettext("%(name)s answered no.")),
        );
        break;
      case "round_ended": {
        const values = { round: e.round, scores: e.scores.join(" – ") };
        out.push(
          e.reason === "went_out" && e.went_out !== null
            ? e.concealed
              ? who(e.went_out, gettext("Round %(round)s over: you went out concealed. Scores %(scores)s."), gettext("Round %(round)s over: %(name)s went out concealed. Scores %(scores)s."), values)
              : who(e.went_out, gettext("Round %(round)s over: you went out. Scores %(scores)s."), gettext("Round %(round)s over: %(name)s went out. Scores %(scores)s."), values)
            : interpolate(gettext("Round %(round)s over: %(reason)s. Scores %(scores)s."), { ...values, reason: translate(REASONS[e.reason]) }),
        );
        break;
      }
      case "game_ended":
        out.push(interpolate(gettext("Game over: %(team)s won."), { team: teamName(e.winner_team) }));
        break;
      case "talon_drawn":
        out.push(
          e.cards
            ? who(e.seat, gettext("You took a talon: %(cards)s."), gettext("%(name)s took a talon: %(cards)s."), { cards: labels(e.cards) })
            : who(e.seat, gettext("You took a talon of %(cards)s."), gettext("%(name)s took a talon of %(cards)s."), { cards: counted(ngettext("%(count)s card", "%(count)s cards", e.count), e.count) }),
        );
        break;
      case "special_hand_declared":
        out.push(who(e.seat, gettext("You declared a special hand: %(hand)s %(cards)s."), gettext("%(name)s declared a special hand: %(hand)s %(cards)s."), { hand: specialHandWords(e.name), cards: labels(e.cards) }));
        break;
      case "melds_merged":
        out.push(who(e.seat, gettext("You merged %(from)s into %(into)s."), gettext("%(name)s merged %(from)s into %(into)s."), { from: e.from, into: e.into }));
        break;
      case "stock_exhausted":
        out.push(gettext("The stock is exhausted."));
        break;
      default: {
        const other: { kind: string; seat: number | null } = e; // a kind newer than this client
        out.push(`${other.seat === null ? "" : nameOf(other.seat)} ${other.kind.replace(/_/g, " ")}.`);
      }
    }
  }
  return out;
}

export function seatName(seats: readonly Seat[], seat: number, viewer: number | null): string {
  if (seat === viewer) return gettext("You");
  const s = seats[seat];
  if (!s) return interpolate(gettext("Seat %(seat)s"), { seat: seat + 1 });
  if (s.player) return s.player.display_name;
  if (s.kind === "bot") return interpolate(gettext("Bot %(seat)s"), { seat: seat + 1 });
  return interpolate(gettext("Seat %(seat)s"), { seat: seat + 1 });
}
