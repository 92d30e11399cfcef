import assert from "node:assert/strict";
import { join } from "node:path";
import { Host } from "../../runtime/host/host.ts";
import { HandlerRateLimit } from "../../runtime/host/handler_rate_limit.ts";
import { handlerRateKey, runningClaimKey } from "../../runtime/host/keys.ts";
import { listReceipts } from "../../runtime/host/receipts.ts";
import { holdHandler } from "../../runtime/host/running_claim.ts";
import { installPackage } from "../../runtime/lifecycle/install.ts";
import { DEFAULT_LIMITS } from "../../runtime/limits.ts";
import { bumpGeneration } from "../../runtime/memory/generation.ts";
import { listRecords, projectMemoryPath } from "../../runtime/memory/store.ts";
import { type Approval, deleteApproval, writeApproval } from "../../runtime/packages/approval.ts";
import { approvalKey, packageRefKey } from "../../runtime/packages/keys.ts";
import { type PackageRef, setPackageRef } from "../../runtime/packages/store.ts";
import { writeRecord } from "../../runtime/memory/write_record.ts";
import { countInPlace } from "../internal/counting_kv.ts";
import { writePackage } from "../internal/packages.ts";

const CALL = { occasion: { kind: "extension" as const }, source: { kind: "person" as const } };
const AN_HOUR_AGO = new Date(Date.now() - 3_600_000);

function service(handlers: string[]): string {
  return `import { memory } from "@sync/extension-api/service";
export default function register() {
  return {
${
    handlers.map((h) =>
      `    ${JSON.stringify(h)}: async () => {
      console.log("ran ${h}");
      await memory.write({ key: "memo.note/" + ${JSON.stringify(h)}, title: "x" });
      return { ran: ${JSON.stringify(h)} };
    },`
    ).join("\n")
  }
  };
}
`;
}

/** Ages every file under `dir`, so what is read of them is kept between calls. */
async function age(dir: string): Promise<void> {
  for await (const entry of Deno.readDir(dir)) {
    const path = join(dir, entry.name);
    if (entry.isDirectory) await age(path);
    else await Deno.utime(path, AN_HOUR_AGO, AN_HOUR_AGO);
  }
}

Deno.test("`callHandler()` takes up, at the next call, what changed since the last", async (t) => {
  const root = await Deno.makeTempDir({ prefix: "sync-call-reads-" });
  const home = join(root, "home");
  await Deno.mkdir(home);
  const kvPath = join(home, "sync.kv");
  const kv = await Deno.openKv(kvPath);
  const logs: string[] = [];
  const host = new Host({ kv, home, limits: DEFAULT_LIMITS, log: (line) => logs.push(line) });
  const projectDir = join(root, "project");
  await Deno.mkdir(projectDir);
  const dir = await writePackage(root, {
    id: "memo",
    handlers: ["memo.a"],
    service: service(["memo.a"]),
  });
  const { project } = await installPackage(host, dir, projectDir, { approve: true });
  const call = (handler: string) => host.callHandler(project, "memo", handler, CALL);
  try {
    await t.step("a manifest edited in place to the same size is read again", async () => {
      await age(dir);
      await age(join(project, ".sync"));
      assert.deepEqual((await call("memo.a")).value, { ran: "memo.a" });
      assert.deepEqual((await call("memo.a")).value, { ran: "memo.a" });
      const manifest = join(dir, "manifest.json");
      const before = await Deno.readTextFile(manifest);
      await Deno.writeTextFile(manifest, before.replaceAll("memo.a", "memo.b"));
      await Deno.writeTextFile(join(dir, "service", "index.js"), service(["memo.b"]));
      // Even with its times put back, the file's change time tells it changed.
      await Deno.utime(manifest, AN_HOUR_AGO, AN_HOUR_AGO);
      await Deno.utime(join(dir, "service", "index.js"), AN_HOUR_AGO, AN_HOUR_AGO);
      assert.deepEqual((await call("memo.b")).value, { ran: "memo.b" });
      await assert.rejects(call("memo.a"), { name: "NotFoundError" });
    });

    await t.step(
      "a generation bumped through another handle on the memory lets the next call commit",
      async () => {
        const other = await Deno.openKv(projectMemoryPath(project));
        try {
          await bumpGeneration(other, "memo");
        } finally {
          other.close();
        }
        assert.deepEqual((await call("memo.b")).value, { ran: "memo.b" });
        const memory = await host.projectMemory(project);
        const page = await listRecords(memory, { kind: "memo.note" });
        assert.ok(page.records.some((r) => r.key === "memo.note/memo.b"));
      },
    );

    await t.step(
      "a claimed handler's refused call tells none of its lines and commits nothing",
      async () => {
        const memory = await host.projectMemory(project);
        const hold = await holdHandler(kv, runningClaimKey(project, "memo", "memo.b"), {
          now: Date.now,
          forMs: 60_000,
        });
        assert.ok(hold);
        const memoryBefore = (await listRecords(memory, { kind: "memo.note" })).records.length;
        logs.length = 0;
        try {
          await assert.rejects(call("memo.b"), { name: "HandlerBusyError" });
          // The refused call's isolate may still be running: give it time to try.
          await new Promise((resolve) => setTimeout(resolve, 200));
        } finally {
          await hold.release();
        }
        assert.deepEqual(logs, []);
        const after = (await listRecords(memory, { kind: "memo.note" })).records.length;
        assert.equal(after, memoryBefore);
      },
    );

    await t.step(
      "an approval taken back through another handle on the installation is refused at the next call",
      async () => {
        const other = await Deno.openKv(kvPath);
        try {
          await deleteApproval(other, project, "memo");
        } finally {
          other.close();
        }
        await assert.rejects(call("memo.b"), { name: "ApprovalRequiredError" });
      },
    );

    await t.step(
      "a package taken out of extensions.json is not installed at the next call",
      async () => {
        const file = join(project, ".sync", "extensions.json");
        await Deno.writeTextFile(file, JSON.stringify({ extensions: ["mem0"] }));
        await Deno.utime(file, AN_HOUR_AGO, AN_HOUR_AGO);
        await assert.rejects(call("memo.b"), { name: "NotFoundError", message: /not installed/ });
      },
    );
  } finally {
    await host.close();
    kv.close();
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("`callHandler()` checks, rather than reads, what it kept from the last call, and a change by another process still counts", async (t) => {
  const root = await Deno.makeTempDir({ prefix: "sync-call-kept-" });
  const home = join(root, "home");
  await Deno.mkdir(home);
  const kvPath = join(home, "sync.kv");
  const kv = await Deno.openKv(kvPath);
  const limits = { ...DEFAULT_LIMITS, rateLimit: 3, rateWindowMs: 60_000 };
  const host = new Host({ kv, home, limits, log: () => {} });
  const projectDir = join(root, "project");
  await Deno.mkdir(projectDir);
  const v1 = await writePackage(root, {
    id: "memo",
    handlers: ["memo.a"],
    service: service(["memo.a"]),
  });
  const { project } = await installPackage(host, v1, projectDir, { approve: true });
  await age(v1);
  await age(join(project, ".sync"));
  const call = () => host.callHandler(project, "memo", "memo.a", CALL);
  /** Writes through a handle of its own, as another process would. */
  async function elsewhere(write: (other: Deno.Kv) => Promise<void>): Promise<void> {
    const other = await Deno.openKv(kvPath);
    try {
      await write(other);
    } finally {
      other.close();
    }
  }
  try {
    await t.step("a call counted by another process counts against the rate limit", async () => {
      await call();
      await elsewhere((other) =>
        new HandlerRateLimit(other, limits).count(project, "memo", "memo.a", Date.now())
      );
      await call();
      await assert.rejects(call(), { name: "RateLimitedError", message: /3 times/ });
      await kv.delete(handlerRateKey(project, "memo", "memo.a"));
    });

    await t.step(
      "a ref moved by another process serves at the next call, which leaves one receipt",
      async () => {
        assert.deepEqual((await call()).value, { ran: "memo.a" });
        const v2 = await writePackage(root, {
          id: "memo",
          version: "2.0.0",
          handlers: ["memo.a"],
          service: service(["memo.a"]).replace(`{ ran: "memo.a" }`, `{ ran: "v2" }`),
        });
        await age(v2);
        const ref = (await kv.get<PackageRef>(packageRefKey("memo"))).value!;
        await elsewhere((other) => setPackageRef(other, { ...ref, version: "2.0.0", dir: v2 }));
        const before = (await listReceipts(kv, project, { packageId: "memo", limit: 500 })).length;
        const result = await call();
        assert.deepEqual(result.value, { ran: "v2" });
        const after = await listReceipts(kv, project, { packageId: "memo", limit: 500 });
        assert.equal(after.length, before + 1);
        assert.equal(after[0].id, result.receipt.id);
        assert.equal(after[0].outcome, "ok");
      },
    );

    await t.step("an approval given by another process is taken up at the next call", async () => {
      const approval = (await kv.get<Approval>(approvalKey(project, "memo"))).value!;
      await elsewhere((other) => deleteApproval(other, project, "memo"));
      await assert.rejects(call(), { name: "ApprovalRequiredError" });
      await elsewhere((other) => writeApproval(other, project, approval));
      assert.deepEqual((await call()).value, { ran: "v2" });
    });

    await t.step(
      "a ref moved by another process away from a folder whose module is gone serves the new folder",
      async () => {
        const ref = (await kv.get<PackageRef>(packageRefKey("memo"))).value!;
        const v3 = await writePackage(root, {
          id: "memo",
          version: "2.0.0",
          handlers: ["memo.a"],
          service: service(["memo.a"]).replace(`{ ran: "memo.a" }`, `{ ran: "v3" }`),
        });
        await age(v3);
        await kv.delete(handlerRateKey(project, "memo", "memo.a"));
        await elsewhere((other) => setPackageRef(other, { ...ref, dir: v3 }));
        await Deno.remove(join(ref.dir, "service", "index.js"));
        const result = await call();
        assert.deepEqual(result.value, { ran: "v3" });
        assert.equal(result.receipt.outcome, "ok");
      },
    );
  } finally {
    await host.close();
    kv.close();
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("`callHandler()` runs under the generation kept from the last call, and proves it before it writes", async (t) => {
  const root = await Deno.makeTempDir({ prefix: "sync-call-generation-" });
  const home = join(root, "home");
  await Deno.mkdir(home);
  const kv = await Deno.openKv(join(home, "sync.kv"));
  const logs: string[] = [];
  // No call here claims for having run long: a claim would prove the generation early.
  const host = new Host({
    kv,
    home,
    limits: DEFAULT_LIMITS,
    log: (line) => logs.push(line),
    claimAfterMs: 10_000,
  });
  const projectDir = join(root, "project");
  await Deno.mkdir(projectDir);
  // Lists, then writes when the payload asks it to: a read made before the
  // write; with a flag to wait for, it looks for it until it is there first.
  const dir = await writePackage(root, {
    id: "tally",
    handlers: ["tally.count"],
    service: `import { memory } from "@sync/extension-api/service";
export default function register() {
  return {
    "tally.count": async (payload) => {
      const until = Date.now() + 2500;
      while (payload?.waitFor && !(await memory.record("tally.flag/" + payload.waitFor))) {
        if (Date.now() > until) throw new Error("the flag never came");
        const next = Date.now() + 5;
        while (Date.now() < next) { /* wait */ }
      }
      const { records } = await memory.list({ kind: "tally.mark", limit: 50 });
      console.log("counted " + records.length);
      if (payload?.write) await memory.write({ key: "tally.mark/" + records.length, title: "x" });
      return { count: records.length };
    },
  };
}
`,
  });
  const { project } = await installPackage(host, dir, projectDir, { approve: true });
  await age(dir);
  await age(join(project, ".sync"));
  const call = (write: boolean) =>
    host.callHandler(project, "tally", "tally.count", { ...CALL, payload: { write } });
  /** Bumps the generation through a handle of its own, as another process would. */
  async function bumpElsewhere(): Promise<void> {
    const other = await Deno.openKv(projectMemoryPath(project));
    try {
      await bumpGeneration(other, "tally");
    } finally {
      other.close();
    }
  }
  try {
    await t.step("a call that only reads answers after the generation moved on", async () => {
      assert.deepEqual((await call(false)).value, { count: 0 });
      await bumpElsewhere();
      assert.deepEqual((await call(false)).value, { count: 0 });
    });

    await t.step(
      "a call that read, then writes under a generation moved on since, is made again unseen",
      async () => {
        const before = await listReceipts(kv, project, { packageId: "tally", limit: 500 });
        logs.length = 0;
        const result = await call(true);
        assert.deepEqual(result.value, { count: 0 });
        assert.equal(result.receipt.outcome, "ok");
        // One receipt, one line told: the attempt made again left nothing.
        const after = await listReceipts(kv, project, { packageId: "tally", limit: 500 });
        assert.equal(after.length, before.length + 1);
        assert.equal(after[0].id, result.receipt.id);
        assert.deepEqual(logs.filter((line) => line.includes("counted")).length, 1);
        const memory = await host.projectMemory(project);
        const page = await listRecords(memory, { kind: "tally.mark" });
        assert.deepEqual(page.records.map((r) => r.key), ["tally.mark/0"]);
      },
    );

    await t.step("the next write, the generation unchanged, commits at once", async () => {
      assert.deepEqual((await call(true)).value, { count: 1 });
      assert.deepEqual((await call(true)).value, { count: 2 });
    });

    await t.step(
      "a generation this process bumps while a call runs supersedes the call, as it always did",
      async () => {
        const memory = await host.projectMemory(project);
        const counting = countInPlace(memory);
        let running: Promise<unknown>;
        try {
          running = host.callHandler(project, "tally", "tally.count", {
            ...CALL,
            payload: { write: true, waitFor: "go" },
          });
          running.catch(() => {});
          // It has looked for the flag once: it runs, and has read.
          const deadline = Date.now() + 10_000;
          while (!counting.count.keysRead.some((key) => key.startsWith("record/tally.flag"))) {
            if (Date.now() > deadline) throw new Error("the call never looked for its flag");
            await new Promise((resolve) => setTimeout(resolve, 5));
          }
        } finally {
          counting.restore();
        }
        await bumpGeneration(memory, "tally");
        await writeRecord(memory, { key: "tally.flag/go", title: "go" });
        await assert.rejects(running, { name: "SupersededError" });
        const page = await listRecords(memory, { kind: "tally.mark" });
        assert.deepEqual(page.records.map((r) => r.key), [
          "tally.mark/0",
          "tally.mark/1",
          "tally.mark/2",
        ]);
        // The next call, started after the bump, reads it and commits.
        assert.deepEqual((await call(true)).value, { count: 3 });
      },
    );
  } finally {
    await host.close();
    kv.close();
    await Deno.remove(root, { recursive: true });
  }
});
