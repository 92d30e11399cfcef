/**
 * `deno task build:worker`: bundles each worker with everything it imports
 * into one minified module under `workers/dist/`, which is committed and is
 * what its pool starts: the isolate worker (`workers/isolate_worker.ts`:
 * QuickJS's glue, the service shim, the protocol) into
 * `workers/dist/isolate_worker.js`, and the parser worker
 * (`workers/parser_worker.ts`: postal-mime, ical.js, the parsers' protocol)
 * into `workers/dist/parser_worker.js`.
 *
 * Why one module: a worker loads its module graph afresh each time it starts.
 * From the sources that is a dozen modules (TypeScript, npm packages, and two
 * modules QuickJS imports only once it is asked to load) resolved, read and
 * compiled in every new worker; from the bundle it is one file, which takes
 * a third or so of the CPU a worker's start costs beyond Deno's own off it.
 * `tests/isolate/worker_bundle_test.ts` and `tests/parsers/worker_bundle_test.ts`
 * bundle again and fail when a committed file differs from what the sources make.
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

/** The parser worker's source, its bundle's entry. */
export const PARSER_WORKER_ENTRY: string = fileURLToPath(
  new URL("../../workers/parser_worker.ts", import.meta.url),
);

/** Where the parser worker's committed bundle is. */
export const PARSER_WORKER_BUNDLE: string = fileURLToPath(
  new URL("../../workers/dist/parser_worker.js", import.meta.url),
);

/** Every worker bundled, with where its bundle goes. */
export const WORKER_BUNDLES: readonly { entry: string; out: string }[] = [
  { entry: WORKER_ENTRY, out: WORKER_BUNDLE },
  { entry: PARSER_WORKER_ENTRY, out: PARSER_WORKER_BUNDLE },
];

/** The bundle's first line: what it is and how it is made. */
function header(entry: string): string {
  const source = `workers/${entry.split("/").at(-1)}`;
  return `// Built by \`deno task build:worker\` from ${source}; do not edit.\n`;
}

/** Options for {@linkcode bundleWorker}. */
export interface BundleWorkerOptions {
  /** The worker's source; {@linkcode WORKER_ENTRY} (the isolate worker) unless given. */
  entry?: string;
  /** Where the bundle is written; {@linkcode WORKER_BUNDLE} unless given. */
  out?: string;
}

/**
 * Bundles a worker (the isolate worker unless `options.entry` names another)
 * for its pool to start.
 *
 * The browser builds of the npm packages are the ones bundled: QuickJS's
 * loader then never looks for Node's `process`, which Deno would otherwise
 * build on first use, and postal-mime uses the platform's `TextDecoder`.
 *
 * @param options Which worker, and where the bundle goes.
 * @returns The bundle's path and size in bytes.
 * @throws {Error} when `deno bundle` fails, with its output.
 */
export async function bundleWorker(
  options: BundleWorkerOptions = {},
): Promise<{ path: string; bytes: number }> {
  const entry = options.entry ?? WORKER_ENTRY;
  const out = options.out ?? WORKER_BUNDLE;
  await Deno.mkdir(dirname(out), { recursive: true });
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["bundle", "--quiet", "--platform", "browser", "--minify", "-o", out, entry],
    env: { NO_COLOR: "1" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (!output.success) {
    const said = new TextDecoder().decode(output.stderr) + new TextDecoder().decode(output.stdout);
    throw new Error(`Cannot bundle ${entry}: deno bundle failed:\n${said}`);
  }
  const text = header(entry) + await Deno.readTextFile(out);
  await Deno.writeTextFile(out, text);
  return { path: out, bytes: new TextEncoder().encode(text).length };
}

if (import.meta.main) {
  for (const { entry, out } of WORKER_BUNDLES) {
    const { path, bytes } = await bundleWorker({ entry, out });
    console.log(`Wrote ${path}: ${(bytes / 1024).toFixed(1)} KB`);
  }
}
