import { useEffect, useRef, useState } from "preact/hooks";
import type { FolderListing } from "../../runtime/web/api/types.ts";
import { getJson, messageOf } from "../api/client.ts";
import { folderName } from "./folder_name.ts";

/** Props of {@linkcode FolderBrowser}. */
export interface FolderBrowserProps {
  /** Its accessible name, such as "Choose a project folder". */
  label: string;
  /** Where it starts: a folder's absolute path; home when absent or not allowed. */
  start?: string;
  /** The words of the button that takes the folder shown, such as "Open this folder". */
  chooseWords: string;
  /** Told the folder chosen. */
  onChoose: (path: string) => void;
  /** Closes it. */
  onClose: () => void;
}

/**
 * Chooses a folder by going through folders rather than typing a path: the
 * folder shown, up, its subfolders to enter, and the places it may start
 * from (home, the bundled examples). Only what serve lets it list is shown;
 * folders whose name starts with a dot only when asked.
 */
export function FolderBrowser(props: FolderBrowserProps) {
  const [listing, setListing] = useState<FolderListing | null>(null);
  const [hidden, setHidden] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const heading = useRef<HTMLHeadingElement>(null);
  const moved = useRef(false);
  const go = async (path: string | undefined, showHidden = hidden) => {
    try {
      const next = await getJson<FolderListing>("/api/folders", {
        path,
        hidden: showHidden ? 1 : undefined,
      });
      setListing(next);
      setError(null);
    } catch (thrown) {
      // A start it may not show is no error: it starts at home instead.
      if (!moved.current && path !== undefined) return await go(undefined, showHidden);
      setError(messageOf(thrown));
    }
  };
  useEffect(() => {
    void go(props.start?.startsWith("/") ? props.start : undefined);
  }, []);
  // After entering a folder, the focus goes to its name, so the keyboard starts at the top.
  const enter = async (path: string) => {
    moved.current = true;
    await go(path);
    heading.current?.focus();
  };
  return (
    <section class="folder-browser" aria-label={props.label}>
      {listing && (
        <>
          <div class="folder-roots">
            {listing.roots.map((root) => (
              <button
                type="button"
                key={root.path}
                class="button"
                aria-pressed={listing.root.path === root.path ? "true" : "false"}
                onClick={() => void enter(root.path)}
              >
                {root.label}
              </button>
            ))}
            <label class="folder-hidden">
              <input
                type="checkbox"
                checked={hidden}
                onChange={(event) => {
                  const show = (event.target as HTMLInputElement).checked;
                  setHidden(show);
                  void go(listing.path, show);
                }}
              />{" "}
              Show hidden folders
            </label>
          </div>
          <h3 class="folder-here" tabIndex={-1} ref={heading}>
            <span class="folder-here-name">{folderName(listing.path)}</span>
            <span class="tertiary mono">{listing.path}</span>
          </h3>
          <div class="folder-moves">
            <button
              type="button"
              class="button"
              disabled={listing.parent === null}
              onClick={() => listing.parent && void enter(listing.parent)}
            >
              Up
            </button>
            <button
              type="button"
              class="button primary"
              onClick={() => props.onChoose(listing.path)}
            >
              {props.chooseWords}
            </button>
            <button type="button" class="button" onClick={props.onClose}>
              Close
            </button>
          </div>
          {listing.folders.length === 0
            ? <p class="tertiary">No folders in here.</p>
            : (
              <ul class="folder-list" aria-label={`Folders in ${folderName(listing.path)}`}>
                {listing.folders.map((folder) => (
                  <li key={folder.path}>
                    <button
                      type="button"
                      class="folder-entry"
                      onClick={() => void enter(folder.path)}
                    >
                      {folder.name}
                    </button>
                  </li>
                ))}
              </ul>
            )}
          {listing.truncated && (
            <p class="tertiary">
              Only the first {listing.folders.length} folders by name are listed.
            </p>
          )}
          {listing.leftOut?.map((why) => <p class="tertiary" key={why}>{why}</p>)}
        </>
      )}
      {error && <p class="error" role="alert">{error}</p>}
    </section>
  );
}
