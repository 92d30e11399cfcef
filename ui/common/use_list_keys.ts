import { type RefObject } from "preact";
import { useEffect, useLayoutEffect, useRef } from "preact/hooks";

/** Options of {@linkcode useListKeys}. */
export interface ListKeysOptions {
  /** A CSS selector of each row's link, inside the list column: `.extension-link`. */
  rows: string;
}

/**
 * Arrow keys for a list column of links (the Extensions list, Chat's list).
 * The column is one stop for Tab: the row with the focus, else the one that
 * had it last, else the current one (`aria-current`), else the first, has
 * `tabindex="0"` and the others `-1`
 * (a roving tab index), so Tab goes on to the detail instead of through
 * every row. Up and Down move the focus one row, Home and End to the first
 * and last; Enter opens the focused row, as a link does. From the column's
 * filter field (`data-list-filter`), Down goes to the first row and Enter
 * opens it; Up from the first row goes back to the filter.
 *
 * Rows are links, read from the page at each key, so a filtered list moves
 * among the rows it shows. Answers the ref to put on the column.
 */
export function useListKeys<T extends HTMLElement>(options: ListKeysOptions): RefObject<T> {
  const ref = useRef<T>(null);
  const last = useRef<HTMLElement | null>(null);
  // After every render: rows come and go as the list changes or is filtered.
  useLayoutEffect(() => {
    if (ref.current) rove(ref.current, options.rows, null, last.current);
  });
  useEffect(() => {
    const column = ref.current;
    if (!column) return;
    const rowsOf = () => Array.from(column.querySelectorAll<HTMLElement>(options.rows));
    const keydown = (event: KeyboardEvent) => {
      if (event.altKey || event.ctrlKey || event.metaKey || event.shiftKey) return;
      const target = event.target as HTMLElement;
      const rows = rowsOf();
      if (target.matches("[data-list-filter]")) {
        if (rows.length === 0) return;
        if (event.key === "ArrowDown") {
          event.preventDefault();
          focusRow(column, options.rows, rows[0]);
        } else if (event.key === "Enter") {
          event.preventDefault();
          focusRow(column, options.rows, rows[0]);
          rows[0].click();
        }
        return;
      }
      const index = rows.indexOf(target);
      if (index < 0) return;
      let next: HTMLElement | undefined;
      if (event.key === "ArrowDown") next = rows[Math.min(index + 1, rows.length - 1)];
      else if (event.key === "ArrowUp") {
        if (index === 0) {
          const filter = column.querySelector<HTMLElement>("[data-list-filter]");
          if (filter) {
            event.preventDefault();
            filter.focus();
            return;
          }
        }
        next = rows[Math.max(index - 1, 0)];
      } else if (event.key === "Home") next = rows[0];
      else if (event.key === "End") next = rows[rows.length - 1];
      if (!next) return;
      event.preventDefault();
      focusRow(column, options.rows, next);
    };
    const focusin = (event: FocusEvent) => {
      const target = event.target as HTMLElement;
      if (!target.matches(options.rows)) return;
      last.current = target;
      rove(column, options.rows, target, null);
    };
    column.addEventListener("keydown", keydown);
    column.addEventListener("focusin", focusin);
    return () => {
      column.removeEventListener("keydown", keydown);
      column.removeEventListener("focusin", focusin);
    };
  }, [options.rows]);
  return ref;
}

/** Focuses a row and shows it whole, below the column's sticky header. */
function focusRow(column: HTMLElement, selector: string, row: HTMLElement): void {
  rove(column, selector, row, null);
  row.focus();
  row.scrollIntoView({ block: "nearest" });
}

/**
 * Gives one row the column's tab stop: `stop` when given, else the row that
 * has the focus, else `last` while it is still shown, else the current one,
 * else the first.
 */
function rove(
  column: HTMLElement,
  selector: string,
  stop: HTMLElement | null,
  last: HTMLElement | null,
): void {
  const rows = Array.from(column.querySelectorAll<HTMLElement>(selector));
  const active = column.ownerDocument.activeElement;
  const chosen = stop ??
    rows.find((row) => row === active) ??
    rows.find((row) => row === last) ??
    rows.find((row) => row.hasAttribute("aria-current")) ??
    rows[0];
  for (const row of rows) row.tabIndex = row === chosen ? 0 : -1;
}
