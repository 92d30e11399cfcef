/**
 * Which handlers may be called by hand — Run now on an extension's page,
 * `sync call`, an agent's tool — and in what words one that may not is refused: a handler a package runs
 * when it is installed or removed sets up or takes down what the package
 * keeps, and is Sync's to call at that moment.
 *
 * @module
 */
import type { LifecycleMoment, Manifest } from "./manifest.ts";

/** The moments whose handler is not called by hand. */
const NOT_BY_HAND: readonly LifecycleMoment[] = ["installed", "removed"];

/**
 * Why a person may not run a handler by hand; null when they may.
 *
 * @param manifest The package's manifest.
 * @param handler The handler's name.
 * @returns Such as "Sync runs hello.setup when Hello is installed; it is not run by hand".
 */
export function runNowRefusal(manifest: Manifest, handler: string): string | null {
  for (const moment of NOT_BY_HAND) {
    if (manifest.lifecycle?.[moment] === handler) {
      return `Sync runs ${handler} when ${manifest.name} is ${moment}; it is not run by hand`;
    }
  }
  return null;
}
