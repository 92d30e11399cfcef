import { useCallback, useState } from "preact/hooks";
import { ShortcutsDialog } from "./shortcuts_dialog.tsx";
import { useWindowShortcuts } from "./use_window_shortcuts.ts";

/** Props of {@linkcode WindowShortcuts}. */
export interface WindowShortcutsProps {
  /** The project folder, as the address gives it. */
  project: string;
}

/**
 * The window's keyboard shortcuts, listening while the window is open, and
 * the navigator's button that lists them (as `?` does). In a narrow window
 * the button shows only its glyph and keeps its name.
 */
export function WindowShortcuts(props: WindowShortcutsProps) {
  const [open, setOpen] = useState(false);
  const show = useCallback(() => setOpen(true), []);
  useWindowShortcuts({ project: props.project, onHelp: show });
  return (
    <>
      <button
        type="button"
        class="navigator-shortcuts"
        onClick={show}
        aria-haspopup="dialog"
        aria-keyshortcuts="?"
        title="Keyboard shortcuts"
      >
        <span aria-hidden="true" class="glyph">?</span>
        <span class="navigator-text">Keyboard shortcuts</span>
      </button>
      {open && <ShortcutsDialog onClose={() => setOpen(false)} />}
    </>
  );
}
