import assert from "node:assert/strict";
import type { AgentSession } from "../../../runtime/agent_session.ts";
import { groupSessions } from "../../../runtime/web/api/chat.ts";
import type { Source } from "../../../runtime/types.ts";

/** A session as the work performer keeps it, ordered by `source`. */
function session(key: string, createdAt: string, source: Source, extension?: string): AgentSession {
  return {
    key,
    project: "/p",
    agent: "demo",
    agentSessionId: null,
    orderKey: source.kind === "person" ? null : key,
    extensionId: extension ?? null,
    extensionName: extension === undefined ? null : "Triage",
    source,
    title: key,
    state: "ended",
    waitingFor: null,
    onInterrupted: "wait",
    createdAt,
    updatedAt: createdAt,
    error: null,
    keptAs: null,
  };
}

Deno.test("`groupSessions()` files work by the extension it comes from", async (t) => {
  const byTriage = session("work-1", "2030-01-01T00:00:01Z", {
    kind: "handler",
    extensionId: "triage",
    extensionName: "Triage",
    handler: "triage.sweep",
  }, "triage");
  const byItsAgent = session("work-2", "2030-01-01T00:00:02Z", {
    kind: "agent",
    name: "demo",
    workKey: "work-1",
    extensionId: "triage",
  });
  const byPerson = session("chat-1", "2030-01-01T00:00:03Z", { kind: "person" });
  const list = groupSessions("/p", [byTriage, byItsAgent, byPerson]);

  await t.step("work an agent ordered while performing triage's work is triage's", () => {
    assert.deepEqual(
      list.groups.map((group) => [group.extensionId, group.name, group.rows.map((r) => r.key)]),
      [["triage", "Triage", ["work-2", "work-1"]]],
    );
  });

  await t.step("what a person began leads as Conversations", () => {
    assert.deepEqual(list.conversations.map((row) => row.key), ["chat-1"]);
  });
});
