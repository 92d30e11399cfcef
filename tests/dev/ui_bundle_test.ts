import assert from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { bundleUi } from "../../runtime/dev/ui_bundle.ts";

const DIST = fileURLToPath(new URL("../../ui/dist/", import.meta.url));
const STALE = "ui/dist is stale: run deno task build:ui and commit ui/dist";

Deno.test("`bundleUi()` makes what ui/dist holds", async (t) => {
  const outDir = await Deno.makeTempDir({ prefix: "sync-ui-bundle-" });
  try {
    const result = await bundleUi({ outDir });

    for (const name of ["app.js", "app.css", "screen.js", "screen.css"]) {
      await t.step(
        `the committed ui/dist/${name} is byte for byte what the sources make`,
        async () => {
          const fresh = await Deno.readFile(join(outDir, name));
          const committed = await Deno.readFile(join(DIST, name)).catch(() => new Uint8Array());
          assert.ok(
            fresh.length === committed.length && fresh.every((byte, i) => byte === committed[i]),
            `${STALE} (ui/dist/${name}: ${committed.length} bytes committed, ${fresh.length} built)`,
          );
        },
      );
    }

    await t.step("it says what it wrote and how large it is, plain and gzipped", async () => {
      assert.equal(result.script.path, join(outDir, "app.js"));
      assert.equal(result.styles.path, join(outDir, "app.css"));
      assert.equal(result.script.bytes, (await Deno.stat(result.script.path)).size);
      assert.ok(result.script.gzipBytes > 0 && result.script.gzipBytes < result.script.bytes);
      assert.ok(result.styles.gzipBytes > 0 && result.styles.gzipBytes < result.styles.bytes);
    });
  } finally {
    await Deno.remove(outDir, { recursive: true });
  }
});
