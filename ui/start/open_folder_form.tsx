import { useState } from "preact/hooks";
import type { OpenProjectResponse } from "../../runtime/web/api/types.ts";
import { messageOf, postJson } from "../api/client.ts";
import { isAbsolutePath } from "../common/absolute_path.ts";
import { FolderBrowser } from "../common/folder_browser.tsx";
import { navigate, projectPath } from "../state/route.ts";
import { lastOpening } from "../state/last_opening.ts";
import { lastRemoval } from "../state/last_removal.ts";

/** Props of {@linkcode OpenFolderForm}. */
export interface OpenFolderFormProps {
  /** Called after a project opened, so the lists read again. */
  onOpened: () => void;
  /** Whether the folder browser is shown. */
  browsing: boolean;
  /** Shows or hides the folder browser. */
  onBrowse: (browsing: boolean) => void;
}

/**
 * "Open a folder": opens a project by its absolute path, typed or chosen in
 * the folder browser, which runs its packages' `opened` handlers, and goes
 * on to the project's window, which says how each ended. A relative path is
 * refused here, in the words the install dialog uses, before it is sent; a
 * refusal of the server stays here, with the path in the field.
 */
export function OpenFolderForm(props: OpenFolderFormProps) {
  const [path, setPath] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const open = async (folder: string) => {
    if (!isAbsolutePath(folder)) {
      setError(
        `${JSON.stringify(folder)} is not an absolute path: give the project folder's full ` +
          `path, starting with /.`,
      );
      return;
    }
    setBusy(true);
    setError(null);
    try {
      const answer = await postJson<OpenProjectResponse>("/api/projects/open", { path: folder });
      props.onOpened();
      // The window says what the `opened` handlers did; an older removal there is not news.
      lastRemoval.value = null;
      lastOpening.value = { project: answer.project.path, answer };
      navigate(projectPath(answer.project.path));
    } catch (thrown) {
      // The path stays in the field, to correct.
      setError(messageOf(thrown));
      setBusy(false);
    }
  };
  const submit = (event: Event) => {
    event.preventDefault();
    void open(path.trim());
  };
  return (
    <section class="open-folder" aria-labelledby="open-folder-title">
      <h2 id="open-folder-title" class="section-title">Open a folder</h2>
      <form class="inline-form" onSubmit={submit}>
        <label class="field">
          <span class="field-label">Project folder, as an absolute path</span>
          <input
            type="text"
            class="input mono"
            name="path"
            value={path}
            onInput={(event) => setPath((event.target as HTMLInputElement).value)}
            placeholder="/home/you/projects/site"
            required
            spellcheck={false}
            autocomplete="off"
            aria-invalid={error ? "true" : undefined}
            aria-describedby={error ? "open-folder-error" : undefined}
          />
        </label>
        <button
          type="button"
          class="button"
          aria-expanded={props.browsing ? "true" : "false"}
          aria-controls="open-folder-browser"
          onClick={() => props.onBrowse(!props.browsing)}
        >
          Browse…
        </button>
        <button type="submit" class="button primary" disabled={busy}>Open</button>
      </form>
      <div id="open-folder-browser">
        {props.browsing && (
          <FolderBrowser
            label="Choose a project folder"
            start={path.trim() || undefined}
            chooseWords="Open this folder"
            onChoose={(chosen) => {
              setPath(chosen);
              void open(chosen);
            }}
            onClose={() => props.onBrowse(false)}
          />
        )}
      </div>
      {error && <p id="open-folder-error" class="error" role="alert">{error}</p>}
    </section>
  );
}
