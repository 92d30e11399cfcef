import assert from "node:assert/strict";
import {
  busiestSharedThread,
  concurrentBound,
  coresAvailable,
  cpuPerCallByGroup,
  parseTaskStat,
  threadGroup,
  threadStats,
} from "./thread_cpu.ts";

/** A stat line as Linux writes it, with `utime` and `stime` in place (fields 14 and 15). */
function statLine(tid: number, comm: string, utime: number, stime: number): string {
  return `${tid} (${comm}) S 1 1 1 0 -1 4194304 3466 510 0 1 ${utime} ${stime} 0 1 20 0 8 0 3141250`;
}

Deno.test("parseTaskStat() reads a thread's id, name and CPU ticks", async (t) => {
  await t.step("adds user and system ticks", () => {
    assert.deepEqual(parseTaskStat(statLine(42, "tokio-runtime-w", 7, 3)), {
      tid: 42,
      comm: "tokio-runtime-w",
      ticks: 10,
    });
  });
  await t.step(
    "counts fields from the last parenthesis, so a name may hold ') ' and spaces",
    () => {
      assert.deepEqual(parseTaskStat(statLine(5, "a) b (c", 2, 1)), {
        tid: 5,
        comm: "a) b (c",
        ticks: 3,
      });
    },
  );
  await t.step("refuses a line that is not a stat line", () => {
    assert.throws(() => parseTaskStat("no parentheses here"), /not a stat line/);
  });
});

Deno.test("threadGroup() names the main thread by its id and the rest by their name", () => {
  const group = (tid: number, comm: string) => threadGroup({ tid, comm, ticks: 0 }, 100);
  assert.equal(group(100, "deno"), "main thread");
  assert.equal(group(101, "deno"), "deno");
  assert.equal(group(102, "worker-3"), "Deno Workers (isolates)");
  assert.equal(group(103, "sw-0"), "Deno KV (sw-N, one per open KV)");
  assert.equal(group(104, "tokio-runtime-w"), "tokio runtime (I/O, timers)");
});

Deno.test("cpuPerCallByGroup() divides each group's ticks between two readings by the calls", () => {
  const before = [
    parseTaskStat(statLine(1, "deno", 10, 0)),
    parseTaskStat(statLine(2, "worker-1", 5, 0)),
  ];
  const after = [
    parseTaskStat(statLine(1, "deno", 14, 1)), // 5 ticks
    parseTaskStat(statLine(2, "worker-1", 10, 5)), // 10 ticks
    parseTaskStat(statLine(3, "worker-2", 5, 0)), // new: 5 ticks from zero
    parseTaskStat(statLine(4, "sw-0", 0, 0)), // idle: left out
  ];
  const groups = cpuPerCallByGroup(before, after, { pid: 1, calls: 50, ticksPerSecond: 100 });
  // 15 ticks of 10 ms over 50 calls: 3 ms a call; the main thread's 5 ticks: 1 ms.
  assert.deepEqual([...groups], [["Deno Workers (isolates)", 3], ["main thread", 1]]);
});

Deno.test("concurrentBound() is the lesser of what the cores and the callers allow", async (t) => {
  await t.step(
    "bounded by cores when a call takes more CPU than its time ÷ callers × cores",
    () => {
      // 2 cores ÷ 2 ms of CPU a call = 1,000 calls/s; 4 callers ÷ 2.5 ms = 1,600/s.
      assert.equal(
        concurrentBound({ msPerCall: 2.5, cpuMsPerCall: 2 }, { cores: 2, callers: 4 }),
        1000,
      );
    },
  );
  await t.step("bounded by the callers when a call mostly waits", () => {
    // 2 cores ÷ 0.5 ms = 4,000/s; 4 callers ÷ 2 ms = 2,000/s.
    assert.equal(
      concurrentBound({ msPerCall: 2, cpuMsPerCall: 0.5 }, { cores: 2, callers: 4 }),
      2000,
    );
  });
  await t.step("bounded by the thread every call passes through when it is the busiest", () => {
    // 4 cores ÷ 1 ms = 4,000/s; 4 callers ÷ 1 ms = 4,000/s; one thread at 0.5 ms a call: 2,000/s.
    assert.equal(
      concurrentBound(
        { msPerCall: 1, cpuMsPerCall: 1, sharedThreadMsPerCall: 0.5 },
        { cores: 4, callers: 4 },
      ),
      2000,
    );
  });
  await t.step("bounded by the cores the process got, not the machine's", () => {
    // 0.5 of 2 cores got ÷ 2 ms = 250/s.
    assert.equal(
      concurrentBound({ msPerCall: 2.5, cpuMsPerCall: 2 }, { cores: 0.5, callers: 4 }),
      250,
    );
  });
});

Deno.test("busiestSharedThread() is the CPU per call of the busiest thread that is no worker", () => {
  const before = [
    parseTaskStat(statLine(1, "deno", 10, 0)),
    parseTaskStat(statLine(2, "worker-1", 0, 0)),
  ];
  const after = [
    parseTaskStat(statLine(1, "deno", 30, 0)), // 20 ticks
    parseTaskStat(statLine(2, "worker-1", 40, 0)), // 40 ticks, but a caller's own
    parseTaskStat(statLine(3, "sw-0", 10, 0)), // 10 ticks
  ];
  // 20 ticks of 10 ms over 100 calls: 2 ms a call on the main thread.
  assert.equal(busiestSharedThread(before, after, { pid: 1, calls: 100, ticksPerSecond: 100 }), 2);
});

Deno.test("coresAvailable() reads more than none and no more than the cores it spins", async () => {
  const cores = await coresAvailable(1, 50);
  assert.ok(cores > 0 && cores <= 1, `${cores}`);
});

Deno.test("threadStats() lists this process's threads, the main one among them", async () => {
  const stats = await threadStats();
  const main = stats.find((stat) => stat.tid === Deno.pid);
  assert.ok(main, `no thread with the process's id in ${JSON.stringify(stats)}`);
  assert.ok(stats.every((stat) => Number.isInteger(stat.ticks) && stat.ticks >= 0));
});
