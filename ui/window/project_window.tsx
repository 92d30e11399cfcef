import { useEffect, useMemo } from "preact/hooks";
import { ExtensionsArea } from "../extensions/extensions_area.tsx";
import { ChatArea } from "../chat/chat_area.tsx";
import { folderName } from "../common/folder_name.ts";
import { openProjectState } from "../state/project_state.ts";
import type { ProjectRoute } from "../state/route.ts";
import { Navigator } from "./navigator.tsx";
import { ScreenArea } from "../screens/screen_area.tsx";
import { RecordsArea } from "../records/records_area.tsx";

/** Props of {@linkcode ProjectWindow}. */
export interface ProjectWindowProps {
  /** Which project, area and selection the address names. */
  route: ProjectRoute;
}

/**
 * A project's window: the navigator, then the selected area's list and
 * detail, which it turns all columns over to.
 */
export function ProjectWindow(props: ProjectWindowProps) {
  const state = useMemo(() => openProjectState(props.route.project), [props.route.project]);
  useEffect(() => () => state.dispose(), [state]);
  const name = folderName(state.resolved.value ?? props.route.project);
  useEffect(() => {
    document.title = `${name} — Sync`;
  }, [name]);
  return (
    <div class="window">
      <Navigator state={state} area={props.route.area} screen={props.route.id} />
      {props.route.area === "chat"
        ? <ChatArea state={state} selected={props.route.id} />
        : props.route.area === "screen" && props.route.id
        ? <ScreenArea key={props.route.id} state={state} id={props.route.id} />
        : props.route.area === "records"
        ? <RecordsArea state={state} kind={props.route.id} name={props.route.name ?? null} />
        : <ExtensionsArea state={state} selected={props.route.id} />}
    </div>
  );
}
