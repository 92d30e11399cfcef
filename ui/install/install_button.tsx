import { useEffect, useState } from "preact/hooks";
import type { InstallAnswer } from "../../runtime/web/api/events_types.ts";
import { navigate, projectPath } from "../state/route.ts";
import { requestedAction } from "../state/requested_action.ts";
import type { ProjectState } from "../state/project_state.ts";
import { connected } from "../state/connection.ts";
import { InstallDialog } from "./install_dialog.tsx";
import { InstallResult } from "./install_result.tsx";
import { installOpen } from "../state/install_open.ts";

/** Props of {@linkcode InstallButton}. */
export interface InstallButtonProps {
  /** The project's live state. */
  state: ProjectState;
  /** The package whose page is shown; null when none is. */
  selected: string | null;
}

/**
 * The Install button of the Extensions list: opens the install dialog, and
 * once a package is installed says so beside it and goes to its page. What
 * the install did is said while that page is shown: it goes once the person
 * moves on to another page, dismisses it, or leaves it alone a while.
 */
export function InstallButton(props: InstallButtonProps) {
  const { state } = props;
  const open = installOpen.value;
  const setOpen = (value: boolean) => installOpen.value = value;
  // A dialog left open does not follow the person to another project's window.
  useEffect(() => () => setOpen(false), []);
  const [done, setDone] = useState<InstallAnswer | null>(null);
  useEffect(() => {
    if (done && props.selected !== done.id) setDone(null);
  }, [props.selected]);
  // The command palette's "Install an extension…".
  const asked = requestedAction.value === "install";
  useEffect(() => {
    if (!asked) return;
    requestedAction.value = null;
    setDone(null);
    setOpen(true);
  }, [asked]);
  const installed = (answer: InstallAnswer) => {
    setOpen(false);
    setDone(answer);
    void state.reload();
    navigate(projectPath(state.project, "extensions", answer.id));
  };
  return (
    <>
      <button
        type="button"
        class="button"
        aria-disabled={!connected.value}
        onClick={() => {
          // While Sync does not answer, nothing could be read or installed.
          if (!connected.value) return;
          setDone(null);
          setOpen(true);
        }}
        aria-haspopup="dialog"
      >
        Install…
      </button>
      <div class="install-result" role="status">
        {done && props.selected === done.id && (
          <InstallResult
            answer={done}
            onDismiss={() => setDone(null)}
          />
        )}
      </div>
      {open && (
        <InstallDialog
          state={state}
          onClose={() => setOpen(false)}
          onInstalled={installed}
        />
      )}
    </>
  );
}
