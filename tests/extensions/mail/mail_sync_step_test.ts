import assert from "node:assert/strict";
import { join } from "node:path";
import {
  type MailSyncAnswer,
  mailSyncStep,
  type MailSyncStepOptions,
  STATUS_KEY,
} from "../../../extensions/mail/src/mail_sync_step.ts";
import { THREAD_KIND } from "../../../extensions/mail/src/plan_threads.ts";
import type { IndexEntry } from "../../../extensions/mail/src/index_entry.ts";
import { type MaildirTruth, writeMaildir } from "../../internal/fixture_sources/maildir.ts";
import { changeMessage } from "../../internal/fixture_sources/change_message.ts";
import { TestRecordStore } from "../../internal/test_record_store.ts";
import { identity, MaildirAccount } from "./_maildir_account.ts";

interface Run {
  steps: MailSyncAnswer[];
  last: MailSyncAnswer;
  parsed: number;
}

/** Runs a whole attempt, step after step, as the task runner would; each step a fresh call. */
async function runSync(
  account: MaildirAccount,
  store: TestRecordStore,
  options: MailSyncStepOptions & { between?: (step: number) => Promise<void> } = {},
): Promise<Run> {
  const parsedBefore = account.parsed.length;
  const steps: MailSyncAnswer[] = [];
  let state: unknown = null;
  for (let step = 0; step < 1000; step++) {
    store.beginCall();
    const answer = await mailSyncStep(account, store, state as never, options);
    const most = options.changesPerStep ?? 300;
    assert.ok(store.changed.size <= most, `step ${step} changed ${store.changed.size} records`);
    if (answer.continue !== undefined) {
      assert.ok(JSON.stringify(answer.continue).length <= 64 * 1024);
    }
    steps.push(answer);
    if (answer.continue === undefined) {
      return { steps, last: answer, parsed: account.parsed.length - parsedBefore };
    }
    state = answer.continue;
    await options.between?.(step);
  }
  throw new Error("the sync did not finish in 1000 steps");
}

function threads(store: TestRecordStore) {
  return store.ofKind(THREAD_KIND);
}

function entries(store: TestRecordStore): Map<string, { entry: IndexEntry; thread: string }> {
  const out = new Map<string, { entry: IndexEntry; thread: string }>();
  for (const record of threads(store)) {
    for (const entry of record.fields.messages as unknown as IndexEntry[]) {
      out.set(identity(entry.file), { entry, thread: record.fields.thread as string });
    }
  }
  return out;
}

async function withMaildir(
  messages: number,
  fn: (dir: string, truth: MaildirTruth) => Promise<void>,
): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "sync-test-" });
  try {
    const truth = await writeMaildir(join(dir, "Maildir"), { messages, seed: 11 });
    await fn(join(dir, "Maildir"), truth);
  } finally {
    await Deno.chmod(dir, 0o755).catch(() => {});
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("`mailSyncStep()` threads a Maildir of 3,000 messages as the ground truth does", async (t) => {
  await withMaildir(3000, async (dir, truth) => {
    const account = new MaildirAccount(dir, truth);
    const store = new TestRecordStore();
    const first = await runSync(account, store);

    await t.step("every message is read once, in steps of at most 300 records", () => {
      assert.ok(first.steps.length > 5);
      const readable = truth.messages.filter((m) => m.kind !== "empty").length;
      assert.equal(first.parsed, readable + 1); // the empty file is tried once
      assert.deepEqual(first.last.coverage, {
        read: readable,
        of: truth.messages.length,
        failed: 1,
        reasons: [{
          item: truth.messages.find((m) => m.kind === "empty")!.path,
          reason: "the file is empty",
        }],
        items: { one: "message", other: "messages" },
      });
    });

    await t.step("each conversation is one thread record, and different ones are apart", () => {
      const index = entries(store);
      const threadOfId = new Map<string, string>();
      for (const message of truth.messages) {
        const found = index.get(identity(message.path));
        if (message.kind === "empty") {
          assert.equal(found, undefined);
          continue;
        }
        assert.ok(found, `${message.path} is in no thread`);
        assert.equal(found.entry.folder, message.folder);
        assert.equal(found.entry.flags, message.flags);
        if (message.messageId) threadOfId.set(message.messageId, found.thread);
      }
      const seen = new Set<string>();
      for (const thread of truth.threads) {
        const keys = new Set(thread.messageIds.map((id) => threadOfId.get(id)));
        assert.equal(keys.size, 1, `thread ${thread.id} is split over ${[...keys].join(", ")}`);
        const key = [...keys][0]!;
        assert.ok(!seen.has(key), `two conversations share ${key}`);
        seen.add(key);
        const record = store.records.get(`${THREAD_KIND}/${key}`)!;
        assert.equal(record.fields.excluded, thread.excluded, `thread ${thread.id}`);
      }
      // Malformed messages with a Message-ID but no thread in the truth stand alone.
      const malformed = truth.messages.filter((m) => m.malformed && m.kind !== "empty").length;
      assert.equal(new Set(threads(store).map((r) => r.fields.thread)).size, seen.size + malformed);
    });

    await t.step(
      "a thread's title is its subject and its content its messages in date order",
      () => {
        const byId = new Map(truth.messages.map((m) => [m.messageId, m]));
        const thread = truth.threads.find((th) => th.messageIds.length >= 4)!;
        const key = entries(store).get(identity(byId.get(thread.messageIds[0])!.path))!.thread;
        const record = store.records.get(`${THREAD_KIND}/${key}`)!;
        assert.equal(record.title, byId.get(thread.id)!.subject);
        const dates = (record.fields.messages as unknown as IndexEntry[]).map((e) => e.date!);
        assert.deepEqual(dates, [...dates].sort());
        let at = 0;
        for (const entry of record.fields.messages as unknown as IndexEntry[]) {
          const block = record.content.slice(at, at + entry.chars);
          const message = truth.messages.find((m) => m.path === entry.file)!;
          assert.ok(block.startsWith(`From: ${message.fromAddress}`));
          assert.ok(block.includes(`Subject: ${message.subject}`));
          if (message.snippet) assert.ok(block.includes(message.snippet));
          at += entry.chars;
        }
        assert.equal(at, record.content.length);
      },
    );

    await t.step("Promotions stay eligible; Spam and Trash leave out only whole threads", () => {
      const promotions = truth.threads.filter((th) => th.folders.includes("Promotions"));
      assert.ok(promotions.length > 0 && promotions.every((th) => !th.excluded));
      const mixed = truth.threads.filter((th) =>
        th.folders.includes("Trash") && th.folders.some((f) => f !== "Trash" && f !== "Spam")
      );
      assert.ok(mixed.length > 0 && mixed.every((th) => !th.excluded));
    });

    await t.step("a second read with nothing changed parses and writes nothing", async () => {
      const writes = store.writes;
      const revisions = threads(store).map((r) => r.revision);
      const again = await runSync(account, store);
      assert.equal(again.parsed, 0);
      assert.equal(again.steps.length, 1);
      assert.equal(store.writes, writes);
      assert.deepEqual(threads(store).map((r) => r.revision), revisions);
      assert.equal(again.last.coverage.failed, 1);
    });

    await t.step("the same Maildir read into fresh memory gets the same thread keys", async () => {
      const other = new TestRecordStore();
      await runSync(new MaildirAccount(dir, truth), other);
      assert.deepEqual(threads(other).map((r) => r.key), threads(store).map((r) => r.key));
    });

    await t.step("a message marked seen is moved in the index, not parsed again", async () => {
      const unseen = truth.messages.find((m) => m.path.startsWith("new/"))!;
      const before = entries(store).get(identity(unseen.path))!;
      const key = `${THREAD_KIND}/${before.thread}`;
      const revision = store.records.get(key)!.revision;
      const content = store.records.get(key)!.content;
      const moved = await changeMessage(dir, unseen.path, { kind: "seen" });
      const writes = store.writes;
      const run = await runSync(account, store);
      assert.equal(run.parsed, 0);
      assert.equal(store.writes, writes + 1);
      assert.equal(store.records.get(key)!.revision, revision + 1);
      assert.equal(store.records.get(key)!.content, content);
      const after = entries(store).get(identity(unseen.path))!;
      assert.equal(after.entry.file, moved.path);
      assert.equal(after.entry.flags, "S");
    });

    await t.step("a rewritten message is parsed again and only its thread changes", async () => {
      const message = truth.messages.find((m) => m.folder === "INBOX" && m.kind === "plain")!;
      const path = entries(store).get(identity(message.path))!.entry.file;
      await changeMessage(dir, path, { kind: "rewrite", mtime: message.mtime + 60 });
      const writes = store.writes;
      const run = await runSync(account, store);
      assert.deepEqual(account.parsed.slice(-run.parsed), [path]);
      assert.equal(store.writes, writes + 1);
      const entry = entries(store).get(identity(path))!.entry;
      assert.equal(entry.size, (await Deno.stat(join(dir, path))).size);
    });

    await t.step(
      "a thread whose messages all vanished is removed; one that lost one is rewritten",
      async () => {
        const single = truth.threads.find((th) =>
          th.messageIds.length === 1 && th.folders[0] === "INBOX"
        )!;
        const lone = truth.messages.find((m) => m.messageId === single.id)!;
        const loneNow = entries(store).get(identity(lone.path))!;
        const pair = truth.threads.find((th) =>
          th.messageIds.length >= 3 && th.folders[0] === "INBOX"
        )!;
        const root = truth.messages.find((m) => m.messageId === pair.id)!;
        const rootNow = entries(store).get(identity(root.path))!;
        await changeMessage(dir, loneNow.entry.file, { kind: "vanish" });
        await changeMessage(dir, rootNow.entry.file, { kind: "vanish" });
        const run = await runSync(account, store);
        assert.equal(run.parsed, 0);
        assert.equal(store.records.has(`${THREAD_KIND}/${loneNow.thread}`), false);
        // The conversation keeps its key when its first message goes.
        const kept = store.records.get(`${THREAD_KIND}/${rootNow.thread}`)!;
        assert.equal((kept.fields.messages as unknown[]).length, pair.messageIds.length - 1);
        assert.ok(!kept.content.includes(`${root.snippet}`) || root.snippet === null);
      },
    );

    await t.step(
      "a message that cannot be read keeps what was read of it and says why",
      async () => {
        const message = truth.messages.find((m) => m.folder === "Sent")!;
        const now = entries(store).get(identity(message.path))!;
        await changeMessage(dir, now.entry.file, { kind: "rewrite", mtime: message.mtime + 5 });
        const unreadable = await changeMessage(dir, now.entry.file, { kind: "unreadable" });
        // Root reads any file whatever its mode: the account then fails the read as it would.
        if (unreadable.readable) account.failing.add(now.entry.file);
        try {
          const run = await runSync(account, store);
          assert.equal(run.last.coverage.failed, 2);
          assert.ok(run.last.coverage.reasons!.some((r) => r.item === now.entry.file));
          assert.equal(entries(store).get(identity(message.path))!.entry.size, now.entry.size);
          assert.equal(store.records.get(STATUS_KEY)!.fields.failed, 2);
          const again = await runSync(account, store);
          assert.equal(again.parsed, 0, "a known failure is not read again unchanged");
          const asked = await runSync(account, store, { retryFailed: true, parsePerStep: 64 });
          assert.equal(asked.parsed, 2, "a person's run tries the failed messages again");
        } finally {
          await unreadable.restore!();
          account.failing.clear();
        }
        const fixed = await runSync(account, store, { retryFailed: true });
        assert.equal(fixed.last.coverage.failed, 1);
        assert.equal(entries(store).get(identity(message.path))!.entry.size, unreadable.size);
      },
    );
  });
});

Deno.test("`mailSyncStep()` reads a message changed mid-run as it is at the end", async () => {
  await withMaildir(400, async (dir, truth) => {
    const account = new MaildirAccount(dir, truth);
    const store = new TestRecordStore();
    let early: string | null = null;
    let late: string | null = null;
    const run = await runSync(account, store, {
      parsePerStep: 32,
      between: async (step) => {
        if (step !== 1) return;
        // One message already read, one not yet: both rewritten between steps.
        const read = entries(store);
        const done = truth.messages.find((m) => read.has(identity(m.path)) && m.kind === "plain")!;
        const todo = truth.messages.find((m) => !read.has(identity(m.path)) && m.kind === "plain")!;
        early = done.path;
        late = todo.path;
        await changeMessage(dir, done.path, { kind: "rewrite", mtime: done.mtime + 100 });
        await changeMessage(dir, todo.path, { kind: "rewrite", mtime: todo.mtime + 100 });
      },
    });
    assert.ok(early && late);
    assert.equal(account.parsed.filter((p) => p === early).length, 2);
    assert.equal(account.parsed.filter((p) => p === late).length, 1);
    const index = entries(store);
    for (const message of truth.messages) {
      if (message.kind === "empty") continue;
      const stat = await Deno.stat(join(dir, message.path));
      const entry = index.get(identity(message.path))!.entry;
      assert.equal(entry.size, stat.size, message.path);
      assert.equal(entry.mtime, stat.mtime!.getTime(), message.path);
    }
    assert.equal(run.last.coverage.read, truth.messages.length - 1);
    assert.equal((await runSync(account, store)).parsed, 0);
  });
});

Deno.test("`mailSyncStep()` spreads many renames over steps and parses none of them", async () => {
  await withMaildir(400, async (dir, truth) => {
    const account = new MaildirAccount(dir, truth);
    const store = new TestRecordStore();
    await runSync(account, store);
    const flagged = truth.messages.filter((m) =>
      m.path.includes("/cur/") || m.path.startsWith("cur/")
    );
    assert.ok(flagged.length > 300);
    const before = entries(store);
    const touched = new Set(
      flagged.filter((m) => m.kind !== "empty").map((m) => before.get(identity(m.path))!.thread),
    );
    for (const message of flagged) {
      await changeMessage(dir, message.path, { kind: "seen", flags: "F" });
    }
    const run = await runSync(account, store, { changesPerStep: 90 });
    assert.equal(run.parsed, 0);
    // Each thread a rename touches is one record changed; at most 90 of them a step here.
    assert.ok(touched.size > 180);
    assert.equal(run.steps.length, Math.ceil(touched.size / 90));
    const index = entries(store);
    for (const message of flagged) {
      if (message.kind === "empty") continue;
      assert.ok(index.get(identity(message.path))!.entry.flags.includes("F"), message.path);
    }
    const again = await runSync(account, store);
    assert.equal(again.steps.length, 1);
  });
});

Deno.test("`mailSyncStep()` tries failed messages again once in a person's run of many steps", async () => {
  await withMaildir(400, async (dir, truth) => {
    const account = new MaildirAccount(dir, truth);
    const store = new TestRecordStore();
    const broken = truth.messages.find((m) => m.folder === "INBOX" && m.path.startsWith("cur/"))!;
    account.failing.add(broken.path);
    const first = await runSync(account, store);
    assert.equal(first.last.coverage.failed, 2);
    const others = truth.messages.filter((m) =>
      m !== broken && m.kind !== "empty" && (m.path.startsWith("cur/") || m.path.includes("/cur/"))
    );
    // 100 rewritten messages: parsed over two steps (at most 64 a step, here).
    for (const message of others.slice(0, 100)) {
      await changeMessage(dir, message.path, { kind: "rewrite", mtime: message.mtime + 1 });
    }
    const asked = await runSync(account, store, { retryFailed: true, parsePerStep: 64 });
    assert.equal(asked.steps.length, 2);
    // The rewritten ones, and the unreadable file and the empty one once each.
    assert.equal(asked.parsed, 102);
    assert.equal(asked.last.coverage.failed, 2);
  });
});

Deno.test("`mailSyncStep()` refuses a folder that is not a Maildir, keeping every thread", async () => {
  await withMaildir(20, async (dir, truth) => {
    const store = new TestRecordStore();
    await runSync(new MaildirAccount(dir, truth), store);
    const before = threads(store).map((record) => record.key);
    assert.ok(before.length > 0);
    // An empty folder connected in its place: no cur/ or new/ anywhere in it.
    const empty = await Deno.makeTempDir({ prefix: "sync-test-" });
    try {
      store.beginCall();
      await assert.rejects(
        () => mailSyncStep(new MaildirAccount(empty, truth), store, null),
        (error: Error) =>
          error.name === "AccountAccessError" &&
          /not a Maildir: it holds no cur\/ or new\/ folder/.test(error.message),
      );
      assert.deepEqual(threads(store).map((record) => record.key), before);
    } finally {
      await Deno.remove(empty, { recursive: true });
    }
  });
});
