import assert from "node:assert/strict";
import { InvalidInputError, MemoryAccessError } from "../../../runtime/errors.ts";
import { memory } from "../../../runtime/host/functions/memory.ts";
import { type HostFunction, runHostFunction } from "../../../runtime/host/host_function.ts";
import { getRecord } from "../../../runtime/memory/store.ts";
import { writeRecord } from "../../../runtime/memory/write_record.ts";
import { functionContext } from "../../internal/host_functions.ts";

Deno.test("`memory` host functions check their argument's shape in the words handlers see", async (t) => {
  await t.step("`memory.list()` takes a query object, or nothing", () => {
    assert.deepEqual(memory.list.parse(null), {});
    assert.deepEqual(memory.list.parse({ kind: "box.note" }), { kind: "box.note" });
    for (const bad of [["box.note"], "box.note", 3]) {
      assert.throws(() => memory.list.parse(bad), {
        name: "InvalidInputError",
        message: "memory.list() takes { kind?, prefix?, limit?, cursor? }",
      });
    }
  });

  await t.step("`memory.record()`, `content()` and `remove()` take a key or { key }", () => {
    for (const fn of [memory.record, memory.content, memory.remove]) {
      assert.equal(fn.parse("box.note/a"), "box.note/a");
      assert.equal(fn.parse({ key: "box.note/a" }), "box.note/a");
      assert.throws(() => fn.parse({ name: "a" }), {
        name: "InvalidInputError",
        message: `${fn.name}() takes a record key like "kind/name"`,
      });
    }
  });

  await t.step("`memory.write()` takes an object with a string key", () => {
    for (const bad of [null, "box.note/a", { title: "no key" }, { key: 7 }]) {
      assert.throws(
        () => memory.write.parse(bad),
        (error: Error) =>
          error instanceof InvalidInputError &&
          error.message === "memory.write() takes { key, title?, fields?, content?, revision? }",
      );
    }
  });
});

Deno.test("`memory` host functions work in the call's transaction, within the package's reach", async (t) => {
  const setup = await functionContext({ id: "box", published: ["other.public"] });
  const { context } = setup;
  const call = (fn: HostFunction, args: unknown) => runHostFunction(fn, args, context);
  try {
    await writeRecord(setup.memory, { key: "other.public/1", title: "published" }, { by: "other" });
    await writeRecord(setup.memory, { key: "other.secret/1", title: "secret" }, { by: "other" });

    await t.step("a write is staged, and read back within the call only", async () => {
      assert.deepEqual(await call(memory.write, { key: "box.note/a", content: "hello" }), {
        key: "box.note/a",
        revision: 1,
      });
      assert.equal(await call(memory.content, "box.note/a"), "hello");
      assert.equal(
        (await call(memory.record, { key: "box.note/a" }) as { revision: number })
          .revision,
        1,
      );
      assert.equal(await getRecord(setup.memory, "box.note/a"), null, "nothing committed yet");
    });

    await t.step("a list without a kind leaves out kinds the package may not read", async () => {
      const page = await call(memory.list, {}) as { records: { key: string }[] };
      assert.deepEqual(page.records.map((r) => r.key), ["box.note/a", "other.public/1"]);
    });

    await t.step("a removal outside the package's prefix is refused by name", async () => {
      await assert.rejects(
        call(memory.remove, "other.public/1"),
        (error: Error) => {
          assert.ok(error instanceof MemoryAccessError);
          assert.equal(
            error.message,
            'box cannot remove other.public/1: a package may remove only kinds under "box."',
          );
          return true;
        },
      );
    });

    await t.step("a removal of its own staged record answers that there was one", async () => {
      assert.deepEqual(await call(memory.remove, "box.note/a"), {
        key: "box.note/a",
        removed: true,
      });
      assert.equal(await call(memory.record, "box.note/a"), null);
    });
  } finally {
    context.transaction.discard();
    await setup.close();
  }
});
