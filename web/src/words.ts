// Words for counts: "1 card", "2 cards", "1 open seat".

/** ``count`` and the noun, singular for exactly one: plural(1, "card") is "1 card". */
export function plural(count: number, one: string, many = `${one}s`): string {
  return `${count} ${count === 1 ? one : many}`;
}
