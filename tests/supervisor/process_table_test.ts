import assert from "node:assert/strict";
import { parseProcessRows, processTable } from "../../runtime/supervisor/process_table.ts";

Deno.test("`processTable()` lists processes as ps sees them", async (t) => {
  await t.step("reads ps's lines, zombies marked", () => {
    const text = "    1     1 Ss   Mon Nov 30 16:29:55 2026\n" +
      "  812   800 Z    Mon Nov  3 09:05:01 2026\n" +
      "garbage\n";
    assert.deepEqual(parseProcessRows(text), [
      { pid: 1, pgid: 1, zombie: false, started: "Mon Nov 30 16:29:55 2026" },
      { pid: 812, pgid: 800, zombie: true, started: "Mon Nov 3 09:05:01 2026" },
    ]);
  });

  await t.step("finds this process, and none for a pid that is not in use", async () => {
    const [self] = await processTable([Deno.pid]);
    assert.equal(self.pid, Deno.pid);
    assert.ok(Date.parse(`${self.started} UTC`) <= Date.now());
    const done = new Deno.Command("true").spawn();
    await done.status;
    assert.deepEqual(await processTable([done.pid]), []);
  });
});
