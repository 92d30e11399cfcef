import { useEffect, useMemo } from "preact/hooks";
import { ExtensionsArea } from "../extensions/extensions_area.tsx";
import { ChatArea } from "../chat/chat_area.tsx";
import { folderName } from "../common/folder_name.ts";
import { openProjectState } from "../state/project_state.ts";
import type { ProjectRoute } from "../state/route.ts";
import { Navigator } from "./navigator.tsx";
import { ScreenArea } from "../screens/screen_area.tsx";
import { RecordsArea } from "../records/records_area.tsx";
import { DevicesArea } from "../devices/devices_area.tsx";
import { openWindowNotices } from "../notices/window_notices.ts";
import { NoticeStack } from "../notices/notice_stack.tsx";
import type { Area } from "../state/route.ts";

/** Props of {@linkcode ProjectWindow}. */
export interface ProjectWindowProps {
  /** Which project, area and selection the address names. */
  route: ProjectRoute;
}

/**
 * A project's window: the navigator, then the selected area's list and
 * detail, which it turns all columns over to, and over them the notices
 * of what failed in the background.
 */
export function ProjectWindow(props: ProjectWindowProps) {
  const state = useMemo(() => openProjectState(props.route.project), [props.route.project]);
  useEffect(() => () => state.dispose(), [state]);
  const notices = useMemo(() => openWindowNotices(state), [state]);
  useEffect(() => () => notices.dispose(), [notices]);
  const shown = notices.notices.value;
  const counts = new Map<Area, number>();
  for (const notice of shown) counts.set(notice.area, (counts.get(notice.area) ?? 0) + 1);
  const name = folderName(state.resolved.value ?? props.route.project);
  useEffect(() => {
    document.title = `${name} — Sync`;
  }, [name]);
  return (
    <div class="window">
      <Navigator
        state={state}
        area={props.route.area}
        screen={props.route.id}
        counts={counts}
      />
      {props.route.area === "chat"
        ? <ChatArea state={state} selected={props.route.id} />
        : props.route.area === "screen" && props.route.id
        ? <ScreenArea key={props.route.id} state={state} id={props.route.id} />
        : props.route.area === "devices"
        ? <DevicesArea state={state} selected={props.route.id} />
        : props.route.area === "records"
        ? <RecordsArea state={state} kind={props.route.id} name={props.route.name ?? null} />
        : <ExtensionsArea state={state} selected={props.route.id} />}
      <NoticeStack notices={shown} route={props.route} />
    </div>
  );
}
