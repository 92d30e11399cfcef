/**
 * The author's commands: `build [dir]` compiles a package's sources and says
 * what it wrote; `new <id> [dir]` scaffolds a package that passes check.
 * Relative folders are taken from where the author ran `deno task`
 * (`INIT_CWD`), not from this repository.
 *
 * @module
 */
import { parseArgs } from "node:util";
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { BuildError, SyncError } from "../errors.ts";
import { exitCodeOf } from "../error_status.ts";
import { buildPackage } from "../author/build.ts";
import { scaffoldPackage } from "../author/scaffold.ts";

/** Where the author commands write. */
export interface AuthorIo {
  out: (line: string) => void;
  err: (line: string) => void;
}

/** Options for {@linkcode runAuthorCli}. */
export interface AuthorCliOptions {
  /** The folder relative paths start from; default `INIT_CWD`, else the current folder. */
  cwd?: string;
  io?: AuthorIo;
}

const USAGE = `Usage:
  build [dir]        Compile src/service.ts into the manifest's service file and
                     src/index.tsx into its ui file (dir defaults to the current folder).
  new <id> [dir]     Create a package folder (default ./<id>) with a manifest, a typed
                     handler, a record type, agent instructions and a deno.json.`;

/** This Sync checkout, whose `deno.json` holds the tasks. */
const CHECKOUT = fileURLToPath(new URL("../..", import.meta.url)).replace(/\/$/, "");

/** The commands this module answers, for `main.ts` to dispatch. */
export const AUTHOR_COMMANDS: readonly string[] = ["build", "new"];

/**
 * Runs `build` or `new` and returns the exit code: 0 done, 1 refused or
 * failed (the reason is on stderr), 2 bad usage.
 *
 * @param args The command and its arguments, such as `["build", "extensions/issues"]`.
 */
export async function runAuthorCli(
  args: string[],
  options: AuthorCliOptions = {},
): Promise<number> {
  const io = options.io ?? { out: (line) => console.log(line), err: (line) => console.error(line) };
  const cwd = options.cwd ?? startFolder();
  let parsed;
  try {
    parsed = parseArgs({
      args,
      allowPositionals: true,
      options: {
        name: { type: "string" },
        help: { type: "boolean", short: "h" },
      },
    });
  } catch (error) {
    io.err(`sync: ${(error as Error).message}\n\n${USAGE}`);
    return 2;
  }
  const [command, ...rest] = parsed.positionals;
  if (parsed.values.help) {
    io.out(USAGE);
    return 0;
  }
  try {
    switch (command) {
      case "build": {
        if (rest.length > 1) {
          io.err(`sync build: takes one package folder, got ${rest.length}\n\n${USAGE}`);
          return 2;
        }
        const dir = resolve(cwd, rest[0] ?? ".");
        const { outputs } = await buildPackage(dir);
        if (outputs.length === 0) {
          io.out(`Nothing to build in ${dir}: it has no src/service.ts or src/index.tsx`);
          return 0;
        }
        io.out(`Built ${dir}`);
        for (const output of outputs) {
          io.out(`  ${output.output}  ${formatBytes(output.bytes)}  (from ${output.source})`);
        }
        return 0;
      }
      case "new": {
        const id = rest[0];
        if (!id || rest.length > 2) {
          io.err(`sync new: needs a package id, and optionally a folder\n\n${USAGE}`);
          return 2;
        }
        const dir = resolve(cwd, rest[1] ?? id);
        const created = await scaffoldPackage(id, dir, { name: parsed.values.name });
        io.out(`Created ${created.id} in ${created.dir}:`);
        for (const file of created.files) io.out(`  ${file}`);
        io.out("");
        // The tasks are this checkout's; --cwd runs them from wherever the author is.
        const task = `deno task --cwd ${CHECKOUT}`;
        io.out("Next:");
        io.out(`  1. Edit ${created.dir}/src/service.ts (and manifest.json for new handlers).`);
        io.out(`  2. Check it:    ${task} check ${created.dir}`);
        io.out(
          `  3. Install it:  ${task} sync install ${created.dir} --project <project folder> --approve`,
        );
        io.out(
          `  4. Call it:     ${task} sync call ${created.id} ${created.handler} --project <project folder>`,
        );
        return 0;
      }
      default:
        io.err(`sync: unknown author command "${command ?? ""}"\n\n${USAGE}`);
        return 2;
    }
  } catch (error) {
    if (error instanceof BuildError) {
      const place = [error.file, error.line, error.column].filter((p) => p !== undefined)
        .join(":");
      io.err(place === "." ? `sync ${command}: ${error.message}` : `${place}  ${error.message}`);
      return 1;
    }
    if (error instanceof SyncError) {
      io.err(`sync ${command}: ${error.name}: ${error.message}`);
      return exitCodeOf(error);
    }
    io.err(`sync ${command}: unexpected failure: ${(error as Error)?.stack ?? error}`);
    return 1;
  }
}

/** Where the author ran `deno task` from: `deno task` runs in the repository and says so in `INIT_CWD`. */
function startFolder(): string {
  let initCwd: string | undefined;
  try {
    initCwd = Deno.env.get("INIT_CWD");
  } catch { /* no env permission: the current folder it is */ }
  return initCwd || Deno.cwd();
}

/** `812 B`, `2.1 KiB`, `1.4 MiB`. */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}
