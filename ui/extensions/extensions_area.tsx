import type { ProjectState } from "../state/project_state.ts";
import { ExtensionDetail } from "./extension_detail.tsx";
import { ExtensionList } from "./extension_list.tsx";
import { RemovedNotice } from "./removed_notice.tsx";
import { lastRemoval } from "../state/last_removal.ts";
import { lastOpening } from "../state/last_opening.ts";
import { OpenedNotice } from "./opened_notice.tsx";

/** Props of {@linkcode ExtensionsArea}. */
export interface ExtensionsAreaProps {
  /** The project's live state. */
  state: ProjectState;
  /** The selected package's id; null when none is. */
  selected: string | null;
}

/** The Extensions area: the installed packages, and the selected one's page. */
export function ExtensionsArea(props: ExtensionsAreaProps) {
  const count = props.state.extensions.value?.length ?? 0;
  const removal = lastRemoval.value;
  const opening = lastOpening.value;
  return (
    <>
      <ExtensionList state={props.state} selected={props.selected} />
      <main class="detail-column" aria-label="Extension">
        {props.selected
          ? <ExtensionDetail key={props.selected} state={props.state} id={props.selected} />
          : removal && removal.project === props.state.project
          ? <RemovedNotice removal={removal} />
          : opening && opening.project === props.state.project
          ? <OpenedNotice opening={opening} />
          : (
            <div class="empty-detail">
              <p class="secondary">
                {count > 0
                  ? "Choose an extension to see what it does, what it runs and what it has done."
                  : "An extension adds handlers to this project: work on a clock, tools for agents, a screen."}
              </p>
            </div>
          )}
      </main>
    </>
  );
}
