/**
 * What `sync receipts` does, in the installation's owner: prints what
 * handler calls in a project left behind, newest first.
 *
 * @module
 */
import { printable } from "../../internal/printable.ts";
import { knownProjectPath } from "../../clock/mod.ts";
import { listReceipts } from "../../host/mod.ts";
import type { CommandContext } from "../command.ts";
import { withHost } from "../with_host.ts";

/** What `sync receipts` was asked, read from its words. */
export interface ReceiptsRequest {
  /** The project folder, resolved from where the person typed the command. */
  dir: string;
  /** Only this package's receipts. */
  id?: string;
  /** At most this many. */
  limit: number;
  /** One JSON line per receipt. */
  json?: boolean;
}

/**
 * Runs `sync receipts`.
 *
 * @param request What was asked.
 * @param context Where it writes, and how it reaches the installation.
 * @returns The exit code.
 */
export async function runReceipts(
  { dir, id, limit, json }: ReceiptsRequest,
  context: CommandContext,
): Promise<number> {
  const { io } = context;
  return await withHost(context, async (host) => {
    // A project whose folder is gone still has receipts to read.
    const project = await knownProjectPath(host.kv, dir);
    const receipts = await listReceipts(host.kv, project, { packageId: id, limit });
    for (const r of receipts) {
      if (json) {
        io.out(JSON.stringify(r));
        continue;
      }
      const ms = Date.parse(r.endedAt) - Date.parse(r.startedAt);
      // A person's own `sync call` is said as the command they typed; the
      // handler was told `extension`, which --json keeps.
      const occasion = r.source?.kind === "person" && r.source.via === "cli"
        ? "sync call"
        : r.occasion.moment
        ? `${r.occasion.kind}:${r.occasion.moment}`
        : r.occasion.kind;
      // A handler's name starts with its package's id; where it does not (a call that
      // named a package and a handler of another), the package is said too.
      const what = r.handler === ""
        ? `${printable(r.packageId)} (every handler)`
        : r.handler.startsWith(`${r.packageId}.`)
        ? printable(r.handler)
        : `${printable(r.packageId)}: ${printable(r.handler)}`;
      io.out(
        `${r.startedAt}  ${r.outcome.padEnd(7)} ${what} ` +
          `(${printable(occasion)}, ${ms} ms)` +
          (r.error ? `  ${printable(r.error.message)}` : ""),
      );
    }
    // With --json every line is a receipt: none is no line.
    if (receipts.length === 0 && !json) io.out("No receipts yet.");
    return 0;
  });
}
