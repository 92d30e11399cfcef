/**
 * The Sync checkout the author's commands run from, and those commands as a
 * person types them from their own folder: `deno task --cwd <checkout> …`.
 *
 * @module
 */
import { fileURLToPath } from "node:url";

/** The checkout holding this file, whose `deno.json` holds the tasks; absolute, no trailing slash. */
export const SYNC_CHECKOUT: string = fileURLToPath(new URL("../..", import.meta.url))
  .replace(/\/$/, "");

/**
 * A task of this checkout as it runs from any folder.
 *
 * @param task The task and its arguments, such as `build /home/ada/hello`.
 * @returns `deno task --cwd /home/ada/sync build /home/ada/hello`.
 * @example
 * ```ts
 * taskCommand(`check ${dir}`); // "deno task --cwd /home/ada/sync check /home/ada/hello"
 * ```
 */
export function taskCommand(task: string): string {
  return `deno task --cwd ${SYNC_CHECKOUT} ${task}`;
}
