import type { Signal } from "@preact/signals";

/** Props of {@linkcode NoMatches}. */
export interface NoMatchesProps {
  /** The list's filter, which Clear empties. */
  value: Signal<string>;
  /** The rows' name, many: "extensions", "conversations". */
  units: string;
}

/**
 * What a list says when its filter keeps no row: the words that matched
 * nothing, and Clear, which empties the filter and puts the focus back in it.
 */
export function NoMatches(props: NoMatchesProps) {
  return (
    <div class="no-matches">
      <p class="secondary">No {props.units} match “{props.value.value.trim()}”.</p>
      <button
        type="button"
        class="button"
        onClick={(event) => {
          props.value.value = "";
          const column = event.currentTarget.closest(".list-column");
          column?.querySelector<HTMLInputElement>("[data-list-filter]")?.focus();
        }}
      >
        Clear
      </button>
    </div>
  );
}
