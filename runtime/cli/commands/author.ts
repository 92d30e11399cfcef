/**
 * The author's commands: `build [dir]` compiles a package's sources and says
 * what it wrote; `new <id> [dir]` scaffolds a package that passes check.
 * Relative folders are taken from where the author ran `deno task`
 * (the context's `cwd`), not from this repository.
 *
 * @module
 */
import type { Command, CommandSummary, CommandWords, PreparedCommand } from "../command.ts";
import { WordsError } from "../parse_words.ts";
import type { NewRequest } from "./run_new.ts";

/** What `build --help` and `new --help` print: the two commands together. */
const USAGE = `Usage:
  build [dir]        Compile src/service.ts into the manifest's service file and
                     src/index.tsx into its ui file (dir defaults to the current folder).
  new <id> [dir]     Create a package folder (default ./<id>) with a manifest, a typed
                     handler, a record type, agent instructions and a deno.json.
    --screen         Also a screen: src/index.tsx, built into ui/index.js, which the
                     project's window shows once the package is installed.`;

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
  prepare: prepareBuild,
};

function prepareBuild({ args }: CommandWords<typeof BUILD_OPTIONS>): PreparedCommand {
  const dir = args[0];
  return async (context) => (await import("./run_build.ts")).runBuild(dir, context);
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
  prepare: prepareNew,
};

function prepareNew({ args, flags }: CommandWords<typeof NEW_OPTIONS>): PreparedCommand {
  if (!args[0]) throw new WordsError("needs a package id, and optionally a folder");
  const request: NewRequest = {
    id: args[0],
    dir: args[1],
    name: flags.name,
    screen: flags.screen,
  };
  return async (context) => (await import("./run_new.ts")).runNew(request, context);
}
