/**
 * What a person approves of a package: the permissions its manifest
 * declares, and one entry for each program it declares under
 * `host.processes`, naming the program and its arguments. A program runs with
 * the person's full access, so approving `host.processes` once must not
 * approve every program a later version declares: an update that adds a
 * process, or changes one's program or arguments, asks for an entry that was
 * never approved, and so widens.
 *
 * @module
 */
import type { HostProcess, Manifest } from "./manifest.ts";

/** How an entry for a declared program begins: `process:<id> <command line>`. */
export const PROCESS_PERMISSION_PREFIX = "process:";

/** Words a shell takes as they are; any other word is quoted when shown. */
const PLAIN_WORD = /^[A-Za-z0-9_\-./=:@%+,~]+$/;

/**
 * A command line as a person would type it into a shell: each word quoted
 * when it holds anything but plain characters, so that two different
 * argument lists never read the same.
 *
 * @param program The program.
 * @param args Its arguments.
 * @example
 * ```ts
 * commandLine("sh", ["-c", "echo hi"]); // "sh -c 'echo hi'"
 * ```
 */
export function commandLine(program: string, args: readonly string[] = []): string {
  return [program, ...args].map(shellWord).join(" ");
}

function shellWord(word: string): string {
  if (PLAIN_WORD.test(word) && !word.startsWith("~")) return word;
  return `'${word.replaceAll("'", `'\\''`)}'`;
}

/**
 * The entry a person approves for one declared program:
 * `process:<id> <program and arguments>`.
 *
 * @param process A `host.processes` entry.
 * @example
 * ```ts
 * processPermission({ id: "lsp", program: "typescript-language-server", args: ["--stdio"] });
 * // "process:lsp typescript-language-server --stdio"
 * ```
 */
export function processPermission(process: HostProcess): string {
  return `${PROCESS_PERMISSION_PREFIX}${process.id} ${commandLine(process.program, process.args)}`;
}

/**
 * Everything a person approves for a manifest: its permissions, then one
 * {@linkcode processPermission} entry per declared program. Approvals record
 * this list, and an update widens when it asks for an entry not in it.
 *
 * @param manifest A validated manifest.
 */
export function approvablePermissions(manifest: Manifest): string[] {
  return [...manifest.permissions, ...(manifest.host?.processes ?? []).map(processPermission)];
}
