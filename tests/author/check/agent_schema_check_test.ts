import assert from "node:assert/strict";
import { join } from "node:path";
import { checkBuiltPackage } from "../../../runtime/author/check/check.ts";
import { IsolatePool } from "../../../runtime/isolate/pool.ts";

/**
 * A schema nested `levels` deep through `not`, as JSON text: deeper
 * than `JSON.stringify` can write it.
 */
function nested(levels: number): string {
  return '{"type":"object","properties":{"a":' + '{"not":'.repeat(levels) + "{}" +
    "}".repeat(levels) + "}}";
}

/** Where a test puts {@linkcode nested}'s text in a manifest. */
const DEEP = "deep schema goes here";

/**
 * Writes a built package declaring one agent tool with these schemas, with
 * `deep` in place of the string {@linkcode DEEP}; answers its folder.
 */
async function packageWith(agent: Record<string, unknown>, deep = ""): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix: "sync-check-test-" });
  const manifest = {
    id: "shapes",
    name: "Shapes",
    version: "1.0.0",
    description: "Declares an agent tool",
    permissions: ["background"],
    service: "service/index.js",
    handlers: { "shapes.run": { description: "Runs", agent: { description: "Run", ...agent } } },
  };
  await Deno.writeTextFile(
    join(dir, "manifest.json"),
    JSON.stringify(manifest, null, 2).replace(JSON.stringify(DEEP), deep),
  );
  await Deno.mkdir(join(dir, "service"));
  await Deno.writeTextFile(
    join(dir, "service", "index.js"),
    'export default function register() { return { "shapes.run": () => ({}) }; }\n',
  );
  return dir;
}

Deno.test("checkBuiltPackage() refuses an agent schema Sync cannot check in linear time or walk", async (t) => {
  const pool = new IsolatePool({ size: 1 });
  const check = async (agent: Record<string, unknown>, deep?: string) => {
    const dir = await packageWith(agent, deep);
    try {
      return (await checkBuiltPackage(dir, { pool })).map((p) => `${p.file}: ${p.message}`);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  };
  try {
    await t.step("a backreference in `pattern`, naming the key path and why", async () => {
      const problems = await check({
        input: {
          type: "object",
          properties: { w: { type: "string", pattern: "^(a+)\\1$" } },
        },
      });
      assert.equal(problems.length, 1, problems.join("\n"));
      assert.match(problems[0], /^manifest\.json: /);
      assert.match(problems[0], /agent\.input\.properties\.w\.pattern/);
      assert.match(problems[0], /\\\\1/);
      assert.match(problems[0], /no backreferences and no lookaround/);
    });

    await t.step("a lookbehind as a `patternProperties` key of `agent.output`", async () => {
      const problems = await check({
        input: { type: "object" },
        output: { type: "object", patternProperties: { "(?<!x)y": { type: "string" } } },
      });
      assert.equal(problems.length, 1, problems.join("\n"));
      assert.match(problems[0], /agent\.output\.patternProperties/);
      assert.match(problems[0], /RE2/);
    });

    await t.step(
      "the probe's backtracking patterns pass: RE2 runs them in linear time",
      async () => {
        const problems = await check({
          input: {
            type: "object",
            properties: { w: { type: "string", pattern: "^([a-z]+)+$" } },
          },
          output: {
            type: "object",
            properties: { v: { type: "string", pattern: "^(a+)+$" } },
          },
        });
        assert.deepEqual(problems, []);
      },
    );

    await t.step("an `agent.output` nested 45,000 levels deep, in one problem", async () => {
      const problems = await check(
        { input: { type: "object" }, output: DEEP },
        nested(45_000),
      );
      assert.equal(problems.length, 1, problems.join("\n").slice(0, 2000));
      assert.match(problems[0], /agent\.output: is nested more than 32 levels deep/);
    });

    await t.step(
      "`uniqueItems` only where the items' type lets it be checked in one pass",
      async () => {
        const problems = await check({
          input: {
            type: "object",
            properties: {
              tags: { type: "array", uniqueItems: true, items: { type: "string" } },
              pairs: { type: "array", uniqueItems: true, items: { type: "object" } },
              loose: { type: "array", uniqueItems: true },
            },
          },
        });
        assert.equal(problems.length, 2, problems.join("\n"));
        assert.match(problems.join("\n"), /properties\.pairs\.uniqueItems: is checked only for/);
        assert.match(problems.join("\n"), /properties\.loose\.uniqueItems: is checked only for/);
      },
    );

    await t.step("an `agent.input` past the size limit", async () => {
      const properties = Object.fromEntries(
        Array.from({ length: 3000 }, (_, i) => [`field${i}`, { type: "string" }]),
      );
      const problems = await check({ input: { type: "object", properties } });
      assert.equal(problems.length, 1, problems.join("\n").slice(0, 2000));
      assert.match(problems[0], /agent\.input: is \d+ bytes as JSON; at most 65536/);
    });
  } finally {
    pool.close();
  }
});
