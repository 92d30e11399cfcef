/**
 * What `sync records` does, in the installation's owner: prints a project's
 * records, one JSON line each, page by page.
 *
 * @module
 */
import { listRecords } from "../../memory/mod.ts";
import { resolveProjectDir } from "../../projects/mod.ts";
import type { CommandContext } from "../command.ts";
import { withHost } from "../with_host.ts";

/** What `sync records` was asked, read from its words. */
export interface RecordsRequest {
  /** The project folder, resolved from where the person typed the command. */
  dir: string;
  /** Only records of this kind. */
  kind?: string;
  /** Only records whose key starts so. */
  prefix?: string;
}

/**
 * Runs `sync records`.
 *
 * @param request What was asked.
 * @param context Where it writes, and how it reaches the installation.
 * @returns The exit code.
 */
export async function runRecords(
  { dir, kind, prefix }: RecordsRequest,
  context: CommandContext,
): Promise<number> {
  return await withHost(context, async (host) => {
    const memory = await host.projectMemory(await resolveProjectDir(dir));
    // Page by page, so a large memory prints as it is read.
    let cursor: string | undefined;
    do {
      const page = await listRecords(memory, { kind, prefix, limit: 500, cursor });
      for (const record of page.records) context.io.out(JSON.stringify(record));
      cursor = page.cursor;
    } while (cursor);
    return 0;
  });
}
