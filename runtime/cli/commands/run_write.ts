/**
 * What `sync write` does, in the installation's owner: writes one record
 * into a project's memory as a person, and prints it as written.
 *
 * @module
 */
import { writeRecord } from "../../memory/mod.ts";
import { resolveProjectDir } from "../../projects/mod.ts";
import type { CommandContext } from "../command.ts";
import { withHost } from "../with_host.ts";

/** What `sync write` was asked, read from its words. */
export interface WriteRequest {
  /** The project folder, resolved from where the person typed the command. */
  dir: string;
  /** The record's key, `kind/name`. */
  key: string;
  /** Its title, when given. */
  title?: string;
  /** Its fields, as JSON read, when given. */
  fields?: unknown;
  /** Its text, when given. */
  content?: string;
}

/**
 * Runs `sync write`.
 *
 * @param request What was asked.
 * @param context Where it writes, and how it reaches the installation.
 * @returns The exit code.
 */
export async function runWrite(request: WriteRequest, context: CommandContext): Promise<number> {
  const { dir, key, title, fields, content } = request;
  return await withHost(context, async (host) => {
    const memory = await host.projectMemory(await resolveProjectDir(dir));
    const written = await writeRecord(memory, {
      key,
      ...(title !== undefined ? { title } : {}),
      ...(fields !== undefined ? { fields: fields as Record<string, never> } : {}),
      ...(content !== undefined ? { content } : {}),
    }, { now: () => new Date(host.now()) });
    context.io.out(JSON.stringify(written));
    return 0;
  });
}
