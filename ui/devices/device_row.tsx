import type { DeviceView } from "../../runtime/web/api/devices_types.ts";
import { Link } from "../common/link.tsx";
import { projectPath } from "../state/route.ts";
import { DeviceLamp } from "./device_lamp.tsx";
import { coverageWords } from "./device_words.ts";

/** Props of {@linkcode DeviceRow}. */
export interface DeviceRowProps {
  /** The project folder. */
  project: string;
  /** The device. */
  device: DeviceView;
  /** It is the one shown in the detail column. */
  selected: boolean;
}

/**
 * One device in the list: its lamp and the lamp's words, its name, its
 * package, what it reads, its last read's coverage, and a red lamp's notice in one line.
 */
export function DeviceRow(props: DeviceRowProps) {
  const { device } = props;
  return (
    <li class={`extension-row device-row ${props.selected ? "selected" : ""}`}>
      <Link
        href={projectPath(props.project, "devices", device.id)}
        class="extension-link device-link"
        current={props.selected ? "page" : undefined}
      >
        <span class="extension-row-top">
          <span class="primary extension-name">{device.name}</span>
          <DeviceLamp lamp={device.lamp} showLabel />
          <span class="tertiary mono extension-version">{device.id}</span>
        </span>
        <span class="secondary extension-description">{device.description}</span>
        {
          // Without it the list says "Ready" alike for a device that read nothing and one that read it all.
          device.lastRead && (
            <span class="tertiary device-row-read">{coverageWords(device.lastRead.coverage)}</span>
          )
        }
        {device.notice && (
          <span class="notice device-row-notice" title={device.notice.message}>
            {device.notice.message}
          </span>
        )}
      </Link>
    </li>
  );
}
