/**
 * The cost of checking a package as install does (`checkBuiltPackage`) as
 * its declared handlers grow: 64, 128 and 256 (the most a manifest may
 * declare), each once with a module that returns every handler and once with
 * one that returns none, so every handler is a problem placed at its line.
 * After the benches it prints each line's mean per handler, so growth with
 * the number of handlers shows. See `docs/benchmarks.md`.
 *
 * @module
 */
import { join } from "node:path";
import { checkBuiltPackage } from "../../runtime/author/check/check.ts";
import { IsolatePool } from "../../runtime/isolate/pool.ts";
import { MANIFEST_LIMITS } from "../../runtime/limits.ts";

const COUNTS = [64, 128, MANIFEST_LIMITS.maxHandlers];

/** Writes a built package declaring `count` handlers; `returned` says whether register() returns them. */
async function writeBigPackage(root: string, count: number, returned: boolean): Promise<string> {
  const dir = join(root, `big-${count}-${returned ? "all" : "none"}`);
  await Deno.mkdir(join(dir, "service"), { recursive: true });
  const names = Array.from({ length: count }, (_, i) => `big.h${i}`);
  const manifest = {
    id: "big",
    name: "Big",
    version: "1.0.0",
    description: "Declares many handlers",
    permissions: ["background"],
    service: "service/index.js",
    handlers: Object.fromEntries(names.map((h) => [h, { description: `Does ${h}` }])),
  };
  await Deno.writeTextFile(join(dir, "manifest.json"), JSON.stringify(manifest, null, 2));
  const entries = returned ? names.map((h) => `    ${JSON.stringify(h)}: () => 1,`) : [];
  await Deno.writeTextFile(
    join(dir, "service", "index.js"),
    `export default function register() {\n  return {\n${entries.join("\n")}\n  };\n}\n`,
  );
  return dir;
}

const root = await Deno.makeTempDir({ prefix: "sync-check-bench-" });
const pool = new IsolatePool({ size: 1 });
await pool.warm();
const means = new Map<string, { total: number; runs: number; count: number }>();

for (const returned of [true, false]) {
  for (const count of COUNTS) {
    const dir = await writeBigPackage(root, count, returned);
    const name = `${count} handlers, ${returned ? "all returned" : "none returned"}`;
    Deno.bench({
      name,
      group: returned ? "all returned" : "none returned",
      baseline: count === COUNTS[0],
      async fn(b) {
        b.start();
        const started = performance.now();
        const problems = await checkBuiltPackage(dir, { pool });
        const took = performance.now() - started;
        b.end();
        if (problems.length !== (returned ? 0 : count)) {
          throw new Error(`${name}: ${problems.length} problems`);
        }
        const mean = means.get(name) ?? { total: 0, runs: 0, count };
        mean.total += took;
        mean.runs++;
        means.set(name, mean);
      },
    });
  }
}

globalThis.addEventListener("unload", () => {
  for (const [name, { total, runs, count }] of means) {
    const perCheck = total / runs;
    console.log(
      `${name}: ${perCheck.toFixed(1)} ms a check, ${
        (perCheck / count * 1000).toFixed(0)
      } µs a handler`,
    );
  }
  pool.close();
  Deno.removeSync(root, { recursive: true });
});
