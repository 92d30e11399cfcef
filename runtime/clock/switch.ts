/**
 * The clock's switch: one per package per project. Only "off" is stored, as
 * an exception; turning the clock back on removes it rather than writing a
 * true, so a project that switched nothing off has no entry at all and never
 * depends on a "yes" that somebody had to write down.
 *
 * @module
 */
import { bumpGeneration } from "../memory/mod.ts";
import { resolveProjectDir } from "../projects/mod.ts";
import { clockChangedKey, clockOffKey, clockOffsPrefix } from "./keys.ts";
import { InvalidInputError } from "../errors.ts";
import { describeGiven } from "../internal/describe_given.ts";
import type { EventSink } from "../sync_event.ts";

/** What is stored for a package whose clock is switched off in a project. */
export interface ClockOff {
  /** When it was first switched off, as an ISO 8601 time; switching off again keeps it. */
  switchedOffAt: string;
}

function checkId(id: unknown): string {
  if (typeof id !== "string" || id === "") {
    throw new InvalidInputError(
      `A package id must be a non-empty string, got ${describeGiven(id)}.`,
    );
  }
  return id;
}

/** Options for {@linkcode switchOff}. */
export interface SwitchOffOptions {
  /** The host's clock, in ms. */
  now: () => number;
  /** Opens the project's memory, where the package's generation is bumped. */
  projectMemory(project: string): Promise<Deno.Kv>;
  /** Where the switch is told once written; nowhere when absent. */
  readonly events?: EventSink;
}

/** Options for {@linkcode switchOn}. */
export interface SwitchOnOptions {
  /** Where the switch is told once written; nowhere when absent. */
  readonly events?: EventSink;
}

/**
 * Switches a package's clock off in a project. The exception is written
 * before the generation is bumped, so a tick that looks after the write does
 * not start a call, and a call already running commits nothing.
 *
 * @param kv The installation's KV.
 * @param project The project folder.
 * @param id The package id.
 * @param options The clock, and the project's memory.
 * @throws {NotFoundError} when the project folder does not exist.
 */
export async function switchOff(
  kv: Deno.Kv,
  project: string,
  id: string,
  options: SwitchOffOptions,
): Promise<void> {
  const path = await resolveProjectDir(project);
  const key = clockOffKey(path, checkId(id));
  const current = await kv.get<ClockOff>(key);
  // Already off: keep when it was first switched off.
  if (current.value === null) {
    const value: ClockOff = { switchedOffAt: new Date(options.now()).toISOString() };
    await kv.atomic().check(current).set(key, value).set(clockChangedKey(), true).commit();
  }
  await bumpGeneration(await options.projectMemory(path), id);
  options.events?.publish({ type: "switch", project: path, packageId: id, on: false });
}

/**
 * Switches a package's clock back on in a project by deleting the exception.
 * A project folder that is gone is keyed by the path as given.
 *
 * @param kv The installation's KV.
 * @param project The project folder.
 * @param id The package id.
 * @param options Where the switch is told.
 */
export async function switchOn(
  kv: Deno.Kv,
  project: string,
  id: string,
  options: SwitchOnOptions = {},
): Promise<void> {
  let path = project;
  try {
    path = await resolveProjectDir(project);
  } catch { /* the folder is gone; the exception is still keyed by its path */ }
  await kv.atomic().delete(clockOffKey(path, checkId(id))).set(clockChangedKey(), true).commit();
  options.events?.publish({ type: "switch", project: path, packageId: id, on: true });
}

/** True when the package's clock is switched off in the project (a resolved path). */
export async function isSwitchedOff(kv: Deno.Kv, project: string, id: string): Promise<boolean> {
  return (await kv.get(clockOffKey(project, checkId(id)))).versionstamp !== null;
}

/** The ids whose clock is switched off in a project. */
export async function listSwitchedOff(kv: Deno.Kv, project: string): Promise<string[]> {
  const ids: string[] = [];
  for await (const entry of kv.list({ prefix: clockOffsPrefix(project) })) {
    ids.push(entry.key[2] as string);
  }
  return ids;
}
