import { useState } from "preact/hooks";
import type { OpenProjectResponse } from "../../runtime/web/api/types.ts";
import { messageOf, postJson } from "../api/client.ts";
import { isAbsolutePath } from "../common/absolute_path.ts";
import { Link } from "../common/link.tsx";
import { projectPath } from "../state/route.ts";
import { folderName } from "../common/folder_name.ts";

/** Props of {@linkcode OpenFolderForm}. */
export interface OpenFolderFormProps {
  /** Called after a project opened, so the lists read again. */
  onOpened: () => void;
}

/**
 * "Open a folder": opens a project by its absolute path, which runs its
 * packages' `opened` handlers, and says how each ended. A relative path is
 * refused here, in the words the install dialog uses, before it is sent.
 */
export function OpenFolderForm(props: OpenFolderFormProps) {
  const [path, setPath] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [result, setResult] = useState<OpenProjectResponse | null>(null);
  const submit = async (event: Event) => {
    event.preventDefault();
    const folder = path.trim();
    setResult(null);
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
      setResult(await postJson<OpenProjectResponse>("/api/projects/open", { path: folder }));
      props.onOpened();
    } catch (thrown) {
      // The path stays in the field, to correct.
      setError(messageOf(thrown));
    } finally {
      setBusy(false);
    }
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
        <button type="submit" class="button primary" disabled={busy}>Open</button>
      </form>
      {error && <p id="open-folder-error" class="error" role="alert">{error}</p>}
      {result && (
        <div class="action-result" role="status">
          <p>
            Opened <strong>{folderName(result.project.path)}</strong>
            {result.opened.length === 0 && result.unavailable.length === 0 &&
              " — no extension has anything to do when it opens."}
          </p>
          {(result.opened.length > 0 || result.unavailable.length > 0) && (
            <ul class="outcomes">
              {result.opened.map((run) => (
                <li key={run.packageId} class={run.outcome === "ok" ? "ok" : "failed"}>
                  <span class="mono">{run.handler}</span>{" "}
                  {run.outcome === "ok" ? "ran" : `failed: ${run.error?.message}`}
                </li>
              ))}
              {result.unavailable.map((entry) => (
                <li key={entry.packageId} class="failed">
                  <span class="mono">{entry.packageId}</span> did not run: {entry.message}
                </li>
              ))}
            </ul>
          )}
          <Link href={projectPath(result.project.path)} class="button">
            Go to {folderName(result.project.path)}
          </Link>
        </div>
      )}
    </section>
  );
}
