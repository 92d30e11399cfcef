/**
 * The author's commands: `build [dir]` compiles a package's sources and says
 * what it wrote; `new <id> [dir]` scaffolds a package that passes check.
 * Relative folders are taken from where the author ran `deno task`
 * (the context's `cwd`), not from this repository.
 *
 * @module
 */
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { buildPackage, scaffoldPackage, serviceParseNote } from "../../author/mod.ts";
import type { Command, CommandContext, CommandSummary } from "../command.ts";
import { formatBytes } from "../format_bytes.ts";
import { refuseUsage } from "../report_failure.ts";

/** What `build --help` and `new --help` print: the two commands together. */
const USAGE = `Usage:
  build [dir]        Compile src/service.ts into the manifest's service file and
                     src/index.tsx into its ui file (dir defaults to the current folder).
  new <id> [dir]     Create a package folder (default ./<id>) with a manifest, a typed
                     handler, a record type, agent instructions and a deno.json.
    --screen         Also a screen: src/index.tsx, built into ui/index.js, which the
                     project's window shows once the package is installed.`;

/** This Sync checkout, whose `deno.json` holds the tasks. */
const CHECKOUT = fileURLToPath(new URL("../../..", import.meta.url)).replace(/\/$/, "");

const BUILD_OPTIONS = {} as const;

const BUILD_SUMMARY: readonly CommandSummary[] = [{
  synopsis: "build [dir]",
  about: "Compile a package's src/service.ts and src/index.tsx.",
}];

/** `sync build [dir]` (`deno task build`). */
export const buildCommand: Command = {
  name: "build",
  summary: BUILD_SUMMARY,
  usage: USAGE,
  options: BUILD_OPTIONS,
  run: runBuild,
};

async function runBuild({ args, io, cwd }: CommandContext<typeof BUILD_OPTIONS>): Promise<number> {
  const dir = resolve(cwd, args[0] ?? ".");
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

const NEW_OPTIONS = { name: { type: "string" }, screen: { type: "boolean" } } as const;

const NEW_SUMMARY: readonly CommandSummary[] = [{
  synopsis: "new <id> [dir]",
  about: "Create a package folder that passes check.",
}];

/** `sync new <id> [dir] [--name <name>] [--screen]` (`deno task new`). */
export const newCommand: Command = {
  name: "new",
  summary: NEW_SUMMARY,
  usage: USAGE,
  options: NEW_OPTIONS,
  run: runNew,
};

async function runNew(
  { args, flags, io, cwd }: CommandContext<typeof NEW_OPTIONS>,
): Promise<number> {
  const id = args[0];
  if (!id) {
    return refuseUsage("new", USAGE, "needs a package id, and optionally a folder", io);
  }
  const dir = resolve(cwd, args[1] ?? id);
  const created = await scaffoldPackage(id, dir, { name: flags.name, screen: flags.screen });
  io.out(`Created ${created.id} in ${created.dir}:`);
  for (const file of created.files) io.out(`  ${file}`);
  io.out("");
  // The tasks are this checkout's; --cwd runs them from wherever the author is.
  const task = `deno task --cwd ${CHECKOUT}`;
  io.out("Next:");
  io.out(
    `  1. Edit ${created.dir}/src/service.ts (and manifest.json for new handlers)` +
      (flags.screen ? ` and src/index.tsx, the screen.` : "."),
  );
  io.out(`  2. Check it:    ${task} check ${created.dir}`);
  io.out(
    `  3. Install it:  ${task} sync install ${created.dir} --project <project folder> --approve`,
  );
  io.out(
    `  4. Call it:     ${task} sync call ${created.id} ${created.handler} --project <project folder>`,
  );
  if (flags.screen) {
    io.out(`  5. See it:      open the project in the app (${task} serve); the navigator lists it`);
  }
  return 0;
}
