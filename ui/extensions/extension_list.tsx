import type { ProjectState } from "../state/project_state.ts";
import { InstallButton } from "../install/install_button.tsx";
import { ListFilter } from "../common/list_filter.tsx";
import { matchesFilter } from "../common/filter_match.ts";
import { NoMatches } from "../common/no_matches.tsx";
import { useListKeys } from "../common/use_list_keys.ts";
import { listFilter } from "../state/list_filters.ts";
import { ExtensionRow } from "./extension_row.tsx";
import { installOpen } from "../state/install_open.ts";

/** Props of {@linkcode ExtensionList}. */
export interface ExtensionListProps {
  /** The project's live state. */
  state: ProjectState;
  /** The selected package's id. */
  selected: string | null;
}

/**
 * The Extensions area's list: every package installed in the project, with
 * its lamp, and a filter by name, id or what it does. Arrow keys move among
 * the rows.
 */
export function ExtensionList(props: ExtensionListProps) {
  const { state } = props;
  const extensions = state.extensions.value;
  const filter = listFilter(state.project, "extensions");
  const column = useListKeys<HTMLElement>({ rows: ".extension-link" });
  const shown = (extensions ?? []).filter((extension) =>
    matchesFilter(filter.value, [extension.name, extension.id, extension.description])
  );
  return (
    <section class="list-column" aria-labelledby="extensions-title" ref={column}>
      <header class="column-header">
        <h1 id="extensions-title" class="column-title">Extensions</h1>
        <InstallButton state={state} selected={props.selected} />
        {extensions !== null && extensions.length > 0 && (
          <ListFilter
            value={filter}
            label="Filter extensions"
            placeholder="Filter by name, id or what it does"
            shown={shown.length}
            total={extensions.length}
            units={["extension", "extensions"]}
          />
        )}
      </header>
      {state.error.value && <p class="error" role="alert">{state.error.value}</p>}
      {extensions !== null && extensions.length === 0 && (
        <div class="empty empty-action">
          <p class="secondary">
            Nothing is installed in this project. Install one of the bundled examples, or a package
            from a folder or an archive.
          </p>
          <button
            type="button"
            class="button primary"
            aria-haspopup="dialog"
            onClick={() => installOpen.value = true}
          >
            Install an extension…
          </button>
        </div>
      )}
      {extensions !== null && extensions.length > 0 && shown.length === 0 && (
        <NoMatches value={filter} units="extensions" />
      )}
      {shown.length > 0 && (
        <ul class="extension-list" aria-label="Installed extensions">
          {shown.map((extension) => (
            <ExtensionRow
              key={extension.id}
              project={state.project}
              extension={extension}
              selected={extension.id === props.selected}
            />
          ))}
        </ul>
      )}
    </section>
  );
}
