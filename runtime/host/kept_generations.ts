/**
 * The generation each package's calls last ran under in each project, kept
 * so that the next call does not read it again: what a call reads of memory
 * does not depend on its generation, which fences writes only. A call that
 * writes proves the generation it was handed by reading it with its first
 * write (`MemoryTransaction`'s `generationKept`), and its commit checks it;
 * a call that only reads commits nothing and has nothing to fence. When the
 * first write finds the generation moved on after the call had read, the
 * call is made again from a fresh read, or, once it counted, fails as
 * superseded (`call.ts`).
 *
 * Kept with the handle of the memory it was read from: a project's memory
 * opened again (its folder removed and made again) is read afresh, and so is
 * a generation this process bumped since (paused, removed, updated or
 * approved again); a call that finds one bumped here while it ran is
 * superseded, as it was when every call read the generation as it started.
 *
 * @module
 */
import type { Generation } from "../memory/mod.ts";
import { keepNewest } from "../internal/keep_newest.ts";

/** Packages remembered at most; past it the oldest half is forgotten. */
const KEPT = 4_096;

/** The generations calls last ran under; see the module's documentation. */
export class KeptGenerations {
  #kept = new Map<string, { memory: Deno.Kv; generation: Generation; bumps: number }>();

  /**
   * The generation a call of `id` in `project` last ran under, when it was
   * kept from the same handle on the project's memory and this process has
   * not bumped it since.
   *
   * @param memory The project's memory, as the call holds it.
   * @param project The project's folder.
   * @param id The package id.
   * @param bumps The bumps made through `memory` so far (`generationBumpsThrough`).
   */
  get(memory: Deno.Kv, project: string, id: string, bumps: number): Generation | undefined {
    const kept = this.#kept.get(keyOf(project, id));
    return kept?.memory === memory && kept.bumps === bumps ? kept.generation : undefined;
  }

  /**
   * Keeps the generation a call read or proved.
   *
   * @param memory The project's memory it was read from.
   * @param project The project's folder.
   * @param id The package id.
   * @param generation The generation, as read.
   * @param bumps The bumps made through `memory` before it was read.
   */
  keep(
    memory: Deno.Kv,
    project: string,
    id: string,
    generation: Generation,
    bumps: number,
  ): void {
    keepNewest(this.#kept, keyOf(project, id), { memory, generation, bumps }, KEPT);
  }

  /**
   * Forgets the generation kept for `id` in `project`: the next call reads it.
   *
   * @param project The project's folder.
   * @param id The package id.
   */
  forget(project: string, id: string): void {
    this.#kept.delete(keyOf(project, id));
  }
}

function keyOf(project: string, id: string): string {
  return `${project}\0${id}`;
}
