import type { ComponentChildren } from "preact";
import { useEffect, useRef, useState } from "preact/hooks";
import type { BundledExample, ExamplesResponse } from "../../runtime/web/api/types.ts";
import { getJson } from "../api/client.ts";
import { FolderBrowser } from "../common/folder_browser.tsx";
import { formatBytes } from "./install_progress.tsx";

/** Where the person said to install from: a path on this machine, or a file to upload. */
export interface SourceInput {
  /** The folder or archive path typed. */
  path: string;
  /** The archive chosen or dropped; when set, it is what is installed. */
  file: File | null;
}

/** Props of {@linkcode InstallSourceForm}. */
export interface InstallSourceFormProps {
  /** What the person has given so far. */
  input: SourceInput;
  /** Told each change. */
  onInput: (input: SourceInput) => void;
  /** Reads the card of what was given. */
  onSubmit: () => void;
  /** Closes the dialog. */
  onCancel: () => void;
  /** What is under way, in words, shown above the actions. */
  progress: ComponentChildren;
  /** Whether something is under way (the fields stay, the button waits). */
  busy: boolean;
  /** Why the last try failed, in the server's words; null when it did not. */
  error: string | null;
}

/** The archive types install takes. */
const ARCHIVE_TYPES = ".tgz,.tar.gz,.zip";

/**
 * The first step of installing: one of the example packages bundled with
 * Sync, in one click; a package folder or archive on this machine, by its
 * absolute path, typed or chosen in the folder browser; or an archive file
 * to upload (chosen, or dropped on the dialog).
 */
export function InstallSourceForm(props: InstallSourceFormProps) {
  const { input } = props;
  const fileInput = useRef<HTMLInputElement>(null);
  const pathInput = useRef<HTMLInputElement>(null);
  // Back from the card, the form is new in an open dialog, where `autofocus` does not count.
  useEffect(() => {
    if (!pathInput.current?.closest("dialog")?.contains(document.activeElement)) {
      pathInput.current?.focus();
    }
  }, []);
  const canSubmit = input.file !== null || input.path.trim() !== "";
  const [examples, setExamples] = useState<BundledExample[]>([]);
  const [browsing, setBrowsing] = useState(false);
  // A path chosen in one click is read once the dialog holds it.
  const [chosen, setChosen] = useState<string | null>(null);
  useEffect(() => {
    // With no examples to read, the form is the same without them.
    getJson<ExamplesResponse>("/api/examples").then(
      (answer) => setExamples(answer.examples),
      () => setExamples([]),
    );
  }, []);
  useEffect(() => {
    if (chosen !== null && input.path === chosen && input.file === null) {
      setChosen(null);
      if (!props.busy) props.onSubmit();
    }
  }, [chosen, input]);
  const choose = (path: string) => {
    if (props.busy) return;
    if (fileInput.current) fileInput.current.value = "";
    setBrowsing(false);
    setChosen(path);
    props.onInput({ path, file: null });
  };
  // A file dropped on the dialog is shown by the file input too, as if chosen there.
  useEffect(() => {
    const element = fileInput.current;
    if (!element || !input.file || element.files?.[0] === input.file) return;
    const chosen = new DataTransfer();
    chosen.items.add(input.file);
    element.files = chosen.files;
  }, [input.file]);
  // A refusal sends the focus back to what was given, to correct it.
  useEffect(() => {
    if (props.error) (input.file ? fileInput.current : pathInput.current)?.focus();
  }, [props.error]);
  const submit = (event: Event) => {
    event.preventDefault();
    if (canSubmit && !props.busy) props.onSubmit();
  };
  const clearFile = () => {
    if (fileInput.current) fileInput.current.value = "";
    props.onInput({ ...input, file: null });
  };
  return (
    <form class="install-source" onSubmit={submit}>
      <p class="secondary">
        Choose an example bundled with Sync, give a package folder or an archive on this machine, or
        choose an archive to upload. You will see what it asks before anything is installed.
      </p>
      {examples.length > 0 && (
        <section class="install-examples" aria-labelledby="install-examples-title">
          <h3 id="install-examples-title" class="field-label">Bundled with Sync</h3>
          <ul class="example-list">
            {examples.map((example) => (
              <li key={example.path} class="example">
                <span class="example-words">
                  <span>{example.name}</span>
                  <span class="tertiary">{example.description}</span>
                </span>
                <button
                  type="button"
                  class="button"
                  onClick={() => choose(example.path)}
                >
                  Install {example.name}
                </button>
              </li>
            ))}
          </ul>
        </section>
      )}
      <div class="path-row">
        <label class="field">
          <span class="field-label">Folder or archive path</span>
          <input
            type="text"
            class="input mono"
            name="path"
            ref={pathInput}
            value={input.path}
            onInput={(event) => {
              const path = (event.target as HTMLInputElement).value;
              if (fileInput.current) fileInput.current.value = "";
              props.onInput({ path, file: null });
            }}
            placeholder="/home/you/extensions/issues"
            autofocus
            spellcheck={false}
            autocomplete="off"
            aria-invalid={props.error && !input.file ? "true" : undefined}
            aria-describedby={props.error ? "install-error" : "install-path-hint"}
          />
        </label>
        <button
          type="button"
          class="button"
          aria-expanded={browsing ? "true" : "false"}
          aria-controls="install-folder-browser"
          onClick={() => setBrowsing(!browsing)}
        >
          Browse…
        </button>
      </div>
      <span id="install-path-hint" class="tertiary">
        An absolute path. A folder stays linked: Sync reads it again as it changes.
      </span>
      <div id="install-folder-browser">
        {browsing && (
          <FolderBrowser
            label="Choose a package folder"
            start={input.path.trim() || undefined}
            chooseWords="Use this folder"
            onChoose={choose}
            onClose={() => setBrowsing(false)}
          />
        )}
      </div>
      <div class="install-or" aria-hidden="true">or</div>
      <div class="install-file">
        <label class="field">
          <span class="field-label">Archive file</span>
          <input
            ref={fileInput}
            type="file"
            class="install-file-input"
            name="archive"
            accept={ARCHIVE_TYPES}
            onChange={(event) => {
              const file = (event.target as HTMLInputElement).files?.[0] ?? null;
              props.onInput({ ...input, file });
            }}
            aria-describedby="install-file-hint"
          />
        </label>
        <span id="install-file-hint" class="tertiary">
          {input.file
            ? `${input.file.name}, ${formatBytes(input.file.size)}, will be uploaded.`
            : "A .tgz or .zip archive, chosen here or dropped on this dialog."}
        </span>
        {input.file && (
          <button type="button" class="button install-clear" onClick={clearFile}>
            Clear the file
          </button>
        )}
      </div>
      {props.progress}
      {props.error && <p id="install-error" class="error" role="alert">{props.error}</p>}
      <div class="dialog-actions">
        <button type="button" class="button" onClick={props.onCancel}>Cancel</button>
        <button
          type="submit"
          class="button primary"
          disabled={!canSubmit}
          aria-disabled={props.busy ? "true" : undefined}
        >
          Show what it asks
        </button>
      </div>
    </form>
  );
}
