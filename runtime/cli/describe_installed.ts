/**
 * One entry of `sync list`: an installed package's version, source, approval
 * state here, its lamp with what a person must act on, and its permissions
 * with what they mean.
 *
 * @module
 */
import { type LampReason, readLamp } from "../extensions/mod.ts";
import { printable } from "../internal/printable.ts";
import { describePermission, describeServingState, readServingState } from "../packages/mod.ts";

/**
 * Notices the entry's first line already says in its own words: the lamp's
 * are worded for the window (its buttons), and these need no second line.
 */
const SAID_FIRST: ReadonlySet<LampReason> = new Set([
  "not-on-machine",
  "not-approved",
  "cannot-load",
  "awaits-approval",
]);

/** Options for {@linkcode describeInstalled}. */
export interface DescribeInstalledOptions {
  /** The host's clock, in ms: whether a handler still runs. */
  now: () => number;
}

/**
 * Describes a package installed in a project, for `sync list`: what serves
 * there (the approved version, or nothing while a widened one awaits
 * approval), or why it cannot load; then its lamp, one line per thing a
 * person must act on (a handler failing again and again, say), and its
 * permissions.
 *
 * @param kv The installation's KV.
 * @param project The project's resolved path.
 * @param id The package id the project declares.
 * @param options The host's clock.
 * @returns The entry: a first line, then indented lines: the lamp, each
 *   notice as `red: <what to do>`, one per permission.
 */
export async function describeInstalled(
  kv: Deno.Kv,
  project: string,
  id: string,
  options: DescribeInstalledOptions,
): Promise<string> {
  const serving = await readServingState(kv, project, id);
  const lamp = await readLamp(kv, project, id, options);
  const notices = lamp.notices.filter((n) => !SAID_FIRST.has(n.reason))
    .map((n) => `\n    red: ${printable(n.text)}`).join("");
  const lampLines = `\n    lamp: ${lamp.state} (${lamp.label})${notices}`;
  if (serving.state === "not-on-machine") {
    return `${id}  not on this machine: install it here to use it${lampLines}`;
  }
  if (serving.state === "cannot-load") {
    return `${id}  cannot load: ${printable(serving.message)}${lampLines}`;
  }
  const { version, name, permissions } = serving.current.manifest;
  const state = describeServingState(serving);
  const perms = permissions.map((p) => `\n    ${p} — ${describePermission(p)}`).join("");
  return `${id}@${version}  ${printable(name)}  [${serving.current.ref.source}]  ${state}` +
    `${lampLines}${perms}`;
}
