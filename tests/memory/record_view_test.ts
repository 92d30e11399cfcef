import assert from "node:assert/strict";
import { InvalidInputError } from "../../runtime/errors.ts";
import { readGeneration } from "../../runtime/memory/generation.ts";
import { MemoryTransaction } from "../../runtime/memory/transaction.ts";
import { RECORD_WRITERS_KEPT } from "../../runtime/memory/store.ts";
import { writeRecord } from "../../runtime/memory/write_record.ts";
import {
  listRecordKinds,
  readRecordView,
  searchRecords,
} from "../../runtime/memory/record_view.ts";

/** A handler call's transaction, as the host opens one, with its receipt's id. */
async function call(kv: Deno.Kv, receiptId: string, packageId = "issues") {
  return new MemoryTransaction(kv, {
    packageId,
    generation: await readGeneration(kv, packageId),
    receiptId,
  });
}

/** Every KV commit made through `kv`, counted. */
function countCommits(kv: Deno.Kv): { commits: number } {
  const counted = { commits: 0 };
  const atomic = kv.atomic.bind(kv);
  kv.atomic = () => {
    const op = atomic();
    const commit = op.commit.bind(op);
    op.commit = () => {
      counted.commits++;
      return commit();
    };
    return op;
  };
  return counted;
}

const PERSON = { reader: "person in the test project" };

Deno.test("a record keeps the receipt of each call that wrote it", async (t) => {
  const kv = await Deno.openKv(":memory:");
  try {
    await t.step(
      "`MemoryTransaction.commit()` writes the receipt's id in the same commit",
      async () => {
        const counted = countCommits(kv);
        const first = await call(kv, "r-1");
        await first.write({ key: "issues.issue/1", title: "One" });
        // Written twice in one call: one writer for the call, its last revision.
        await first.write({ key: "issues.issue/1", title: "One again" });
        const committed = await first.commit();
        assert.equal(counted.commits, 1);
        assert.deepEqual(committed.changes, [{ key: "issues.issue/1", revision: 2 }]);
        const view = await readRecordView(kv, "issues.issue/1");
        assert.deepEqual(
          view?.writers.map(({ revision, by, receipt }) => ({ revision, by, receipt })),
          [{ revision: 2, by: "issues", receipt: "r-1" }],
        );
      },
    );

    await t.step(
      "`readRecordView()` lists writers newest first, at most the kept number",
      async () => {
        for (let i = 2; i <= RECORD_WRITERS_KEPT + 3; i++) {
          const next = await call(kv, `r-${i}`);
          await next.write({ key: "issues.issue/1", fields: { n: i } });
          await next.commit();
        }
        await writeRecord(kv, { key: "issues.issue/1", content: "Body <b>as text</b>" });
        const view = await readRecordView(kv, "issues.issue/1");
        assert.equal(view?.writers.length, RECORD_WRITERS_KEPT);
        assert.deepEqual(view?.writers[0], {
          revision: view!.record.revision,
          by: "person",
          at: view!.record.updatedAt,
        });
        assert.equal(view?.writers[1].receipt, `r-${RECORD_WRITERS_KEPT + 3}`);
        assert.equal(view?.content, "Body <b>as text</b>");
        assert.equal(await readRecordView(kv, "issues.issue/none"), null);
      },
    );

    await t.step(
      "`MemoryTransaction.commit()` names a removal with the revision it had",
      async () => {
        await writeRecord(kv, { key: "issues.issue/2", title: "Two" });
        const removing = await call(kv, "r-x");
        await removing.remove("issues.issue/2");
        const committed = await removing.commit();
        assert.deepEqual(committed.changes, [{
          key: "issues.issue/2",
          revision: 1,
          removed: true,
        }]);
      },
    );
  } finally {
    kv.close();
  }
});

Deno.test("searchRecords() finds by key, title and fields, a bounded page at a time", async (t) => {
  const kv = await Deno.openKv(":memory:");
  try {
    for (let i = 0; i < 12; i++) {
      await writeRecord(kv, {
        key: `issues.issue/${String(i).padStart(2, "0")}`,
        title: i % 3 === 0 ? `Printer jam ${i}` : `Other ${i}`,
        fields: { owner: i === 4 ? "Ada Lovelace" : "Bob" },
      });
    }
    await writeRecord(kv, { key: "chat.conversation/a", title: "A printer talk" });

    await t.step("every kind, by title and ignoring case", async () => {
      const page = await searchRecords(kv, { text: "PRINTER" }, PERSON);
      assert.deepEqual(page.records.map((r) => r.key), [
        "chat.conversation/a",
        "issues.issue/00",
        "issues.issue/03",
        "issues.issue/06",
        "issues.issue/09",
      ]);
      assert.equal(page.cursor, undefined);
    });

    await t.step("one kind, by fields and by key", async () => {
      const byField = await searchRecords(kv, { kind: "issues.issue", text: "lovelace" }, PERSON);
      assert.deepEqual(byField.records.map((r) => r.key), ["issues.issue/04"]);
      const byKey = await searchRecords(kv, { kind: "chat.conversation", text: "" }, PERSON);
      assert.deepEqual(byKey.records.map((r) => r.key), ["chat.conversation/a"]);
    });

    await t.step("pages follow their cursor and end without one", async () => {
      const seen: string[] = [];
      let cursor: string | undefined;
      do {
        const page = await searchRecords(kv, { kind: "issues.issue", limit: 5, cursor }, PERSON);
        seen.push(...page.records.map((r) => r.key));
        cursor = page.cursor;
      } while (cursor !== undefined);
      assert.equal(seen.length, 12);
      assert.equal(new Set(seen).size, 12);
    });

    await t.step("a page stops at the records it may read, and goes on from there", async () => {
      const first = await searchRecords(kv, { text: "lovelace" }, { ...PERSON, maxScanned: 3 });
      assert.deepEqual(first.records, []);
      assert.equal(first.scanned, 3);
      assert.ok(first.cursor);
      const found: string[] = [];
      let cursor: string | undefined = first.cursor;
      while (cursor !== undefined) {
        const page = await searchRecords(kv, { text: "lovelace", cursor }, {
          ...PERSON,
          maxScanned: 3,
        });
        assert.ok(page.scanned <= 3);
        found.push(...page.records.map((r) => r.key));
        cursor = page.cursor;
      }
      assert.deepEqual(found, ["issues.issue/04"]);
    });

    await t.step(
      "refuses a text too long, a bad kind, a bad limit and a cursor not its own",
      async () => {
        await assert.rejects(
          searchRecords(kv, { text: "x".repeat(10_000) }, PERSON),
          (error) =>
            error instanceof InvalidInputError && /at most 200 characters/.test(error.message),
        );
        await assert.rejects(searchRecords(kv, { kind: "No Kind" }, PERSON), InvalidInputError);
        await assert.rejects(searchRecords(kv, { limit: 0 }, PERSON), InvalidInputError);
        await assert.rejects(
          searchRecords(kv, { cursor: "not-a-cursor" }, PERSON),
          (error) => error instanceof InvalidInputError && /cannot go on/.test(error.message),
        );
        const page = await searchRecords(kv, { kind: "issues.issue", limit: 2 }, PERSON);
        // Issued for one search, refused for another's words.
        await assert.rejects(
          searchRecords(kv, { kind: "issues.issue", text: "bob", cursor: page.cursor }, PERSON),
          InvalidInputError,
        );
      },
    );
  } finally {
    kv.close();
  }
});

Deno.test("listRecordKinds() names each kind once, counted", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    assert.deepEqual(await listRecordKinds(kv), { kinds: [], more: false });
    for (let i = 0; i < 3; i++) await writeRecord(kv, { key: `issues.issue/${i}` });
    await writeRecord(kv, { key: "issues.issue.old/1" });
    await writeRecord(kv, { key: "chat.conversation/a" });
    assert.deepEqual(await listRecordKinds(kv), {
      kinds: [
        { kind: "chat.conversation", count: 1, more: false },
        // Key order: "." comes before "/".
        { kind: "issues.issue.old", count: 1, more: false },
        { kind: "issues.issue", count: 3, more: false },
      ],
      more: false,
    });
  } finally {
    kv.close();
  }
});
