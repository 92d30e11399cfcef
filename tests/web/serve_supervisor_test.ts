import assert from "node:assert/strict";
import { join } from "node:path";
import { ProcessStartError } from "../../runtime/errors.ts";
import { Supervisor } from "../../runtime/supervisor/mod.ts";
import { processTable } from "../../runtime/supervisor/process_table.ts";
import { serve } from "../../runtime/web/serve.ts";
import { testHost } from "../internal/packages.ts";
import { rejectsWith } from "../internal/rejects_with.ts";
import { allGone } from "../internal/processes.ts";

Deno.test("`serve()` with a supervisor leaves no process behind", async (t) => {
  const { host, home, close } = await testHost();
  const recordFolder = join(home, "processes");
  // A group a serve that was killed left: its supervisor's pid is no longer in use.
  const left = new Deno.Command("sleep", {
    args: ["1000"],
    detached: true,
    stdin: "null",
    stdout: "null",
    stderr: "null",
  }).spawn();
  const [row] = await processTable([left.pid]);
  const gone = new Deno.Command("true").spawn();
  await gone.status;
  await Deno.mkdir(recordFolder, { recursive: true });
  await Deno.writeTextFile(
    join(recordFolder, `${gone.pid}-killed.json`),
    JSON.stringify({
      supervisor: { pid: gone.pid, started: "Thu Jan 1 00:00:00 2026" },
      groups: [{
        pgid: left.pid,
        owner: "agents",
        command: "sleep",
        args: ["1000"],
        startedAt: "2026-01-01T00:00:00.000Z",
        started: row.started,
      }],
    }),
  );
  const supervisor = new Supervisor({ recordFolder });
  const lines: string[] = [];
  const controller = new AbortController();
  const serving = serve(host, {
    port: 0,
    log: (line) => lines.push(line),
    signal: controller.signal,
    supervisor,
  });
  try {
    await t.step("at start, it kills the groups a killed serve left", async () => {
      assert.equal((await left.status).signal, "SIGKILL");
      const said = `Stopped sleep (process group ${left.pid}), left by a serve that was killed`;
      // The line comes once the sweep has removed the record, after the kill.
      for (let tries = 0; tries < 100 && !lines.includes(said); tries++) {
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      assert.ok(lines.includes(said), lines.join("\n"));
    });

    await t.step("when it stops, it stops every process and refuses new ones", async () => {
      const running = await supervisor.spawn("tests", { command: "sleep", args: ["1000"] });
      await running.stdout.cancel();
      controller.abort();
      await serving;
      assert.equal(running.exit?.signal, "SIGTERM");
      assert.ok(await allGone([running.pid]));
      await assert.rejects(Deno.stat(supervisor.recordFile), Deno.errors.NotFound);
      await rejectsWith(
        supervisor.spawn("tests", { command: "sleep", args: ["1"] }),
        ProcessStartError,
        "Cannot start sleep: Sync is stopping",
      );
    });
  } finally {
    controller.abort();
    await serving.catch(() => {});
    await close();
  }
});
