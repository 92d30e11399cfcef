/**
 * How an archive's refusals are worded, the same for every format.
 *
 * @module
 */

import { ArchiveError } from "../../errors.ts";

/** Bytes in a MiB, for caps and for the sizes messages print. */
export const MIB = 1024 * 1024;

/** The error for an archive that is refused, naming it. */
export function refusal(archive: string, detail: string): ArchiveError {
  return new ArchiveError(`Cannot unpack ${archive}: ${detail}`);
}

/** An entry name for a message: JSON-quoted so control characters show, and kept short. */
export function quote(name: string): string {
  return JSON.stringify(name.length > 200 ? `${name.slice(0, 200)}…` : name);
}

/** A size for a message: bytes under a MiB, else MiB with one decimal. */
export function size(bytes: number): string {
  if (bytes < MIB) return `${bytes} bytes`;
  return `${Number((bytes / MIB).toFixed(1))} MiB`;
}
