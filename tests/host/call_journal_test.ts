import assert from "node:assert/strict";
import { join } from "node:path";
import { CallJournal, recordJournaledCalls } from "../../runtime/host/call_journal.ts";
import { ProcessLock } from "../../runtime/host/process_lock.ts";
import { listReceipts, writeReceipt } from "../../runtime/host/receipts.ts";
import type { Receipt } from "../../runtime/types.ts";
import { testHost } from "../internal/packages.ts";

function started(id: string): Receipt {
  return {
    id,
    project: "/p",
    packageId: "x",
    handler: "x.run",
    occasion: { kind: "extension" },
    source: { kind: "person" },
    startedAt: new Date(1_000).toISOString(),
    endedAt: "",
    outcome: "ok",
  };
}

async function exists(path: string): Promise<boolean> {
  return await Deno.stat(path).then(() => true, () => false);
}

Deno.test("`recordJournaledCalls()` leaves an interrupted receipt for each call a gone process started and never ended", async (t) => {
  const home = await Deno.makeTempDir({ prefix: "sync-journal-" });
  const kv = await Deno.openKv(":memory:");
  const theirs = await ProcessLock.take(home);
  const live = await ProcessLock.take(home);
  const ours = await ProcessLock.take(home);
  try {
    const journal = CallJournal.open(home, theirs)!;
    assert.ok(journal, "a journal opens beside a held lock");
    assert.ok(journal.started(started("r1")));
    assert.ok(journal.started(started("r2")));
    journal.ended("r2");
    assert.ok(journal.started(started("r3")));
    // r3 wrote its receipt, and its process died before it wrote the call down as ended.
    await writeReceipt(kv, { ...started("r3"), endedAt: new Date(1_100).toISOString() });
    const path = join(home, "running", `${theirs.mark.id}.calls`);
    // A line cut short by the kill.
    await Deno.writeTextFile(path, 'S\t{"id":"r9","proj', { append: true });
    const running = CallJournal.open(home, live)!;
    assert.ok(running.started(started("r4")));
    // The process dies: its lock goes, its journal stays.
    theirs.release();

    await t.step(
      "the calls it never ended and left no receipt for become interrupted",
      async () => {
        const written = await recordJournaledCalls(kv, home, { now: 2_000, lock: ours });
        assert.deepEqual(written.map((r) => [r.id, r.outcome, r.error?.name]), [
          ["r1", "interrupted", "ProcessStopped"],
        ]);
        assert.match(written[0].error!.message, new RegExp(`\\(pid ${Deno.pid}\\)`));
        const receipts = await listReceipts(kv, "/p");
        assert.deepEqual(receipts.map((r) => [r.id, r.outcome]).sort(), [
          ["r1", "interrupted"],
          ["r3", "ok"],
        ]);
      },
    );

    await t.step(
      "its journal is removed; a running process's is kept, its call untouched",
      async () => {
        assert.equal(await exists(path), false);
        assert.equal(await exists(join(home, "running", `${live.mark.id}.calls`)), true);
        assert.deepEqual(await recordJournaledCalls(kv, home, { now: 3_000, lock: ours }), []);
      },
    );

    await t.step("a journal closed by its process is gone with it", async () => {
      running.close();
      assert.equal(await exists(join(home, "running", `${live.mark.id}.calls`)), false);
    });
  } finally {
    live.release();
    ours.release();
    kv.close();
    await Deno.remove(home, { recursive: true });
  }
});

Deno.test("`callHandler()` writes a call down in the journal before it runs unclaimed, and as ended after", async () => {
  const env = await testHost();
  try {
    await env.install({
      id: "spin",
      handlers: ["spin.run"],
      service: `export default function register() {
  return {
    "spin.run": () => {
      const until = Date.now() + 10;
      while (Date.now() < until) {}
      return "spun";
    },
  };
}`,
    });
    const calling = env.host.callHandler(env.project, "spin", "spin.run", {
      occasion: { kind: "extension" },
      source: { kind: "person" },
    });
    const folder = join(env.home, "running");
    const journalText = async () => {
      const names = (await Array.fromAsync(Deno.readDir(folder))).map((e) => e.name);
      const name = names.find((n) => n.endsWith(".calls"));
      assert.ok(name, `a journal in ${names.join(", ")}`);
      return await Deno.readTextFile(join(folder, name));
    };
    const { receipt } = await calling;
    const lines = (await journalText()).split("\n").filter(Boolean);
    const starts = lines.filter((l) => l.startsWith("S\t"));
    assert.equal(starts.length, 1);
    assert.equal(JSON.parse(starts[0].slice(2)).id, receipt.id);
    assert.ok(lines.includes(`E\t${receipt.id}`), lines.join("\n"));
  } finally {
    await env.close();
  }
});
