import assert from "node:assert/strict";
import { AGENT_LIMITS, appendEntry, type TranscriptEntry } from "../../runtime/agents/mod.ts";
import { itemsOf, joinEntry } from "../../ui/chat/transcript_items.ts";

const AT = "2026-01-01T00:00:00.000Z";

/** A stream as an agent sends it: chunks of several kinds, ids and replays, and a long one. */
function stream(): TranscriptEntry[] {
  const long = "x".repeat(AGENT_LIMITS.maxEntryChars - 3);
  return [
    { at: AT, kind: "user", text: "Say " },
    { at: AT, kind: "user", text: "hello" },
    { at: AT, kind: "thought", text: "Think", messageId: "m1" },
    { at: AT, kind: "thought", text: "ing", messageId: "m1" },
    { at: AT, kind: "message", text: "Hel", messageId: "m1" },
    { at: AT, kind: "message", text: "lo", messageId: "m1" },
    { at: AT, kind: "message", text: "Again", messageId: "m2" },
    { at: AT, kind: "message", text: "Replayed", messageId: "m2", replay: true },
    { at: AT, kind: "message", text: long },
    { at: AT, kind: "message", text: "abc" },
    { at: AT, kind: "message", text: "d" },
    { at: AT, kind: "tool_call", toolCallId: "c1", title: "Read", status: "pending" },
    { at: AT, kind: "message", text: "after the call" },
    { at: AT, kind: "turn_end", stopReason: "end_turn" },
  ];
}

Deno.test("`joinEntry()` joins a stream as the server's `appendEntry()` does", () => {
  const stored: TranscriptEntry[] = [];
  let shown: TranscriptEntry[] = [];
  for (const entry of stream()) {
    appendEntry(stored, entry);
    shown = joinEntry(shown, entry);
  }
  assert.deepEqual(shown, stored);
  // The long message and the chunk past the bound stay two entries.
  assert.equal(shown.filter((entry) => entry.kind === "message").length, 6);
});

Deno.test("`itemsOf()` folds a transcript into what Chat draws", async (t) => {
  await t.step("a tool call's updates change it in its place", () => {
    const items = itemsOf([
      { at: AT, kind: "tool_call", toolCallId: "c1", title: "List files", status: "pending" },
      { at: AT, kind: "message", text: "Looking" },
      { at: AT, kind: "tool_call_update", toolCallId: "c1", status: "in_progress" },
      { at: AT, kind: "tool_call_update", toolCallId: "c1", status: "completed", text: "a.ts" },
      { at: AT, kind: "tool_call_update", toolCallId: "unknown", status: "failed" },
    ]);
    assert.deepEqual(items.map((item) => item.kind), ["tool_call", "message"]);
    const call = items[0].kind === "tool_call" ? items[0].call : null;
    assert.equal(call?.status, "completed");
    assert.equal(call?.title, "List files");
    assert.equal(call?.text, "a.ts");
  });
  await t.step("a plan replaces the one before it within a turn, not across turns", () => {
    const plan = (content: string): TranscriptEntry => ({
      at: AT,
      kind: "plan",
      steps: [{ content, priority: "high", status: "pending" }],
    });
    const items = itemsOf([
      { at: AT, kind: "user", text: "one" },
      plan("first"),
      { at: AT, kind: "message", text: "working" },
      plan("second"),
      { at: AT, kind: "turn_end", stopReason: "end_turn" },
      { at: AT, kind: "user", text: "two" },
      plan("third"),
    ]);
    assert.deepEqual(
      items.map((item) => item.kind === "plan" ? item.plan.steps[0].content : item.kind),
      ["user", "second", "message", "turn_end", "user", "third"],
    );
  });
  await t.step("a permission request carries its answer", () => {
    const items = itemsOf([
      {
        at: AT,
        kind: "permission",
        requestId: "r1",
        toolCallId: "c1",
        title: "Write notes.md",
        options: [{ optionId: "allow", name: "Allow", optionKind: "allow_once" }],
      },
      {
        at: AT,
        kind: "permission_answer",
        requestId: "r1",
        outcome: "selected",
        optionId: "allow",
      },
    ]);
    assert.equal(items.length, 1);
    assert.equal(items[0].kind === "permission" && items[0].answer?.optionId, "allow");
  });
});
