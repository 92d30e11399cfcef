/**
 * Test helpers for the CLI and install tests: the `sync` command run as a
 * subprocess, and package archives built in memory.
 *
 * @module
 */
import { tarGz, type TarSpec } from "./archive_fixtures.ts";

/** The repository root: the CLI runs from here. */
export const REPO_ROOT = new URL("../..", import.meta.url);

/** What one run of the CLI left. */
export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** `deno` arguments that run `main.ts` with the permissions `deno task sync` gives it. */
export const SYNC_RUN_ARGS: readonly string[] = [
  "run",
  "--unstable-kv",
  "--unstable-worker-options",
  "--unstable-no-legacy-abort",
  "--allow-read",
  "--allow-write",
  "--allow-net",
  "--allow-env",
  "--allow-run",
  "main.ts",
];

/**
 * `deno` arguments that run `main.ts` with the permissions `deno task serve`
 * gives it.
 */
export const SERVE_RUN_ARGS: readonly string[] = [
  "run",
  "--unstable-kv",
  "--unstable-worker-options",
  "--unstable-no-legacy-abort",
  "--allow-read",
  "--allow-write",
  "--allow-net",
  "--allow-env",
  "--allow-run",
  "main.ts",
];

/** Options for {@linkcode runSync}. */
export interface RunSyncOptions {
  /** The folder the person typed the command in (`INIT_CWD`, as `deno task` passes it). */
  startFolder?: string;
  /** More environment variables for the run (e.g. `HOME`). */
  env?: Record<string, string>;
}

/**
 * Runs `main.ts <args>` as a person would, with its own Deno, in the
 * installation `home`.
 */
export async function runSync(
  home: string,
  args: string[],
  options: RunSyncOptions = {},
): Promise<CliResult> {
  const command = new Deno.Command(Deno.execPath(), {
    args: [...SYNC_RUN_ARGS, ...args],
    cwd: REPO_ROOT,
    env: {
      SYNC_HOME: home,
      NO_COLOR: "1",
      ...(options.startFolder ? { INIT_CWD: options.startFolder } : {}),
      ...options.env,
    },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  });
  const { code, stdout, stderr } = await command.output();
  const decoder = new TextDecoder();
  return { code, stdout: decoder.decode(stdout), stderr: decoder.decode(stderr) };
}

/** A package to pack into an archive. */
export interface ArchiveSpec {
  id: string;
  version: string;
  permissions: string[];
  handlers: string[];
  /** The service module's source (plain ES module JavaScript). */
  service: string;
  /** More entries, e.g. hostile ones. */
  extra?: TarSpec[];
  /** More manifest fields, merged over the rest. */
  manifest?: Record<string, unknown>;
}

/** A `.tgz` of a package: `manifest.json` and `service/index.js` under `package/`. */
export function packageArchive(spec: ArchiveSpec): Uint8Array {
  const manifest = {
    id: spec.id,
    name: spec.id[0].toUpperCase() + spec.id.slice(1),
    version: spec.version,
    description: `The ${spec.id} test package, from an archive`,
    permissions: spec.permissions,
    service: "service/index.js",
    handlers: Object.fromEntries(spec.handlers.map((h) => [h, { description: `Does ${h}` }])),
    ...spec.manifest,
  };
  return tarGz([
    { name: "package/", type: "5" },
    { name: "package/manifest.json", data: JSON.stringify(manifest, null, 2) },
    { name: "package/service/", type: "5" },
    { name: "package/service/index.js", data: spec.service },
    ...(spec.extra ?? []),
  ]);
}

/** The digest the store names an archive by: the first 16 hex digits of its SHA-256. */
export async function archiveDigest(bytes: Uint8Array): Promise<string> {
  const hash = new Uint8Array(await crypto.subtle.digest("SHA-256", new Uint8Array(bytes)));
  return Array.from(hash.slice(0, 8), (b) => b.toString(16).padStart(2, "0")).join("");
}

/** True when `path` exists. */
export { pathExists as exists } from "../../runtime/internal/path_exists.ts";
