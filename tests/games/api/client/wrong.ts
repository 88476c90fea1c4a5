// Uses fields the schema does not have: the type check must refuse this file.
import type { components } from "./schema";

type GameDetail = components["schemas"]["GameDetail"];

export function broken(game: GameDetail): string {
  const seat: string = game.your_seat; // a number or null, not a string
  return seat + game.state.opponent_hands; // state may be null; no such field
}
