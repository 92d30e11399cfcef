/**
 * What the clock benches grow: five scheduled packages installed into a first
 * project, then more projects declaring and approving the same five, as a
 * cloned repository opened on this machine would. Written with the tests'
 * own `writePackage`.
 *
 * @module
 */
import { join } from "node:path";
import { addScheduledProject } from "../../runtime/clock/scheduled_projects.ts";
import type { Host } from "../../runtime/host/host.ts";
import { installPackage } from "../../runtime/lifecycle/install.ts";
import { type Approval, writeApproval } from "../../runtime/packages/approval.ts";
import { readPackageRef } from "../../runtime/packages/store.ts";
import { rememberProject, writeDeclaredIds } from "../../runtime/projects/project.ts";
import { writePackage } from "../internal/packages.ts";

/** The bench packages, each with one handler `<id>.poll` on the clock every hour. */
export const BENCH_PACKAGES: readonly string[] = ["alpha", "bravo", "charlie", "delta", "echo"];

/**
 * Writes the bench packages under `root`, installs each into `first` with
 * approval, and answers the approvals to copy into other projects.
 *
 * @param service The service module of package `id`.
 * @param approvedAt When the copies say they were approved, in ms.
 */
export async function installScheduledPackages(
  host: Host,
  root: string,
  first: string,
  service: (id: string) => string,
  approvedAt: number,
): Promise<Approval[]> {
  const approvals: Approval[] = [];
  for (const id of BENCH_PACKAGES) {
    const dir = await writePackage(join(root, "packages"), {
      id,
      permissions: ["background", "schedule"],
      handlers: [`${id}.poll`],
      service: service(id),
      manifest: {
        schedule: [{ handler: `${id}.poll`, description: "Polls the tracker", every: "1h" }],
      },
    });
    await installPackage(host, dir, first, { approve: true });
    const ref = (await readPackageRef(host.kv, id))!;
    approvals.push({
      id,
      version: ref.version,
      ref,
      permissions: ["background", "schedule"],
      approvedAt: new Date(approvedAt).toISOString(),
    });
  }
  return approvals;
}

/**
 * Makes `path` a project declaring every bench package, approved as
 * `approvals` say, remembered and on the clock's list.
 */
export async function addScheduledCopy(
  kv: Deno.Kv,
  path: string,
  approvals: readonly Approval[],
  now: () => number,
): Promise<void> {
  await writeDeclaredIds(path, [...BENCH_PACKAGES]);
  for (const approval of approvals) await writeApproval(kv, path, approval);
  await rememberProject(kv, path, { now });
  await addScheduledProject(kv, path, { now });
}
