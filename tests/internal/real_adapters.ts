/**
 * The real ACP adapters the presets run, for the tests that run them:
 * installed with npm, once, into a cache folder outside the checkout
 * (`~/.cache/sync-test-adapters/<hash of the versions>`), and reused by every
 * later run; npm's own cache (`~/.npm`) is reused for the download.
 *
 * The presets' commands stay as they are (`npx -y --prefer-offline
 * <package>@<version>`): the agents' environment makes npx find the pinned
 * version in the cache folder (`npm_config_prefix`, where npx looks for a
 * global install), and `--prefer-offline` makes it read the version's
 * metadata from npm's cache, so a run needs no registry once the cache is
 * filled. `.ci/run` fills it first:
 * `deno run -A --unstable-kv tests/internal/real_adapters.ts`.
 *
 * @module
 */
import { join } from "node:path";
import { listAgents } from "../../runtime/agents/mod.ts";

/** The `npx` presets' packages, pinned, as the presets name them. */
export async function presetPackages(): Promise<string[]> {
  const kv = await Deno.openKv(":memory:");
  try {
    const packages = (await listAgents(kv))
      .filter((agent) => agent.origin === "preset" && agent.command === "npx")
      .map((agent) => agent.args.find((arg) => !arg.startsWith("-")) ?? "");
    return packages.filter((p) => p !== "").sort();
  } finally {
    kv.close();
  }
}

/** The cache folder for these packages: a hash of them, so a new pin gets a new folder. */
export async function adapterCacheFolder(packages: readonly string[]): Promise<string> {
  const home = Deno.env.get("HOME");
  if (!home) throw new Error("The real-adapter tests need HOME, to keep the adapters in ~/.cache");
  const digest = await crypto.subtle.digest(
    "SHA-256",
    new TextEncoder().encode([...packages].sort().join("\n")),
  );
  const hash = [...new Uint8Array(digest)].slice(0, 8)
    .map((b) => b.toString(16).padStart(2, "0")).join("");
  return join(home, ".cache", "sync-test-adapters", hash);
}

/** npm's cache folder, as npm itself says (`npm config get cache`). */
export async function npmCache(): Promise<string> {
  const { stdout } = await npm(["config", "get", "cache"], {});
  return stdout.trim();
}

/**
 * Installs `packages` into their cache folder unless a run did already, and
 * puts their metadata in npm's cache for npx to read offline. Shows npm's
 * progress on stderr while it works.
 *
 * @param packages Such as `@zed-industries/codex-acp@0.16.0`.
 * @returns The folder: npx's global prefix for the agents (`npm_config_prefix`).
 * @throws {Error} saying what npm said when it cannot install them (no registry).
 */
export async function installAdapters(packages: readonly string[]): Promise<string> {
  const folder = await adapterCacheFolder(packages);
  const done = join(folder, "installed.json");
  if (await exists(done)) return folder;
  const partial = `${folder}.partial-${Deno.pid}`;
  console.error(
    `Installing the adapters the presets run (${packages.join(", ")}; about 400 MB) into ` +
      `${folder}, once; later runs reuse it.`,
  );
  try {
    await npm(
      [
        "install",
        "--global",
        "--prefix",
        partial,
        "--no-audit",
        "--no-fund",
        "--loglevel=http",
        ...packages,
      ],
      { progress: true },
    );
    // npx reads a package's metadata the way `npm cache add` stores it: offline, it finds it there.
    await npm(["cache", "add", ...packages], { progress: true });
    await Deno.writeTextFile(
      join(partial, "installed.json"),
      JSON.stringify({ packages, at: new Date().toISOString() }),
    );
    await Deno.remove(folder, { recursive: true }).catch(() => {});
    await Deno.rename(partial, folder);
  } catch (error) {
    await Deno.remove(partial, { recursive: true }).catch(() => {});
    // Another run may have finished first.
    if (await exists(done)) return folder;
    throw new Error(
      `The real-adapter tests could not install the adapters the presets run: ` +
        `${error instanceof Error ? error.message : String(error)}. They need the npm registry ` +
        `once (npm install ${
          packages.join(" ")
        }); run .ci/run or these tests where it is reachable`,
    );
  }
  console.error(`The adapters are in ${folder}.`);
  return folder;
}

async function npm(
  args: string[],
  options: { progress?: boolean },
): Promise<{ stdout: string }> {
  const child = new Deno.Command("npm", {
    args,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    env: { NO_COLOR: "1", npm_config_update_notifier: "false" },
  }).spawn();
  let tail = "";
  const stderr = child.stderr.pipeThrough(new TextDecoderStream()).pipeTo(
    new WritableStream({
      write(chunk) {
        if (options.progress) Deno.stderr.writeSync(new TextEncoder().encode(chunk));
        tail = (tail + chunk).slice(-2_000);
      },
    }),
  );
  const [output, status] = await Promise.all([
    new Response(child.stdout).text(),
    child.status,
    stderr,
  ]).then(([out, st]) => [out, st] as const);
  if (!status.success) {
    throw new Error(`npm ${args[0]} exited with code ${status.code}: ${tail.trim()}`);
  }
  return { stdout: output };
}

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.stat(path);
    return true;
  } catch {
    return false;
  }
}

if (import.meta.main) {
  const folder = await installAdapters(await presetPackages());
  console.log(folder);
}
