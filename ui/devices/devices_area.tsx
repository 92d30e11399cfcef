import { useEffect, useMemo } from "preact/hooks";
import type { ProjectState } from "../state/project_state.ts";
import { openDevicesState } from "./devices_state.ts";
import { DeviceDetail } from "./device_detail.tsx";
import { DeviceList } from "./device_list.tsx";

/** Props of {@linkcode DevicesArea}. */
export interface DevicesAreaProps {
  /** The project's live state. */
  state: ProjectState;
  /** The selected device's id; null when none is. */
  selected: string | null;
}

/** The Devices area: the project's devices with their lamps, and the selected one's page. */
export function DevicesArea(props: DevicesAreaProps) {
  const devices = useMemo(() => openDevicesState(props.state), [props.state]);
  useEffect(() => () => devices.dispose(), [devices]);
  const list = devices.devices.value;
  const device = list?.find((one) => one.id === props.selected) ?? null;
  return (
    <>
      <DeviceList state={props.state} devices={devices} selected={props.selected} />
      <main class="detail-column" aria-label="Device">
        {device
          ? (
            <DeviceDetail
              key={device.id}
              project={props.state.project}
              device={device}
              devices={devices}
            />
          )
          : (
            <div class="empty-detail">
              <p class="secondary">
                {props.selected && list !== null
                  ? `No device ${props.selected} in this project: its applet may have been removed.`
                  : list !== null && list.length > 0
                  ? "Choose a device to see what it reads, its account, and how its reads went."
                  : "A device is what an applet reads: a mailbox, a calendar. Connecting its account is your decision."}
              </p>
            </div>
          )}
      </main>
    </>
  );
}
