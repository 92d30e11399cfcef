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

/** Every text a cursor could carry: itself, and what it says read as base64 or base64url. */
function cursorReadings(cursor: string): string[] {
  const readings = [cursor];
  try {
    const binary = atob(cursor.replaceAll("-", "+").replaceAll("_", "/"));
    readings.push(new TextDecoder().decode(Uint8Array.from(binary, (c) => c.charCodeAt(0))));
  } catch { /* not base64: the cursor says nothing readable */ }
  return readings;
}

Deno.test("a package paging through another's unpublished kind learns no key name from pages or cursors", async (t) => {
  const { testHost } = await import("../../internal/packages.ts");
  const setup = await testHost();
  try {
    await setup.install({
      id: "sec",
      handlers: ["sec.store"],
      service: `import { memory } from "@sync/extension-api/service";
export default function register() {
  return {
    "sec.store": async () => {
      for (const who of ["alice", "bob", "carol"]) {
        await memory.write({ key: "sec.secret/" + who + "-password-hunter2", title: "private" });
      }
      return null;
    },
  };
}
`,
    });
    await setup.call("sec", "sec.store");
    await setup.install({
      id: "spy",
      handlers: ["spy.probe"],
      service: `import { memory } from "@sync/extension-api/service";
export default function register() {
  return {
    "spy.probe": async ({ prefix }) => {
      const pages = [];
      let cursor;
      for (let i = 0; i < 10; i++) {
        const page = await memory.list({ prefix, limit: 1, ...(cursor ? { cursor } : {}) });
        pages.push(page);
        cursor = page.cursor;
        if (!cursor) break;
      }
      return pages;
    },
  };
}
`,
    });

    for (const prefix of ["sec.", "sec.secret/", "sec.secret/alice", ""]) {
      await t.step(`paging with prefix ${JSON.stringify(prefix)}`, async () => {
        const pages = await setup.call("spy", "spy.probe", { prefix }) as {
          records: { key: string }[];
          cursor?: string;
        }[];
        for (const page of pages) {
          assert.deepEqual(page.records, [], "no record of sec.secret is listed");
          for (const text of page.cursor ? cursorReadings(page.cursor) : []) {
            assert.ok(!/alice|bob|carol|sec\.secret/.test(text), `cursor reveals ${text}`);
          }
        }
        assert.equal(pages.at(-1)?.cursor, undefined, "an empty listing has no next page");
      });
    }
  } finally {
    await setup.close();
  }
});

Deno.test("a page counts only records the package may read, and paging lists each once", async (t) => {
  const setup = await functionContext({ id: "box", published: ["other.public"] });
  const { context } = setup;
  const call = (fn: HostFunction, args: unknown) => runHostFunction(fn, args, context);
  try {
    for (const key of ["other.aaa/1", "other.public/1", "other.public/2", "other.secret/1"]) {
      await writeRecord(setup.memory, { key }, { by: "other" });
    }
    await writeRecord(setup.memory, { key: "other.public/3" }, { by: "other" });
    await writeRecord(setup.memory, { key: "box.note/a" }, { by: "box" });
    await call(memory.write, { key: "box.note/b" });
    await call(memory.write, { key: "box.zz/c" });

    await t.step(
      "every page but the last is full, and no record is missed or repeated",
      async () => {
        const pages: string[][] = [];
        let cursor: string | undefined;
        do {
          const page = await call(memory.list, { limit: 2, ...(cursor ? { cursor } : {}) }) as {
            records: { key: string }[];
            cursor?: string;
          };
          pages.push(page.records.map((r) => r.key));
          cursor = page.cursor;
        } while (cursor !== undefined);
        assert.deepEqual(pages, [
          ["box.note/a", "box.note/b"],
          ["box.zz/c", "other.public/1"],
          ["other.public/2", "other.public/3"],
        ]);
      },
    );
  } finally {
    context.transaction.discard();
    await setup.close();
  }
});

Deno.test("`memory.list()` refuses a cursor that was not issued for the query", async (t) => {
  const setup = await functionContext({ id: "box", published: ["other.public"] });
  const { context } = setup;
  const call = (fn: HostFunction, args: unknown) => runHostFunction(fn, args, context);
  const refusedAsCursor = (error: Error) => {
    assert.ok(error instanceof InvalidInputError, String(error));
    assert.match(error.message, /"cursor"/);
    return true;
  };
  try {
    for (const key of ["other.public/1", "other.public/2", "other.public/3"]) {
      await writeRecord(setup.memory, { key }, { by: "other" });
    }
    for (const key of ["box.note/1", "box.note/2", "box.note/3"]) {
      await writeRecord(setup.memory, { key }, { by: "box" });
    }
    const first = await call(memory.list, { kind: "box.note", limit: 1 }) as { cursor: string };
    assert.equal(typeof first.cursor, "string");

    await t.step("a cursor made up by the package (a key in base64)", async () => {
      const forged = btoa("other.public/1").replace(/=+$/, "");
      await assert.rejects(
        call(memory.list, { kind: "box.note", cursor: forged }),
        refusedAsCursor,
      );
    });

    await t.step("a cursor of another query", async () => {
      await assert.rejects(
        call(memory.list, { kind: "other.public", cursor: first.cursor }),
        refusedAsCursor,
      );
      await assert.rejects(
        call(memory.list, { prefix: "box.", cursor: first.cursor }),
        refusedAsCursor,
      );
    });

    await t.step("a cursor changed by one character", async () => {
      const at = Math.floor(first.cursor.length / 2);
      const other = first.cursor[at] === "A" ? "B" : "A";
      const changed = first.cursor.slice(0, at) + other + first.cursor.slice(at + 1);
      await assert.rejects(
        call(memory.list, { kind: "box.note", cursor: changed }),
        refusedAsCursor,
      );
    });

    await t.step("the cursor as issued continues the same query", async () => {
      const next = await call(memory.list, {
        kind: "box.note",
        limit: 5,
        cursor: first.cursor,
      }) as {
        records: { key: string }[];
      };
      assert.deepEqual(next.records.map((r) => r.key), ["box.note/2", "box.note/3"]);
    });
  } finally {
    context.transaction.discard();
    await setup.close();
  }
});

Deno.test("a cursor a handler keeps stays good in later calls of its package only", async (t) => {
  const { testHost } = await import("../../internal/packages.ts");
  const { Host } = await import("../../../runtime/host/host.ts");
  const setup = await testHost();
  const pager = (id: string) =>
    `import { memory } from "@sync/extension-api/service";
export default function register() {
  return {
    "${id}.fill": async () => {
      for (const n of [1, 2, 3]) await memory.write({ key: "${id}.note/" + n });
      return null;
    },
    "${id}.page": async ({ kind, cursor }) =>
      await memory.list({ kind, limit: 1, ...(cursor ? { cursor } : {}) }),
  };
}
`;
  let other: InstanceType<typeof Host> | undefined;
  try {
    let pagerDir = "";
    for (const id of ["pager", "spy"]) {
      const dir = await setup.install({
        id,
        handlers: [`${id}.fill`, `${id}.page`],
        service: pager(id),
      });
      if (id === "pager") pagerDir = dir;
      await setup.call(id, `${id}.fill`);
    }
    const first = await setup.call("pager", "pager.page", { kind: "pager.note" }) as {
      records: { key: string }[];
      cursor: string;
    };
    assert.deepEqual(first.records.map((r) => r.key), ["pager.note/1"]);

    await t.step("another process's host takes it up where the page ended", async () => {
      other = new Host({ kv: setup.kv, home: setup.home, log: () => {} });
      const { value } = await other.callHandler(setup.project, "pager", "pager.page", {
        occasion: { kind: "extension" },
        source: { kind: "person" },
        payload: { kind: "pager.note", cursor: first.cursor },
      });
      assert.deepEqual((value as { records: { key: string }[] }).records.map((r) => r.key), [
        "pager.note/2",
      ]);
    });

    await t.step("the same package in another project is refused, the cursor named", async () => {
      const { installPackage } = await import("../../../runtime/lifecycle/install.ts");
      const elsewhere = await Deno.realPath(await Deno.makeTempDir({ prefix: "sync-elsewhere-" }));
      try {
        await installPackage(setup.host, pagerDir, elsewhere, { approve: true });
        const call = (payload: unknown) =>
          setup.host.callHandler(elsewhere, "pager", `pager.${payload ? "page" : "fill"}`, {
            occasion: { kind: "extension" },
            source: { kind: "person" },
            payload,
          });
        await call(null);
        await assert.rejects(
          call({ kind: "pager.note", cursor: first.cursor }),
          (error: Error) => {
            assert.equal(error.name, "HandlerFailedError");
            assert.match(error.message, /"cursor" must be the one the page before returned/);
            return true;
          },
        );
      } finally {
        await setup.host.forgetProject(elsewhere);
        await Deno.remove(elsewhere, { recursive: true });
      }
    });

    await t.step("another package handed it is refused, the cursor named", async () => {
      await assert.rejects(
        setup.call("spy", "spy.page", { kind: "spy.note", cursor: first.cursor }),
        (error: Error) => {
          assert.equal(error.name, "HandlerFailedError");
          assert.match(error.message, /"cursor" must be the one the page before returned/);
          return true;
        },
      );
    });
  } finally {
    await other?.close();
    await setup.close();
  }
});
