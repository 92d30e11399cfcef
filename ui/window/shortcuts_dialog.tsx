import { Fragment } from "preact";
import { Dialog } from "../common/dialog.tsx";
import { windowShortcuts } from "./shortcuts.ts";

/** Props of {@linkcode ShortcutsDialog}. */
export interface ShortcutsDialogProps {
  /** Close, or Escape. */
  onClose: () => void;
}

/** The window's keyboard shortcuts, listed by where they work. */
export function ShortcutsDialog(props: ShortcutsDialogProps) {
  return (
    <Dialog title="Keyboard shortcuts" onClose={props.onClose} class="shortcuts-dialog">
      {windowShortcuts.map((group) => (
        <div key={group.title} class="shortcut-group">
          <h3 class="shortcut-group-title">{group.title}</h3>
          <dl class="shortcut-list">
            {group.shortcuts.map((shortcut) => (
              <div key={shortcut.keys.join(" ")} class="shortcut">
                <dt class="shortcut-keys">
                  {shortcut.keys.map((key, index) => (
                    <Fragment key={index}>
                      {index > 0 && <span class="tertiary">then</span>}
                      <kbd class="key">{key}</kbd>
                    </Fragment>
                  ))}
                </dt>
                <dd class="secondary shortcut-does">{shortcut.does}</dd>
              </div>
            ))}
          </dl>
        </div>
      ))}
      <p class="tertiary">While you type in a field, only Ctrl+K works.</p>
      <div class="dialog-actions">
        <button type="button" class="button primary" onClick={props.onClose} autofocus>
          Close
        </button>
      </div>
    </Dialog>
  );
}
