/**
 * Whether a row answers a list's filter: every word of the filter appears,
 * case-insensitively, somewhere in the row's fields ("hel poll" finds the
 * package named Hello whose description says it polls). An empty filter
 * keeps every row.
 *
 * @param query What the person typed.
 * @param fields The row's words: a name, an id, what it does; missing ones are skipped.
 */
export function matchesFilter(
  query: string,
  fields: readonly (string | null | undefined)[],
): boolean {
  const words = query.toLocaleLowerCase().split(/\s+/).filter((word) => word !== "");
  if (words.length === 0) return true;
  const text = fields.filter((field) => field).join("\n").toLocaleLowerCase();
  return words.every((word) => text.includes(word));
}
