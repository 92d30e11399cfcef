import assert from "node:assert/strict";
import {
  addAgent,
  demoAgentCommand,
  readSession,
  readTranscript,
  updateSession,
} from "../../runtime/agents/mod.ts";
import { ConflictError } from "../../runtime/errors.ts";
import type { TranscriptEntry } from "../../runtime/transcript.ts";
import { testHost } from "../internal/packages.ts";
import { commitOrder, countingLauncher, performerOver, waitForSession } from "../internal/sessions.ts";

const texts = (entries: TranscriptEntry[], kind: TranscriptEntry["kind"]): string[] =>
  entries.filter((e) => e.kind === kind).map((e) => "text" in e ? e.text ?? "" : "");

Deno.test("`WorkPerformer` performs orders and a person's conversations over real stdio", async (t) => {
  const env = await testHost();
  const logs: string[] = [];
  const work = performerOver(env.host, { log: (line) => logs.push(line) });
  const memory = await env.host.projectMemory(env.project);
  try {
    await t.step("an order in the outbox is begun once, with the order's prompt, and ends", async () => {
      await commitOrder(memory, env.project, {
        key: "work-1",
        title: "Say hello",
        prompt: { text: "no-permission please say hello" },
        about: "tester.thing/1",
      });
      await work.start();
      // The project is not one the installation remembers: it is named, as a receipt names it.
      await work.scan(env.project);
      const ended = await waitForSession(env.kv, env.project, "work-1", (s) => s.state === "ended");
      assert.equal(ended.extensionId, "tester");
      assert.equal(ended.extensionName, "Tester");
      assert.equal(ended.orderKey, "work-1");
      assert.deepEqual(ended.source, {
        kind: "handler",
        extensionId: "tester",
        extensionName: "Tester",
        handler: "tester.order",
      });
      assert.ok(ended.agentSessionId);
      const { entries, omitted } = await readTranscript(env.kv, env.project, "work-1");
      assert.equal(omitted, 0);
      const prompt = texts(entries, "user")[0] ?? "";
      assert.match(prompt, /^Say hello\n\nno-permission please say hello/);
      assert.match(prompt, /ordered by the Tester extension's tester\.order handler in .*, about tester\.thing\/1\./);
      assert.equal(texts(entries, "message").length, 1, "the reply's chunks are joined");
      assert.match(texts(entries, "message")[0] ?? "", /please say hello/);
      assert.equal(entries.at(-1)?.kind, "turn_end");
    });
    // More steps follow.
  } finally {
    if (logs.length) console.error(logs.join("\n"));
    await work.stop();
    await env.close();
  }
});
