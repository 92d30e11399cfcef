import assert from "node:assert/strict";
import {
  ConflictError,
  FencedError,
  InvalidInputError,
  PayloadTooLargeError,
  SupersededError,
  SyncError,
} from "../../runtime/errors.ts";
import { bumpGeneration, readGeneration } from "../../runtime/memory/generation.ts";
import { bumpAccountEpoch, readAccountEpoch } from "../../runtime/memory/account_epoch.ts";
import { MemoryTransaction, TRANSACTION_LIMITS } from "../../runtime/memory/transaction.ts";
import { getContent, getRecord, listRecords } from "../../runtime/memory/store.ts";
import { contentChunkKey } from "../../runtime/memory/keys.ts";
import { writeRecord } from "../../runtime/memory/write_record.ts";
import { newCursorSecret, RecordCursors } from "../../runtime/memory/record_cursors.ts";
import { countInPlace } from "../internal/counting_kv.ts";

/** A clock that moves one second per reading. */
function fakeClock(start = "2025-03-01T09:00:00.000Z"): () => Date {
  let time = Date.parse(start);
  return () => new Date(time += 1000);
}

/** A transaction as the host opens one for a call of package `packageId`. */
async function begin(kv: Deno.Kv, packageId = "issues"): Promise<MemoryTransaction> {
  return new MemoryTransaction(kv, {
    packageId,
    generation: await readGeneration(kv, packageId),
    now: fakeClock("2025-03-02T10:00:00.000Z"),
  });
}

/** Every KV entry, to show that a refused commit wrote nothing. */
async function everything(kv: Deno.Kv): Promise<unknown[]> {
  const entries: unknown[] = [];
  for await (const entry of kv.list({ prefix: [] })) entries.push([entry.key, entry.versionstamp]);
  return entries;
}

async function chunkCount(kv: Deno.Kv, key: string): Promise<number> {
  let count = 0;
  for await (const _ of kv.list({ prefix: contentChunkKey(key, "", 0).slice(0, 2) })) count++;
  return count;
}

Deno.test("MemoryTransaction reads its own writes", async (t) => {
  using kv = await Deno.openKv(":memory:");
  const now = fakeClock();
  for (const key of ["issues.issue/a", "issues.issue/c", "issues.issue/e"]) {
    await writeRecord(kv, { key, title: `committed ${key}`, content: `body of ${key}` }, { now });
  }

  await t.step("a staged write shows in record(), content() and list() in key order", async () => {
    const tx = await begin(kv);
    assert.deepEqual(
      await tx.write({ key: "issues.issue/b", title: "new", content: "fresh" }),
      { key: "issues.issue/b", revision: 1 },
    );
    assert.deepEqual(
      await tx.write({ key: "issues.issue/c", title: "changed" }),
      { key: "issues.issue/c", revision: 2 },
    );
    const b = await tx.record("issues.issue/b");
    assert.equal(b?.title, "new");
    assert.equal(b?.updatedBy, "issues");
    assert.equal(b?.updatedAt, "2025-03-02T10:00:01.000Z");
    assert.equal(await tx.content("issues.issue/b"), "fresh");
    assert.equal((await tx.record("issues.issue/c"))?.title, "changed");
    // The title changed; the content stays the committed one.
    assert.equal(await tx.content("issues.issue/c"), "body of issues.issue/c");
    const { records } = await tx.list({ kind: "issues.issue" });
    assert.deepEqual(records.map((r) => [r.key, r.revision]), [
      ["issues.issue/a", 1],
      ["issues.issue/b", 1],
      ["issues.issue/c", 2],
      ["issues.issue/e", 1],
    ]);
    // Nothing is visible outside the transaction before commit.
    assert.equal(await getRecord(kv, "issues.issue/b"), null);
    tx.discard();
  });

  await t.step("a staged removal hides the record", async () => {
    const tx = await begin(kv);
    assert.deepEqual(await tx.remove("issues.issue/c"), { key: "issues.issue/c", removed: true });
    assert.deepEqual(await tx.remove("issues.issue/zz"), {
      key: "issues.issue/zz",
      removed: false,
    });
    assert.equal(await tx.record("issues.issue/c"), null);
    assert.equal(await tx.content("issues.issue/c"), null);
    const { records } = await tx.list({ prefix: "issues." });
    assert.deepEqual(records.map((r) => r.key), ["issues.issue/a", "issues.issue/e"]);
    tx.discard();
  });

  await t.step("cursors page over the merged view", async () => {
    const tx = await begin(kv);
    await tx.write({ key: "issues.issue/b" });
    await tx.write({ key: "issues.issue/d" });
    await tx.write({ key: "issues.issue/f" });
    await tx.remove("issues.issue/c");
    const seen: string[][] = [];
    let cursor: string | undefined;
    do {
      const page = await tx.list({ kind: "issues.issue", limit: 2, cursor });
      seen.push(page.records.map((r) => r.key));
      cursor = page.cursor;
    } while (cursor !== undefined);
    assert.deepEqual(seen, [
      ["issues.issue/a", "issues.issue/b"],
      ["issues.issue/d", "issues.issue/e"],
      ["issues.issue/f"],
    ]);
    tx.discard();
  });

  await t.step("a cursor is good for its package's listing only", async () => {
    const cursors = new RecordCursors(() => Promise.resolve(newCursorSecret()));
    const issues = new MemoryTransaction(kv, {
      packageId: "issues",
      generation: await readGeneration(kv, "issues"),
      cursors,
    });
    const mail = new MemoryTransaction(kv, {
      packageId: "mail",
      generation: await readGeneration(kv, "mail"),
      cursors,
    });
    const { cursor } = await issues.list({ kind: "issues.issue", limit: 1 });
    await assert.rejects(mail.list({ kind: "issues.issue", cursor }), InvalidInputError);
    const next = await issues.list({ kind: "issues.issue", limit: 1, cursor });
    assert.deepEqual(next.records.map((r) => r.key), ["issues.issue/c"]);
    issues.discard();
    mail.discard();
  });

  await t.step("operations run in call order even when not awaited", async () => {
    const tx = await begin(kv);
    const written = tx.write({ key: "issues.issue/g", content: "unawaited" });
    const read = tx.content("issues.issue/g");
    assert.equal(await read, "unawaited");
    assert.equal((await written).revision, 1);
    tx.discard();
  });
});

Deno.test("MemoryTransaction.write() revisions", async (t) => {
  await t.step("a second write to the same key bumps the staged revision again", async () => {
    using kv = await Deno.openKv(":memory:");
    await writeRecord(kv, { key: "issues.issue/1", title: "one" }, { now: fakeClock() });
    const tx = await begin(kv);
    assert.equal((await tx.write({ key: "issues.issue/1", title: "two" })).revision, 2);
    assert.equal(
      (await tx.write({ key: "issues.issue/1", revision: 2, title: "three" })).revision,
      3,
    );
    await tx.commit();
    const record = await getRecord(kv, "issues.issue/1");
    assert.equal(record?.revision, 3);
    assert.equal(record?.title, "three");
  });

  await t.step(
    "a revision that is not the current one is a ConflictError naming both",
    async () => {
      using kv = await Deno.openKv(":memory:");
      const now = fakeClock();
      await writeRecord(kv, { key: "issues.issue/1" }, { now });
      await writeRecord(kv, { key: "issues.issue/1" }, { now });
      const tx = await begin(kv);
      await assert.rejects(
        () => tx.write({ key: "issues.issue/1", revision: 1, title: "stale" }),
        (error: Error) =>
          error instanceof ConflictError && error.message.includes('"issues.issue/1"') &&
          error.message.includes("revision 2") && error.message.includes("revision 1"),
      );
      // Revision 0 means "must not exist yet".
      await assert.rejects(() => tx.write({ key: "issues.issue/1", revision: 0 }), ConflictError);
      assert.equal((await tx.write({ key: "issues.issue/2", revision: 0 })).revision, 1);
      // A refused write stages nothing; the transaction goes on.
      assert.equal((await tx.record("issues.issue/1"))?.revision, 2);
      await tx.commit();
      assert.equal((await getRecord(kv, "issues.issue/1"))?.revision, 2);
      assert.equal((await getRecord(kv, "issues.issue/2"))?.revision, 1);
    },
  );

  await t.step("a record removed and written again in one call starts over", async () => {
    using kv = await Deno.openKv(":memory:");
    await writeRecord(kv, { key: "issues.issue/1", title: "old", content: "x".repeat(90_000) }, {
      now: fakeClock(),
    });
    const tx = await begin(kv);
    await tx.remove("issues.issue/1");
    assert.equal((await tx.write({ key: "issues.issue/1" })).revision, 1);
    assert.equal(await tx.content("issues.issue/1"), "");
    await tx.commit();
    assert.equal((await getRecord(kv, "issues.issue/1"))?.title, "");
    assert.equal(await getContent(kv, "issues.issue/1"), "");
    assert.equal(await chunkCount(kv, "issues.issue/1"), 0);
  });
});

Deno.test("MemoryTransaction.commit()", async (t) => {
  await t.step("applies writes and removals together", async () => {
    using kv = await Deno.openKv(":memory:");
    await writeRecord(kv, { key: "issues.issue/old", content: "y".repeat(200_000) }, {
      now: fakeClock(),
    });
    const tx = await begin(kv);
    await tx.write({ key: "issues.issue/new", fields: { state: "open" }, content: "z" });
    await tx.remove("issues.issue/old");
    const result = await tx.commit();
    assert.deepEqual(result.written, ["issues.issue/new"]);
    assert.deepEqual(result.removed, ["issues.issue/old"]);
    assert.equal(typeof result.versionstamp, "string");
    assert.deepEqual((await getRecord(kv, "issues.issue/new"))?.fields, { state: "open" });
    assert.equal(await getContent(kv, "issues.issue/new"), "z");
    assert.equal(await getRecord(kv, "issues.issue/old"), null);
    assert.equal(await chunkCount(kv, "issues.issue/old"), 0);
  });

  await t.step("a concurrent commit on the same key makes the second a ConflictError", async () => {
    using kv = await Deno.openKv(":memory:");
    await writeRecord(kv, { key: "issues.issue/1", title: "base" }, { now: fakeClock() });
    const first = await begin(kv);
    const second = await begin(kv);
    await first.write({ key: "issues.issue/1", title: "first" });
    await second.write({ key: "issues.issue/1", title: "second" });
    await second.write({ key: "issues.issue/2", title: "also second" });
    await first.commit();
    const before = await everything(kv);
    await assert.rejects(
      () => second.commit(),
      (error: Error) =>
        error instanceof ConflictError && error.message.includes('"issues.issue/1"'),
    );
    assert.deepEqual(await everything(kv), before);
    assert.equal((await getRecord(kv, "issues.issue/1"))?.title, "first");
    assert.equal(await getRecord(kv, "issues.issue/2"), null);
  });

  await t.step("two calls creating the same new key: the second conflicts", async () => {
    using kv = await Deno.openKv(":memory:");
    const first = await begin(kv);
    const second = await begin(kv);
    await first.write({ key: "issues.issue/1", title: "first" });
    await second.write({ key: "issues.issue/1", title: "second" });
    await first.commit();
    await assert.rejects(() => second.commit(), ConflictError);
    assert.equal((await getRecord(kv, "issues.issue/1"))?.title, "first");
  });

  await t.step("refuses a superseded generation", async () => {
    using kv = await Deno.openKv(":memory:");
    await writeRecord(kv, { key: "issues.issue/1", title: "base" }, { now: fakeClock() });
    const tx = await begin(kv);
    await tx.write({ key: "issues.issue/1", title: "late" });
    await tx.write({ key: "issues.issue/2", content: "late" });
    await bumpGeneration(kv, "issues");
    const before = await everything(kv);
    await assert.rejects(
      () => tx.commit(),
      (error: Error) =>
        error instanceof SupersededError &&
        error.message.includes(
          "paused, removed or updated while the call ran; nothing was committed",
        ),
    );
    assert.deepEqual(await everything(kv), before);
    assert.equal((await getRecord(kv, "issues.issue/1"))?.title, "base");
  });

  await t.step("another package's generation does not fence this one", async () => {
    using kv = await Deno.openKv(":memory:");
    const tx = await begin(kv, "issues");
    await tx.write({ key: "issues.issue/1" });
    await bumpGeneration(kv, "mail");
    await tx.commit();
    assert.equal((await getRecord(kv, "issues.issue/1"))?.updatedBy, "issues");
  });

  await t.step("a superseded call that wrote nothing is still told so", async () => {
    using kv = await Deno.openKv(":memory:");
    await bumpGeneration(kv, "issues");
    const tx = await begin(kv);
    await bumpGeneration(kv, "issues");
    await assert.rejects(() => tx.commit(), SupersededError);
  });
});

Deno.test("MemoryTransaction.discard() and a finished transaction", async (t) => {
  await t.step("discard() writes nothing", async () => {
    using kv = await Deno.openKv(":memory:");
    const tx = await begin(kv);
    await tx.write({ key: "issues.issue/1", content: "never" });
    tx.discard();
    assert.deepEqual(await everything(kv), []);
  });

  await t.step("after commit or discard every use throws", async () => {
    using kv = await Deno.openKv(":memory:");
    const committed = await begin(kv);
    await committed.commit();
    const discarded = await begin(kv);
    discarded.discard();
    for (const tx of [committed, discarded]) {
      await assert.rejects(() => tx.write({ key: "issues.issue/1" }), SyncError);
      await assert.rejects(() => tx.remove("issues.issue/1"), SyncError);
      await assert.rejects(() => tx.record("issues.issue/1"), SyncError);
      await assert.rejects(() => tx.content("issues.issue/1"), SyncError);
      await assert.rejects(() => tx.list(), SyncError);
      await assert.rejects(() => tx.commit(), SyncError);
      assert.throws(() => tx.discard(), SyncError);
    }
  });
});

Deno.test("MemoryTransaction refuses more than one commit can hold", async (t) => {
  await t.step("oversize title, fields and content are PayloadTooLargeError", async () => {
    using kv = await Deno.openKv(":memory:");
    const tx = await begin(kv);
    await assert.rejects(
      () => tx.write({ key: "issues.issue/1", title: "t".repeat(501) }),
      (error: Error) => error instanceof PayloadTooLargeError && error.message.includes('"title"'),
    );
    await assert.rejects(
      () => tx.write({ key: "issues.issue/1", fields: { big: "f".repeat(40_000) } }),
      (error: Error) => error instanceof PayloadTooLargeError && error.message.includes('"fields"'),
    );
    await assert.rejects(
      () => tx.write({ key: "issues.issue/1", content: "c".repeat(600 * 1024) }),
      (error: Error) =>
        error instanceof PayloadTooLargeError && error.message.includes('"content"'),
    );
    await assert.rejects(() => tx.write({ key: "no-slash" }), InvalidInputError);
  });

  await t.step(
    "a write taking the call past 700 KiB is refused; what was staged stays",
    async () => {
      using kv = await Deno.openKv(":memory:");
      const tx = await begin(kv);
      await tx.write({ key: "issues.issue/1", content: "a".repeat(400 * 1024) });
      await assert.rejects(
        () => tx.write({ key: "issues.issue/2", content: "b".repeat(400 * 1024) }),
        (error: Error) =>
          error instanceof PayloadTooLargeError && error.message.includes('"issues.issue/2"') &&
          error.message.includes(String(TRANSACTION_LIMITS.maxBytes)),
      );
      // Rewriting a staged record replaces its share rather than adding to it.
      await tx.write({ key: "issues.issue/1", content: "a".repeat(500 * 1024) });
      await tx.commit();
      assert.equal((await getContent(kv, "issues.issue/1"))?.length, 500 * 1024);
      assert.equal(await getRecord(kv, "issues.issue/2"), null);
    },
  );

  await t.step(
    "a call may change more records than KV checks one by one, within its entries and bytes",
    async () => {
      using kv = await Deno.openKv(":memory:");
      const tx = await begin(kv);
      for (let i = 0; i < 400; i++) {
        await tx.write({ key: `issues.issue/${i}`, content: `body ${i}` });
      }
      const result = await tx.commit();
      assert.equal(result.written.length, 400);
      assert.equal((await listRecords(kv, { limit: 500 })).records.length, 400);
      assert.equal(await getContent(kv, "issues.issue/399"), "body 399");
      // Each record with content is two stored entries: past 1,000 the write is refused.
      const more = await begin(kv);
      let staged = 0;
      await assert.rejects(
        async () => {
          for (; staged < 600; staged++) {
            await more.write({ key: `issues.note/${staged}`, content: "x" });
          }
        },
        (error: Error) =>
          error instanceof PayloadTooLargeError && error.message.includes("stored entries") &&
          error.message.includes(String(TRANSACTION_LIMITS.maxMutations)),
      );
      assert.ok(staged > 490 && staged < 500, `refused at ${staged}`);
      // What was staged before stays staged, and commits.
      assert.equal((await more.commit()).written.length, staged);
    },
  );

  await t.step(
    "past 98 records, a record written by someone else meanwhile refuses the whole commit",
    async () => {
      using kv = await Deno.openKv(":memory:");
      await writeRecord(kv, { key: "issues.issue/50", title: "before" });
      const tx = await begin(kv);
      for (let i = 0; i < 150; i++) await tx.write({ key: `issues.issue/${i}`, title: "mine" });
      const other = await begin(kv);
      await other.write({ key: "issues.issue/50", title: "theirs" });
      await other.commit();
      const before = await everything(kv);
      await assert.rejects(
        () => tx.commit(),
        (error: Error) =>
          error instanceof ConflictError && error.message.includes('"issues.issue/50"'),
      );
      assert.deepEqual(await everything(kv), before);
      assert.equal((await getRecord(kv, "issues.issue/50"))?.title, "theirs");
    },
  );

  await t.step(
    "past 98 records, a commit of the same kind landing while it commits refuses it",
    async () => {
      using base = await Deno.openKv(":memory:");
      // Another call commits a record of the kind just after the commit read the kind's count.
      let reads = 0;
      const kv = new Proxy(base, {
        get(target, name) {
          if (name === "getMany") {
            return async (keys: Deno.KvKey[]) => {
              if (++reads === 2) {
                const other = await begin(base);
                await other.write({ key: "issues.issue/elsewhere", title: "theirs" });
                await other.commit();
              }
              return await target.getMany(keys);
            };
          }
          const value = Reflect.get(target, name);
          return typeof value === "function" ? value.bind(target) : value;
        },
      });
      const tx = await begin(kv);
      for (let i = 0; i < 120; i++) await tx.write({ key: `issues.issue/${i}` });
      await assert.rejects(
        () => tx.commit(),
        (error: Error) =>
          error instanceof ConflictError && error.message.includes('"issues.issue"') &&
          error.message.includes("120 records"),
      );
      assert.ok(reads >= 2);
      assert.equal(await getRecord(base, "issues.issue/0"), null);
      // Made again, it commits: nothing else is writing.
      const again = await begin(base);
      for (let i = 0; i < 120; i++) await again.write({ key: `issues.issue/${i}` });
      assert.equal((await again.commit()).written.length, 120);
    },
  );

  await t.step("a commit of many large removals stays within KV's limits", async () => {
    using kv = await Deno.openKv(":memory:");
    const now = fakeClock();
    const keys = Array.from({ length: 20 }, (_, i) => `issues.issue/${"k".repeat(250)}${i}`);
    for (const key of keys) {
      await writeRecord(kv, { key, content: "x".repeat(500 * 1024) }, { now });
    }
    const tx = await begin(kv);
    for (const key of keys) await tx.remove(key);
    await tx.commit();
    // What is left is the kind's count of commits.
    const left = await everything(kv) as [Deno.KvKey, string][];
    assert.deepEqual(left.map(([key]) => key), [["kind_commits", "issues.issue"]]);
  });
});

Deno.test("MemoryTransaction.stageEntry() commits entries with the records, or neither", async (t) => {
  const OUTBOX = ["work_order"];
  const bytes = (text: string) => new TextEncoder().encode(text);

  await t.step(
    "an entry reads back staged, and is set by the same commit as the records",
    async () => {
      using kv = await Deno.openKv(":memory:");
      const tx = await begin(kv);
      await tx.write({ key: "issues.issue/1", title: "one" });
      await tx.stageEntry([...OUTBOX, "a"], bytes("order a"), "work.order()");
      assert.deepEqual(await tx.entry([...OUTBOX, "a"]), bytes("order a"));
      assert.equal(await tx.entry([...OUTBOX, "b"]), null);
      assert.equal(
        (await kv.get([...OUTBOX, "a"])).value,
        null,
        "nothing is written before commit",
      );
      const { versionstamp } = await tx.commit();
      const entry = await kv.get([...OUTBOX, "a"]);
      assert.deepEqual(entry.value, bytes("order a"));
      assert.equal(entry.versionstamp, versionstamp, "one atomic write");
      assert.equal((await getRecord(kv, "issues.issue/1"))?.title, "one");
      const later = await begin(kv);
      assert.deepEqual(await later.entry([...OUTBOX, "a"]), bytes("order a"), "committed");
    },
  );

  await t.step("a refused commit writes neither the records nor the entries", async () => {
    using kv = await Deno.openKv(":memory:");
    const tx = await begin(kv);
    await tx.write({ key: "issues.issue/1", title: "one" });
    await tx.stageEntry([...OUTBOX, "a"], bytes("order a"), "work.order()");
    await bumpGeneration(kv, "issues");
    const before = await everything(kv);
    await assert.rejects(() => tx.commit(), SupersededError);
    assert.deepEqual(await everything(kv), before);
  });

  await t.step("discard() drops staged entries", async () => {
    using kv = await Deno.openKv(":memory:");
    const tx = await begin(kv);
    await tx.stageEntry([...OUTBOX, "a"], bytes("order a"), "work.order()");
    tx.discard();
    assert.deepEqual(await everything(kv), []);
  });

  await t.step(
    "a record's, a chunk's, a generation's or an epoch's key is never an entry",
    async () => {
      using kv = await Deno.openKv(":memory:");
      const tx = await begin(kv);
      const keys = [
        ["record", "issues.issue/1"],
        ["content", "x"],
        ["generation", "issues"],
        ["account_epoch", "issues"],
      ];
      for (const key of keys) {
        await assert.rejects(() => tx.stageEntry(key, bytes("x"), "work.order()"), TypeError);
      }
      await assert.rejects(
        () =>
          tx.stageEntry(OUTBOX, bytes("x"), "work.order()").then(() =>
            tx.stageEntry(OUTBOX, bytes("y"), "work.order()")
          ),
        /staged \["work_order"\] already/,
      );
    },
  );

  await t.step(
    "an entry past one value, or past the commit with the records, is refused",
    async () => {
      using kv = await Deno.openKv(":memory:");
      const tx = await begin(kv);
      await assert.rejects(
        () => tx.stageEntry([...OUTBOX, "big"], new Uint8Array(64 * 1024 + 1), "work.order()"),
        (error: Error) => {
          assert.ok(error instanceof PayloadTooLargeError);
          assert.match(
            error.message,
            /^work\.order\(\): it is 65537 bytes as stored, at most 65536/,
          );
          return true;
        },
      );
      let staged = 0;
      const refusal = await (async () => {
        while (true) {
          try {
            await tx.stageEntry(
              [...OUTBOX, `e${staged}`],
              new Uint8Array(60 * 1024),
              "work.order()",
            );
            staged++;
          } catch (error) {
            return error as Error;
          }
        }
      })();
      assert.ok(refusal instanceof PayloadTooLargeError);
      assert.equal(staged, 11, "eleven of 60 KiB fit in 700 KiB");
      await assert.rejects(
        () => tx.write({ key: "issues.issue/1", content: "x".repeat(40 * 1024) }),
        PayloadTooLargeError,
        "the records share what the entries left",
      );
      await tx.commit();
      let committed = 0;
      for await (const _ of kv.list({ prefix: OUTBOX })) committed++;
      assert.equal(committed, 11);
    },
  );

  await t.step("entries count against the 1000 mutations of one commit", async () => {
    using kv = await Deno.openKv(":memory:");
    const tx = await begin(kv);
    for (let i = 0; i < TRANSACTION_LIMITS.maxMutations; i++) {
      await tx.stageEntry([...OUTBOX, `e${i}`], bytes("x"), "work.order()");
    }
    await assert.rejects(
      () => tx.stageEntry([...OUTBOX, "one-more"], bytes("x"), "work.order()"),
      /at most 1000 allowed/,
    );
    await assert.rejects(() => tx.write({ key: "issues.issue/1" }), /at most 1000 allowed/);
    await tx.commit();
  });
});

Deno.test("MemoryTransaction under a generation still being read", async (t) => {
  const kv = await Deno.openKv(":memory:");
  try {
    await writeRecord(kv, { key: "issues.issue/1", title: "One" });

    await t.step("makes its read at once, and answers once the generation is read", async () => {
      // A KV that tells when a listing has read its first batch.
      let read = false;
      const counted = new Proxy(kv, {
        get(target, name) {
          if (name !== "list") {
            const value = Reflect.get(target, name);
            return typeof value === "function" ? value.bind(target) : value;
          }
          return (...args: Parameters<Deno.Kv["list"]>) => {
            const entries = target.list(...args);
            return {
              async next() {
                const next = await entries.next();
                read = true;
                return next;
              },
              [Symbol.asyncIterator]() {
                return this;
              },
            };
          };
        },
      });
      const { promise: generation, resolve } = Promise.withResolvers<
        Awaited<ReturnType<typeof readGeneration>>
      >();
      const transaction = new MemoryTransaction(counted, { packageId: "issues", generation });
      let answered = false;
      const page = transaction.list({ kind: "issues.issue" }).then((page) => {
        answered = true;
        return page;
      });
      // The read is made while the generation is not read yet, and does not answer.
      while (!read) await new Promise((next) => setTimeout(next, 1));
      await Promise.resolve();
      assert.equal(answered, false);
      resolve(await readGeneration(kv, "issues"));
      assert.deepEqual((await page).records.map((r) => r.key), ["issues.issue/1"]);
      await transaction.write({ key: "issues.issue/2", title: "Two" });
      assert.ok((await transaction.commit()).written.includes("issues.issue/2"));
    });

    await t.step("fails its reads and its commit as the generation's read failed", async () => {
      const unread = Promise.reject(new SyncError("the project's memory cannot be read"));
      const transaction = new MemoryTransaction(kv, { packageId: "issues", generation: unread });
      await assert.rejects(transaction.list({ kind: "issues.issue" }), /cannot be read/);
      await assert.rejects(transaction.commit(), /cannot be read/);
    });

    await t.step(
      "a write refused before the generation is read fails once it is read, and is no stray failure",
      async () => {
        const { promise: generation, resolve } = Promise.withResolvers<
          Awaited<ReturnType<typeof readGeneration>>
        >();
        const transaction = new MemoryTransaction(kv, { packageId: "issues", generation });
        const refused = transaction.write({ key: "issues.issue/4", title: "t\uDC00" });
        // A whole turn of the event loop passes with the write refused and the
        // generation unread: an unhandled refusal would fail this test here.
        await new Promise((next) => setTimeout(next, 0));
        resolve(await readGeneration(kv, "issues"));
        await assert.rejects(refused, /unpaired surrogate/);
      },
    );

    await t.step(
      "a generation that moved on while it was read still refuses the commit",
      async () => {
        const generation = readGeneration(kv, "issues");
        const transaction = new MemoryTransaction(kv, { packageId: "issues", generation });
        await transaction.write({ key: "issues.issue/3", title: "Three" });
        await bumpGeneration(kv, "issues");
        await assert.rejects(transaction.commit(), SupersededError);
      },
    );
  } finally {
    kv.close();
  }
});

/** A transaction as the host opens one for a step of package `packageId`'s device task. */
async function beginStep(kv: Deno.Kv, packageId = "mail"): Promise<MemoryTransaction> {
  return new MemoryTransaction(kv, {
    packageId,
    generation: await readGeneration(kv, packageId),
    accountEpoch: await readAccountEpoch(kv, packageId),
    now: fakeClock("2025-03-02T10:00:00.000Z"),
  });
}

Deno.test("`MemoryTransaction.commit()` is fenced by the account epoch a task step began under", async (t) => {
  await t.step("a step commits while the epoch is the one it began under", async () => {
    using kv = await Deno.openKv(":memory:");
    await bumpAccountEpoch(kv, "mail");
    const tx = await beginStep(kv);
    await tx.write({ key: "mail.message/1", title: "kept" });
    await tx.commit();
    assert.equal((await getRecord(kv, "mail.message/1"))?.title, "kept");
  });

  await t.step("an epoch bumped between start and commit refuses it, writing nothing", async () => {
    using kv = await Deno.openKv(":memory:");
    await writeRecord(kv, { key: "mail.message/1", title: "base" }, { now: fakeClock() });
    const tx = await beginStep(kv);
    await tx.write({ key: "mail.message/1", title: "late" });
    await tx.write({ key: "mail.message/2", content: "late" });
    await bumpAccountEpoch(kv, "mail");
    const before = await everything(kv);
    await assert.rejects(
      () => tx.commit(),
      (error: Error) =>
        error instanceof FencedError && error.name === "FencedError" &&
        error.message.includes(
          "the device's account changed while this run was going; nothing of it was kept " +
            "(account epoch 0, now 1)",
        ),
    );
    assert.deepEqual(await everything(kv), before);
    assert.equal((await getRecord(kv, "mail.message/1"))?.title, "base");
    assert.equal(await getRecord(kv, "mail.message/2"), null);
  });

  await t.step("orders staged beside the records are not kept either", async () => {
    using kv = await Deno.openKv(":memory:");
    const tx = await beginStep(kv);
    await tx.stageEntry(["outbox", "a"], new TextEncoder().encode("order"), "work.order()");
    await bumpAccountEpoch(kv, "mail");
    const before = await everything(kv);
    await assert.rejects(() => tx.commit(), FencedError);
    assert.deepEqual(await everything(kv), before);
    assert.equal((await kv.get(["outbox", "a"])).versionstamp, null);
  });

  await t.step(
    "a bump between the commit's read of the epoch and its write refuses it",
    async () => {
      using kv = await Deno.openKv(":memory:");
      // The memory as the commit sees it: its read of the epoch answers the epoch as it was,
      // and the epoch is bumped before the answer arrives, as another process would.
      let bumpOnRead = false;
      const racing = new Proxy(kv, {
        get(target, name) {
          if (name === "get") {
            return async (key: Deno.KvKey) => {
              const entry = await target.get(key);
              if (bumpOnRead && key[0] === "account_epoch") {
                bumpOnRead = false;
                await bumpAccountEpoch(target, "mail");
              }
              return entry;
            };
          }
          const value = Reflect.get(target, name);
          return typeof value === "function" ? value.bind(target) : value;
        },
      });
      const tx = await beginStep(racing);
      await tx.write({ key: "mail.message/1" });
      bumpOnRead = true;
      await assert.rejects(() => tx.commit(), FencedError);
      assert.equal(bumpOnRead, false, "the commit read the epoch");
      assert.equal(await getRecord(kv, "mail.message/1"), null);
    },
  );

  await t.step("another package's epoch does not fence this one", async () => {
    using kv = await Deno.openKv(":memory:");
    const tx = await beginStep(kv, "mail");
    await tx.write({ key: "mail.message/1" });
    await bumpAccountEpoch(kv, "calendar");
    await tx.commit();
    assert.equal((await getRecord(kv, "mail.message/1"))?.updatedBy, "mail");
  });

  await t.step("a call without an epoch is not fenced by one", async () => {
    using kv = await Deno.openKv(":memory:");
    const tx = await begin(kv, "mail");
    await tx.write({ key: "mail.message/1" });
    await bumpAccountEpoch(kv, "mail");
    await tx.commit();
    assert.notEqual(await getRecord(kv, "mail.message/1"), null);
  });

  await t.step("a superseded step is told as superseded, not fenced", async () => {
    using kv = await Deno.openKv(":memory:");
    const tx = await beginStep(kv);
    await tx.write({ key: "mail.message/1" });
    await bumpAccountEpoch(kv, "mail");
    await bumpGeneration(kv, "mail");
    await assert.rejects(() => tx.commit(), SupersededError);
  });

  await t.step("a step that staged nothing has nothing to fence", async () => {
    using kv = await Deno.openKv(":memory:");
    const tx = await beginStep(kv);
    await bumpAccountEpoch(kv, "mail");
    const result = await tx.commit();
    assert.deepEqual(result.changes, []);
  });

  await t.step(
    "a step's commit of more records than KV checks one by one is fenced too",
    async () => {
      using kv = await Deno.openKv(":memory:");
      const tx = await beginStep(kv);
      for (let i = 0; i < 150; i++) await tx.write({ key: `mail.message/${i}` });
      await bumpAccountEpoch(kv, "mail");
      await assert.rejects(() => tx.commit(), FencedError);
      assert.equal((await listRecords(kv, { limit: 500 })).records.length, 0);
      const next = await beginStep(kv);
      for (let i = 0; i < 150; i++) await next.write({ key: `mail.message/${i}` });
      assert.equal((await next.commit()).written.length, 150);
    },
  );

  await t.step("an epoch without a package, or not a whole number, is refused", async () => {
    using kv = await Deno.openKv(":memory:");
    assert.throws(() => new MemoryTransaction(kv, { accountEpoch: 1 }), TypeError);
    for (const accountEpoch of [-1, 1.5, NaN]) {
      assert.throws(
        () =>
          new MemoryTransaction(kv, {
            packageId: "mail",
            generation: { value: 0, versionstamp: null },
            accountEpoch,
          }),
        TypeError,
      );
    }
  });
});

Deno.test("MemoryTransaction under a generation kept from an earlier call", async (t) => {
  const kv = await Deno.openKv(":memory:");
  const counting = countInPlace(kv);
  /** A transaction handed the generation as it stands now, as kept. */
  const kept = async () =>
    new MemoryTransaction(kv, {
      packageId: "issues",
      generation: await readGeneration(kv, "issues"),
      generationKept: true,
    });
  try {
    await writeRecord(kv, { key: "issues.issue/1", title: "One" });

    await t.step("reads without reading the generation; its first write proves it", async () => {
      const transaction = await kept();
      counting.reset();
      assert.equal((await transaction.list({ kind: "issues.issue" })).records.length, 1);
      assert.deepEqual(counting.count.keysRead, ["record/…"]);
      assert.equal(transaction.provenGeneration, null);
      counting.reset();
      await transaction.write({ key: "issues.issue/2", title: "Two" });
      await transaction.write({ key: "issues.issue/3", title: "Three" });
      assert.deepEqual(counting.count.keysRead, [
        "generation/issues",
        "record/issues.issue/2",
        "record/issues.issue/3",
      ]);
      assert.ok(transaction.provenGeneration);
      assert.deepEqual((await transaction.commit()).written, ["issues.issue/2", "issues.issue/3"]);
    });

    await t.step("moved on before anything was read, it runs under the current one", async () => {
      const transaction = await kept();
      await bumpGeneration(kv, "issues");
      await transaction.write({ key: "issues.issue/4", title: "Four" });
      assert.equal(transaction.generationMoved, false);
      assert.deepEqual(transaction.provenGeneration, await readGeneration(kv, "issues"));
      assert.deepEqual((await transaction.commit()).written, ["issues.issue/4"]);
    });

    await t.step(
      "moved on after a read, its writes and its commit are refused and nothing is written",
      async () => {
        const transaction = await kept();
        await transaction.record("issues.issue/1");
        await bumpGeneration(kv, "issues");
        const before = await everything(kv);
        await assert.rejects(transaction.write({ key: "issues.issue/5", title: "Five" }), {
          name: "SupersededError",
          message: /paused, removed or updated while the call ran; nothing was committed/,
        });
        assert.equal(transaction.generationMoved, true);
        assert.equal(transaction.provenGeneration, null);
        await assert.rejects(transaction.remove("issues.issue/1"), SupersededError);
        await assert.rejects(transaction.proveGeneration(), SupersededError);
        await assert.rejects(transaction.commit(), SupersededError);
        assert.deepEqual(await everything(kv), before);
      },
    );

    await t.step(
      "moved on by a bump made while it ran, its first write is refused even before any read",
      async () => {
        let bumped = false;
        const transaction = new MemoryTransaction(kv, {
          packageId: "issues",
          generation: await readGeneration(kv, "issues"),
          generationKept: true,
          bumpedSince: () => bumped,
        });
        await bumpGeneration(kv, "issues");
        bumped = true;
        await assert.rejects(
          transaction.write({ key: "issues.issue/7", title: "Seven" }),
          SupersededError,
        );
        // Superseded while it ran: it is not one to be made again.
        assert.equal(transaction.generationMoved, false);
        assert.equal(transaction.supersededBy?.name, "SupersededError");
        await assert.rejects(transaction.commit(), SupersededError);
        assert.equal(await getRecord(kv, "issues.issue/7"), null);
      },
    );

    await t.step("proven before any write, it is proven once", async () => {
      const transaction = await kept();
      await transaction.list({ kind: "issues.issue" });
      counting.reset();
      await transaction.proveGeneration();
      await transaction.write({ key: "issues.issue/6", title: "Six" });
      assert.deepEqual(counting.count.keysRead, ["generation/issues", "record/issues.issue/6"]);
      await transaction.commit();
    });

    await t.step("a commit of nothing after a read checks the generation", async () => {
      const unchanged = await kept();
      await unchanged.list({ kind: "issues.issue" });
      assert.deepEqual((await unchanged.commit()).written, []);
      const moved = await kept();
      await moved.list({ kind: "issues.issue" });
      await bumpGeneration(kv, "issues");
      await assert.rejects(moved.commit(), SupersededError);
    });
  } finally {
    counting.restore();
    kv.close();
  }
});
