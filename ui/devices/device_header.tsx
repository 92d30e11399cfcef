import type { DeviceView } from "../../runtime/web/api/devices_types.ts";
import { connected } from "../state/connection.ts";
import type { DevicesState } from "./devices_state.ts";
import { DeviceLamp } from "./device_lamp.tsx";
import { useDeviceAction } from "./use_device_action.ts";

/** Props of {@linkcode DeviceHeader}. */
export interface DeviceHeaderProps {
  /** The project folder. */
  project: string;
  /** The device. */
  device: DeviceView;
  /** Where an action's answer goes. */
  devices: DevicesState;
  /** The notice's button was pressed: what it opens. */
  onAct: (what: "connect" | "review") => void;
}

/** What the notice's button says, by its kind. */
const NOTICE_ACTIONS: ReadonlyMap<string, string> = new Map([
  ["sign-in", "Sign in again"],
  ["allow-access", "Allow access"],
  ["review-run", "Review the run"],
]);

/**
 * The top of a device's page: its name, lamp and package; the red notice in
 * one line with the button that mends it; Pause or Resume, with what it did
 * beside it; and what the device reads.
 */
export function DeviceHeader(props: DeviceHeaderProps) {
  const { device } = props;
  const action = useDeviceAction(props.project, device.id, props.devices);
  const paused = device.state === "paused";
  const toggle = () =>
    void action.act(paused ? "resume" : "pause", {}, {
      done: () =>
        paused
          ? `Resumed: ${device.name} reads again${
            device.modes.includes("scheduled") ? " on its schedule" : ""
          }.`
          : `Paused: ${device.name} keeps what it read and reads nothing until you resume it.`,
      failed: paused ? "Could not resume it" : "Could not pause it",
    });
  return (
    <header class="page-header">
      <div class="page-title-row">
        <h2 id="device-name" class="page-title">{device.name}</h2>
        <span class="page-lamp">
          <DeviceLamp lamp={device.lamp} showLabel />
        </span>
        {/* Pausing a device with no account would change nothing a person could see. */}
        {!device.modes.includes("website") && (device.account || paused) && (
          <span class="device-pause">
            <button
              type="button"
              class="button"
              aria-disabled={action.busy || !connected.value}
              onClick={() => !action.busy && connected.value && toggle()}
            >
              {paused ? "Resume" : "Pause"}
            </button>
          </span>
        )}
      </div>
      <p class="tertiary mono page-id">{device.id}</p>
      <p
        role="status"
        class={action.said?.error ? "error action-status" : "tertiary action-status"}
      >
        {action.said?.text ?? ""}
      </p>
      {device.notice && (
        <div class="device-notice" role="group" aria-label="What it needs">
          <p class="notice">{device.notice.message}</p>
          <button
            type="button"
            class="button primary"
            onClick={() => props.onAct(device.notice!.kind === "review-run" ? "review" : "connect")}
          >
            {NOTICE_ACTIONS.get(device.notice.kind) ?? "Review"}
          </button>
        </div>
      )}
      <p class="secondary page-description">
        <span class="visually-hidden">What it reads:</span>
        {device.description}
      </p>
    </header>
  );
}
