import assert from "node:assert/strict";
import { JsonPlaces } from "../../../runtime/author/check/_json_place.ts";
import { standInProblems } from "../../../runtime/author/check/_stand_in.ts";
import { IsolatePool } from "../../../runtime/isolate/pool.ts";
import { parseManifest } from "../../../runtime/packages/manifest.ts";

const API = "@sync/extension-api/service";

/** What check says about a package `probe` whose register() runs `body`, then returns its handler. */
async function registerSays(
  pool: IsolatePool,
  body: string,
  permissions: string[] = ["background"],
): Promise<string[]> {
  const manifestText = JSON.stringify({
    id: "probe",
    name: "Probe",
    version: "1.0.0",
    description: "Calls host functions from register()",
    permissions,
    service: "service/index.js",
    handlers: { "probe.run": { description: "Runs once" } },
  });
  const source = `import { memory, net, work } from "${API}";
export default async function register() {
${body}
  return { "probe.run": () => null };
}`;
  const problems = await standInProblems(parseManifest(manifestText, "manifest.json"), source, {
    pool,
    manifestPlaces: new JsonPlaces(manifestText),
  });
  return problems.map((problem) => `${problem.rule}: ${problem.message}`);
}

/** The problem a register() that threw an error saying `said` is reported with. */
function threw(said: string): string[] {
  return [`register: register() in service/index.js failed: ${said}`];
}

Deno.test("`standInProblems()` answers register() as the host does, over an empty project", async (t) => {
  const pool = new IsolatePool({ size: 1 });
  try {
    await t.step("memory reads the package's own writes and nothing else is there", async () => {
      assert.deepEqual(
        await registerSays(
          pool,
          `await memory.write({ key: "probe.note/1", title: "One" });
  const page = await memory.list({});
  const record = await memory.record("probe.note/1");
  throw new Error(JSON.stringify([page.records.map((r) => r.key), record.title]));`,
        ),
        threw('[["probe.note/1"],"One"]'),
      );
      assert.deepEqual(
        await registerSays(pool, `await memory.write({ key: "probe.note/1", title: "One" });`),
        [],
        "a write in register() is no problem of check's",
      );
    });

    await t.step("memory refuses other packages' kinds, as for a handler", async () => {
      assert.deepEqual(
        await registerSays(pool, `await memory.list({ kind: "other.note" });`),
        threw(
          "probe cannot read kind other.note: it is not probe's own and no " +
            "installed package publishes it",
        ),
      );
      assert.deepEqual(
        await registerSays(pool, `await memory.remove("other.note/1");`),
        threw(
          'probe cannot remove other.note/1: a package may remove only kinds under "probe."',
        ),
      );
    });

    await t.step("work needs its permission, and then orders nothing", async () => {
      assert.deepEqual(
        await registerSays(pool, `await work.order({ kind: "agent.session" });`),
        threw(
          "work.order() needs the work.agent permission, which probe does " +
            "not declare",
        ),
      );
      const withWork = ["background", "work.agent"];
      const order = `{ kind: "agent.session", agent: "demo", title: "Fix it", ` +
        `prompt: { text: "Fix it" }, onInterrupted: "wait" }`;
      assert.deepEqual(
        await registerSays(pool, `await work.order(${order});`, withWork),
        threw("the stand-in host of deno task check orders no work"),
      );
      assert.deepEqual(
        await registerSays(pool, `await work.state("work-1");`, withWork),
        threw("the stand-in host of deno task check orders no work"),
      );
    });

    await t.step("net.fetch makes no request, whatever it is asked", async () => {
      assert.deepEqual(
        await registerSays(pool, `await net.fetch({ url: "https://example.com/" });`, [
          "background",
          "net:example.com",
        ]),
        threw("the stand-in host of deno task check makes no requests"),
      );
      assert.deepEqual(
        await registerSays(pool, `await net.fetch("not a url");`),
        threw("the stand-in host of deno task check makes no requests"),
      );
    });
  } finally {
    pool.close();
  }
});

/** What check says about a package declaring `probe.run` whose module is `source`. */
async function moduleSays(pool: IsolatePool, source: string): Promise<string[]> {
  const manifestText = JSON.stringify({
    id: "probe",
    name: "Probe",
    version: "1.0.0",
    description: "Returns its handlers in some shape",
    permissions: ["background"],
    service: "service/index.js",
    handlers: { "probe.run": { description: "Runs once" } },
  });
  const problems = await standInProblems(parseManifest(manifestText, "manifest.json"), source, {
    pool,
    manifestPlaces: new JsonPlaces(manifestText),
  });
  return problems.map((problem) => `${problem.rule}: ${problem.message}`);
}

Deno.test("`standInProblems()` takes only a plain register() answer, and only its own keys", async (t) => {
  const pool = new IsolatePool({ size: 1 });
  const notPlain = (what: string) =>
    `register: register() returned ${what}, not a plain object; the host calls only the ` +
    `handlers it holds as its own keys`;
  try {
    await t.step("an object literal, or one with no prototype at all, is plain", async () => {
      assert.deepEqual(
        await moduleSays(pool, `export default () => ({ "probe.run": () => 1 });`),
        [],
      );
      assert.deepEqual(
        await moduleSays(
          pool,
          `export default () => Object.assign(Object.create(null), { "probe.run": () => 1 });`,
        ),
        [],
      );
    });

    await t.step("an object with another prototype is refused, naming its class", async () => {
      assert.deepEqual(
        await moduleSays(
          pool,
          `class Table { constructor() { this["probe.run"] = () => 1; } }
export default () => new Table();`,
        ),
        [notPlain("a Table instance")],
      );
      assert.deepEqual(
        await moduleSays(
          pool,
          `export default () => Object.assign(Object.create({ "probe.hidden": () => 2 }), ` +
            `{ "probe.run": () => 1 });`,
        ),
        [notPlain("an object whose prototype is not Object.prototype")],
        "a handler kept on the prototype is not listed as returned either",
      );
    });

    await t.step(
      "replacing Object's own functions does not pass an inherited handler off as returned",
      async () => {
        assert.deepEqual(
          await moduleSays(
            pool,
            `Object.keys = () => ["probe.run"];
Object.getPrototypeOf = () => Object.prototype;
export default () => Object.create({ "probe.run": () => 1 });`,
          ),
          [
            notPlain("an object whose prototype is not Object.prototype"),
            `handler-not-returned: handler "probe.run" is declared but register() does not return it`,
          ],
        );
      },
    );
  } finally {
    pool.close();
  }
});
