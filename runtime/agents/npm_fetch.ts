/**
 * An agent fetched by npm: a command that runs `npx` (or `npm exec`)
 * downloads the agent's package the first time, silently by default. Sync
 * asks npm to say what it fetches — `npm_config_loglevel=http`, npm's own
 * setting for its log level, makes it write one line on stderr per request:
 *
 * ```text
 * npm http fetch GET 200 https://registry.npmjs.org/semver 72ms (cache miss)
 * npm http fetch GET 200 https://registry.npmjs.org/semver/-/semver-7.6.3.tgz 49ms (cache miss)
 * ```
 *
 * — and reads those lines to tell a person that the agent is being
 * downloaded. A request npm answers from its cache (`cache hit`,
 * `cache revalidated`, `cache updated`: it checked for a newer version) is
 * a sign of life, not a download.
 *
 * @module
 */
import { basename } from "node:path";
import type { AgentCommand } from "./spawn_agent.ts";

/** A command that has npm fetch and run a package. */
export interface NpmRunner {
  /** How it is run: `npx`, or `npm exec`. */
  tool: "npx" | "npm";
  /** The package it runs, without its version (`@zed-industries/codex-acp`), or null when the command does not say. */
  package: string | null;
}

/** What one line of npm's log says. */
export interface NpmFetchLine {
  /** True when npm fetched it over the network, not from its cache: a download. */
  download: boolean;
}

/** npm's options that take a value in the next argument (`-p pkg`, `-c cmd`, `-w folder`). */
const VALUE_OPTIONS = new Set(["-p", "--package", "-c", "--call", "-w", "--workspace"]);

/** `npm http fetch GET 200 <url> 72ms (cache miss)`, as npm 7 to 11 write it. */
const FETCH_LINE = /^npm http fetch [A-Z]+ \d{3} \S+.*\(cache ([a-z]+)\)\s*$/;

/**
 * Whether the command has npm fetch and run a package, and which.
 *
 * @param command The agent's command.
 * @returns How it is run and what, or null when it is not `npx` or `npm exec`.
 */
export function npmRunner(command: AgentCommand): NpmRunner | null {
  const program = basename(command.command).replace(/\.(cmd|exe)$/i, "");
  let args = [...command.args];
  let tool: NpmRunner["tool"];
  if (program === "npx") {
    tool = "npx";
  } else if (program === "npm" && (args[0] === "exec" || args[0] === "x")) {
    tool = "npm";
    args = args.slice(1);
  } else {
    return null;
  }
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === "--") return { tool, package: packageName(args[i + 1]) };
    if (arg.startsWith("--package=")) return { tool, package: packageName(arg.slice(10)) };
    if (arg === "-p" || arg === "--package") return { tool, package: packageName(args[i + 1]) };
    if (VALUE_OPTIONS.has(arg)) {
      i++;
      continue;
    }
    if (arg.startsWith("-")) continue;
    return { tool, package: packageName(arg) };
  }
  return { tool, package: null };
}

/**
 * The command with npm asked to log its requests (`npm_config_loglevel=http`),
 * unless the agent's definition sets npm's log level itself.
 *
 * @param command The agent's command, which runs `npx` or `npm exec`.
 */
export function withFetchLog(command: AgentCommand): AgentCommand {
  const env = command.env ?? {};
  if (Object.keys(env).some((name) => name.toLowerCase() === "npm_config_loglevel")) {
    return command;
  }
  if (command.args.some((arg) => arg === "--loglevel" || arg.startsWith("--loglevel="))) {
    return command;
  }
  return { ...command, env: { ...env, npm_config_loglevel: "http" } };
}

/**
 * Reads one line of stderr as npm's log of a request.
 *
 * @param line One line, without its end.
 * @returns What it says, or null when it is not npm's line of a request.
 */
export function npmFetchLine(line: string): NpmFetchLine | null {
  const match = FETCH_LINE.exec(line.trim());
  if (match === null) return null;
  return { download: match[1] === "miss" };
}

/** A package's name from what npm is given (`name@1.2.3`, `@scope/name@^1`), without its version. */
function packageName(spec: string | undefined): string | null {
  if (spec === undefined || spec === "") return null;
  const at = spec.indexOf("@", 1);
  return at > 0 && !spec.includes(":") ? spec.slice(0, at) : spec;
}
