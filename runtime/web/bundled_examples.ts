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
 * manifest, or one that does not validate, is left out.
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
    try {
      const bytes = await readFileAtMost(join(path, "manifest.json"), MANIFEST_BYTES);
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
