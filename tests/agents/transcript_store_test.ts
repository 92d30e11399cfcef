import assert from "node:assert/strict";
import { readTranscript, TranscriptWriter } from "../../runtime/agents/mod.ts";
import { SESSION_LIMITS } from "../../runtime/limits.ts";

Deno.test("`TranscriptWriter` keeps a bounded, joined transcript in KV", async (t) => {
  const kv = await Deno.openKv(":memory:");
  try {
    await t.step("chunks of one reply are stored as one entry", async () => {
      const writer = new TranscriptWriter(kv, "/p", "s1", { entries: [], omitted: 0 });
      writer.add({ at: "t", kind: "user", text: "hi" });
      writer.add({ at: "t", kind: "message", text: "Hel" });
      writer.add({ at: "t", kind: "message", text: "lo" });
      await writer.flush();
      assert.deepEqual(await readTranscript(kv, "/p", "s1"), {
        entries: [{ at: "t", kind: "user", text: "hi" }, {
          at: "t",
          kind: "message",
          text: "Hello",
        }],
        omitted: 0,
      });
    });

    await t.step("past the bound the oldest entries are dropped and counted", async () => {
      const limits = { ...SESSION_LIMITS, maxTranscriptEntries: 3 };
      const writer = new TranscriptWriter(kv, "/p", "s2", { entries: [], omitted: 0 }, { limits });
      for (let i = 0; i < 5; i++) {
        writer.add({ at: "t", kind: "turn_end", stopReason: "end_turn" });
        writer.add({ at: "t", kind: "user", text: `turn ${i}` });
      }
      await writer.flush();
      const stored = await readTranscript(kv, "/p", "s2");
      assert.equal(stored.omitted, 7);
      assert.equal(stored.entries.length, 3);
      assert.deepEqual(stored.entries.at(-1), { at: "t", kind: "user", text: "turn 4" });
      // Taken up again after a restart, it goes on where it was.
      const again = new TranscriptWriter(kv, "/p", "s2", stored, { limits });
      again.add({ at: "t", kind: "turn_end", stopReason: "end_turn" });
      again.add({ at: "t", kind: "user", text: "after" });
      await again.flush();
      const later = await readTranscript(kv, "/p", "s2");
      assert.equal(later.omitted, 9);
      assert.deepEqual(later.entries.map((e) => e.kind === "user" ? e.text : e.kind), [
        "turn 4",
        "turn_end",
        "after",
      ]);
    });

    await t.step(
      "past the bytes a session may keep, too, and an entry too large is cut",
      async () => {
        const limits = { ...SESSION_LIMITS, maxTranscriptBytes: 2_000, maxStoredEntryBytes: 1_000 };
        const writer = new TranscriptWriter(kv, "/p", "s3", { entries: [], omitted: 0 }, {
          limits,
        });
        writer.add({ at: "t", kind: "thought", text: "x".repeat(5_000) });
        for (let i = 0; i < 20; i++) writer.add({ at: "t", kind: "user", text: "a".repeat(900) });
        await writer.flush();
        const stored = await readTranscript(kv, "/p", "s3");
        assert.ok(stored.omitted >= 1);
        const kept = stored.entries.reduce((n, e) => n + JSON.stringify(e).length, 0);
        assert.ok(kept <= 2_000, `${kept} bytes kept`);
        for (const entry of stored.entries) {
          assert.ok(new TextEncoder().encode(JSON.stringify(entry)).byteLength <= 1_000);
        }
      },
    );
  } finally {
    kv.close();
  }
});
