/**
 * The Extensions list of a project: every package the project lists, with
 * its lamp.
 *
 * @module
 */
import { readServingState } from "../packages/mod.ts";
import { readDeclaredIds, resolveProjectDir } from "../projects/mod.ts";
import { type Lamp, readLamp } from "./lamp.ts";

/** One row of the Extensions list. */
export interface ExtensionSummary {
  /** The package id. */
  id: string;
  /** The name a person sees; the id when the package is not on this machine. */
  name: string;
  /** The version current on this machine; null when it is not on this machine or cannot be read. */
  version: string | null;
  /** What it does, as the package says it; empty when it cannot be read. */
  description: string;
  /** Its lamp in this project. */
  lamp: Lamp;
  /** It has a screen of its own. */
  hasScreen: boolean;
}

/** Options for {@linkcode listExtensions}. */
export interface ListExtensionsOptions {
  /** The host's clock, in ms. */
  now: () => number;
}

/**
 * Every package a project lists (`.sync/extensions.json`), in id order, each
 * with its lamp. A package that is not on this machine, or cannot be read,
 * is listed all the same: its lamp says what to do.
 *
 * @param kv The installation's KV.
 * @param projectDir The project folder.
 * @param options The host's clock.
 * @throws {NotFoundError} when the project folder does not exist.
 */
export async function listExtensions(
  kv: Deno.Kv,
  projectDir: string,
  options: ListExtensionsOptions,
): Promise<ExtensionSummary[]> {
  const project = await resolveProjectDir(projectDir);
  const ids = [...await readDeclaredIds(project)].sort();
  const rows: ExtensionSummary[] = [];
  for (const id of ids) {
    const serving = await readServingState(kv, project, id);
    const manifest = "current" in serving ? serving.current.manifest : null;
    rows.push({
      id,
      name: manifest?.name ?? id,
      version: manifest?.version ?? null,
      description: manifest?.description ?? "",
      lamp: await readLamp(kv, project, id, options),
      hasScreen: manifest?.ui !== undefined,
    });
  }
  return rows;
}
