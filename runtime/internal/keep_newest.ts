/**
 * Sets `key` in `map` as its newest entry, first forgetting the older half
 * of the map when it already holds `most` entries: a cache that stays
 * bounded without counting uses, since a `Map` keeps the order entries were
 * set in.
 *
 * @param map The cache.
 * @param key The key to set.
 * @param value Its value.
 * @param most Entries the map may hold before its older half is forgotten.
 * @example
 * ```ts
 * const seen = new Map<string, number>();
 * keepNewest(seen, "a", 1, 4_096);
 * ```
 */
export function keepNewest<K, V>(map: Map<K, V>, key: K, value: V, most: number): void {
  map.delete(key);
  if (map.size >= most) {
    let drop = Math.max(1, Math.floor(most / 2));
    for (const old of map.keys()) {
      map.delete(old);
      if (--drop === 0) break;
    }
  }
  map.set(key, value);
}
