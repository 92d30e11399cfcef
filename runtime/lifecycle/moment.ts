/**
 * Lifecycle occasions: the handler a package names for `installed`,
 * `removed` or `opened`, called at that moment with
 * `{ kind: "lifecycle", moment }`. Each call leaves a receipt like any other.
 *
 * @module
 */
import { describeError } from "../internal/describe_error.ts";
import type { HandlerCaller } from "../host/mod.ts";
import type { LifecycleMoment, LoadedPackage } from "../packages/mod.ts";

/** What one lifecycle handler did. */
export interface LifecycleRun {
  /** The package whose handler ran. */
  packageId: string;
  /** The handler the manifest names for the moment. */
  handler: string;
  /** Which moment it ran at. */
  moment: LifecycleMoment;
  /** How the call ended. */
  outcome: "ok" | "failed";
  /** `{ name, message }` when it failed. */
  error?: { name: string; message: string };
  /** The thrown error, when it failed, to keep as a cause. */
  failure?: unknown;
}

/** Options for {@linkcode runLifecycle}. */
export interface RunLifecycleOptions {
  /** What the handler is given as its payload. */
  payload?: unknown;
  /** The project's installed ids, when the caller already read them. */
  declaredIds?: readonly string[];
}

/**
 * Calls the handler `pkg` names for `moment` in `project`, if it names one.
 * A failure is answered, not thrown: the caller decides what it refuses.
 *
 * @param caller What runs the call (the host).
 * @param project The project's resolved folder.
 * @param pkg The artefact to call (for `installed`, the one being installed).
 * @param moment Which lifecycle moment this is.
 * @returns What the handler did, or null when the package names no handler for the moment.
 */
export async function runLifecycle(
  caller: HandlerCaller,
  project: string,
  pkg: LoadedPackage,
  moment: LifecycleMoment,
  options: RunLifecycleOptions = {},
): Promise<LifecycleRun | null> {
  const handler = pkg.manifest.lifecycle?.[moment];
  if (!handler) return null;
  const packageId = pkg.manifest.id;
  try {
    await caller.callHandler(project, packageId, handler, {
      occasion: { kind: "lifecycle", moment },
      source: { kind: "person" },
      payload: options.payload ?? null,
      package: pkg,
      ...(options.declaredIds ? { declaredIds: options.declaredIds } : {}),
    });
    return { packageId, handler, moment, outcome: "ok" };
  } catch (error) {
    return {
      packageId,
      handler,
      moment,
      outcome: "failed",
      error: describeError(error),
      failure: error,
    };
  }
}
