import type { ProjectState } from "../state/project_state.ts";
import { InstallButton } from "../install/install_button.tsx";
import { ExtensionRow } from "./extension_row.tsx";
import { installOpen } from "../state/install_open.ts";

/** Props of {@linkcode ExtensionList}. */
export interface ExtensionListProps {
  /** The project's live state. */
  state: ProjectState;
  /** The selected package's id. */
  selected: string | null;
}

/** The Extensions area's list: every package installed in the project, with its lamp. */
export function ExtensionList(props: ExtensionListProps) {
  const { state } = props;
  const extensions = state.extensions.value;
  return (
    <section class="list-column" aria-labelledby="extensions-title">
      <header class="column-header">
        <h1 id="extensions-title" class="column-title">Extensions</h1>
        <InstallButton state={state} selected={props.selected} />
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
      {extensions !== null && extensions.length > 0 && (
        <ul class="extension-list" aria-label="Installed extensions">
          {extensions.map((extension) => (
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
