/**
 * What `sync build` does: compiles a package's sources and says what it
 * wrote. A relative folder is taken from where the author ran `deno task`.
 *
 * @module
 */
import { resolve } from "node:path";
import { buildPackage, serviceParseNote } from "../../author/mod.ts";
import type { CommandContext } from "../command.ts";
import { formatBytes } from "../format_bytes.ts";

/**
 * Runs `sync build [dir]`.
 *
 * @param given The folder as typed; absent for the current one.
 * @param context Where it writes, and the folder relative paths start from.
 * @returns The exit code.
 */
export async function runBuild(
  given: string | undefined,
  context: CommandContext,
): Promise<number> {
  const { io, cwd } = context;
  const dir = resolve(cwd, given ?? ".");
  const { outputs } = await buildPackage(dir);
  if (outputs.length === 0) {
    io.out(`Nothing to build in ${dir}: it has no src/service.ts or src/index.tsx`);
    return 0;
  }
  io.out(`Built ${dir}`);
  for (const output of outputs) {
    io.out(`  ${output.output}  ${formatBytes(output.bytes)}  (from ${output.source})`);
    const note = serviceParseNote(output);
    if (note) io.out(`  ${note}`);
  }
  return 0;
}
