/**
 * The devices of a project's window, kept live: read from
 * `GET /api/devices` and read again when the project's stream says a device
 * changed (a `device` fact: a person's decision, a run that began or
 * ended), a package came or went, or facts were missed. What an action
 * answers is put in place at once, before the stream says so.
 *
 * @module
 */
import { type Signal, signal } from "@preact/signals";
import type { DevicesResponse, DeviceView } from "../../runtime/web/api/devices_types.ts";
import type { StreamEvent } from "../../runtime/web/api/events_types.ts";
import { getJson, messageOf } from "../api/client.ts";
import type { ProjectState } from "../state/project_state.ts";

/** The facts after which the devices are read again. */
const DEVICE_FACTS: ReadonlySet<StreamEvent["type"]> = new Set([
  "device",
  "installed",
  "removed",
  "package-changed",
  "resync",
]);

/** A project's devices, for as long as its Devices area is shown. */
export interface DevicesState {
  /** Every device of the project's packages, in install order; null until the first answer. */
  readonly devices: Signal<DeviceView[] | null>;
  /** Why they could not be read; null when they could. */
  readonly error: Signal<string | null>;
  /** Reads them again. */
  reload(): Promise<void>;
  /** Puts a device as an action answered it. */
  put(device: DeviceView): void;
  /** Stops listening. */
  dispose(): void;
}

/**
 * Opens the devices of a project's window.
 *
 * @param state The project's live state, whose stream it listens to.
 */
export function openDevicesState(state: ProjectState): DevicesState {
  const devices = signal<DeviceView[] | null>(null);
  const error = signal<string | null>(null);
  let reading: Promise<void> | null = null;
  let again = false;
  const reload = (): Promise<void> => {
    // One read at a time; facts that come during it ask for one more after it.
    if (reading) {
      again = true;
      return reading;
    }
    reading = (async () => {
      do {
        again = false;
        try {
          const answer = await getJson<DevicesResponse>("/api/devices", {
            project: state.project,
          });
          devices.value = answer.devices;
          error.value = null;
        } catch (thrown) {
          error.value = messageOf(thrown);
        }
      } while (again);
      reading = null;
    })();
    return reading;
  };
  const stop = state.listen((event) => {
    if (DEVICE_FACTS.has(event.type)) void reload();
  });
  void reload();
  return {
    devices,
    error,
    reload,
    put(device) {
      const list = devices.value ?? [];
      devices.value = list.some((one) => one.id === device.id)
        ? list.map((one) => one.id === device.id ? device : one)
        : [...list, device];
    },
    dispose: stop,
  };
}
