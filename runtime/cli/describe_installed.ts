/**
 * One entry of `sync list`: an installed package's version, source, approval
 * state here, and its permissions with what they mean.
 *
 * @module
 */
import { printable } from "../internal/printable.ts";
import { describePermission, describeServingState, readServingState } from "../packages/mod.ts";

/**
 * Describes a package installed in a project, for `sync list`: what serves
 * there (the approved version, or nothing while a widened one awaits
 * approval), or why it cannot load.
 *
 * @param kv The installation's KV.
 * @param project The project's resolved path.
 * @param id The package id the project declares.
 * @returns The entry: a first line, then one indented line per permission.
 */
export async function describeInstalled(
  kv: Deno.Kv,
  project: string,
  id: string,
): Promise<string> {
  const serving = await readServingState(kv, project, id);
  if (serving.state === "not-on-machine") {
    return `${id}  not on this machine: install it here to use it`;
  }
  if (serving.state === "cannot-load") return `${id}  cannot load: ${printable(serving.message)}`;
  const { version, name, permissions } = serving.current.manifest;
  const state = describeServingState(serving);
  const perms = permissions.map((p) => `\n    ${p} — ${describePermission(p)}`).join("");
  return `${id}@${version}  ${printable(name)}  [${serving.current.ref.source}]  ${state}${perms}`;
}
