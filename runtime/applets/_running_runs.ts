/**
 * The runs going now, one per device at most, each with the controller that
 * calls it off: when a person changes the account, resets or pauses the
 * device (its commit is refused by the account epoch too), or when the
 * runner stops. Private to the applets' folder.
 *
 * @module
 */
import { ConflictError } from "../errors.ts";

/** Why a run is called off. */
export type CallOffReason = "fenced" | "paused" | "stopped";

/** A device's runs going now, to be called off. */
export class RunningRuns {
  #byDevice = new Map<string, AbortController>();

  /**
   * Whether a run of the device is going.
   *
   * @param project The project's resolved path.
   * @param pkg The package id.
   */
  has(project: string, pkg: string): boolean {
    return this.#byDevice.has(deviceId(project, pkg));
  }

  /**
   * Marks a run of the device as going.
   *
   * @param project The project's resolved path.
   * @param pkg The package id.
   * @returns The controller whose signal the run follows.
   * @throws {ConflictError} when a run of the device is going already.
   */
  begin(project: string, pkg: string): AbortController {
    const id = deviceId(project, pkg);
    if (this.#byDevice.has(id)) {
      throw new ConflictError(`${pkg}'s device is running a task already; try again once it ended`);
    }
    const controller = new AbortController();
    this.#byDevice.set(id, controller);
    return controller;
  }

  /**
   * Marks the run that `controller` follows as ended.
   *
   * @param project The project's resolved path.
   * @param pkg The package id.
   * @param controller What {@linkcode RunningRuns.begin} answered.
   */
  end(project: string, pkg: string, controller: AbortController): void {
    const id = deviceId(project, pkg);
    if (this.#byDevice.get(id) === controller) this.#byDevice.delete(id);
  }

  /**
   * Calls off a device's run going, if any.
   *
   * @param project The project's resolved path.
   * @param pkg The package id.
   * @param reason Why.
   */
  callOff(project: string, pkg: string, reason: CallOffReason): void {
    this.#byDevice.get(deviceId(project, pkg))?.abort(reason);
  }

  /** Calls off every run going: the runner stops. */
  callOffAll(): void {
    for (const controller of this.#byDevice.values()) controller.abort("stopped");
  }
}

/** A device's name for the map. */
function deviceId(project: string, pkg: string): string {
  return JSON.stringify([project, pkg]);
}
