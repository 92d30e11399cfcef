import { useState } from "preact/hooks";
import type { InstallAnswer } from "../../runtime/web/api/events_types.ts";
import { navigate, projectPath } from "../state/route.ts";
import type { ProjectState } from "../state/project_state.ts";
import { InstallDialog } from "./install_dialog.tsx";
import { InstallResult } from "./install_result.tsx";

/** Props of {@linkcode InstallButton}. */
export interface InstallButtonProps {
  /** The project's live state. */
  state: ProjectState;
}

/**
 * The Install button of the Extensions list: opens the install dialog, and
 * once a package is installed says so beside it and goes to its page.
 */
export function InstallButton(props: InstallButtonProps) {
  const { state } = props;
  const [open, setOpen] = useState(false);
  const [done, setDone] = useState<InstallAnswer | null>(null);
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
        onClick={() => {
          setDone(null);
          setOpen(true);
        }}
        aria-haspopup="dialog"
      >
        Install…
      </button>
      <div class="install-result" role="status">
        {done && <InstallResult answer={done} />}
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
