/**
 * The clock's switch: one per package per project. Only "off" is stored, as
 * an exception; turning the clock back on removes it rather than writing a
 * true, so a project that switched nothing off has no entry at all and never
 * depends on a "yes" that somebody had to write down.
 *
 * @module
 */
import { InvalidInputError } from "../errors.ts";
import { bumpGeneration } from "../memory/generation.ts";
import type { Host } from "../host/host.ts";
import { resolveProjectDir } from "../projects/project.ts";
import { clockOffKey, clockOffsPrefix } from "./keys.ts";

/** What is stored for a package whose clock is switched off in a project. */
export interface ClockOff {
  switchedOffAt: string;
}

function checkId(id: unknown): string {
  if (typeof id !== "string" || id === "") {
    throw new InvalidInputError(`A package id must be a non-empty string, got ${id}.`);
  }
  return id;
}

/**
 * Switches a package's clock off in a project. The exception is written
 * before the generation is bumped, so a tick that looks after the write does
 * not start a call, and a call already running commits nothing.
 *
 * @throws {NotFoundError} when the project folder does not exist.
 */
export async function switchOff(host: Host, project: string, id: string): Promise<void> {
  const path = await resolveProjectDir(project);
  const key = clockOffKey(path, checkId(id));
  const current = await host.kv.get<ClockOff>(key);
  // Already off: keep when it was first switched off.
  if (current.value === null) {
    const value: ClockOff = { switchedOffAt: new Date(host.now()).toISOString() };
    await host.kv.atomic().check(current).set(key, value).commit();
  }
  await bumpGeneration(await host.projectMemory(path), id);
}

/**
 * Switches a package's clock back on in a project by deleting the exception.
 * A project folder that is gone is keyed by the path as given.
 */
export async function switchOn(host: Host, project: string, id: string): Promise<void> {
  let path = project;
  try {
    path = await resolveProjectDir(project);
  } catch { /* the folder is gone; the exception is still keyed by its path */ }
  await host.kv.delete(clockOffKey(path, checkId(id)));
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
