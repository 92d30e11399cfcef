/**
 * `deno task build:worker`: bundles the isolate worker (`workers/isolate_worker.ts`
 * and everything it imports: QuickJS's glue, the service shim, the protocol)
 * into one minified module, `workers/dist/isolate_worker.js`, which is
 * committed and is what the isolate pool starts.
 *
 * Why one module: a worker loads its module graph afresh each time it starts.
 * From the sources that is a dozen modules (TypeScript, npm packages, and two
 * modules QuickJS imports only once it is asked to load) resolved, read and
 * compiled in every new worker; from the bundle it is one file, which takes
 * a third or so of the CPU a worker's start costs beyond Deno's own off it.
 * `tests/isolate/worker_bundle_test.ts` bundles again and fails when the
 * committed file differs from what the sources make.
 *
 * @module
 */
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";

/** The worker's source, the bundle's entry. */
export const WORKER_ENTRY: string = fileURLToPath(
  new URL("../../workers/isolate_worker.ts", import.meta.url),
);

/** Where the committed bundle is. */
export const WORKER_BUNDLE: string = fileURLToPath(
  new URL("../../workers/dist/isolate_worker.js", import.meta.url),
);

/** The bundle's first line: what it is and how it is made. */
const HEADER =
  "// Built by `deno task build:worker` from workers/isolate_worker.ts; do not edit.\n";

/** Options for {@linkcode bundleWorker}. */
export interface BundleWorkerOptions {
  /** Where the bundle is written; {@linkcode WORKER_BUNDLE} unless given. */
  out?: string;
}

/**
 * Bundles the isolate worker for the pool to start.
 *
 * The browser build of QuickJS's loader is the one bundled: it never looks
 * for Node's `process`, which Deno would otherwise build on first use.
 *
 * @param options Where the bundle goes.
 * @returns The bundle's path and size in bytes.
 * @throws {Error} when `deno bundle` fails, with its output.
 */
export async function bundleWorker(
  options: BundleWorkerOptions = {},
): Promise<{ path: string; bytes: number }> {
  const out = options.out ?? WORKER_BUNDLE;
  await Deno.mkdir(dirname(out), { recursive: true });
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["bundle", "--quiet", "--platform", "browser", "--minify", "-o", out, WORKER_ENTRY],
    env: { NO_COLOR: "1" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (!output.success) {
    const said = new TextDecoder().decode(output.stderr) + new TextDecoder().decode(output.stdout);
    throw new Error(`Cannot bundle ${WORKER_ENTRY}: deno bundle failed:\n${said}`);
  }
  const text = HEADER + await Deno.readTextFile(out);
  await Deno.writeTextFile(out, text);
  return { path: out, bytes: new TextEncoder().encode(text).length };
}

if (import.meta.main) {
  const { path, bytes } = await bundleWorker();
  console.log(`Wrote ${path}: ${(bytes / 1024).toFixed(1)} KB`);
}
