/**
 * Goal 3's counts: what one host call crosses to another thread — KV commits,
 * KV reads (and of which keys), messages to and from the isolate worker, and
 * the awaits that wait on another thread — counted with real parts: a KV that
 * counts its operations, the pool's own message counts, and Deno's
 * asynchronous file operations counted as they are called. The counts do not
 * depend on the machine. See `docs/benchmarks.md`.
 *
 * @module
 */
import { join } from "node:path";
import { Host } from "../../runtime/host/host.ts";
import type { CallOptions } from "../../runtime/host/call.ts";
import { DEFAULT_LIMITS } from "../../runtime/limits.ts";
import { installPackage } from "../../runtime/lifecycle/install.ts";
import { writeRecord } from "../../runtime/memory/write_record.ts";
import { openInstallation } from "../../runtime/projects/home.ts";
import { countingKv, countInPlace, type KvCount } from "../internal/counting_kv.ts";
import { writePackage } from "../internal/packages.ts";
import type { Goal } from "./goal_report.ts";

const CALL: CallOptions = { occasion: { kind: "extension" }, source: { kind: "person" } };

const TRIVIAL_SOURCE = `export default function register() {
  return { "cross.noop": () => ({ ok: true }) };
}
`;
const LIST_SOURCE = `import { memory } from "@sync/extension-api/service";
export default function register() {
  return {
    "crosslist.list": async () => {
      const { records } = await memory.list({ kind: "crosslist.item", limit: 3 });
      return { ok: true, count: records.length };
    },
  };
}
`;

/** What one call crossed. */
export interface CallCrossings {
  /** Commits to the installation KV. */
  commits: number;
  /** Reads of the installation KV. */
  reads: number;
  /** The installation keys read, one entry per read. */
  keysRead: string[];
  /** Commits to the project's memory KV. */
  memoryCommits: number;
  /** Reads of the project's memory KV. */
  memoryReads: number;
  /** The memory keys read, one entry per read. */
  memoryKeysRead: string[];
  /** Messages the pool sent to the worker. */
  sent: number;
  /** Messages the pool received from the worker. */
  received: number;
  /** Deno's asynchronous file operations the call awaited (each runs on another thread). */
  fileOps: number;
  /**
   * Awaits that wait on another thread: every KV operation (the KV runs on
   * its own thread), every message from the worker, every asynchronous file
   * operation.
   */
  awaits: number;
}

/** What {@linkcode countCrossings} counted. */
export interface CrossingCounts {
  /** The first call of the trivial handler, which reads what is not kept yet. */
  firstTrivial: CallCrossings;
  /** Each trivial call after the first, in turn. */
  trivial: CallCrossings[];
  /** Each call doing one `memory.list` of 3 after its first, in turn. */
  list: CallCrossings[];
}

/** Options for {@linkcode countCrossings}. */
export interface CountCrossingsOptions {
  /** The installation KV on disk, as `serve` opens it, rather than `:memory:`. */
  onDisk?: boolean;
  /**
   * Trivial calls counted after the first: more than the 25 that once passed
   * between two reads of a package's receipt count.
   */
  calls?: number;
  /** Calls doing a `memory.list` counted after the first. */
  listCalls?: number;
}

/** Deno's asynchronous file operations a call could await. */
const FILE_OPS = [
  "open",
  "readFile",
  "readTextFile",
  "writeFile",
  "writeTextFile",
  "lstat",
  "stat",
  "realPath",
  "readDir",
  "rename",
  "remove",
  "mkdir",
  "utime",
] as const;

/** Counts Deno's asynchronous file operations until the answer's `restore()`. */
function countFileOps(): { count: () => number; reset(): void; restore(): void } {
  let count = 0;
  const deno = Deno as unknown as Record<string, (...args: unknown[]) => unknown>;
  const originals = new Map(FILE_OPS.map((name) => [name, deno[name]]));
  for (const [name, original] of originals) {
    deno[name] = (...args: unknown[]) => {
      count++;
      return original(...args);
    };
  }
  return {
    count: () => count,
    reset: () => count = 0,
    restore() {
      for (const [name, original] of originals) deno[name] = original;
    },
  };
}

/**
 * A file the host reads is kept while it stays the same once it has been
 * still for two seconds (`runtime/internal/file_memo.ts`); until then it is
 * read at every call. Waits until every file under `dir` has been still that long.
 */
async function settled(dir: string): Promise<void> {
  let newest = 0;
  const walk = async (at: string) => {
    for await (const entry of Deno.readDir(at)) {
      const path = join(at, entry.name);
      if (entry.isDirectory) await walk(path);
      else {
        const info = await Deno.lstat(path);
        newest = Math.max(newest, info.mtime?.getTime() ?? 0, info.ctime?.getTime() ?? 0);
      }
    }
  };
  await walk(dir);
  const wait = newest + 2_100 - Date.now();
  if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
}

/**
 * Counts what one trivial host call, and one doing a `memory.list` of 3,
 * crosses, with the real pool and a counting KV, after warm-up.
 *
 * @param options The installation KV on disk or in memory, and the warm-up.
 */
export async function countCrossings(
  options: CountCrossingsOptions = {},
): Promise<CrossingCounts> {
  const root = await Deno.makeTempDir({ prefix: "sync-crossings-" });
  const home = join(root, "home");
  await Deno.mkdir(home, { recursive: true });
  const projectDir = join(root, "project");
  await Deno.mkdir(projectDir);
  const raw = options.onDisk ? await openInstallation(home) : await Deno.openKv(":memory:");
  const counting = countingKv(raw);
  const host = new Host({
    kv: counting.kv,
    home,
    limits: { ...DEFAULT_LIMITS, rateLimit: 1e9 },
    log: () => {},
    // A call that runs past this claims its handler (two more commits): no
    // call here runs so long, however loaded the machine, so none is counted so.
    claimAfterMs: 10_000,
  });
  try {
    const trivialDir = await writePackage(join(root, "packages"), {
      id: "cross",
      handlers: ["cross.noop"],
      service: TRIVIAL_SOURCE,
    });
    const listDir = await writePackage(join(root, "packages"), {
      id: "crosslist",
      handlers: ["crosslist.list"],
      service: LIST_SOURCE,
    });
    let project = "";
    for (const dir of [trivialDir, listDir]) {
      project = (await installPackage(host, dir, projectDir, { approve: true })).project;
    }
    const memory = await host.projectMemory(project);
    for (let n = 0; n < 50; n++) {
      await writeRecord(memory, { key: `crosslist.item/${n}`, title: `Item ${n}`, fields: { n } });
    }
    await host.pool.warm();
    await settled(root);

    const inMemory = countInPlace(memory);
    const files = countFileOps();
    try {
      const counted = async (handler: string): Promise<CallCrossings> => {
        const id = handler.slice(0, handler.indexOf("."));
        counting.reset();
        inMemory.reset();
        files.reset();
        const before = host.pool.messages;
        const result = await host.callHandler(project, id, handler, CALL);
        if ((result.value as { ok?: unknown } | null)?.ok !== true) {
          throw new Error(`${handler} answered ${JSON.stringify(result.value)}`);
        }
        const after = host.pool.messages;
        return crossings(counting.count, inMemory.count, {
          sent: after.sent - before.sent,
          received: after.received - before.received,
          fileOps: files.count(),
        });
      };
      const firstTrivial = await counted("cross.noop");
      const trivial: CallCrossings[] = [];
      for (let i = 0; i < (options.calls ?? 30); i++) trivial.push(await counted("cross.noop"));
      // Its first two calls teach the host the read it begins with (`learnt_reads.ts`).
      await host.callHandler(project, "crosslist", "crosslist.list", CALL);
      await host.callHandler(project, "crosslist", "crosslist.list", CALL);
      const list: CallCrossings[] = [];
      for (let i = 0; i < (options.listCalls ?? 5); i++) {
        list.push(await counted("crosslist.list"));
      }
      return { firstTrivial, trivial, list };
    } finally {
      files.restore();
      inMemory.restore();
    }
  } finally {
    await host.close();
    raw.close();
    await Deno.remove(root, { recursive: true });
  }
}

function crossings(
  installation: KvCount,
  memory: KvCount,
  rest: { sent: number; received: number; fileOps: number },
): CallCrossings {
  return {
    commits: installation.commits,
    reads: installation.reads,
    keysRead: [...installation.keysRead],
    memoryCommits: memory.commits,
    memoryReads: memory.reads,
    memoryKeysRead: [...memory.keysRead],
    ...rest,
    awaits: installation.commits + installation.reads + memory.commits + memory.reads +
      rest.received + rest.fileOps,
  };
}

/**
 * The most each count reached over `calls`: what every one of them stayed
 * within. A run of calls that all crossed alike answers that one call's counts.
 */
export function mostOf(calls: CallCrossings[]): CallCrossings {
  const most = (pick: (c: CallCrossings) => number) => Math.max(...calls.map(pick));
  const keys = (pick: (c: CallCrossings) => string[]) => [...new Set(calls.flatMap(pick))];
  return {
    commits: most((c) => c.commits),
    reads: most((c) => c.reads),
    keysRead: keys((c) => c.keysRead),
    memoryCommits: most((c) => c.memoryCommits),
    memoryReads: most((c) => c.memoryReads),
    memoryKeysRead: keys((c) => c.memoryKeysRead),
    sent: most((c) => c.sent),
    received: most((c) => c.received),
    fileOps: most((c) => c.fileOps),
    awaits: most((c) => c.awaits),
  };
}

/** The line printed for one call's counts (or the most of a run's, {@linkcode mostOf}). */
export function crossingLine(name: string, c: CallCrossings): string {
  const kv = `KV commits ${c.commits + c.memoryCommits}, KV reads ${c.reads + c.memoryReads}`;
  const keys = [...c.keysRead, ...c.memoryKeysRead].map(shortKey);
  return `${name}: ${kv}, worker messages ${c.sent + c.received}, ` +
    `thread-changing awaits ${c.awaits}` + (keys.length ? ` (read: ${keys.join("; ")})` : "");
}

/** A key read, without the temp folder's path that names the project in it. */
function shortKey(key: string): string {
  return key.replace(/\/[^ ;]*\/project\b/g, "/<project>");
}

/** What {@linkcode measureCrossings} measured. */
export interface CrossingResult {
  /** Goals 3a, 3b and 3c. */
  goals: Goal[];
  /** The count lines, one per call, as printed. */
  lines: string[];
}

/**
 * Counts the crossings of trivial host calls and of calls doing one
 * `memory.list` of 3, with the installation KV on disk, and forms goals 3a–3c
 * from the most any trivial call after the first made.
 */
export async function measureCrossings(): Promise<CrossingResult> {
  const counts = await countCrossings({ onDisk: true });
  const trivial = mostOf(counts.trivial);
  const list = mostOf(counts.list);
  const lines = [
    crossingLine("Host.callHandler trivial, first call", counts.firstTrivial),
    crossingLine(`Host.callHandler trivial, each of the next ${counts.trivial.length}`, trivial),
    crossingLine(`Host.callHandler one memory.list of 3, each of ${counts.list.length}`, list),
  ];
  const goals: Goal[] = [
    {
      name: "3a. KV commits per trivial host call",
      formula: "atomic commits counted by a KV wrapper around the installation KV (and the " +
        "project memory), the most any call after the first made",
      measured: trivial.commits + trivial.memoryCommits,
      limit: 1,
      direction: "at most",
      unit: "count",
    },
    {
      name: "3b. KV reads per trivial host call of anything unchanged since the last call",
      formula: "get, getMany and list counted by the same wrappers, the most any call after " +
        "the first made (nothing a trivial call reads has changed since the last)",
      measured: trivial.reads + trivial.memoryReads,
      limit: 0,
      direction: "at most",
      unit: "count",
    },
    {
      name: "3c. worker round trips per trivial host call",
      formula: "messages the pool sent to the worker and received from it for one call, " +
        "the more of the two, the most any call made",
      measured: Math.max(trivial.sent, trivial.received),
      limit: 1,
      direction: "at most",
      unit: "count",
    },
  ];
  return { goals, lines };
}
