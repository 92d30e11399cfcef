/**
 * Test helpers for the author commands: `main.ts build|new` run as a
 * subprocess the way `deno task` runs them, and package source folders
 * written into temp dirs.
 *
 * @module
 */
import { dirname, join } from "node:path";
import { REPO_ROOT } from "./cli.ts";
import { installPackage } from "../../runtime/lifecycle/install.ts";
import type { TestHost } from "./packages.ts";

/** What one run of an author command left. */
export interface AuthorRun {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs `main.ts <args>` with the flags of the `build` and `new` tasks, from
 * the repository, with `INIT_CWD` as the author's own folder.
 */
export async function runAuthor(args: string[], initCwd: string): Promise<AuthorRun> {
  const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--allow-read",
      "--allow-write",
      "--allow-env=INIT_CWD",
      "--allow-run",
      "main.ts",
      ...args,
    ],
    cwd: REPO_ROOT,
    env: { INIT_CWD: initCwd, NO_COLOR: "1" },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const decoder = new TextDecoder();
  return { code, stdout: decoder.decode(stdout), stderr: decoder.decode(stderr) };
}

/** Writes `files` (path → text) under a new folder in `root`; answers the folder. */
export async function writeFiles(
  root: string,
  name: string,
  files: Record<string, string>,
): Promise<string> {
  const dir = join(root, `${name}-${crypto.randomUUID().slice(0, 8)}`);
  for (const [file, text] of Object.entries(files)) {
    await Deno.mkdir(dirname(join(dir, file)), { recursive: true });
    await Deno.writeTextFile(join(dir, file), text);
  }
  return dir;
}

/** A manifest for a package with one service module and the given handlers. */
export function serviceManifest(
  id: string,
  handlers: string[],
  more: Record<string, unknown> = {},
): string {
  return JSON.stringify(
    {
      id,
      name: id[0].toUpperCase() + id.slice(1),
      version: "1.0.0",
      description: `The ${id} test package`,
      permissions: ["background"],
      service: "service/index.js",
      handlers: Object.fromEntries(handlers.map((h) => [h, { description: `Does ${h}` }])),
      ...more,
    },
    null,
    2,
  );
}

/** Installs a package folder into the test host's project, approved. */
export async function installFolder(env: TestHost, dir: string): Promise<void> {
  await installPackage(env.host, dir, env.project, { approve: true });
}

/** Calls a handler on the clock's occasion, as the clock would. */
export async function callOnClock(env: TestHost, id: string, handler: string): Promise<unknown> {
  const { value } = await env.host.callHandler(env.project, id, handler, {
    occasion: { kind: "clock" },
    source: { kind: "clock" },
    payload: null,
  });
  return value;
}
