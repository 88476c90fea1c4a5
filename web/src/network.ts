// Whether the API's calls reach the server, for the connection banner (offline.ts): api.ts
// reports each call, offline.ts listens. A module of its own so that api.ts imports nothing.
type Listener = (reached: boolean) => void;
let listener: Listener | null = null;

export function onNetwork(l: Listener | null): void {
  listener = l;
}

/** A call reached the server (any answer, errors included) or could not (no answer). */
export function reportNetwork(reached: boolean): void {
  listener?.(reached);
}
