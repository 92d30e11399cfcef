import assert from "node:assert/strict";
import { join } from "node:path";
import { listAttempts, TaskRunner } from "../../runtime/applets/mod.ts";
import { Host, listReceipts } from "../../runtime/host/mod.ts";
import { DEFAULT_LIMITS } from "../../runtime/limits.ts";
import { getContent, listRecords } from "../../runtime/memory/mod.ts";
import type { RecordSummary } from "../../runtime/extension_api/service.ts";
import { FakeScheduler } from "../internal/applets.ts";
import { isAlive } from "../internal/processes.ts";

/** Steps one run makes, and records each step writes. */
const STEPS = 40;
const PER_STEP = 25;

/**
 * A `mail.sync` that says on its console which step begins (so the previous
 * one committed), then writes its step's records, each saying in its title,
 * fields and content which attempt and step wrote it.
 */
const SERVICE = `import { memory } from "@sync/extension-api/service";
export default function register() {
  return {
    "mail.sync": async (payload, occasion) => {
      const { attempt, step } = occasion.task;
      console.log("step " + step + " begins");
      for (let i = 0; i < ${PER_STEP}; i++) {
        const name = "s" + step + "-" + i;
        await memory.write({
          key: "mail.message/" + name,
          title: attempt + " " + name,
          fields: { attempt, step, i },
          content: (attempt + " " + name + "\\n").repeat(200),
        });
      }
      const coverage = { read: step * ${PER_STEP}, of: ${STEPS * PER_STEP}, failed: 0 };
      return step < ${STEPS} ? { continue: step, coverage } : { coverage };
    },
  };
}`;

const CHILD = join(import.meta.dirname!, "..", "internal", "applet_run_child.ts");
const REPO = join(import.meta.dirname!, "..", "..");

/** Every record of the mail applet, with its content. */
async function allRecords(memory: Deno.Kv): Promise<(RecordSummary & { content: string })[]> {
  const out: (RecordSummary & { content: string })[] = [];
  let cursor: string | undefined;
  do {
    const page = await listRecords(memory, { kind: "mail.message", limit: 500, cursor });
    for (const record of page.records) {
      out.push({ ...record, content: (await getContent(memory, record.key)) ?? "" });
    }
    cursor = page.cursor ?? undefined;
  } while (cursor);
  return out;
}

/** Asserts each record is whole (its title, fields and content from one write); answers its step. */
function wholeStep(record: RecordSummary & { content: string }): { attempt: string; step: number } {
  const { attempt, step, i } = record.fields as { attempt: string; step: number; i: number };
  const name = `s${step}-${i}`;
  assert.equal(record.key, `mail.message/${name}`);
  assert.equal(record.title, `${attempt} ${name}`);
  assert.equal(record.content, `${attempt} ${name}\n`.repeat(200));
  return { attempt, step };
}

Deno.test("`TaskRunner` leaves nothing half-written by a run killed while its steps commit", async (t) => {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "sync-test-" }));
  let child: Deno.ChildProcess | undefined;
  try {
    await Deno.mkdir(join(root, "project"));
    await Deno.mkdir(join(root, "folder"));
    await Deno.writeTextFile(join(root, "service.js"), SERVICE);
    const project = await Deno.realPath(join(root, "project"));

    await t.step("the child is killed once steps have committed", async () => {
      child = new Deno.Command(Deno.execPath(), {
        args: [
          "run",
          "--allow-all",
          "--unstable-kv",
          "--unstable-worker-options",
          "--unstable-no-legacy-abort",
          CHILD,
          root,
        ],
        cwd: REPO,
        stdout: "piped",
        stderr: "inherit",
      }).spawn();
      // Step 4 begins only once step 3 committed.
      let said = "";
      for await (const chunk of child.stdout.pipeThrough(new TextDecoderStream())) {
        said += chunk;
        if (/step 4 begins/.test(said)) {
          // Killed before the output is let go, so that nothing but the kill stops it.
          child.kill("SIGKILL");
          break;
        }
        assert.doesNotMatch(said, /ended /, "the run ended before it was killed");
      }
      assert.match(said, /step 4 begins/, `the child said: ${said}`);
      const status = await child.status;
      assert.equal(status.signal, "SIGKILL");
      assert.ok(!(await isAlive(child.pid)));
    });

    const kv = await Deno.openKv(join(root, "installation.kv"));
    const host = new Host({
      kv,
      home: join(root, "home"),
      limits: { ...DEFAULT_LIMITS, rateLimit: 10_000 },
      log: () => {},
    });
    const timers = new FakeScheduler();
    const runner = new TaskRunner(host, { now: timers.now, scheduler: timers, log: () => {} });
    try {
      const memory = await host.projectMemory(project);
      let killedAttempt = "";
      let committedReceipts: string[] = [];

      await t.step("every record written is whole, and only of steps that committed", async () => {
        const records = await allRecords(memory);
        const byStep = new Map<number, number>();
        for (const record of records) {
          const { attempt, step } = wholeStep(record);
          killedAttempt ||= attempt;
          assert.equal(attempt, killedAttempt, "one attempt wrote them all");
          byStep.set(step, (byStep.get(step) ?? 0) + 1);
        }
        const steps = [...byStep.keys()].sort((a, b) => a - b);
        assert.ok(steps.length >= 3, `steps 1 to 3 committed; found ${steps}`);
        assert.deepEqual(steps, steps.map((_, index) => index + 1), "the committed steps in order");
        for (const [step, count] of byStep) {
          assert.equal(count, PER_STEP, `step ${step} committed whole`);
        }
        // As a process that owns the installation does when it starts.
        const interrupted = await host.recordInterruptedCalls();
        const receipts = await listReceipts(kv, project, { packageId: "mail" });
        const ok = receipts.filter((r) => r.handler === "mail.sync" && r.outcome === "ok");
        // The step the kill met has its receipt said interrupted; it may have
        // committed just before (its receipt is written after its commit).
        assert.ok(interrupted.length <= 1, "one step was going when the child was killed");
        for (const receipt of interrupted) assert.equal(receipt.handler, "mail.sync");
        assert.ok(ok.length <= steps.length && steps.length <= ok.length + interrupted.length);
        committedReceipts = ok.map((receipt) => receipt.id);
      });

      await t.step("the attempt left running is ended cancelled when a runner starts", async () => {
        const [left] = await listAttempts(kv, project, "mail", "sync", 50);
        assert.equal(left.id, killedAttempt);
        assert.equal(left.outcome, undefined, "the killed run had not ended");
        // Steps 1 to 3 returned before step 4 began: the attempt links their receipts.
        assert.ok(left.receipts.length >= 3, `receipts of the killed attempt: ${left.receipts}`);
        for (const id of left.receipts) assert.ok(committedReceipts.includes(id));
        await runner.start();
        const [ended] = await listAttempts(kv, project, "mail", "sync", 50);
        assert.equal(ended.id, killedAttempt);
        assert.equal(ended.outcome, "cancelled");
        assert.deepEqual(ended.receipts, left.receipts);
        assert.match(ended.error!, /Sync stopped while this run was going/);
      });

      await t.step("the next run completes", async () => {
        const attempt = await runner.runTask(project, "mail", "sync");
        assert.equal(attempt.outcome, "ok", attempt.error);
        assert.equal(attempt.receipts.length, STEPS);
        const records = await allRecords(memory);
        assert.equal(records.length, STEPS * PER_STEP);
        for (const record of records) assert.equal(wholeStep(record).attempt, attempt.id);
        const shown = await runner.view(project, "mail");
        assert.equal(shown.lamp, "steady");
        assert.equal(shown.lastRead?.coverage.read, STEPS * PER_STEP);
      });
    } finally {
      await runner.stop();
      await host.close();
      kv.close();
    }
  } finally {
    if (child) {
      try {
        child.kill("SIGKILL");
      } catch {
        // Already gone.
      }
      await child.status;
      await child.stdout.cancel().catch(() => {});
    }
    await Deno.remove(root, { recursive: true });
  }
});
