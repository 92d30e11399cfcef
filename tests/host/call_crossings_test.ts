import assert from "node:assert/strict";
import { countCrossings } from "../bench/crossing_counts.ts";

Deno.test("`Host.callHandler()` crosses to other threads no more than a call needs", async (t) => {
  // The real pool and a counting installation KV in memory: the counts are
  // the same on any machine.
  const counts = await countCrossings({ calls: 30, listCalls: 3 });

  await t.step(
    "a trivial call makes one KV commit, no KV read and one worker round trip, each time",
    () => {
      assert.equal(counts.trivial.length, 30);
      for (const [i, call] of counts.trivial.entries()) {
        const what = `trivial call ${i + 2}`;
        assert.equal(call.commits, 1, `${what}: KV commits`);
        assert.deepEqual(call.keysRead, [], `${what}: installation KV reads`);
        assert.equal(call.reads, 0, `${what}: installation KV reads`);
        assert.equal(call.memoryCommits + call.memoryReads, 0, `${what}: project memory`);
        assert.equal(call.sent, 1, `${what}: messages to the worker`);
        assert.equal(call.received, 1, `${what}: messages from the worker`);
        assert.equal(call.fileOps, 0, `${what}: asynchronous file operations`);
        assert.equal(
          call.awaits,
          2,
          `${what}: awaits that change threads (the commit, the answer)`,
        );
      }
    },
  );

  await t.step("the first trivial call reads what no call before it kept", () => {
    assert.equal(counts.firstTrivial.commits, 1);
    assert.equal(counts.firstTrivial.sent, 1);
    assert.equal(counts.firstTrivial.received, 1);
  });

  await t.step(
    "a call doing one memory.list reads only the records, read ahead, under the generation kept from the last call",
    () => {
      for (const [i, call] of counts.list.entries()) {
        const what = `memory.list call ${i + 3}`;
        assert.equal(call.commits, 1, `${what}: KV commits`);
        assert.equal(call.reads, 0, `${what}: installation KV reads`);
        assert.equal(call.memoryCommits, 0, `${what}: project memory commits`);
        // Its generation is kept from the last call: a call that only reads
        // has nothing to fence, and a write would prove it first.
        assert.equal(call.memoryReads, 1, `${what}: project memory reads`);
        assert.equal(call.memoryKeysRead.length, 1);
        assert.match(call.memoryKeysRead[0], /^record\//);
        // The call, then the answer of the read made ahead; the handler's answer back.
        assert.equal(call.sent, 2, `${what}: messages to the worker`);
        assert.equal(call.received, 1, `${what}: messages from the worker`);
        assert.equal(call.fileOps, 0, `${what}: asynchronous file operations`);
        assert.equal(call.awaits, 3, `${what}: awaits that change threads`);
      }
    },
  );
});
