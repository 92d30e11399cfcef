/**
 * The generation: a counter per (project, package) that fences writers.
 * Pausing, removing, updating or re-approving a package bumps it, and a call
 * started under an older generation commits nothing.
 *
 * It lives in the project's memory KV, beside the records it fences, so that a
 * call's commit can check it and write the records in one atomic operation.
 * The project is therefore given by which `kv` is passed in.
 *
 * @module
 */

import { generationKey } from "./keys.ts";
import { InvalidInputError } from "../errors.ts";
import { describeGiven } from "../internal/describe_given.ts";

/** A generation as read: its value and the versionstamp to check at commit. */
export interface Generation {
  /** 0 when the package's generation was never bumped in this project. */
  value: number;
  /** The entry's versionstamp; null while it was never set. */
  versionstamp: string | null;
}

function checkPackageId(packageId: unknown): string {
  if (typeof packageId !== "string" || packageId === "") {
    throw new InvalidInputError(
      `A package id must be a non-empty string, got ${describeGiven(packageId)}.`,
    );
  }
  return packageId;
}

/** The bumps begun through each handle on a project's memory in this process, by package. */
const bumpsThrough = new WeakMap<Deno.Kv, Map<string, number>>();

/**
 * How many times a package's generation was bumped (or began to be) through
 * this handle on the project's memory, in this process: a count that moves
 * before the bump is written. A call that keeps a generation from an earlier
 * call tells by it whether this process bumped it since, and whether a
 * generation found moved on was bumped while it ran.
 *
 * @param kv The project's memory KV, as this process holds it.
 * @param packageId The package id.
 * @returns The count, 0 when none was bumped through this handle.
 */
export function generationBumpsThrough(kv: Deno.Kv, packageId: string): number {
  return bumpsThrough.get(kv)?.get(packageId) ?? 0;
}

/**
 * Reads a package's current generation in the project whose memory `kv` is.
 *
 * @param kv The project's memory KV.
 * @param packageId The package id.
 * @returns The value, and the versionstamp a commit checks it by.
 * @throws {InvalidInputError} when `packageId` is empty.
 */
export async function readGeneration(kv: Deno.Kv, packageId: string): Promise<Generation> {
  const entry = await kv.get<number>(generationKey(checkPackageId(packageId)));
  return { value: entry.value ?? 0, versionstamp: entry.versionstamp };
}

/**
 * Moves a package's generation on by one and answers the new value. Every call
 * running under the old value will then fail to commit.
 *
 * @param kv The project's memory KV.
 * @param packageId The package id.
 * @returns The new value.
 * @throws {InvalidInputError} when `packageId` is empty.
 */
export async function bumpGeneration(kv: Deno.Kv, packageId: string): Promise<number> {
  const key = generationKey(checkPackageId(packageId));
  // Counted before it is written: a call that looks meanwhile reads afresh.
  const counts = bumpsThrough.get(kv) ?? new Map<string, number>();
  bumpsThrough.set(kv, counts);
  counts.set(packageId, (counts.get(packageId) ?? 0) + 1);
  // Two bumps may race (a pause and an update); each must count, so retry on a
  // lost check rather than overwrite.
  while (true) {
    const entry = await kv.get<number>(key);
    const next = (entry.value ?? 0) + 1;
    const result = await kv.atomic().check(entry).set(key, next).commit();
    if (result.ok) return next;
  }
}
