import assert from "node:assert/strict";
import {
  type ExistingRecord,
  type PlannedMessage,
  planThreads,
  type StepBudget,
} from "../../../extensions/mail/src/plan_threads.ts";
import type { IndexEntry } from "../../../extensions/mail/src/index_entry.ts";
import { threadKey } from "../../../extensions/mail/src/thread_key.ts";

function message(
  n: number,
  links: { id?: string | null; parent?: string; root?: string; folder?: string } = {},
  where: { oldKey?: string; oldThread?: string; change?: number } = {},
): PlannedMessage {
  const entry: IndexEntry = {
    file: `cur/${n}.host:2,S`,
    size: 100 + n,
    mtime: n,
    messageId: links.id === undefined ? `<m${n}@x>` : links.id,
    parent: links.parent ?? null,
    root: links.root ?? null,
    date: new Date(Date.UTC(2026, 8, 1, 0, n)).toISOString(),
    from: "a@example.org",
    subject: n === 0 ? "Plans" : "Re: Plans",
    folder: links.folder ?? "INBOX",
    flags: "S",
    chars: 1000,
  };
  return {
    id: `/${n}.host`,
    entry,
    oldKey: where.oldKey ?? null,
    oldThread: where.oldThread ?? null,
    oldOffset: 0,
    change: where.change ?? null,
    block: where.oldKey ? null : "x".repeat(1000),
  };
}

/** A budget of `n` records, with room for any commit size. */
function records(n: number): StepBudget {
  return { records: n, entries: 1e9, bytes: 1e12, keyBytes: 1e12 };
}

/** The records `plan` writes, as existing records for the next plan. */
function stored(messages: PlannedMessage[]): Map<string, ExistingRecord> {
  const plan = planThreads(messages, new Map(), new Map(), { budget: records(90) });
  return new Map(plan.writes.map((r) => [r.key, { key: r.key, title: r.title, fields: r.fields }]));
}

Deno.test("`planThreads()` names a new conversation by its root and writes it once", () => {
  const messages = [message(0, {}, { change: 0 }), message(1, { parent: "<m0@x>" }, { change: 1 })];
  const plan = planThreads(messages, new Map(), new Map(), { budget: records(90) });
  assert.deepEqual(plan.writes.map((r) => r.key), [`mail.thread/${threadKey("<m0@x>")}`]);
  assert.equal(plan.writes[0].title, "Plans");
  assert.deepEqual([...plan.applied].sort(), [0, 1]);
  const key = `mail.thread/${threadKey("<m0@x>")}`;
  const again = planThreads(
    messages.map((m) => ({ ...m, change: null, oldKey: key, oldThread: threadKey("<m0@x>") })),
    stored(messages),
    new Map(),
    { budget: records(90) },
  );
  assert.deepEqual(again.writes, []);
  assert.deepEqual(again.removes, []);
});

Deno.test("`planThreads()` goes on in parts past a record's content, each part its own key", () => {
  const messages = Array.from(
    { length: 10 },
    (_, n) => message(n, n === 0 ? {} : { parent: `<m${n - 1}@x>`, root: "<m0@x>" }, { change: n }),
  );
  const plan = planThreads(messages, new Map(), new Map(), {
    budget: records(90),
    contentChars: 3500,
  });
  const key = `mail.thread/${threadKey("<m0@x>")}`;
  assert.deepEqual(plan.writes.map((r) => r.key), [key, `${key}-2`, `${key}-3`, `${key}-4`]);
  assert.deepEqual(plan.writes.map((r) => (r.fields.messages as unknown[]).length), [3, 3, 3, 1]);
  assert.equal(plan.writes[1].title, "Plans (part 2 of 4)");
  assert.ok(plan.writes.every((r) => r.fields.thread === threadKey("<m0@x>")));
});

Deno.test("`planThreads()` joins two threads a reply links under the larger one's key", () => {
  const a = [message(0), message(1, { parent: "<m0@x>" }), message(2, { parent: "<m1@x>" })];
  const b = [message(10, { id: "<n0@x>" })];
  const existing = stored([...a, ...b].map((m) => ({ ...m, change: 0 })));
  const keyA = threadKey("<m0@x>");
  const keyB = threadKey("<n0@x>");
  const old = (m: PlannedMessage, thread: string) => ({
    ...m,
    oldKey: `mail.thread/${thread}`,
    oldThread: thread,
    block: null,
  });
  const bridge = message(20, { parent: "<n0@x>", root: "<m0@x>" }, { change: 0 });
  const plan = planThreads(
    [...a.map((m) => old(m, keyA)), ...b.map((m) => old(m, keyB)), bridge],
    existing,
    new Map(),
    { budget: records(90) },
  );
  assert.deepEqual(plan.writes.map((r) => r.key), [`mail.thread/${keyA}`]);
  assert.equal((plan.writes[0].fields.messages as unknown[]).length, 5);
  assert.deepEqual(plan.removes, [`mail.thread/${keyB}`]);
});

Deno.test("`planThreads()` carries out whole clusters of changes within its budget", () => {
  // Three single-message threads, each renamed: three clusters of one record each.
  const base = [message(0), message(1, { id: "<y@x>" }), message(2, { id: "<z@x>" })];
  const existing = stored(base);
  const keys = [...existing.keys()];
  const renamed = base.map((m, i) => ({
    ...m,
    entry: { ...m.entry, flags: "FS" },
    oldKey: keys.find((k) => existing.get(k)!.fields.thread === threadOf(m))!,
    oldThread: threadOf(m),
    block: null,
    change: i,
  }));
  const plan = planThreads(renamed, existing, new Map(), { budget: records(2) });
  assert.equal(plan.writes.length, 2);
  assert.deepEqual([...plan.applied].sort(), [0, 1]);
});

function threadOf(m: PlannedMessage): string {
  return threadKey(m.entry.messageId!);
}

Deno.test("`planThreads()` marks a thread excluded only when every message is in Spam or Trash", () => {
  const spam = planThreads(
    [message(0, { folder: "Spam" }), message(1, { parent: "<m0@x>", folder: "Deleted Messages" })],
    new Map(),
    new Map(),
    { budget: records(90) },
  );
  assert.equal(spam.writes[0].fields.excluded, true);
  const mixed = planThreads(
    [message(0, { folder: "Junk" }), message(1, { parent: "<m0@x>", folder: "Promotions" })],
    new Map(),
    new Map(),
    { budget: records(90) },
  );
  assert.equal(mixed.writes[0].fields.excluded, false);
});

Deno.test("`planThreads()` keeps a conversation's key when all its messages are replaced at once", () => {
  const first = [message(0), message(1, { parent: "<m0@x>" })];
  const existing = stored(first);
  const key = `mail.thread/${threadKey("<m0@x>")}`;
  // Both messages vanished (changes 0 and 1) and a new reply to the same root arrived (change 2).
  const reply = message(5, { parent: "<m1@x>", root: "<m0@x>" }, { change: 2 });
  const plan = planThreads([reply], existing, new Map([[0, key], [1, key]]), {
    budget: records(90),
  });
  assert.deepEqual(plan.writes.map((r) => r.key), [key]);
  assert.deepEqual(plan.removes, []);
  assert.deepEqual([...plan.applied].sort(), [0, 1, 2]);
});

Deno.test("`planThreads()` stays within what one commit holds, counted from above", async (t) => {
  // Forty conversations of one message each, with 50,000 characters of text apiece.
  const big = Array.from({ length: 40 }, (_, n) => ({
    ...message(n + 1, { id: `<big${n}@x>` }, { change: n }),
    block: "y".repeat(50_000),
  }));
  for (const m of big) m.entry = { ...m.entry, chars: 50_000 };

  await t.step("bytes: a 640 KiB budget takes twelve such records, not forty", () => {
    const plan = planThreads(big, new Map(), new Map(), {
      budget: { records: 300, entries: 990, bytes: 640 * 1024, keyBytes: 68 * 1024 },
    });
    assert.equal(plan.writes.length, 12);
    assert.equal(plan.applied.size, 12);
    const bytes = plan.writes.reduce((n, r) => n + r.messages[0].block!.length, 0);
    assert.ok(bytes <= 640 * 1024);
  });

  await t.step("stored entries: each record is its metadata and its content's chunks", () => {
    // 70,000 ASCII characters is two chunks of 60 KiB, so three entries a record.
    const two = big.map((m) => ({ ...m, block: "z".repeat(70_000) }));
    const plan = planThreads(two, new Map(), new Map(), {
      budget: { records: 300, entries: 10, bytes: 1e12, keyBytes: 1e12 },
    });
    assert.equal(plan.writes.length, 3);
  });

  await t.step("non-ASCII text counts its UTF-8 bytes", () => {
    const wide = big.map((m) => ({ ...m, block: "é".repeat(50_000) }));
    const plan = planThreads(wide, new Map(), new Map(), {
      budget: { records: 300, entries: 990, bytes: 640 * 1024, keyBytes: 68 * 1024 },
    });
    assert.equal(plan.writes.length, 6);
  });
});
