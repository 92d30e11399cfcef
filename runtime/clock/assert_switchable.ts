/**
 * Whether a package's clock can be switched in a project: a person asking to
 * switch a clock that does not exist is told so, instead of an "off" being
 * stored that nothing would ever read.
 *
 * @module
 */
import { InvalidInputError, NotFoundError } from "../errors.ts";
import { loadPackage, readPackageRef } from "../packages/mod.ts";
import { readDeclaredIds, readProject } from "../projects/mod.ts";

/**
 * Checks that a package's clock can be switched in a project: the package is
 * installed there and has a schedule (or its manifest cannot be read now, so
 * nobody can tell, and the person may switch it).
 *
 * @param kv The installation's KV, which remembers the project and the package.
 * @param project The project's resolved path.
 * @param id The package id.
 * @throws {NotFoundError} when the package is not installed in the project.
 * @throws {InvalidInputError} when the package has no schedule.
 */
export async function assertSwitchable(kv: Deno.Kv, project: string, id: string): Promise<void> {
  const ids = (await readProject(kv, project))?.extensionIds ?? [];
  if (!ids.includes(id) && !(await readDeclaredIds(project)).includes(id)) {
    throw new NotFoundError(`${id} is not installed in ${project}`);
  }
  const ref = await readPackageRef(kv, id);
  let scheduled = true;
  try {
    if (ref) scheduled = (await loadPackage(ref)).manifest.schedule.length > 0;
  } catch { /* unreadable: let the person switch it */ }
  if (!scheduled) {
    throw new InvalidInputError(`${id} has no schedule, so there is no clock to switch`);
  }
}
