import assert from "node:assert/strict";
import { appendEntry, type TranscriptEntry } from "../../runtime/agents/mod.ts";

const AT = "2026-01-01T00:00:00.000Z";
const LATER = "2026-01-01T00:00:01.000Z";

Deno.test("`appendEntry()` joins consecutive chunks of one stream", async (t) => {
  await t.step("message chunks join, keeping the first chunk's time", () => {
    const entries: TranscriptEntry[] = [];
    appendEntry(entries, { at: AT, kind: "message", text: "Hel" });
    appendEntry(entries, { at: LATER, kind: "message", text: "lo" });
    assert.deepEqual(entries, [{ at: AT, kind: "message", text: "Hello" }]);
  });
  await t.step("a different kind, message id or replay starts a new entry", () => {
    const entries: TranscriptEntry[] = [];
    appendEntry(entries, { at: AT, kind: "message", text: "a", messageId: "m1" });
    appendEntry(entries, { at: AT, kind: "message", text: "b", messageId: "m2" });
    appendEntry(entries, { at: AT, kind: "thought", text: "c", messageId: "m2" });
    appendEntry(entries, { at: AT, kind: "thought", text: "d", messageId: "m2", replay: true });
    appendEntry(entries, { at: AT, kind: "turn_end", stopReason: "end_turn" });
    appendEntry(entries, { at: AT, kind: "turn_end", stopReason: "end_turn" });
    assert.deepEqual(entries.map((entry) => entry.kind), [
      "message",
      "message",
      "thought",
      "thought",
      "turn_end",
      "turn_end",
    ]);
  });
  await t.step("a join past the bound starts a new entry instead", () => {
    const entries: TranscriptEntry[] = [];
    appendEntry(entries, { at: AT, kind: "user", text: "x".repeat(8) }, 10);
    appendEntry(entries, { at: AT, kind: "user", text: "yy" }, 10);
    appendEntry(entries, { at: AT, kind: "user", text: "z" }, 10);
    assert.deepEqual(entries.map((entry) => entry.kind === "user" && entry.text), [
      "xxxxxxxxyy",
      "z",
    ]);
  });
});
