import type { ProjectState } from "../state/project_state.ts";

/** Props of {@linkcode InstallButton}. */
export interface InstallButtonProps {
  /** The project's live state. */
  state: ProjectState;
}

/** The Install button of the Extensions list, which opens the install dialog. */
export function InstallButton(_props: InstallButtonProps) {
  return <button type="button" class="button">Install…</button>;
}
