import assert from "node:assert/strict";
import { listReceipts } from "../../runtime/host/receipts.ts";
import { RECEIPT_LIMITS } from "../../runtime/limits.ts";
import { readRecordView } from "../../runtime/memory/record_view.ts";
import { testHost } from "../internal/packages.ts";

const NOTES = {
  id: "notes",
  handlers: ["notes.many", "notes.one", "notes.drop", "notes.none"],
  service: `import { memory } from "@sync/extension-api/service";
export default function register() {
  return {
    "notes.many": async (payload) => {
      for (let i = 0; i < payload.count; i++) {
        await memory.write({ key: "notes.note/" + String(i).padStart(3, "0"), title: "n" + i });
      }
      return null;
    },
    "notes.one": () => memory.write({ key: "notes.note/000", title: "again" }),
    "notes.drop": () => memory.remove("notes.note/001"),
    "notes.none": () => null,
  };
}`,
};

Deno.test("a receipt names the records its call wrote", async (t) => {
  const env = await testHost();
  try {
    await env.install(NOTES);
    const call = (handler: string, payload?: unknown) =>
      env.host.callHandler(env.project, "notes", handler, {
        occasion: { kind: "extension" },
        source: { kind: "person" },
        payload,
      });

    await t.step(
      "`callHandler()` keeps kind, name and revision of each, in key order",
      async () => {
        const { receipt } = await call("notes.many", { count: 2 });
        assert.deepEqual(receipt.records, [
          { kind: "notes.note", name: "000", revision: 1 },
          { kind: "notes.note", name: "001", revision: 1 },
        ]);
        assert.equal(receipt.recordsLeftOut, undefined);
        const [stored] = await listReceipts(env.kv, env.project, { packageId: "notes", limit: 1 });
        assert.deepEqual(stored.records, receipt.records);
        const view = await readRecordView(
          await env.host.projectMemory(env.project),
          "notes.note/000",
        );
        assert.equal(view?.writers[0].receipt, receipt.id);
        assert.equal(view?.writers[0].by, "notes");
      },
    );

    await t.step("a record written again names both calls' receipts, newest first", async () => {
      const first = (await listReceipts(env.kv, env.project, { packageId: "notes", limit: 1 }))[0];
      const { receipt } = await call("notes.one");
      assert.deepEqual(receipt.records, [{ kind: "notes.note", name: "000", revision: 2 }]);
      const view = await readRecordView(
        await env.host.projectMemory(env.project),
        "notes.note/000",
      );
      assert.deepEqual(view?.writers.map((w) => w.receipt), [receipt.id, first.id]);
    });

    await t.step("a removal is named as removed", async () => {
      const { receipt } = await call("notes.drop");
      assert.deepEqual(receipt.records, [
        { kind: "notes.note", name: "001", revision: 1, removed: true },
      ]);
    });

    await t.step("past the limit, the receipt says how many it left out", async () => {
      const count = RECEIPT_LIMITS.maxRecords + 5;
      const { receipt } = await call("notes.many", { count });
      assert.equal(receipt.records?.length, RECEIPT_LIMITS.maxRecords);
      assert.equal(receipt.recordsLeftOut, 5);
      assert.equal(receipt.records?.[0].name, "000");
      const [stored] = await listReceipts(env.kv, env.project, { packageId: "notes", limit: 1 });
      assert.equal(stored.recordsLeftOut, 5);
    });

    await t.step("a call that wrote nothing names no records", async () => {
      const { receipt } = await call("notes.none");
      assert.equal(receipt.records, undefined);
    });
  } finally {
    await env.close();
  }
});
