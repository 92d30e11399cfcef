import assert from "node:assert/strict";
import { CancelledSteps } from "../../runtime/agents/cancelled_steps.ts";
import type { TranscriptEntry } from "../../runtime/transcript.ts";

const AT = "2026-01-01T00:00:00.000Z";
const LATER = "2026-01-01T00:00:01.000Z";

const plan = (...statuses: string[]): TranscriptEntry => ({
  at: AT,
  kind: "plan",
  steps: statuses.map((status, i) => ({ content: `step ${i}`, priority: "medium", status })),
});

Deno.test("`CancelledSteps` marks what a cancel stopped", async (t) => {
  await t.step("`closing()` marks the unfinished calls and the steps in progress cancelled", () => {
    const steps = new CancelledSteps();
    steps.begin();
    steps.see({ at: AT, kind: "tool_call", toolCallId: "done", title: "Done", status: "pending" });
    steps.see({ at: AT, kind: "tool_call_update", toolCallId: "done", status: "completed" });
    steps.see({ at: AT, kind: "tool_call", toolCallId: "asked", title: "Ask", status: "pending" });
    steps.see({
      at: AT,
      kind: "tool_call",
      toolCallId: "going",
      title: "Go",
      status: "in_progress",
    });
    steps.see(plan("completed", "in_progress", "pending"));
    steps.cancel();
    // The agent reports the call it was asked about failed, after the cancel: it is the cancel's.
    steps.see({ at: AT, kind: "tool_call_update", toolCallId: "asked", status: "failed" });
    // One that completed after the cancel did finish.
    steps.see({ at: AT, kind: "tool_call_update", toolCallId: "going", status: "completed" });
    assert.deepEqual(steps.closing(LATER), [
      { at: LATER, kind: "tool_call_update", toolCallId: "asked", status: "cancelled" },
      { ...plan("completed", "cancelled", "pending"), at: LATER },
    ]);
  });

  await t.step("a call that failed before the cancel stays failed", () => {
    const steps = new CancelledSteps();
    steps.begin();
    steps.see({ at: AT, kind: "tool_call", toolCallId: "broke", title: "Broke", status: "failed" });
    steps.cancel();
    assert.deepEqual(steps.closing(LATER), []);
  });

  await t.step("a turn nobody cancelled closes with nothing marked", () => {
    const steps = new CancelledSteps();
    steps.begin();
    steps.see({ at: AT, kind: "tool_call", toolCallId: "a", title: "A", status: "in_progress" });
    steps.see(plan("in_progress"));
    assert.deepEqual(steps.closing(LATER), []);
  });
});
