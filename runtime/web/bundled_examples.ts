/**
 * The example packages bundled with Sync: the folders of the checkout's
 * `extensions/` that hold a manifest, each with its one-line description.
 *
 * @module
 */
import { join } from "node:path";
import { readFileAtMost } from "../internal/read_file_at_most.ts";
import { parseManifest } from "../packages/mod.ts";
import type { BundledExample } from "./api/types.ts";

/** The checkout's folder of bundled examples. */
export const BUNDLED_EXAMPLES_DIR: string = decodeURIComponent(
  new URL("../../extensions", import.meta.url).pathname,
);

/** The largest manifest read; a bigger one is not an example's. */
const MANIFEST_BYTES = 256 * 1024;

/**
 * Lists the bundled examples whose manifest reads, by name. A folder with no
 * manifest, or one that does not validate, is left out; so is one whose
 * `manifest.json` is not a regular file of its own (a link could point
 * anywhere serve may read, and opening a FIFO waits for a writer forever).
 *
 * @param dir The folder of examples, resolved.
 * @returns Each example's id, name, version, description and folder.
 */
export async function listBundledExamples(dir: string): Promise<BundledExample[]> {
  const examples: BundledExample[] = [];
  let entries: Deno.DirEntry[];
  try {
    entries = await Array.fromAsync(Deno.readDir(dir));
  } catch {
    return [];
  }
  for (const entry of entries) {
    if (!entry.isDirectory || entry.name.startsWith(".")) continue;
    const path = join(dir, entry.name);
    const file = join(path, "manifest.json");
    try {
      const info = await Deno.lstat(file);
      if (!info.isFile || info.size > MANIFEST_BYTES) continue;
      const bytes = await readFileAtMost(file, MANIFEST_BYTES);
      if (bytes === null) continue;
      const manifest = parseManifest(new TextDecoder().decode(bytes), path);
      examples.push({
        id: manifest.id,
        name: manifest.name,
        version: manifest.version,
        description: manifest.description ?? "",
        path,
      });
    } catch {
      // Not an example: no manifest, or one that does not validate.
    }
  }
  return examples.sort((a, b) => a.name.localeCompare(b.name));
}
