/**
 * What removing a package from a project keeps and what it takes, in the
 * words the confirmation and the answer use. The list follows what
 * `removePackage` does; a change there is a change here.
 *
 * @module
 */
import type { Manifest } from "../packages/mod.ts";

/** What removing a package keeps and takes. */
export interface Removal {
  /** What stays, one sentence each. */
  stays: string[];
  /** What goes, one sentence each. */
  goes: string[];
}

/**
 * What removing a package from a project keeps and takes.
 *
 * @param manifest The manifest of the version serving, for its `removed` handler.
 */
export function removalOf(manifest: Pick<Manifest, "id" | "lifecycle">): Removal {
  const removed = manifest.lifecycle?.removed;
  return {
    stays: [
      "Its records stay in this project's memory; installing it again finds them.",
      "Its receipts stay.",
      "The package stays on this machine for the other projects that use it.",
    ],
    goes: [
      ...(removed
        ? [
          `Its removed handler ${removed} runs first; if it fails, nothing is removed ` +
          "unless you remove it anyway.",
        ]
        : []),
      `${manifest.id} leaves this project's .sync/extensions.json.`,
      "This project's approval of its permissions.",
      "Its clock here: when it last ran, its failures, and its Off switch.",
      "A call of it still running here commits nothing.",
    ],
  };
}
