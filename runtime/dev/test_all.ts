/**
 * `deno task test`: runs the tests in two halves — those with no browser,
 * with the permissions a person's `serve` has, then the browser tests in
 * `tests/browser/`, which drive a real Chromium and need every permission —
 * and runs the second half even when the first fails. Each half's output
 * goes through as it comes; at the end both summaries are said again, and
 * the exit code is 0 only when both passed.
 *
 * The summaries said at the end start with the half's name, never with
 * `ok |` or `FAILED |`: a reader that counts `deno test`'s own summary lines
 * (`.ci/run`) counts each half once.
 *
 * Both halves run with `TMPDIR` set to a folder of their own, removed at the
 * end, so a run leaves nothing in the system's temporary folder even when a
 * test is killed before it cleans up; what a test left there is named in
 * the closing lines, for it to be fixed. Kept on purpose: the browser tests'
 * screenshots (`SYNC_SCREENSHOTS`, by default `sync-browser-screenshots/` in
 * the system's temporary folder) and `sync-browser-measurements.json`,
 * moved there.
 *
 * @module
 */
import { join } from "node:path";

/** One half of the suite: its name and the `deno test` arguments that run it. */
export interface TestHalf {
  /** What the half is called in the closing summary. */
  name: string;
  /** The arguments after `deno`. */
  args: string[];
}

/** How one half ended. */
export interface HalfResult {
  /** The half's name. */
  name: string;
  /** `deno test`'s exit code. */
  code: number;
  /** `deno test`'s own summary line (`ok | 389 passed … | 0 failed (…)`); null when it printed none. */
  summary: string | null;
}

const TEST_FLAGS = ["test", "--unstable-kv", "--unstable-worker-options"];

/** The two halves, in the order they run. */
export const TEST_HALVES: readonly TestHalf[] = [
  {
    name: "Tests without a browser",
    args: [
      ...TEST_FLAGS,
      "--allow-read",
      "--allow-write",
      "--allow-net=127.0.0.1,localhost",
      "--allow-env",
      "--allow-run",
      "--ignore=tests/browser/",
      "tests/",
    ],
  },
  { name: "Browser tests", args: [...TEST_FLAGS, "-A", "tests/browser/"] },
];

/** `deno test`'s summary line, colours taken off. */
const SUMMARY = /^(ok|FAILED) \| \d+ passed/;

// deno-lint-ignore no-control-regex
const COLOUR = /\u001b\[[0-9;]*m/g;

/** Options for {@linkcode runHalves}. */
export interface RunHalvesOptions {
  /** Pass each half's output through to this process's stdout and stderr; true by default. */
  echo?: boolean;
  /** The folder `deno test` runs in; this process's own by default. */
  cwd?: string;
  /** More environment variables for `deno test`, over this process's own. */
  env?: Record<string, string>;
  /** Stops the run: the running `deno test` is killed and no further half starts. */
  signal?: AbortSignal;
}

/**
 * Runs every half, one after the other, each whatever the one before it did.
 *
 * @param halves The halves, in order.
 * @param options Whether their output goes through, and where they run.
 * @returns How each ended, in order.
 */
export async function runHalves(
  halves: readonly TestHalf[],
  options: RunHalvesOptions = {},
): Promise<HalfResult[]> {
  const results: HalfResult[] = [];
  for (const half of halves) {
    if (options.signal?.aborted) break;
    results.push(await runHalf(half, options));
  }
  return results;
}

/** Runs one half, its output passed through as it comes, keeping its summary line. */
async function runHalf(half: TestHalf, options: RunHalvesOptions): Promise<HalfResult> {
  const echo = options.echo ?? true;
  const child = new Deno.Command(Deno.execPath(), {
    args: half.args,
    cwd: options.cwd,
    env: options.env,
    stdin: "null",
    stdout: "piped",
    stderr: echo ? "inherit" : "null",
  }).spawn();
  const stop = () => child.kill("SIGTERM");
  options.signal?.addEventListener("abort", stop, { once: true });
  let summary: string | null = null;
  let rest = "";
  const decoder = new TextDecoder();
  const writer = echo ? Deno.stdout.writable.getWriter() : null;
  try {
    for await (const chunk of child.stdout) {
      await writer?.write(chunk);
      const lines = (rest + decoder.decode(chunk, { stream: true })).split("\n");
      rest = lines.pop() ?? "";
      for (const line of lines) {
        const plain = line.replace(COLOUR, "").trim();
        if (SUMMARY.test(plain)) summary = plain;
      }
    }
    const last = rest.replace(COLOUR, "").trim();
    if (SUMMARY.test(last)) summary = last;
  } finally {
    writer?.releaseLock();
    options.signal?.removeEventListener("abort", stop);
  }
  const { code } = await child.status;
  return { name: half.name, code, summary };
}

/**
 * The closing lines: each half's summary, or that it printed none.
 *
 * @param results How each half ended.
 */
export function closingLines(results: readonly HalfResult[]): string[] {
  return results.map(({ name, code, summary }) =>
    summary
      ? `${name}: ${summary}`
      : `${name}: ended with exit code ${code} before deno test printed its summary`
  );
}

/** What the tests left in the temporary folder they were given and that is kept on purpose. */
export const KEPT_FILES: readonly string[] = ["sync-browser-measurements.json"];

/**
 * What `@sparticuz/chromium` unpacks into the temporary folder the first
 * time a browser test starts Chromium, for the later ones to reuse: the
 * browser's, not a test's, and removed with the folder without a word.
 */
export const UNPACKED_BROWSER =
  /^(chromium|fonts|locales|lib\w+\.so(\.\d+)*|vk_swiftshader_icd\.json)$/;

/** Options for {@linkcode runSuite}. */
export interface RunSuiteOptions extends RunHalvesOptions {
  /** The system's temporary folder, where kept files go; `TMPDIR`, else `/tmp`, by default. */
  systemTemp?: string;
}

/** How a whole run ended. */
export interface SuiteResult {
  /** How each half ended, in order. */
  results: HalfResult[];
  /** What the tests left in their temporary folder, kept files and the unpacked browser aside; removed with it. */
  leftBehind: string[];
}

/**
 * Runs the halves with a temporary folder of their own (`TMPDIR`), moves
 * the {@linkcode KEPT_FILES} out of it into the system's, notes what else
 * is left, and removes it.
 *
 * @param halves The halves, in order.
 * @param options As for {@linkcode runHalves}, and where the system's temporary folder is.
 * @returns How each half ended and what the tests left behind.
 */
export async function runSuite(
  halves: readonly TestHalf[],
  options: RunSuiteOptions = {},
): Promise<SuiteResult> {
  const systemTemp = options.systemTemp ?? Deno.env.get("TMPDIR") ?? "/tmp";
  const scratch = await Deno.makeTempDir({ dir: systemTemp, prefix: "sync-test-run-" });
  try {
    const results = await runHalves(halves, {
      ...options,
      env: {
        SYNC_SCREENSHOTS: Deno.env.get("SYNC_SCREENSHOTS") ??
          join(systemTemp, "sync-browser-screenshots"),
        ...options.env,
        TMPDIR: scratch,
      },
    });
    const leftBehind: string[] = [];
    for await (const entry of Deno.readDir(scratch)) {
      if (KEPT_FILES.includes(entry.name)) {
        await Deno.rename(join(scratch, entry.name), join(systemTemp, entry.name));
      } else if (!UNPACKED_BROWSER.test(entry.name)) leftBehind.push(entry.name);
    }
    return { results, leftBehind: leftBehind.sort() };
  } finally {
    await Deno.remove(scratch, { recursive: true }).catch(
      () => {/* a test's process still writes */},
    );
  }
}

/** What `deno task test --help` prints. */
export const USAGE = `deno task test: runs every test of Sync, in two halves, one after the other:
  1. the tests without a browser (tests/, but tests/browser/), with the permissions serve has;
  2. the browser tests (tests/browser/), which drive a real Chromium, with every permission.
The second half runs even when the first fails; at the end both summaries are said again, and
the exit code is 0 only when both passed. The whole run takes about 12 minutes on 2 cores.

Each half runs with TMPDIR set to a folder of its own (sync-test-run-* in the temporary folder),
removed at the end, also when the run is stopped with Ctrl+C or SIGTERM.

It takes no arguments but --help. To run some tests only, run deno test on them, e.g.:
  deno test --unstable-kv --unstable-worker-options --allow-read --allow-write \\
    --allow-net=127.0.0.1,localhost --allow-env --allow-run tests/host/call_test.ts`;

if (import.meta.main) {
  if (Deno.args.includes("--help") || Deno.args.includes("-h")) {
    console.log(USAGE);
    Deno.exit(0);
  }
  if (Deno.args.length > 0) {
    console.error(`deno task test takes no arguments but --help, not: ${Deno.args.join(" ")}\n`);
    console.error(USAGE);
    Deno.exit(2);
  }
  const stopped = new AbortController();
  const stop: { by: "SIGINT" | "SIGTERM" | null } = { by: null };
  for (const name of ["SIGINT", "SIGTERM"] as const) {
    Deno.addSignalListener(name, () => {
      stop.by = name;
      stopped.abort();
    });
  }
  const { results, leftBehind } = await runSuite(TEST_HALVES, { signal: stopped.signal });
  if (stop.by) {
    console.error(`\ndeno task test: stopped by ${stop.by}; its temporary folder is removed`);
    Deno.exit(stop.by === "SIGINT" ? 130 : 143);
  }
  const left = leftBehind.length
    ? [
      `Left in the temporary folder by tests (removed now; each should remove its own): ${
        leftBehind.join(", ")
      }`,
    ]
    : [];
  console.log(["", ...closingLines(results), ...left].join("\n"));
  Deno.exit(results.every((result) => result.code === 0) ? 0 : 1);
}
