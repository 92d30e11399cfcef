import assert from "node:assert/strict";
import { join } from "node:path";
import { InvalidInputError, PayloadTooLargeError } from "../../runtime/errors.ts";
import { RECORD_LIMITS } from "../../runtime/limits.ts";
import {
  CONTENT_CHUNK_BYTES,
  encodeStoredRecord,
  getContent,
  getRecord,
  listRecordPage,
  listRecords,
  openProjectMemory,
  projectMemoryPath,
  removeProjectMemory,
} from "../../runtime/memory/store.ts";
import { contentChunkKey, recordKey } from "../../runtime/memory/keys.ts";
import { writeRecord } from "../../runtime/memory/write_record.ts";
import { Host } from "../../runtime/host/host.ts";
import { testHost } from "../internal/packages.ts";

/** A clock that moves one second per reading. */
function fakeClock(start = "2025-03-01T09:00:00.000Z"): () => Date {
  let time = Date.parse(start);
  return () => new Date(time += 1000);
}

/** Stored content chunk entries of a record, whatever version they belong to. */
async function chunkCount(kv: Deno.Kv, key: string): Promise<number> {
  let count = 0;
  const prefix = contentChunkKey(key, "", 0).slice(0, 2);
  for await (const _ of kv.list({ prefix })) count++;
  return count;
}

Deno.test("openProjectMemory() keeps memory inside the project", async (t) => {
  const projectDir = await Deno.makeTempDir();
  try {
    await t.step("the path is <project>/.sync/memory.kv", () => {
      assert.equal(projectMemoryPath(projectDir), join(projectDir, ".sync", "memory.kv"));
    });

    await t.step("it creates .sync/ and what is written survives reopening", async () => {
      {
        using kv = await openProjectMemory(projectDir);
        await writeRecord(kv, { key: "notes.note/first", title: "First" }, { now: fakeClock() });
      }
      assert.ok((await Deno.stat(join(projectDir, ".sync"))).isDirectory);
      using kv = await openProjectMemory(projectDir);
      assert.equal((await getRecord(kv, "notes.note/first"))?.title, "First");
    });
  } finally {
    await Deno.remove(projectDir, { recursive: true });
  }
});

Deno.test("a project memory that is not a database is refused by name and kept as it was", async (t) => {
  const env = await testHost();
  const file = projectMemoryPath(env.project);
  const garbage = new TextEncoder().encode("not a database, and never one ".repeat(20));
  // The memory install opened is closed, so nothing holds the file that is replaced.
  let host: Host | undefined;
  try {
    await env.install({
      id: "notes",
      handlers: ["notes.write", "notes.quiet"],
      service: `import { memory } from "@sync/extension-api/service";
export default function register() {
  return {
    "notes.write": () => memory.write({ key: "notes.note/1", title: "One" }),
    "notes.quiet": () => typeof memory.write,
  };
}`,
    });
    await env.host.close();
    await removeProjectMemory(env.project);
    await Deno.writeFile(file, garbage);
    host = new Host({ kv: env.kv, home: env.home });
    const call = () =>
      host!.callHandler(env.project, "notes", "notes.write", {
        occasion: { kind: "extension" },
        source: { kind: "person" },
      });

    await t.step("openProjectMemory() names the file and says how to move it aside", async () => {
      await assert.rejects(openProjectMemory(env.project), (error: Error) => {
        assert.equal(error.name, "MemoryUnreadableError");
        assert.ok(error.message.includes(file), error.message);
        assert.match(error.message, /is not a database/);
        assert.match(error.message, /move .*memory\.kv.*-wal.*-shm.* aside/);
        return true;
      });
      assert.deepEqual(await Deno.readFile(file), garbage, "the file is kept as it was");
    });

    await t.step(
      "a handler call there is refused with that error, and runs once it is moved",
      async () => {
        await assert.rejects(call(), { name: "MemoryUnreadableError" });
        assert.deepEqual(await Deno.readFile(file), garbage);
        // A handler that reaches for no memory is not failed by it.
        const quiet = await host!.callHandler(env.project, "notes", "notes.quiet", {
          occasion: { kind: "extension" },
          source: { kind: "person" },
        });
        assert.equal(quiet.value, "function");
        await Deno.rename(file, `${file}.broken`);
        await call();
        using kv = await openProjectMemory(env.project);
        assert.equal((await getRecord(kv, "notes.note/1"))?.title, "One");
      },
    );
  } finally {
    await host?.close();
    await env.close();
  }
});

Deno.test("`removeProjectMemory()` deletes the database and the files SQLite keeps beside it", async (t) => {
  const projectDir = await Deno.makeTempDir();
  const path = projectMemoryPath(projectDir);
  const exists = (file: string) => Deno.stat(file).then(() => true, () => false);
  try {
    await t.step("the database and its -wal, -shm and -journal files go", async () => {
      {
        using kv = await openProjectMemory(projectDir);
        await writeRecord(kv, { key: "notes.note/first", title: "First" }, { now: fakeClock() });
      }
      // SQLite leaves these only while open or after a crash; stand them in so each is seen to go.
      for (const suffix of ["-wal", "-shm", "-journal"]) {
        await Deno.writeTextFile(path + suffix, "");
      }
      await removeProjectMemory(projectDir);
      for (const suffix of ["", "-wal", "-shm", "-journal"]) {
        assert.equal(await exists(path + suffix), false, `${path}${suffix} is left`);
      }
    });

    await t.step("a memory already gone is passed over, and the folder stays", async () => {
      await removeProjectMemory(projectDir);
      assert.ok((await Deno.stat(join(projectDir, ".sync"))).isDirectory);
    });
  } finally {
    await Deno.remove(projectDir, { recursive: true });
  }
});

Deno.test("writeRecord() and the readers", async (t) => {
  await t.step(
    "a new record takes defaults, revision 1, the clock's time and the writer",
    async () => {
      using kv = await Deno.openKv(":memory:");
      const written = await writeRecord(kv, { key: "issues.issue/1" }, {
        now: () => new Date("2025-03-01T09:00:00.000Z"),
      });
      assert.deepEqual(written, { key: "issues.issue/1", revision: 1 });
      assert.deepEqual(await getRecord(kv, "issues.issue/1"), {
        key: "issues.issue/1",
        kind: "issues.issue",
        title: "",
        fields: {},
        revision: 1,
        updatedAt: "2025-03-01T09:00:00.000Z",
        updatedBy: "person",
      });
      assert.equal(await getContent(kv, "issues.issue/1"), "");
    },
  );

  await t.step("values round trip, and a later write keeps what it does not give", async () => {
    using kv = await Deno.openKv(":memory:");
    const now = fakeClock();
    await writeRecord(kv, {
      key: "issues.issue/2",
      title: "Crash on start",
      fields: { state: "open", labels: ["bug"], votes: 3 },
      content: "Steps: open the app. Résumé ✓ 🚀",
    }, { now, by: "issues" });
    const second = await writeRecord(kv, { key: "issues.issue/2", fields: { state: "closed" } }, {
      now,
    });
    assert.equal(second.revision, 2);
    const record = await getRecord(kv, "issues.issue/2");
    assert.equal(record?.title, "Crash on start");
    // `fields` is replaced as a whole: a given value replaces that value.
    assert.deepEqual(record?.fields, { state: "closed" });
    assert.equal(record?.updatedBy, "person");
    assert.equal(record?.updatedAt, "2025-03-01T09:00:02.000Z");
    assert.equal(await getContent(kv, "issues.issue/2"), "Steps: open the app. Résumé ✓ 🚀");
  });

  await t.step("an absent record reads as null", async () => {
    using kv = await Deno.openKv(":memory:");
    assert.equal(await getRecord(kv, "issues.issue/none"), null);
    assert.equal(await getContent(kv, "issues.issue/none"), null);
  });

  await t.step("content over Deno KV's 64 KiB value limit round trips", async () => {
    using kv = await Deno.openKv(":memory:");
    // Multi-byte characters make chunk boundaries fall inside characters.
    const content = "héllo wörld ✓ 🚀\n".repeat(Math.ceil((300 * 1024) / 25)).slice(0, 300 * 1024);
    await writeRecord(kv, { key: "docs.page/big", content }, { now: fakeClock() });
    assert.equal(await getContent(kv, "docs.page/big"), content);
    const bytes = new TextEncoder().encode(content).byteLength;
    assert.equal(await chunkCount(kv, "docs.page/big"), Math.ceil(bytes / CONTENT_CHUNK_BYTES));
  });

  await t.step("shrinking content removes the stale chunks", async () => {
    using kv = await Deno.openKv(":memory:");
    const now = fakeClock();
    await writeRecord(kv, { key: "docs.page/big", content: "x".repeat(300 * 1024) }, { now });
    assert.equal(await chunkCount(kv, "docs.page/big"), 5);
    await writeRecord(kv, { key: "docs.page/big", content: "y".repeat(70 * 1024) }, { now });
    assert.equal(await chunkCount(kv, "docs.page/big"), 2);
    assert.equal(await getContent(kv, "docs.page/big"), "y".repeat(70 * 1024));
    await writeRecord(kv, { key: "docs.page/big", content: "" }, { now });
    assert.equal(await chunkCount(kv, "docs.page/big"), 0);
    assert.equal(await getContent(kv, "docs.page/big"), "");
  });

  await t.step("a write that leaves content alone keeps it", async () => {
    using kv = await Deno.openKv(":memory:");
    const now = fakeClock();
    await writeRecord(kv, { key: "docs.page/a", content: "z".repeat(100 * 1024) }, { now });
    await writeRecord(kv, { key: "docs.page/a", title: "Renamed" }, { now });
    assert.equal(await getContent(kv, "docs.page/a"), "z".repeat(100 * 1024));
    assert.equal(await chunkCount(kv, "docs.page/a"), 2);
  });
});

Deno.test("listRecords()", async (t) => {
  using kv = await Deno.openKv(":memory:");
  const now = fakeClock();
  for (
    const key of [
      "issues.issue/b",
      "issues.issue/a",
      "issues.issues/x",
      "issues.label/bug",
      "mail.thread/1",
    ]
  ) {
    await writeRecord(kv, { key, title: key, content: "body" }, { now });
  }

  await t.step("lists everything in key order, without content", async () => {
    const { records, cursor } = await listRecords(kv);
    assert.deepEqual(records.map((r) => r.key), [
      "issues.issue/a",
      "issues.issue/b",
      "issues.issues/x",
      "issues.label/bug",
      "mail.thread/1",
    ]);
    assert.equal(cursor, undefined);
    assert.ok(records.every((r) => !("content" in r)));
  });

  await t.step("kind lists exactly that kind; prefix lists a key prefix", async () => {
    const byKind = await listRecords(kv, { kind: "issues.issue" });
    assert.deepEqual(byKind.records.map((r) => r.key), ["issues.issue/a", "issues.issue/b"]);
    const byPrefix = await listRecords(kv, { prefix: "issues.issue" });
    assert.deepEqual(byPrefix.records.map((r) => r.key), [
      "issues.issue/a",
      "issues.issue/b",
      "issues.issues/x",
    ]);
    const both = await listRecords(kv, { kind: "issues.issue", prefix: "issues.issue/b" });
    assert.deepEqual(both.records.map((r) => r.key), ["issues.issue/b"]);
    const apart = await listRecords(kv, { kind: "issues.issue", prefix: "mail." });
    assert.deepEqual(apart.records, []);
  });

  await t.step("bad queries are refused", async () => {
    await assert.rejects(() => listRecords(kv, { kind: "Issues" }), InvalidInputError);
    await assert.rejects(() => listRecords(kv, { limit: 0 }), InvalidInputError);
    await assert.rejects(() => listRecords(kv, { cursor: "%%%" }), InvalidInputError);
  });

  await t.step("a prefix longer than a key could be is refused in words", async () => {
    const most = RECORD_LIMITS.maxKeyChars;
    for (const prefix of ["x".repeat(60_000), `issues.issue/${"😀".repeat(most)}`]) {
      await assert.rejects(
        () => listRecords(kv, { prefix }),
        (error) =>
          error instanceof InvalidInputError &&
          new RegExp(`"prefix" has more than ${most} characters`).test(error.message),
      );
    }
    // A prefix as long as a key is a prefix still.
    const { records } = await listRecords(kv, { prefix: "i".repeat(most) });
    assert.deepEqual(records, []);
  });
});

Deno.test("listRecords() pages through 120 records with a cursor", async (t) => {
  using kv = await Deno.openKv(":memory:");
  const now = fakeClock();
  const keys = Array.from({ length: 120 }, (_, i) => `notes.note/${String(i).padStart(3, "0")}`);
  for (const key of [...keys].reverse()) await writeRecord(kv, { key }, { now });
  await writeRecord(kv, { key: "other.thing/zzz" }, { now });

  await t.step("pages of 50, 50 and 20; the last has no cursor", async () => {
    const seen: string[] = [];
    const sizes: number[] = [];
    let cursor: string | undefined;
    do {
      const page = await listRecords(kv, { kind: "notes.note", cursor });
      sizes.push(page.records.length);
      seen.push(...page.records.map((r) => r.key));
      cursor = page.cursor;
    } while (cursor !== undefined);
    assert.deepEqual(sizes, [50, 50, 20]);
    assert.deepEqual(seen, keys);
  });

  await t.step("a page that ends exactly at the last record has no cursor", async () => {
    const first = await listRecords(kv, { kind: "notes.note", limit: 60 });
    const second = await listRecords(kv, { kind: "notes.note", limit: 60, cursor: first.cursor });
    assert.equal(second.records.length, 60);
    assert.equal(second.cursor, undefined);
  });

  await t.step("a limit over the maximum is capped", async () => {
    const page = await listRecords(kv, { limit: RECORD_LIMITS.maxListLimit + 100 });
    assert.equal(page.records.length, 121);
    assert.equal(page.cursor, undefined);
  });
});

Deno.test("record keys and values are checked", async (t) => {
  using kv = await Deno.openKv(":memory:");
  const now = fakeClock();

  await t.step("bad keys are refused with InvalidInputError naming the key", async () => {
    const bad = [
      "issues-without-slash",
      "Issues.issue/1",
      "issues/1",
      "issues.issue/",
      "issues.issue/line\nbreak",
      "issues.issue/bell\u0007",
      `issues.issue/${"n".repeat(RECORD_LIMITS.maxKeyChars)}`,
    ];
    for (const key of bad) {
      await assert.rejects(
        () => writeRecord(kv, { key }, { now }),
        (error: Error) =>
          error instanceof InvalidInputError &&
          error.message.includes(JSON.stringify(key).slice(0, 40)),
        key,
      );
      await assert.rejects(() => getRecord(kv, key), InvalidInputError);
    }
    assert.deepEqual((await listRecords(kv)).records, []);
  });

  await t.step(
    "oversize values are refused with PayloadTooLargeError naming key and field",
    async () => {
      const key = "issues.issue/big";
      const cases: [string, Record<string, unknown>][] = [
        ["title", { title: "t".repeat(RECORD_LIMITS.maxTitleChars + 1) }],
        ["fields", { fields: { text: "f".repeat(RECORD_LIMITS.maxFieldsBytes) } }],
        ["content", { content: "c".repeat(RECORD_LIMITS.maxContentBytes + 1) }],
      ];
      for (const [field, values] of cases) {
        await assert.rejects(
          () => writeRecord(kv, { key, ...values }, { now }),
          (error: Error) =>
            error instanceof PayloadTooLargeError && error.message.includes(`"${key}"`) &&
            error.message.includes(`"${field}"`),
          field,
        );
      }
      assert.equal(await getRecord(kv, key), null);
    },
  );

  await t.step("values of the wrong type are refused naming the field", async () => {
    const key = "issues.issue/typed";
    const cases: [string, Record<string, unknown>][] = [
      ["title", { title: 5 }],
      ["fields", { fields: ["a"] }],
      ["content", { content: { text: "x" } }],
      ["revision", { revision: -1 }],
      ["body", { body: "x" }],
    ];
    for (const [field, values] of cases) {
      await assert.rejects(
        // deno-lint-ignore no-explicit-any
        () => writeRecord(kv, { key, ...values } as any, { now }),
        (error: Error) =>
          error instanceof InvalidInputError && error.message.includes(`"${field}"`),
        field,
      );
    }
  });

  await t.step("the largest values allowed are accepted", async () => {
    const key = `issues.issue/${"k".repeat(RECORD_LIMITS.maxKeyChars - "issues.issue/".length)}`;
    await writeRecord(kv, {
      key,
      title: "t".repeat(RECORD_LIMITS.maxTitleChars),
      content: "c".repeat(RECORD_LIMITS.maxContentBytes),
    }, { now });
    assert.equal((await getContent(kv, key))?.length, RECORD_LIMITS.maxContentBytes);
  });
});

Deno.test("listRecordPage() passes over kinds the reader may not read before it counts a page", async (t) => {
  using kv = await Deno.openKv(":memory:");
  const now = fakeClock();
  // Kinds that sort around and between one another: "a.b.c" < "a.b/…" < "a.b0"-like names.
  const hidden = [
    ...Array.from({ length: 1_200 }, (_, i) => `sec.secret/${String(i).padStart(4, "0")}`),
    "sec.secret.deeper/1",
    "box.hidden/1",
  ];
  const shown = ["box.note/1", "box.note/2", "box.notes/1", "sec.public/1", "sec.secret0x.a/1"];
  for (let at = 0; at < hidden.length; at += 500) {
    const atomic = kv.atomic();
    for (const key of hidden.slice(at, at + 500)) {
      atomic.set(recordKey(key), encodedRecord(key, now()));
    }
    await atomic.commit();
  }
  for (const key of shown) await writeRecord(kv, { key }, { now });
  const readable = (kind: string) =>
    !["sec.secret", "sec.secret.deeper", "box.hidden"].includes(kind);
  let reads = 0;
  const counting = new Proxy(kv, {
    get(target, name) {
      const value = Reflect.get(target, name, target);
      if (name !== "list") return typeof value === "function" ? value.bind(target) : value;
      return (...args: Parameters<Deno.Kv["list"]>) => {
        reads++;
        return target.list(...args);
      };
    },
  });

  await t.step("every page but the last is full, each shown record comes once", async () => {
    const pages: string[][] = [];
    let cursor: string | undefined;
    do {
      const page = await listRecordPage(counting, { limit: 2, cursor }, {
        reader: "package spy",
        readable,
      });
      pages.push(page.records.map((r) => r.key));
      cursor = page.cursor;
    } while (cursor !== undefined);
    assert.deepEqual(pages, [
      ["box.note/1", "box.note/2"],
      ["box.notes/1", "sec.public/1"],
      ["sec.secret0x.a/1"],
    ]);
  });

  await t.step("a hidden kind is passed over at once, not record by record", () => {
    // Each page is one listing, and one more for each hidden kind it meets
    // (1, 2 and 2 here), however many records the kind holds.
    assert.ok(reads <= 3 + 5, `${reads} listings`);
  });

  await t.step("a listing of a hidden kind alone is empty and has no cursor", async () => {
    const page = await listRecordPage(kv, { prefix: "sec.secret/", limit: 1 }, {
      reader: "package spy",
      readable,
    });
    assert.deepEqual(page, { records: [] });
  });

  await t.step(
    "a query that is not an object, or a prefix that is not text, says what it got",
    async () => {
      await assert.rejects(
        // deno-lint-ignore no-explicit-any
        listRecordPage(kv, [] as any, { reader: "package spy" }),
        { name: "InvalidInputError", message: /query must be an object .* got an array\./ },
      );
      await assert.rejects(
        // deno-lint-ignore no-explicit-any
        listRecordPage(kv, { prefix: 3 } as any, { reader: "package spy" }),
        { name: "InvalidInputError", message: /"prefix" must be a string, got number 3\./ },
      );
    },
  );

  await t.step("a cursor is refused for a listing of another reader", async () => {
    const first = await listRecords(kv, { limit: 1 });
    await assert.rejects(
      listRecordPage(kv, { limit: 1, cursor: first.cursor }, { reader: "package spy" }),
      InvalidInputError,
    );
    const apart = listRecords(kv, { kind: "box.note", prefix: "sec.", cursor: first.cursor });
    await assert.rejects(apart, InvalidInputError);
  });
});

/** A stored record's metadata as `writeRecord` would store it, written directly (fast). */
function encodedRecord(key: string, at: Date): Uint8Array {
  return encodeStoredRecord({
    key,
    kind: key.slice(0, key.indexOf("/")),
    title: "",
    fields: {},
    revision: 1,
    updatedAt: at.toISOString(),
    updatedBy: "sec",
    contentId: "",
    contentBytes: 0,
    chunks: 0,
  });
}

Deno.test(
  "a project whose .sync folder or memory files are links is refused by name, and nothing is written where they point",
  async (t) => {
    const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "sync-linked-memory-" }));
    const project = join(root, "cloned");
    const sync = join(project, ".sync");
    const elsewhere = join(root, "elsewhere");
    await Deno.mkdir(sync, { recursive: true });
    await Deno.mkdir(elsewhere);
    const refusedByName = (name: string) => (error: Error) => {
      assert.equal(error.name, "MemoryUnreadableError", error.message);
      assert.ok(error.message.includes(name), error.message);
      assert.match(error.message, /is a link/);
      return true;
    };
    const clear = async () => {
      for await (const entry of Deno.readDir(sync)) await Deno.remove(join(sync, entry.name));
    };
    try {
      await t.step("memory.kv linking to a file not there yet: none is made", async () => {
        const target = join(elsewhere, "made-by-sync.db");
        await Deno.symlink(target, join(sync, "memory.kv"));
        await assert.rejects(openProjectMemory(project), refusedByName("memory.kv"));
        await assert.rejects(Deno.lstat(target), Deno.errors.NotFound);
        await clear();
      });

      await t.step(
        "memory.kv linking to another program's database: it is not touched",
        async () => {
          const target = join(elsewhere, "other.db");
          await Deno.writeFile(target, new TextEncoder().encode("another program's data"));
          await Deno.symlink(target, join(sync, "memory.kv"));
          await assert.rejects(openProjectMemory(project), refusedByName("memory.kv"));
          assert.equal(await Deno.readTextFile(target), "another program's data");
          await clear();
        },
      );

      await t.step("a -wal file beside it that is a link", async () => {
        const target = join(elsewhere, "victim");
        await Deno.writeTextFile(target, "kept");
        await Deno.symlink(target, join(sync, "memory.kv-wal"));
        await assert.rejects(openProjectMemory(project), refusedByName("memory.kv-wal"));
        assert.equal(await Deno.readTextFile(target), "kept");
        await clear();
      });

      await t.step(".sync itself a link to a folder elsewhere", async () => {
        await Deno.remove(sync);
        await Deno.symlink(elsewhere, sync);
        await assert.rejects(openProjectMemory(project), refusedByName(".sync"));
        assert.deepEqual([...Deno.readDirSync(elsewhere)].map((e) => e.name).sort(), [
          "other.db",
          "victim",
        ]);
      });
    } finally {
      await Deno.remove(root, { recursive: true });
    }
  },
);
