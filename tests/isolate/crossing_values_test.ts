import assert from "node:assert/strict";
import { testHost } from "../internal/packages.ts";
import { getContent, getRecord, listRecords } from "../../runtime/memory/store.ts";
import { listWorkOrders } from "../../runtime/work/order.ts";

const SERVICE = `
import { memory } from "@sync/extension-api/service";
const PROTO = '{"__proto__":{"polluted":true},"n":1}';
export default function register() {
  return {
    "vals.answer": () => ({ top: JSON.parse(PROTO), list: [JSON.parse(PROTO)] }),
    "vals.payload": (payload) => ({
      keys: Object.keys(payload),
      own: Object.prototype.hasOwnProperty.call(payload, "__proto__"),
      plain: Object.getPrototypeOf(payload) === Object.prototype,
    }),
    "vals.writeFields": async () => {
      await memory.write({ key: "vals.note/proto", title: "proto", fields: JSON.parse(PROTO) });
    },
    "vals.readFields": async () => {
      const record = await memory.record("vals.note/proto");
      return {
        keys: Object.keys(record.fields),
        own: Object.prototype.hasOwnProperty.call(record.fields, "__proto__"),
        fields: record.fields,
      };
    },
    "vals.write": async (input) => {
      try {
        await memory.write(input);
        return "written";
      } catch (error) {
        return error.name + ": " + error.message;
      }
    },
  };
}`;

const HANDLERS = ["answer", "payload", "writeFields", "readFields", "write"].map((h) =>
  `vals.${h}`
);

Deno.test('an own "__proto__" key crosses the isolate as data, in answers, payloads and fields', async (t) => {
  const env = await testHost();
  await env.installThenEdit({ id: "vals", handlers: HANDLERS, service: SERVICE });
  const proto = () => JSON.parse('{"__proto__":{"polluted":true},"n":1}');
  try {
    await t.step("in a handler's answer, at any depth", async () => {
      const answer = await env.call("vals", "vals.answer") as { top: object; list: object[] };
      for (const value of [answer.top, answer.list[0]]) {
        assert.deepEqual(Object.keys(value), ["__proto__", "n"]);
        assert.equal(Object.getPrototypeOf(value), Object.prototype, "it stays data");
        assert.deepEqual(Object.getOwnPropertyDescriptor(value, "__proto__")?.value, {
          polluted: true,
        });
      }
      assert.equal(({} as { polluted?: boolean }).polluted, undefined);
    });

    await t.step("in a payload handed to a handler", async () => {
      assert.deepEqual(await env.call("vals", "vals.payload", proto()), {
        keys: ["__proto__", "n"],
        own: true,
        plain: true,
      });
    });

    await t.step("in a record's fields: written, committed and read back", async () => {
      await env.call("vals", "vals.writeFields");
      const memory = await env.host.projectMemory(env.project);
      const stored = await getRecord(memory, "vals.note/proto");
      assert.deepEqual(Object.keys(stored!.fields), ["__proto__", "n"]);
      assert.equal(Object.getPrototypeOf(stored!.fields), Object.prototype);
      const listed = (await listRecords(memory, { kind: "vals.note" })).records[0];
      assert.deepEqual(Object.keys(listed.fields), ["__proto__", "n"]);
      const read = await env.call("vals", "vals.readFields") as { keys: string[]; own: boolean };
      assert.deepEqual(read.keys, ["__proto__", "n"]);
      assert.equal(read.own, true);
    });
  } finally {
    await env.close();
  }
});

Deno.test("a lone surrogate in a record's content, title or fields is refused at the write, naming the field", async (t) => {
  const env = await testHost();
  await env.installThenEdit({ id: "vals", handlers: HANDLERS, service: SERVICE });
  try {
    const refusals: [string, Record<string, unknown>, RegExp][] = [
      [
        "content",
        { content: "before \uD800 after" },
        /^InvalidInputError: Record "vals\.note\/s": field "content" contains an unpaired surrogate at character 7/,
      ],
      [
        "title",
        { title: "t\uDC00" },
        /^InvalidInputError: Record "vals\.note\/s": field "title" contains an unpaired surrogate at character 1/,
      ],
      [
        "a string in fields",
        { fields: { list: ["ok", "x\uD83D"] } },
        /^InvalidInputError: Record "vals\.note\/s": field "fields" contains an unpaired surrogate in fields\.list\[1\]/,
      ],
      [
        "a name in fields",
        { fields: { ["n\uDE00"]: 1 } },
        /^InvalidInputError: Record "vals\.note\/s": field "fields" contains an unpaired surrogate in the name of fields\["n\\ude00"\]/,
      ],
    ];
    for (const [what, input, message] of refusals) {
      await t.step(`in ${what}`, async () => {
        const answer = await env.call("vals", "vals.write", { key: "vals.note/s", ...input });
        assert.match(answer as string, message);
      });
    }
    await t.step(
      "nothing of them was committed; whole pairs are written and read back",
      async () => {
        const memory = await env.host.projectMemory(env.project);
        assert.equal(await getRecord(memory, "vals.note/s"), null);
        const text = "emoji \uD83D\uDE00 stays";
        assert.equal(
          await env.call("vals", "vals.write", { key: "vals.note/s", title: text, content: text }),
          "written",
        );
        assert.equal(await getContent(memory, "vals.note/s"), text);
        assert.equal((await getRecord(memory, "vals.note/s"))?.title, text);
      },
    );
  } finally {
    await env.close();
  }
});

const UNDEFINED_SERVICE = `
import { memory, work } from "@sync/extension-api/service";
export default function register() {
  return {
    "opt.order": async () => work.order({
      kind: "agent.session",
      agent: "demo",
      title: "Fix it",
      prompt: { text: "x", attachments: undefined },
      onInterrupted: "wait",
      about: undefined,
    }),
    "opt.write": async () => {
      await memory.write({
        key: "opt.note/a",
        title: "a",
        content: undefined,
        revision: undefined,
        fields: { kept: 1, left: undefined, list: [1, undefined, 3] },
      });
      const page = await memory.list({ kind: "opt.note", cursor: undefined, limit: undefined });
      return page.records.map((r) => r.key);
    },
    "opt.answer": () => ({
      kept: 1,
      left: undefined,
      nested: { left: undefined, list: [undefined, 2] },
      asJSON: { toJSON: () => undefined },
    }),
    "opt.undefinedJSON": () => ({ toJSON: () => undefined }),
  };
}`;

Deno.test("`undefined` crosses the isolate as JSON carries it: left out of objects, null in arrays", async (t) => {
  const env = await testHost();
  await env.installThenEdit({
    id: "opt",
    permissions: ["background", "work.agent"],
    handlers: ["opt.order", "opt.write", "opt.answer", "opt.undefinedJSON"],
    service: UNDEFINED_SERVICE,
  });
  try {
    const memory = await env.host.projectMemory(env.project);

    await t.step("work.order() with undefined optional fields places the order", async () => {
      const { key } = await env.call("opt", "opt.order") as { key: string };
      const orders = await listWorkOrders(memory);
      assert.deepEqual(orders.map((o) => o.key), [key]);
      assert.deepEqual(orders[0].prompt, { text: "x" });
      assert.equal("about" in orders[0], false);
    });

    await t.step("memory.write() and memory.list() with undefined optional fields", async () => {
      assert.deepEqual(await env.call("opt", "opt.write"), ["opt.note/a"]);
      const record = await getRecord(memory, "opt.note/a");
      assert.equal(record?.title, "a");
      assert.deepEqual(record?.fields, { kept: 1, list: [1, null, 3] });
      assert.equal(
        await getContent(memory, "opt.note/a"),
        "",
        "a record written without content has none",
      );
    });

    await t.step("a handler's answer comes back without its undefined fields", async () => {
      const answer = await env.call("opt", "opt.answer");
      assert.deepEqual(answer, { kept: 1, nested: { list: [null, 2] } });
      assert.deepEqual(Object.keys(answer as object), ["kept", "nested"]);
      assert.equal(await env.call("opt", "opt.undefinedJSON"), null);
    });
  } finally {
    await env.close();
  }
});
