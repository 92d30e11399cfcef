import assert from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import {
  bundleWorker,
  PARSER_WORKER_BUNDLE,
  PARSER_WORKER_ENTRY,
} from "../../runtime/dev/worker_bundle.ts";
import { PARSER_WORKER_URL } from "../../runtime/parsers/mod.ts";

Deno.test("`bundleWorker()` makes the parser worker workers/dist holds", async (t) => {
  const outDir = await Deno.makeTempDir({ prefix: "sync-test-" });
  try {
    const built = await bundleWorker({
      entry: PARSER_WORKER_ENTRY,
      out: join(outDir, "parser_worker.js"),
    });

    await t.step("the committed bundle is byte for byte what the sources make", async () => {
      const fresh = await Deno.readFile(built.path);
      const committed = await Deno.readFile(PARSER_WORKER_BUNDLE).catch(() => new Uint8Array());
      assert.ok(
        fresh.length === committed.length && fresh.every((byte, i) => byte === committed[i]),
        "workers/dist/parser_worker.js is stale: run deno task build:worker and commit " +
          `workers/dist (${committed.length} bytes committed, ${fresh.length} built)`,
      );
    });

    await t.step("it names its source in its first line", async () => {
      const text = await Deno.readTextFile(built.path);
      assert.ok(
        text.startsWith("// Built by `deno task build:worker` from workers/parser_worker.ts"),
      );
    });
  } finally {
    await Deno.remove(outDir, { recursive: true });
  }
});

Deno.test("`ParserPool` starts each worker from one module that imports nothing", async () => {
  assert.equal(fileURLToPath(PARSER_WORKER_URL), PARSER_WORKER_BUNDLE);
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json", PARSER_WORKER_URL.href],
    env: { NO_COLOR: "1" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.ok(output.success, new TextDecoder().decode(output.stderr));
  const info = JSON.parse(new TextDecoder().decode(output.stdout)) as {
    modules: { specifier: string }[];
  };
  assert.deepEqual(info.modules.map((module) => module.specifier), [PARSER_WORKER_URL.href]);
});
