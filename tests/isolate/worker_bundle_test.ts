import assert from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { bundleWorker, WORKER_BUNDLE } from "../../runtime/dev/worker_bundle.ts";
import { ISOLATE_WORKER_URL } from "../../runtime/isolate/pool.ts";

const STALE =
  "workers/dist/isolate_worker.js is stale: run deno task build:worker and commit workers/dist";

Deno.test("`bundleWorker()` makes what workers/dist holds", async (t) => {
  const outDir = await Deno.makeTempDir({ prefix: "sync-worker-bundle-test-" });
  try {
    const built = await bundleWorker({ out: join(outDir, "isolate_worker.js") });

    await t.step("the committed bundle is byte for byte what the sources make", async () => {
      const fresh = await Deno.readFile(built.path);
      const committed = await Deno.readFile(WORKER_BUNDLE).catch(() => new Uint8Array());
      assert.ok(
        fresh.length === committed.length && fresh.every((byte, i) => byte === committed[i]),
        `${STALE} (${committed.length} bytes committed, ${fresh.length} built)`,
      );
      assert.equal(built.bytes, fresh.length);
    });
  } finally {
    await Deno.remove(outDir, { recursive: true });
  }
});

Deno.test("`IsolatePool` starts each worker from one module", async (t) => {
  await t.step("the worker's module is the committed bundle", () => {
    assert.equal(fileURLToPath(ISOLATE_WORKER_URL), WORKER_BUNDLE);
  });

  await t.step("it imports nothing: a new worker loads and compiles one file", async () => {
    const output = await new Deno.Command(Deno.execPath(), {
      args: ["info", "--json", ISOLATE_WORKER_URL.href],
      env: { NO_COLOR: "1" },
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.ok(output.success, new TextDecoder().decode(output.stderr));
    const info = JSON.parse(new TextDecoder().decode(output.stdout)) as {
      modules: { specifier: string }[];
    };
    assert.deepEqual(info.modules.map((module) => module.specifier), [ISOLATE_WORKER_URL.href]);
  });
});
