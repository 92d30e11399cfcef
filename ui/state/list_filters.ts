/**
 * What the person typed into a list's filter, kept for as long as the page
 * is open: choosing a row, going to another area and coming back keeps the
 * filter, as the address keeps the selection.
 *
 * @module
 */
import { type Signal, signal } from "@preact/signals";

const filters = new Map<string, Signal<string>>();

/**
 * The filter of one list of one project.
 *
 * @param project The project folder, as the address gives it.
 * @param list Which list: `extensions`, `chat`.
 */
export function listFilter(project: string, list: string): Signal<string> {
  const key = `${list}\n${project}`;
  let filter = filters.get(key);
  if (!filter) {
    filter = signal("");
    filters.set(key, filter);
  }
  return filter;
}
