/**
 * The account epoch: a counter per (project, package) that fences a device's
 * task steps. Connecting another account, disconnecting one and resetting the
 * device bump it, and a step that began under an older epoch commits nothing
 * (`FencedError`), so what was read from an account the device no longer has
 * is never kept.
 *
 * Like the generation, it lives in the project's memory KV, beside the records
 * it fences, so that a step's commit can check it and write the records in one
 * atomic operation; the project is given by which `kv` is passed in.
 *
 * @module
 */

import { accountEpochKey } from "./keys.ts";
import { InvalidInputError } from "../errors.ts";
import { describeGiven } from "../internal/describe_given.ts";

function checkPackageId(packageId: unknown): string {
  if (typeof packageId !== "string" || packageId === "") {
    throw new InvalidInputError(
      `A package id must be a non-empty string, got ${describeGiven(packageId)}.`,
    );
  }
  return packageId;
}

/**
 * Reads a package's account epoch in the project whose memory `kv` is.
 *
 * @param kv The project's memory KV.
 * @param packageId The package id.
 * @returns The epoch; 0 while its device's account never changed in this project.
 * @throws {InvalidInputError} when `packageId` is empty.
 * @example
 * ```ts
 * const epoch = await readAccountEpoch(memory, "mail"); // 0 before any connect
 * ```
 */
export async function readAccountEpoch(kv: Deno.Kv, packageId: string): Promise<number> {
  const entry = await kv.get<number>(accountEpochKey(checkPackageId(packageId)));
  return entry.value ?? 0;
}

/**
 * Moves a package's account epoch on by one and answers the new value. Every
 * task step running under the old value will then fail to commit.
 *
 * @param kv The project's memory KV.
 * @param packageId The package id.
 * @returns The new value.
 * @throws {InvalidInputError} when `packageId` is empty.
 * @example
 * ```ts
 * await bumpAccountEpoch(memory, "mail"); // 1 after the first connect
 * ```
 */
export async function bumpAccountEpoch(kv: Deno.Kv, packageId: string): Promise<number> {
  const key = accountEpochKey(checkPackageId(packageId));
  // A disconnect and a connect may race; each must count, so retry on a lost
  // check rather than overwrite.
  while (true) {
    const entry = await kv.get<number>(key);
    const next = (entry.value ?? 0) + 1;
    const result = await kv.atomic().check(entry).set(key, next).commit();
    if (result.ok) return next;
  }
}
