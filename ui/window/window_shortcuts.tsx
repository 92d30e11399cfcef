import { useCallback, useState } from "preact/hooks";
import type { ProjectState } from "../state/project_state.ts";
import { CommandPalette } from "./command_palette.tsx";
import { ShortcutsDialog } from "./shortcuts_dialog.tsx";
import { useWindowShortcuts } from "./use_window_shortcuts.ts";

/** Props of {@linkcode WindowShortcuts}. */
export interface WindowShortcutsProps {
  /** The project's live state. */
  state: ProjectState;
}

/**
 * The window's keyboard shortcuts, listening while the window is open, the
 * navigator's button that lists them (as `?` does), and the command palette
 * Ctrl+K opens. In a narrow window the button shows only its glyph and
 * keeps its name.
 */
export function WindowShortcuts(props: WindowShortcutsProps) {
  const [open, setOpen] = useState(false);
  const [palette, setPalette] = useState(false);
  const show = useCallback(() => setOpen(true), []);
  const find = useCallback(() => setPalette(true), []);
  useWindowShortcuts({ project: props.state.project, onHelp: show, onPalette: find });
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
      {palette && (
        <CommandPalette
          state={props.state}
          onClose={() => setPalette(false)}
          onShortcuts={show}
        />
      )}
    </>
  );
}
