/**
 * What `sync new` does: scaffolds a package that passes check, and says what
 * to do next with this checkout's tasks. A relative folder is taken from
 * where the author ran `deno task`.
 *
 * @module
 */
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { scaffoldPackage } from "../../author/mod.ts";
import type { CommandContext } from "../command.ts";

/** This Sync checkout, whose `deno.json` holds the tasks. */
const CHECKOUT = fileURLToPath(new URL("../../..", import.meta.url)).replace(/\/$/, "");

/** What `sync new` was asked, read from its words. */
export interface NewRequest {
  /** The package id. */
  id: string;
  /** The folder to make, as typed; absent for `./<id>`. */
  dir?: string;
  /** The package's name, when given. */
  name?: string;
  /** Whether to make a screen too. */
  screen?: boolean;
}

/**
 * Runs `sync new <id> [dir]`.
 *
 * @param request What was asked.
 * @param context Where it writes, and the folder relative paths start from.
 * @returns The exit code.
 */
export async function runNew(
  { id, dir: given, name, screen }: NewRequest,
  context: CommandContext,
): Promise<number> {
  const { io, cwd } = context;
  const dir = resolve(cwd, given ?? id);
  const created = await scaffoldPackage(id, dir, { name, screen });
  io.out(`Created ${created.id} in ${created.dir}:`);
  for (const file of created.files) io.out(`  ${file}`);
  io.out("");
  // The tasks are this checkout's; --cwd runs them from wherever the author is.
  const task = `deno task --cwd ${CHECKOUT}`;
  io.out("Next:");
  io.out(
    `  1. Edit ${created.dir}/src/service.ts (and manifest.json for new handlers)` +
      (screen ? ` and src/index.tsx, the screen.` : "."),
  );
  io.out(`  2. Check it:    ${task} check ${created.dir}`);
  io.out(
    `  3. Install it:  ${task} sync install ${created.dir} --project <project folder> --approve`,
  );
  io.out(
    `  4. Call it:     ${task} sync call ${created.id} ${created.handler} --project <project folder>`,
  );
  if (screen) {
    io.out(`  5. See it:      open the project in the app (${task} serve); the navigator lists it`);
  }
  return 0;
}
