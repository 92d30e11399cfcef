import assert from "node:assert/strict";
import { canMeasurePeak, measureRun, parsePeakMb } from "./measured_run.ts";

Deno.test("parsePeakMb() reads the max RSS time wrote, in MB", async (t) => {
  await t.step("KB of 1024 bytes, as time writes %M", () => {
    assert.equal(parsePeakMb("30000\n"), 30000 * 1024 / 1e6);
  });
  await t.step("the last line when time says the command was killed", () => {
    assert.equal(parsePeakMb("Command terminated by signal 15\n2048\n"), 2048 * 1024 / 1e6);
  });
  await t.step("refuses text without a number", () => {
    assert.throws(() => parsePeakMb(""), /no max RSS/);
  });
});

Deno.test({
  name: "measureRun() times a real command and reads its peak memory",
  ignore: !await canMeasurePeak(),
  fn: async (t) => {
    await t.step("to its exit", async () => {
      const run = await measureRun(Deno.execPath(), ["eval", "new Uint8Array(64e6).fill(1)"], {
        cwd: Deno.cwd(),
        env: { NO_COLOR: "1" },
      });
      assert.ok(run.ms > 0);
      // It filled 64 MB: its peak is more than that.
      assert.ok(run.peakMb > 64, `peak ${run.peakMb} MB`);
    });
    await t.step("to the first answer to what was written on its stdin", async () => {
      const echo = "for await (const c of Deno.stdin.readable) await Deno.stdout.write(c);";
      const run = await measureRun(Deno.execPath(), ["eval", echo], {
        cwd: Deno.cwd(),
        env: { NO_COLOR: "1" },
        ask: { request: "ping", answered: (line) => line === "ping" },
      });
      assert.ok(run.ms > 0 && run.peakMb > 0);
    });
    await t.step("fails a command that exits other than 0, with its words", async () => {
      await assert.rejects(
        measureRun(Deno.execPath(), ["eval", "console.error('broken'); Deno.exit(3)"], {
          cwd: Deno.cwd(),
          env: { NO_COLOR: "1" },
        }),
        /exited 3[\s\S]*broken/,
      );
    });
  },
});
