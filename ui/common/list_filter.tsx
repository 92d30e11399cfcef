import type { Signal } from "@preact/signals";

/** Props of {@linkcode ListFilter}. */
export interface ListFilterProps {
  /** What is typed, kept by the caller (see `listFilter`). */
  value: Signal<string>;
  /** The field's accessible name, such as "Filter extensions". */
  label: string;
  /** What it matches, in the empty field, such as "Filter by name, id or what it does". */
  placeholder: string;
  /** How many rows the filter keeps. */
  shown: number;
  /** How many rows there are. */
  total: number;
  /** The rows' name, one and many: ["extension", "extensions"]. */
  units: readonly [string, string];
}

/**
 * The filter field at the top of a list column. `/` anywhere in the window
 * focuses it (its `data-list-filter` is how the shortcut finds it); Escape
 * empties it, and Escape again leaves it; Down goes to the first row, Enter
 * opens it (the list's `useListKeys` does both). How many rows it keeps is
 * said to screen readers as the person types.
 */
export function ListFilter(props: ListFilterProps) {
  const query = props.value.value;
  const unit = props.total === 1 ? props.units[0] : props.units[1];
  return (
    <div class="list-filter">
      <input
        type="search"
        class="input list-filter-input"
        aria-label={props.label}
        aria-keyshortcuts="/"
        placeholder={props.placeholder}
        autocomplete="off"
        spellcheck={false}
        data-list-filter=""
        value={query}
        onInput={(event) => props.value.value = event.currentTarget.value}
        onKeyDown={(event) => {
          if (event.key !== "Escape") return;
          event.preventDefault();
          if (props.value.value !== "") props.value.value = "";
          else event.currentTarget.blur();
        }}
      />
      {query === "" && <kbd class="list-filter-key" aria-hidden="true">/</kbd>}
      <span class="visually-hidden" role="status">
        {query.trim() === "" ? "" : `${props.shown} of ${props.total} ${unit}`}
      </span>
    </div>
  );
}
