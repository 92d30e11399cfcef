import assert from "node:assert/strict";
import { join } from "node:path";
import { listAttempts, readDeviceRecord, type TaskAttempt } from "../../../runtime/applets/mod.ts";
import type { RecordSummary } from "../../../runtime/extension_api/service.ts";
import { getContent } from "../../../runtime/memory/store.ts";
import type { IndexEntry } from "../../../extensions/mail/src/index_entry.ts";
import { type MaildirTruth, writeMaildir } from "../../internal/fixture_sources/maildir.ts";
import { changeMessage } from "../../internal/fixture_sources/change_message.ts";
import { type RealApplet, realApplet } from "../../internal/real_applet.ts";
import { until } from "../../internal/until.ts";
import { identity } from "./_maildir_account.ts";

const THREAD = "mail.thread";

/** The Mail applet installed from its folder, its account a fixture Maildir. */
async function withMail(
  messages: number,
  fn: (applet: RealApplet, maildir: string, truth: MaildirTruth) => Promise<void>,
): Promise<void> {
  const applet = await realApplet("mail");
  try {
    const maildir = join(applet.dir, "Maildir");
    const truth = await writeMaildir(maildir, { messages, seed: 11 });
    await applet.runner.connect(applet.env.project, "mail", { kind: "folder", folder: maildir });
    await fn(applet, maildir, truth);
  } finally {
    await applet.close();
  }
}

function sync(applet: RealApplet, trigger: "person" | "agent" = "agent"): Promise<TaskAttempt> {
  return applet.runner.runTask(applet.env.project, "mail", "sync", { trigger });
}

/** Each message's index entry, by its identity, with the key of the thread holding it. */
function indexOf(
  threads: Map<string, RecordSummary>,
): Map<string, { entry: IndexEntry; key: string }> {
  const out = new Map<string, { entry: IndexEntry; key: string }>();
  for (const record of threads.values()) {
    for (const entry of record.fields.messages as unknown as IndexEntry[]) {
      out.set(identity(entry.file), { entry, key: record.key });
    }
  }
  return out;
}

function revisions(threads: Map<string, RecordSummary>): Map<string, number> {
  return new Map([...threads].map(([key, record]) => [key, record.revision]));
}

Deno.test("the Mail applet reads a fixture Maildir through a real host and task runner", async (t) => {
  await withMail(150, async (applet, _maildir, truth) => {
    const { env, parsers } = applet;
    const first = await sync(applet);
    const threads = await applet.records(THREAD);
    const index = indexOf(threads);
    const empty = truth.messages.filter((m) => m.kind === "empty");

    await t.step(
      "the first read ends ok, with its coverage on the attempt and the device",
      async () => {
        assert.equal(first.outcome, "ok", first.error);
        const readable = truth.messages.length - empty.length;
        const coverage = {
          read: readable,
          of: truth.messages.length,
          failed: empty.length,
          reasons: empty.map((m) => ({ item: m.path, reason: "the file is empty" })),
          items: { one: "message", other: "messages" },
        };
        assert.deepEqual(first.coverage, coverage);
        const device = await readDeviceRecord(env.kv, env.project, "mail");
        assert.deepEqual(device.lastRead, { at: first.endedAt, coverage });
        assert.equal(device.notice, null);
        assert.equal(parsers.mail, truth.messages.length);
      },
    );

    await t.step("every conversation is one thread record holding its messages", async () => {
      const memory = await env.host.projectMemory(env.project);
      const byId = new Map(truth.messages.map((m) => [m.messageId, m]));
      const seen = new Set<string>();
      for (const thread of truth.threads) {
        const keys = new Set(
          thread.messageIds.map((id) => index.get(identity(byId.get(id)!.path))?.key),
        );
        assert.equal(keys.size, 1, `thread ${thread.id} is in ${[...keys].join(", ")}`);
        const key = [...keys][0]!;
        assert.ok(key?.startsWith(`${THREAD}/`), `thread ${thread.id} has no record`);
        assert.ok(!seen.has(key), `two conversations share ${key}`);
        seen.add(key);
        const record = threads.get(key)!;
        const entries = record.fields.messages as unknown as IndexEntry[];
        assert.equal(entries.length, thread.messageIds.length, `thread ${thread.id}`);
        assert.equal(record.fields.excluded, thread.excluded, `thread ${thread.id}`);
        const content = (await getContent(memory, key))!;
        let at = 0;
        for (const entry of entries) {
          const block = content.slice(at, at + entry.chars);
          const message = truth.messages.find((m) => identity(m.path) === identity(entry.file))!;
          assert.equal(entry.subject, message.subject);
          assert.equal(entry.from, message.fromAddress);
          assert.ok(block.includes(`Subject: ${message.subject}`), block);
          if (message.snippet) {
            assert.ok(block.includes(message.snippet), `${message.path} (${message.charset})`);
          }
          at += entry.chars;
        }
      }
      const promotions = truth.threads.filter((th) => th.folders.includes("Promotions"));
      assert.ok(promotions.length > 0 && promotions.every((th) => !th.excluded));
      assert.ok(truth.threads.some((th) => th.excluded), "the fixture has a Spam/Trash thread");
    });

    await t.step(
      "a second read with nothing changed parses nothing and writes nothing",
      async () => {
        const parsed = parsers.mail;
        const again = await sync(applet);
        assert.equal(again.outcome, "ok", again.error);
        assert.equal(parsers.mail, parsed);
        assert.deepEqual(revisions(await applet.records(THREAD)), revisions(threads));
        assert.equal(again.coverage?.failed, empty.length);
      },
    );

    await t.step("a person's read tries the failed file again, and writes nothing", async () => {
      const parsed = parsers.mail;
      const again = await sync(applet, "person");
      assert.equal(again.outcome, "ok", again.error);
      assert.equal(parsers.mail, parsed + empty.length);
      assert.deepEqual(revisions(await applet.records(THREAD)), revisions(threads));
    });
  });
});

/** The thread key and index entry of a message of the truth, as the records hold it now. */
async function threadOf(applet: RealApplet, path: string) {
  const found = indexOf(await applet.records(THREAD)).get(identity(path));
  assert.ok(found, `${path} is in no thread`);
  return found;
}

/** Messages of the truth that parse, in distinct threads, in the inbox: good ones to change. */
function plainMessages(truth: MaildirTruth, count: number) {
  const threads = new Set<string>();
  const out = [];
  for (const message of truth.messages) {
    if (message.malformed || message.threadId === null || threads.has(message.threadId)) continue;
    if (message.folder !== "INBOX") continue;
    threads.add(message.threadId);
    out.push(message);
    if (out.length === count) return out;
  }
  throw new Error(`the fixture has fewer than ${count} messages in distinct inbox threads`);
}

Deno.test("the Mail applet takes a message changed mid-run in its next run, and only its thread", async () => {
  await withMail(60, async (applet, maildir, truth) => {
    assert.equal((await sync(applet)).outcome, "ok");
    const [a, b] = plainMessages(truth, 2);
    await changeMessage(maildir, a.path, { kind: "rewrite", mtime: a.mtime + 600 });
    // B changes after the step listed the Maildir, while it parses A.
    applet.parsers.beforeParse = () => {
      applet.parsers.beforeParse = undefined;
      rewriteSync(maildir, b.path, b.mtime + 900);
    };
    const before = revisions(await applet.records(THREAD));
    const keyA = (await threadOf(applet, a.path)).key;
    const keyB = (await threadOf(applet, b.path)).key;
    const parsed = applet.parsers.mail;
    const run = await sync(applet);
    assert.equal(run.outcome, "ok", run.error);
    assert.equal(applet.parsers.mail, parsed + 1);
    const after = revisions(await applet.records(THREAD));
    assert.deepEqual(after, new Map([...before, [keyA, before.get(keyA)! + 1]]));
    assert.equal((await threadOf(applet, b.path)).entry.mtime, b.mtime * 1000);

    const next = await sync(applet);
    assert.equal(next.outcome, "ok", next.error);
    assert.equal(applet.parsers.mail, parsed + 2);
    assert.deepEqual(
      revisions(await applet.records(THREAD)),
      new Map([...after, [keyB, after.get(keyB)! + 1]]),
    );
    assert.equal((await threadOf(applet, b.path)).entry.mtime, (b.mtime + 900) * 1000);
  });
});

/** `changeMessage`'s rewrite, done at once: nothing else runs while the file changes. */
function rewriteSync(maildir: string, path: string, mtime: number): void {
  const file = join(maildir, ...path.split("/"));
  const bytes = Deno.readFileSync(file);
  Deno.writeFileSync(
    file,
    new Uint8Array([...new TextEncoder().encode("X-Keywords: $x\n"), ...bytes]),
  );
  Deno.utimeSync(file, mtime, mtime);
}

Deno.test("the Mail applet keeps what it read of a file that vanished or became a folder mid-read", async () => {
  await withMail(60, async (applet, maildir, truth) => {
    assert.equal((await sync(applet)).outcome, "ok");
    const changed = plainMessages(truth, 6);
    // The four newest are parsed first; the two oldest change while they parse.
    for (const [i, message] of changed.entries()) {
      await changeMessage(maildir, message.path, {
        kind: "rewrite",
        mtime: 1_900_000_000 + 10 - i,
      });
    }
    const [vanished, folder] = changed.slice(4);
    const held = [await threadOf(applet, vanished.path), await threadOf(applet, folder.path)];
    // As root a file's mode does not stop a read: a folder in the file's place does.
    applet.parsers.beforeParse = () => {
      applet.parsers.beforeParse = undefined;
      Deno.removeSync(join(maildir, ...vanished.path.split("/")));
      Deno.removeSync(join(maildir, ...folder.path.split("/")));
      Deno.mkdirSync(join(maildir, ...folder.path.split("/")));
    };
    const run = await sync(applet);
    assert.equal(run.outcome, "ok", run.error);
    const empty = truth.messages.filter((m) => m.kind === "empty");
    assert.deepEqual(run.coverage, {
      read: truth.messages.length - empty.length - 2,
      of: truth.messages.length,
      failed: empty.length + 2,
      reasons: [
        ...empty.map((m) => ({ item: m.path, reason: "the file is empty" })),
        { item: vanished.path, reason: "it is gone: there is no such file now" },
        { item: folder.path, reason: "it is a folder, not a regular file" },
      ].sort((x, y) => x.item < y.item ? -1 : 1),
      items: { one: "message", other: "messages" },
    });
    const device = await readDeviceRecord(applet.env.kv, applet.env.project, "mail");
    assert.deepEqual(device.lastRead?.coverage, run.coverage);
    // What was read of them before stays, in the threads that held them.
    assert.deepEqual(
      [await threadOf(applet, vanished.path), await threadOf(applet, folder.path)],
      held,
    );
  });
});

Deno.test("the Mail applet's device turns red when its folder goes, and a connect mends it", async () => {
  await withMail(20, async (applet, maildir) => {
    const { env, runner } = applet;
    assert.equal((await sync(applet)).outcome, "ok");
    const threads = revisions(await applet.records(THREAD));
    await Deno.remove(maildir, { recursive: true });
    const failed = await sync(applet, "person");
    assert.equal(failed.outcome, "failed");
    const red = await runner.view(env.project, "mail");
    assert.equal(red.lamp, "red");
    assert.equal(red.notice?.kind, "allow-access");
    assert.match(red.notice!.message, /gone or cannot be read/);
    assert.deepEqual(revisions(await applet.records(THREAD)), threads);

    const other = join(applet.dir, "Moved");
    const truth = await writeMaildir(other, { messages: 20, seed: 11 });
    await runner.connect(env.project, "mail", { kind: "folder", folder: other });
    const mended = await runner.view(env.project, "mail");
    assert.equal(mended.notice, null);
    assert.equal(mended.lamp, "steady");
    const run = await sync(applet, "person");
    assert.equal(run.outcome, "ok", run.error);
    assert.equal(run.coverage?.of, truth.messages.length);
    assert.equal((await runner.view(env.project, "mail")).lamp, "steady");
  });
});

Deno.test("the Mail applet's run commits nothing once its account changed under it", async () => {
  await withMail(20, async (applet, maildir, truth) => {
    const { env, runner } = applet;
    assert.equal((await sync(applet)).outcome, "ok");
    const [message] = plainMessages(truth, 1);
    await changeMessage(maildir, message.path, { kind: "rewrite", mtime: message.mtime + 600 });
    const threads = revisions(await applet.records(THREAD));
    applet.parsers.beforeParse = async () => {
      applet.parsers.beforeParse = undefined;
      await runner.connect(env.project, "mail", { kind: "folder", folder: maildir });
    };
    const fenced = await sync(applet);
    assert.equal(fenced.outcome, "fenced", fenced.error);
    assert.equal(fenced.coverage, undefined);
    assert.deepEqual(revisions(await applet.records(THREAD)), threads);

    const next = await sync(applet);
    assert.equal(next.outcome, "ok", next.error);
    const { key, entry } = await threadOf(applet, message.path);
    assert.equal(entry.mtime, (message.mtime + 600) * 1000);
    assert.equal((await applet.records(THREAD)).get(key)!.revision, threads.get(key)! + 1);
  });
});

Deno.test("the Mail applet's run stopped between steps leaves whole records, and the next completes", async () => {
  await withMail(600, async (applet, maildir, truth) => {
    const { env, runner } = applet;
    assert.equal((await sync(applet)).outcome, "ok");
    // Several times the conversations one step's records hold: the read takes steps, and
    // more are left after the one the runner stops in.
    const changed = truth.messages.filter((m) => !m.malformed);
    for (const message of changed) {
      await changeMessage(maildir, message.path, { kind: "rewrite", mtime: message.mtime + 600 });
    }
    // The runner stops as the second step parses: the first has committed, the rest has not.
    applet.parsers.beforeParse = async () => {
      // The fake clock stands still, so attempts begun at one time are found by being open.
      const attempts = await listAttempts(env.kv, env.project, "mail", "sync", 10);
      const running = attempts.find((attempt) => attempt.endedAt === undefined);
      if (!running?.receipts.length) return;
      applet.parsers.beforeParse = undefined;
      void runner.stop();
    };
    const stopped = await sync(applet);
    assert.equal(stopped.outcome, "cancelled", stopped.error);
    const memory = await env.host.projectMemory(env.project);
    const whole = async () => {
      const threads = await applet.records(THREAD);
      for (const [key, record] of threads) {
        const entries = record.fields.messages as unknown as IndexEntry[];
        const chars = entries.reduce((sum, entry) => sum + entry.chars, 0);
        assert.equal(chars, (await getContent(memory, key))!.length, key);
      }
      return threads;
    };
    const newer = (threads: Map<string, RecordSummary>) =>
      changed.filter((m) => indexOf(threads).get(identity(m.path))!.entry.mtime !== m.mtime * 1000)
        .length;
    const kept = newer(await whole());
    assert.ok(kept > 0 && kept < changed.length, `${kept} of the changed messages were kept`);

    const next = await sync(applet);
    assert.equal(next.outcome, "ok", next.error);
    assert.equal(newer(await whole()), changed.length);
  });
});

Deno.test("the Mail applet reads by itself: once connected, then when its folder changes", async () => {
  await withMail(20, async (applet, maildir, truth) => {
    const { env, runner, timers } = applet;
    const attempts = () => listAttempts(env.kv, env.project, "mail", "sync", 10);
    await runner.start();
    timers.fireDue();
    await until("the first scheduled run", async () => (await attempts())[0]?.outcome === "ok");
    const [first] = await attempts();
    assert.equal(first.trigger, "fresh");
    assert.equal(first.coverage?.of, truth.messages.length);
    assert.deepEqual(runner.watchedFolders, [maildir]);

    const [message] = plainMessages(truth, 1);
    await changeMessage(maildir, message.path, { kind: "rewrite", mtime: message.mtime + 600 });
    // The watcher tells of the change; 2 s of quiet on the runner's timers bring the run forward.
    await until("the run the change brought", async () => {
      timers.advance(2_000);
      return (await attempts()).length === 2 && (await attempts())[0].outcome !== undefined;
    });
    const [observed] = await attempts();
    assert.equal(observed.trigger, "observation");
    assert.equal(observed.outcome, "ok", observed.error);
    assert.equal((await threadOf(applet, message.path)).entry.mtime, (message.mtime + 600) * 1000);
  });
});
