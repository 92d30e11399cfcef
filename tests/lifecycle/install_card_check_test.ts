import assert from "node:assert/strict";
import { join } from "node:path";
import { type CheckProblem, formatProblem } from "../../runtime/author/mod.ts";
import { readInstallCard } from "../../runtime/lifecycle/install_card.ts";
import { runSync } from "../internal/cli.ts";
import { testHost } from "../internal/packages.ts";

const CLEAN = new URL("../fixtures/clean/", import.meta.url);

/** A copy of the clean fixture (a package with sources) in `root`. */
async function cleanCopy(root: string, name: string): Promise<string> {
  const to = join(root, name);
  const copy = async (source: URL, target: string) => {
    await Deno.mkdir(target, { recursive: true });
    for await (const entry of Deno.readDir(source)) {
      const inner = join(target, entry.name);
      if (entry.isDirectory) await copy(new URL(`${entry.name}/`, source), inner);
      else await Deno.copyFile(new URL(entry.name, source), inner);
    }
  };
  await copy(CLEAN, to);
  return to;
}

/** A built service module left from an older source: it uses a timer and returns nothing. */
async function writeStaleBuild(dir: string): Promise<void> {
  await Deno.mkdir(join(dir, "service"), { recursive: true });
  await Deno.writeTextFile(
    join(dir, "service", "index.js"),
    `export default function register() { setTimeout(() => {}, 1); return {}; }\n`,
  );
}

/** What `deno task check --json` reports for `dir`, each problem as it prints it. */
async function checkPrints(home: string, dir: string): Promise<string[]> {
  const { stdout, stderr } = await runSync(home, ["check", dir, "--json"]);
  const report = JSON.parse(stdout || "null");
  assert.ok(report, stderr);
  return report.problems.map((problem: CheckProblem) => formatProblem(problem));
}

Deno.test("readInstallCard() shows the problems `deno task check` shows, in its order", async (t) => {
  const env = await testHost();
  const root = await Deno.makeTempDir({ prefix: "sync-card-check-" });
  try {
    await t.step("a stale built file is built again, as check builds it: no problem", async () => {
      const dir = await cleanCopy(root, "stale");
      await writeStaleBuild(dir);
      const card = await readInstallCard(env.host, dir, env.project);
      assert.deepEqual(card.problems.map((p) => p.text), []);
      assert.equal(card.installable, true);
      assert.doesNotMatch(
        await Deno.readTextFile(join(dir, "service", "index.js")),
        /setTimeout/,
        "the card's check rebuilt the service module",
      );
      await writeStaleBuild(dir);
      assert.deepEqual(await checkPrints(env.home, dir), []);
    });

    await t.step("a broken folder: the same problems, in the same order", async () => {
      const dir = await cleanCopy(root, "broken");
      const manifest = JSON.parse(await Deno.readTextFile(join(dir, "manifest.json")));
      manifest.schedule[0].handler = "tidy.later";
      await Deno.writeTextFile(join(dir, "manifest.json"), JSON.stringify(manifest, null, 2));
      const source = await Deno.readTextFile(join(dir, "src", "service.ts"));
      await Deno.writeTextFile(
        join(dir, "src", "service.ts"),
        source.replace(
          `"tidy.seed": async () => {`,
          `"tidy.seed": async () => {\n      setTimeout(() => {}, 1);\n      const n: number = "one";\n      console.log(String(n));`,
        ),
      );
      await writeStaleBuild(dir);
      const card = await readInstallCard(env.host, dir, env.project);
      const shown = card.problems.map((p) => p.text);
      assert.ok(shown.length >= 3, `three problems or more: ${shown.join("\n")}`);
      assert.match(shown[0], /^manifest\.json:\d+:\d+ {2}schedule\[0\]\.handler/);
      assert.ok(shown.some((text) => /^src\/service\.ts:\d+:\d+ .*setTimeout/.test(text)));
      assert.ok(shown.some((text) => /^src\/service\.ts:\d+:\d+ .*not assignable/.test(text)));
      assert.equal(card.installable, false);
      await writeStaleBuild(dir);
      assert.deepEqual(shown, await checkPrints(env.home, dir));
    });
  } finally {
    await Deno.remove(root, { recursive: true });
    await env.close();
  }
});
