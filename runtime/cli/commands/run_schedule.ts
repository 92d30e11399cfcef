/**
 * What `sync schedule` does, in the installation's owner: one row per
 * scheduled handler of a project — what it does, how often, on or off
 * here, its last attempt and when it is due next.
 *
 * @module
 */
import { printable } from "../../internal/printable.ts";
import { describeSchedule, projectOrWhereItWent } from "../../clock/mod.ts";
import type { CommandContext } from "../command.ts";
import { withHost } from "../with_host.ts";

/**
 * Runs `sync schedule`.
 *
 * @param request The project folder, resolved from where the person typed the command, and
 *   whether to print JSON lines.
 * @param context Where it writes, and how it reaches the installation.
 * @returns The exit code.
 */
export async function runSchedule(
  { dir, json }: { dir: string; json: boolean },
  context: CommandContext,
): Promise<number> {
  const { io } = context;
  return await withHost(context, async (host) => {
    const project = await projectOrWhereItWent(host.kv, dir);
    const rows = await describeSchedule(host.kv, project, host);
    if (rows.length === 0) io.out("Nothing here runs on the clock.");
    for (const row of rows) {
      if (json) {
        io.out(JSON.stringify(row));
        continue;
      }
      const attempt = row.lastAttempt;
      const last = attempt
        ? `last ${shortTime(attempt.startedAt)} ${attempt.outcome}` +
          (attempt.error ? ` (${printable(attempt.error.message)})` : "")
        : "never ran";
      const next = !row.on
        ? "Off for this project"
        : row.blocked
        ? `passed over (${row.blocked.reason}): ${printable(row.blocked.message)}`
        : `next ${shortTime(row.nextDue!)}`;
      io.out(
        `${printable(row.packageName)} (${row.packageId}): ${printable(row.description)}, ` +
          `${row.wording}` +
          `  [${row.on ? "on" : "off"}]  ${last}  ${next}` +
          (row.needsReview ? "  NEEDS REVIEW: the last three attempts failed" : ""),
      );
    }
    return 0;
  });
}

/** `2030-01-01T09:00:00.000Z` → `2030-01-01 09:00:00Z`. */
function shortTime(iso: string): string {
  return iso.replace("T", " ").replace(/\.\d{3}Z$/, "Z");
}
