/**
 * Handler call costs against the floor they cannot go below: one message to a
 * permissionless worker and one back. Every bench is in one group with that
 * round trip as the baseline, so `deno bench` prints each cost as a multiple
 * of it. See `docs/benchmarks.md`.
 *
 * @module
 */
import { join } from "node:path";
import { Host } from "../../runtime/host/host.ts";
import { installPackage } from "../../runtime/lifecycle/install.ts";
import { type IsolateCall, IsolatePool } from "../../runtime/isolate/pool.ts";
import { DEFAULT_LIMITS } from "../../runtime/limits.ts";
import { writeRecord } from "../../runtime/memory/write_record.ts";
import type { CallOptions } from "../../runtime/host/call.ts";

const GROUP = "handler call vs raw worker round trip";
const PACKAGE_ID = "bench";
const RECORDS = 50;

const MANIFEST = {
  id: PACKAGE_ID,
  name: "Bench",
  version: "1.0.0",
  description: "Handlers that do as little as possible, for timing the host around them.",
  permissions: ["background"],
  service: "service/index.js",
  handlers: {
    "bench.noop": { description: "Answers { ok: true }." },
    "bench.list": { description: "Lists three bench.item records." },
  },
};

const SERVICE = `import { memory } from "@sync/extension-api/service";

export default function register() {
  return {
    "bench.noop": () => ({ ok: true }),
    "bench.list": async () => {
      const { records } = await memory.list({ kind: "bench.item", limit: 3 });
      return { ok: true, count: records.length };
    },
  };
}
`;

const CALL: CallOptions = { occasion: { kind: "extension" }, source: { kind: "person" } };

/** Writes the bench package, a project, and an installation home under `root`. */
async function writeFixture(
  root: string,
): Promise<{ folder: string; project: string; home: string }> {
  const folder = join(root, "bench-package");
  const project = join(root, "project");
  const home = join(root, "home");
  await Deno.mkdir(join(folder, "service"), { recursive: true });
  await Deno.mkdir(project, { recursive: true });
  await Deno.mkdir(home, { recursive: true });
  await Deno.writeTextFile(join(folder, "manifest.json"), JSON.stringify(MANIFEST, null, 2));
  await Deno.writeTextFile(join(folder, "service", "index.js"), SERVICE);
  return { folder, project, home };
}

/** Sends one message to `worker` and waits for its echo. */
function roundTrip(worker: Worker, message: unknown): Promise<unknown> {
  return new Promise((resolve, reject) => {
    worker.onmessage = (event) => resolve(event.data);
    worker.onerror = (event) => {
      event.preventDefault();
      reject(new Error(event.message));
    };
    worker.postMessage(message);
  });
}

// Shared setup, done once before any bench runs.
const root = await Deno.makeTempDir({ prefix: "sync-bench-" });
const fixture = await writeFixture(root);
const kv = await Deno.openKv(":memory:");
// The rate limit would refuse a benchmark's thousands of calls a minute.
const host = new Host({
  kv,
  home: fixture.home,
  limits: { ...DEFAULT_LIMITS, rateLimit: 1e9 },
  log: () => {},
});
const installed = await installPackage(host, fixture.folder, fixture.project, { approve: true });
const project = installed.project;
const memory = await host.projectMemory(project);
for (let n = 0; n < RECORDS; n++) {
  await writeRecord(memory, { key: `bench.item/${n}`, title: `Item ${n}`, fields: { n } });
}

const echo = new Worker(new URL("./_echo_worker.ts", import.meta.url), {
  type: "module",
  deno: { permissions: "none" },
} as WorkerOptions);

const direct: IsolateCall = {
  source: SERVICE,
  sourceName: `${PACKAGE_ID}/service/index.js`,
  packageId: PACKAGE_ID,
  handler: "bench.noop",
  payload: null,
  occasion: CALL.occasion,
  limits: host.limits,
};
const noHostFunctions = { host: () => Promise.reject(new Error("no host functions here")) };

// Check every path once so that a broken setup fails here, not as a fast wrong number.
await host.pool.warm();
await roundTrip(echo, { ping: 1 });
for (const handler of ["bench.noop", "bench.list"]) {
  const { value, receipt } = await host.callHandler(project, PACKAGE_ID, handler, CALL);
  if (receipt.outcome !== "ok" || (value as { ok?: boolean }).ok !== true) {
    throw new Error(`${handler} answered ${JSON.stringify(value)}`);
  }
}
const listed = (await host.callHandler(project, PACKAGE_ID, "bench.list", CALL)).value;
if ((listed as { count: number }).count !== 3) {
  throw new Error(`bench.list: ${JSON.stringify(listed)}`);
}

/** Closes what the setup opened; runs when the bench module unloads. */
function cleanUp(): void {
  echo.terminate();
  host.pool.close();
  memory.close();
  kv.close();
  Deno.removeSync(root, { recursive: true });
}
globalThis.addEventListener("unload", cleanUp);

Deno.bench({
  name: "raw worker postMessage round trip",
  group: GROUP,
  baseline: true,
  async fn() {
    await roundTrip(echo, { ping: 1 });
  },
});

Deno.bench({
  name: "IsolatePool.call: trivial handler (no KV, no receipt)",
  group: GROUP,
  async fn() {
    await host.pool.call(direct, noHostFunctions);
  },
});

Deno.bench({
  name: "Host.callHandler: trivial handler",
  group: GROUP,
  async fn() {
    await host.callHandler(project, PACKAGE_ID, "bench.noop", CALL);
  },
});

Deno.bench({
  name: "Host.callHandler: one memory.list of 3 (50 records)",
  group: GROUP,
  async fn() {
    await host.callHandler(project, PACKAGE_ID, "bench.list", CALL);
  },
});

Deno.bench({
  name: "cold start: new IsolatePool + warm() + close()",
  group: GROUP,
  async fn() {
    const pool = new IsolatePool({ size: 1 });
    try {
      await pool.warm();
    } finally {
      pool.close();
    }
  },
});
