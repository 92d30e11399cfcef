import { useState } from "preact/hooks";
import type { DeviceView } from "../../runtime/web/api/devices_types.ts";
import type { DevicesState } from "./devices_state.ts";
import { DeviceHeader } from "./device_header.tsx";
import { AccountSection } from "./account_section.tsx";
import { ReadsSection } from "./reads_section.tsx";
import { RecordsSection } from "./records_section.tsx";
import { TasksSection } from "./tasks_section.tsx";
import { ConsentSection } from "./consent_section.tsx";
import { ReviewPanel } from "./review_panel.tsx";

/** Props of {@linkcode DeviceDetail}. */
export interface DeviceDetailProps {
  /** The project folder. */
  project: string;
  /** The device, as last read. */
  device: DeviceView;
  /** The project's devices, where an action's answer goes. */
  devices: DevicesState;
}

/**
 * A device's page: its name, lamp and notice with the action that mends it;
 * what it reads and the account; how it reads and its last read; the records
 * it keeps, linked to Records; its tasks
 * with their recent attempts; and the consent to process its content.
 */
export function DeviceDetail(props: DeviceDetailProps) {
  const { device } = props;
  // What the notice's button opens: the connect form (sign in, allow access) or the review.
  const [opened, setOpened] = useState<"connect" | "review" | null>(null);
  const website = device.modes.includes("website");
  return (
    <article class="extension-page device-page" aria-labelledby="device-name">
      <DeviceHeader
        project={props.project}
        device={device}
        devices={props.devices}
        onAct={(what) => setOpened(what)}
      />
      {opened === "review" && (
        <ReviewPanel
          project={props.project}
          device={device}
          devices={props.devices}
          onClose={() => setOpened(null)}
        />
      )}
      {!website && (
        <AccountSection
          project={props.project}
          device={device}
          devices={props.devices}
          connectOpen={opened === "connect"}
          onConnectOpen={(open) => setOpened(open ? "connect" : null)}
        />
      )}
      <ReadsSection project={props.project} device={device} devices={props.devices} />
      {!website && <RecordsSection project={props.project} device={device} />}
      {!website && <TasksSection project={props.project} device={device} />}
      {!website && (
        <ConsentSection project={props.project} device={device} devices={props.devices} />
      )}
    </article>
  );
}
