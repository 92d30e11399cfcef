import assert from "node:assert/strict";
import { LearntReads } from "../../runtime/host/learnt_reads.ts";
import type { ReadAhead } from "../../runtime/isolate/mod.ts";

const LIST: ReadAhead = { fn: "memory.list", args: '{"kind":"memo.note"}' };
const RECORD: ReadAhead = { fn: "memory.record", args: '"memo.note/a"' };
const OTHER: ReadAhead = { fn: "memory.record", args: '"memo.note/b"' };

Deno.test("`LearntReads` reads ahead what a handler's last two calls began with", async (t) => {
  await t.step("nothing before two calls began alike", () => {
    const learnt = new LearntReads();
    assert.deepEqual(learnt.ahead("h", "src"), []);
    learnt.learn("h", "src", [LIST, RECORD]);
    assert.deepEqual(learnt.ahead("h", "src"), []);
    learnt.learn("h", "src", [LIST, RECORD]);
    assert.deepEqual(learnt.ahead("h", "src"), [LIST, RECORD]);
  });

  await t.step("a read only one of the two made is not read ahead", () => {
    const learnt = new LearntReads();
    learnt.learn("h", "src", [LIST, RECORD]);
    learnt.learn("h", "src", [LIST, OTHER]);
    assert.deepEqual(learnt.ahead("h", "src"), [LIST]);
    learnt.learn("h", "src", []);
    assert.deepEqual(learnt.ahead("h", "src"), []);
  });

  await t.step("another module, or another handler, starts afresh", () => {
    const learnt = new LearntReads();
    learnt.learn("h", "src", [LIST]);
    learnt.learn("h", "src", [LIST]);
    assert.deepEqual(learnt.ahead("h", "changed"), []);
    assert.deepEqual(learnt.ahead("g", "src"), []);
    learnt.learn("h", "changed", [LIST]);
    assert.deepEqual(learnt.ahead("h", "changed"), []);
    assert.deepEqual(learnt.ahead("h", "src"), []);
  });

  await t.step("only reads are learnt, each once, four at most, with short arguments", () => {
    const learnt = new LearntReads();
    const reads: ReadAhead[] = [
      { fn: "memory.write", args: '{"key":"memo.note/a"}' },
      { fn: "memory.list", args: JSON.stringify({ kind: "x".repeat(2000) }) },
      LIST,
      LIST,
      RECORD,
      OTHER,
      { fn: "memory.content", args: '"memo.note/a"' },
      { fn: "memory.content", args: '"memo.note/b"' },
    ];
    learnt.learn("h", "src", reads);
    learnt.learn("h", "src", reads);
    assert.deepEqual(learnt.ahead("h", "src"), [LIST, RECORD, OTHER]);
  });
});
