import assert from "node:assert/strict";
import { countedOutcome, isRefusal } from "../../runtime/host/handler_runs.ts";
import type { Receipt } from "../../runtime/types.ts";

function receipt(error?: { name: string; message: string }): Receipt {
  return {
    id: "r1",
    project: "/p",
    packageId: "mail",
    handler: "mail.sync",
    occasion: { kind: "task", task: { name: "sync", attempt: "a1", step: 1, trigger: "person" } },
    startedAt: "2030-01-01T09:00:00.000Z",
    endedAt: "2030-01-01T09:00:01.000Z",
    outcome: error ? "failed" : "ok",
    ...(error ? { error } : {}),
  };
}

Deno.test("`isRefusal()` and `countedOutcome()` take a fenced step as a refusal, like a superseded call", async (t) => {
  await t.step("fenced and superseded are refusals; a handler's own error is not", () => {
    assert.equal(isRefusal("FencedError"), true);
    assert.equal(isRefusal("SupersededError"), true);
    assert.equal(isRefusal("HandlerFailedError"), false);
  });
  await t.step("a fenced step counts neither as a failure nor as a success", () => {
    assert.equal(countedOutcome(receipt({ name: "FencedError", message: "changed" })), null);
    assert.equal(countedOutcome(receipt({ name: "HandlerFailedError", message: "x" })), "failed");
    assert.equal(countedOutcome(receipt()), "ok");
  });
});
