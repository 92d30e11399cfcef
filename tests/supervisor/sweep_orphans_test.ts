import assert from "node:assert/strict";
import { join } from "node:path";
import { Supervisor, sweepOrphans } from "../../runtime/supervisor/mod.ts";
import type { SupervisorNote } from "../../runtime/supervisor/process_record.ts";
import { processTable } from "../../runtime/supervisor/process_table.ts";
import { allGone, isAlive } from "../internal/processes.ts";
import { tempFolder } from "../internal/temp_folder.ts";

/** The supervisor's entry, for the script that stands for a Sync. */
const SUPERVISOR_MODULE = new URL("../../runtime/supervisor/mod.ts", import.meta.url).href;

/**
 * A Sync in small: starts a program (which starts a child of its own) under
 * a supervisor, says their pids, and runs until it is killed.
 */
const SUPERVISING_SCRIPT = `
import { Supervisor } from ${JSON.stringify(SUPERVISOR_MODULE)};
const supervisor = new Supervisor({ recordFolder: Deno.args[0] });
const agent = await supervisor.spawn("agents", {
  command: "sh",
  args: ["-c", "trap '' TERM; sleep 1000 & echo $!; wait"],
});
const grandchild = Number((await agent.lines().next()).value);
console.log(JSON.stringify({ child: agent.pid, grandchild }));
setInterval(() => {}, 60_000);
`;

/** A start time no process has. */
const LONG_AGO = "Thu Jan 1 00:00:00 2026";

/** The pid of a process that has exited. */
async function deadPid(): Promise<number> {
  const done = new Deno.Command("true", { stdin: "null", stdout: "null", stderr: "null" }).spawn();
  await done.status;
  return done.pid;
}

/** Writes a record as a supervisor would. */
async function writeRecord(folder: string, name: string, note: SupervisorNote): Promise<string> {
  await Deno.mkdir(folder, { recursive: true });
  const file = join(folder, name);
  await Deno.writeTextFile(file, JSON.stringify(note));
  return file;
}

Deno.test("`sweepOrphans()` kills the groups a Sync that died left behind", async (t) => {
  await t.step("after the supervising process is killed with SIGKILL", async () => {
    const root = await tempFolder("sync-sweep-");
    const recordFolder = join(root, "processes");
    const script = join(root, "supervising.ts");
    await Deno.writeTextFile(script, SUPERVISING_SCRIPT);
    const sync = new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "--allow-read",
        "--allow-write",
        "--allow-run",
        "--allow-env",
        script,
        recordFolder,
      ],
      cwd: root,
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    const stderr = new Response(sync.stderr).text();
    const lines = sync.stdout.pipeThrough(new TextDecoderStream()).getReader();
    const { value: first } = await lines.read();
    if (!first) assert.fail(`the supervising script said nothing: ${await stderr}`);
    const { child, grandchild } = JSON.parse(first);
    Deno.kill(sync.pid, "SIGKILL");
    assert.equal((await sync.status).signal, "SIGKILL");
    await lines.cancel();
    await stderr;
    assert.ok(await isAlive(child), "the program died with its supervisor");
    assert.ok(await isAlive(grandchild), "the program's child died with its supervisor");

    const next = new Supervisor({ recordFolder });
    const swept = await next.sweepOrphans();
    assert.deepEqual(swept, [{ pgid: child, owner: "agents", command: "sh", killed: 2 }]);
    assert.ok(await allGone([child, grandchild]), "the orphaned group is still alive");
    assert.deepEqual(await Array.fromAsync(Deno.readDir(recordFolder)), []);
    assert.deepEqual(await next.sweepOrphans(), []);
  });

  await t.step("leaves a process that was given a recorded pid later alone", async () => {
    const folder = join(await tempFolder("sync-sweep-"), "processes");
    // Not started by any supervisor: it stands for a program that was given the pid.
    const unrelated = new Deno.Command("sleep", {
      args: ["1000"],
      detached: true,
      stdin: "null",
      stdout: "null",
      stderr: "null",
    }).spawn();
    const [row] = await processTable([unrelated.pid]);
    const group = {
      pgid: unrelated.pid,
      owner: "agents",
      command: "sleep",
      args: ["1000"],
      startedAt: "2026-01-01T00:00:00.000Z",
    };
    const supervisor = { pid: await deadPid(), started: LONG_AGO };
    const file = await writeRecord(folder, "1-reused.json", {
      supervisor,
      groups: [{ ...group, started: LONG_AGO }],
    });
    assert.deepEqual(await sweepOrphans(folder), [
      { pgid: unrelated.pid, owner: "agents", command: "sleep", killed: 0 },
    ]);
    assert.ok(await isAlive(unrelated.pid));
    await assert.rejects(Deno.stat(file), Deno.errors.NotFound);

    // The same pid with the start time written down is the group started: killed.
    await writeRecord(folder, "1-same.json", {
      supervisor,
      groups: [{ ...group, started: row.started }],
    });
    assert.deepEqual(await sweepOrphans(folder), [
      { pgid: unrelated.pid, owner: "agents", command: "sleep", killed: 1 },
    ]);
    assert.equal((await unrelated.status).signal, "SIGKILL");
  });

  await t.step("leaves the groups of a supervisor that still runs alone", async () => {
    const folder = join(await tempFolder("sync-sweep-"), "processes");
    const running = new Supervisor({ recordFolder: folder });
    const sleeper = await running.spawn("agents", { command: "sleep", args: ["1000"] });
    await sleeper.stdout.cancel();
    const other = new Supervisor({ recordFolder: folder });
    assert.deepEqual(await other.sweepOrphans(), []);
    assert.ok(await isAlive(sleeper.pid));
    // Its own record is never swept by itself either.
    assert.deepEqual(await running.sweepOrphans(), []);
    await Deno.stat(running.recordFile);
    await running.stopAll();
  });

  await t.step("removes a record it cannot read", async () => {
    const folder = join(await tempFolder("sync-sweep-"), "processes");
    await Deno.mkdir(folder);
    await Deno.writeTextFile(join(folder, "2-broken.json"), "{ not json");
    assert.deepEqual(await sweepOrphans(folder), []);
    assert.deepEqual(await Array.fromAsync(Deno.readDir(folder)), []);
  });
});
