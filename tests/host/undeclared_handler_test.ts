import assert from "node:assert/strict";
import { listReceipts } from "../../runtime/host/receipts.ts";
import { listRecords } from "../../runtime/memory/store.ts";
import { testHost } from "../internal/packages.ts";

/** Every name a plain object answers to without holding it, `__proto__` among them. */
const INHERITED = [...new Set([...Object.getOwnPropertyNames(Object.prototype), "__proto__"])];

/**
 * A handler that writes a record named after itself, so a call that ran it
 * leaves something in the project's memory.
 */
function writer(id: string, name: string): string {
  return `async () => { await memory.write({ key: ${
    JSON.stringify(`${id}.note/${name.replaceAll("_", "u")}`)
  }, title: "ran" }); return "ran"; }`;
}

/** A module whose answer holds `inherited` (a list of names) as undeclared handlers of its own. */
function ownKeeping(id: string): string {
  const defined = INHERITED.map((name) =>
    `Object.defineProperty(handlers, ${JSON.stringify(name)}, ` +
    `{ value: ${writer(id, name)}, enumerable: true, writable: true, configurable: true });`
  ).join("\n  ");
  return `import { memory } from "@sync/extension-api/service";
export default function register() {
  const handlers = { ${JSON.stringify(`${id}.run`)}: ${writer(id, "run")} };
  ${defined}
  return handlers;
}
`;
}

/** A module whose answer's prototype holds an undeclared handler under every inherited name. */
function prototypeKeeping(id: string): string {
  const defined = INHERITED.map((name) =>
    `Object.defineProperty(hidden, ${JSON.stringify(name)}, { value: ${writer(id, name)} });`
  ).join("\n  ");
  return `import { memory } from "@sync/extension-api/service";
export default function register() {
  const hidden = Object.create(null);
  ${defined}
  const handlers = Object.create(hidden);
  handlers[${JSON.stringify(`${id}.run`)}] = ${writer(id, "run")};
  return handlers;
}
`;
}

Deno.test("`Host.callHandler()` refuses a name the manifest holds only by inheritance as undeclared", async (t) => {
  const env = await testHost();
  try {
    // A package as check passes it; one whose answer holds every inherited
    // name as its own undeclared handler; one whose answer's prototype does.
    await env.install({
      id: "plain",
      handlers: ["plain.run"],
      service: `export default function register() { return { "plain.run": () => "ran" }; }\n`,
    });
    await env.installThenEdit({
      id: "keeper",
      handlers: ["keeper.run"],
      service: ownKeeping("keeper"),
    });
    await env.installThenEdit({
      id: "heir",
      handlers: ["heir.run"],
      service: prototypeKeeping("heir"),
    });
    const memory = await env.host.projectMemory(env.project);

    for (const id of ["plain", "keeper", "heir"]) {
      await t.step(`${id}: each of ${INHERITED.length} inherited names is refused`, async () => {
        for (const name of INHERITED) {
          await assert.rejects(env.call(id, name, null), (error: Error) => {
            assert.equal(error.name, "NotFoundError", `${id} ${name}: ${error.message}`);
            assert.equal(
              error.message,
              `${id} has no handler ${name}; it declares ${id}.run`,
            );
            return true;
          });
          const receipt = (await listReceipts(env.kv, env.project, { packageId: id }))
            .find((r) => r.handler === name);
          assert.ok(receipt, `${id} ${name} leaves a receipt`);
          assert.equal(receipt.outcome, "failed", `${id} ${name}`);
          assert.equal(receipt.error?.name, "NotFoundError");
        }
        assert.deepEqual(
          (await listRecords(memory, {})).records.map((r) => r.key),
          [],
          "no refused call wrote a record",
        );
      });
    }

    await t.step("the handlers each package declares still run", async () => {
      assert.equal(await env.call("plain", "plain.run"), "ran");
      assert.equal(await env.call("keeper", "keeper.run"), "ran");
      assert.equal(await env.call("heir", "heir.run"), "ran");
      assert.deepEqual(
        (await listRecords(memory, {})).records.map((r) => r.key).sort(),
        ["heir.note/run", "keeper.note/run"],
      );
    });
  } finally {
    await env.close();
  }
});

Deno.test("`Host.callHandler()` runs a declared handler only when register() returns it as its own", async (t) => {
  const env = await testHost();
  try {
    await env.installThenEdit({
      id: "heir",
      handlers: ["heir.run", "heir.inherited"],
      service: `import { memory } from "@sync/extension-api/service";
export default function register() {
  const handlers = Object.create({ "heir.inherited": ${writer("heir", "inherited")} });
  handlers["heir.run"] = ${writer("heir", "run")};
  return handlers;
}
`,
    });
    const memory = await env.host.projectMemory(env.project);

    await t.step("a declared name held only by the answer's prototype fails the call", async () => {
      await assert.rejects(env.call("heir", "heir.inherited"), {
        name: "HandlerFailedError",
        message: 'register() did not return handler "heir.inherited" (it returned { heir.run })',
      });
      const [receipt] = await listReceipts(env.kv, env.project, { packageId: "heir" });
      assert.equal(receipt.handler, "heir.inherited");
      assert.equal(receipt.outcome, "failed");
      assert.deepEqual((await listRecords(memory, {})).records, []);
    });

    await t.step("the one it holds as its own runs", async () => {
      assert.equal(await env.call("heir", "heir.run"), "ran");
      assert.deepEqual(
        (await listRecords(memory, {})).records.map((r) => r.key),
        ["heir.note/run"],
      );
    });
  } finally {
    await env.close();
  }
});
