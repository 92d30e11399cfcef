import assert from "node:assert/strict";
import { join } from "node:path";
import type { AgentSession } from "../../../runtime/agent_session.ts";
import { createSession, TranscriptWriter } from "../../../runtime/agents/mod.ts";
import { openInstallation } from "../../../runtime/projects/mod.ts";
import { runSync } from "../../internal/cli.ts";

const AT = "2026-01-02T03:04:05.000Z";

/** A session pointer in `project`, begun by an extension's order, with `change` over it. */
function session(project: string, key: string, change: Partial<AgentSession>): AgentSession {
  return {
    key,
    project,
    agent: "demo",
    agentSessionId: null,
    orderKey: key,
    extensionId: "triage",
    extensionName: "Triage",
    source: { kind: "clock" },
    title: `Session ${key}`,
    state: "ended",
    waitingFor: null,
    onInterrupted: "wait",
    createdAt: AT,
    updatedAt: AT,
    error: null,
    keptAs: null,
    ...change,
  };
}

Deno.test("`chatCommand.run()` says under each row why the session waits, failed or stopped", async (t) => {
  const root = await Deno.makeTempDir({ prefix: "sync-chat-cli-" });
  const home = join(root, "home");
  const project = join(root, "project");
  await Deno.mkdir(project);
  const real = await Deno.realPath(project);
  const sync = (...args: string[]) => runSync(home, args);
  try {
    const kv = await openInstallation(home);
    try {
      await createSession(
        kv,
        session(real, "work-asks", {
          state: "waiting",
          waitingFor: { kind: "permission", requestId: "r1" },
        }),
      );
      const writer = new TranscriptWriter(kv, real, "work-asks", { entries: [], omitted: 0 });
      writer.add({
        at: AT,
        kind: "permission",
        requestId: "r1",
        toolCallId: "t1",
        title: "Write notes.md\n[other] forged",
        options: [{ optionId: "allow", name: "Allow", optionKind: "allow_once" }],
      });
      await writer.flush();
      await createSession(
        kv,
        session(real, "work-asks-unseen", {
          state: "waiting",
          waitingFor: { kind: "permission", requestId: "r9" },
        }),
      );
      await createSession(
        kv,
        session(real, "work-signs-in", {
          state: "waiting",
          waitingFor: {
            kind: "sign-in",
            text:
              "The agent demo needs a person to sign in before its session: sign in; then continue",
          },
        }),
      );
      await createSession(
        kv,
        session(real, "work-failed", {
          state: "failed",
          error: { name: "AgentFailedError", message: "The agent demo exited with code 1" },
        }),
      );
      await createSession(kv, session(real, "work-failed-silently", { state: "failed" }));
      await createSession(
        kv,
        session(real, "work-stopped", {
          state: "interrupted",
          error: {
            name: "Interrupted",
            message: "Sync stopped while this session was running. Its order asked to wait " +
              "for a person; nothing resumes by itself: press Continue in the app's Chat to " +
              "pick it up.",
          },
        }),
      );
      await createSession(
        kv,
        session(real, "work-ended", { state: "ended" }),
      );
    } finally {
      kv.close();
    }

    const chat = await sync("chat", "--project", project);
    assert.equal(chat.code, 0, chat.stderr);
    const lines = chat.stdout.trimEnd().split("\n");
    const under = (key: string) => {
      const row = lines.findIndex((line) => line.startsWith(`  ${key}\t`));
      assert.notEqual(row, -1, `no row for ${key} in\n${chat.stdout}`);
      const next = lines[row + 1];
      return next?.startsWith("    ") ? next.slice(4) : null;
    };

    await t.step("a permission: what the agent asks, and that it is answered in Chat", () => {
      assert.equal(
        under("work-asks"),
        String.raw`asks permission: Write notes.md\n[other] forged; answer it in the app's Chat`,
      );
      assert.equal(under("work-asks-unseen"), "asks permission; answer it in the app's Chat");
      assert.ok(!lines.some((line) => line.startsWith("[other]")), chat.stdout);
    });

    await t.step("a sign-in: the agent's words, and where to continue", () => {
      assert.equal(
        under("work-signs-in"),
        "waits for a sign-in: The agent demo needs a person to sign in before its session: " +
          "sign in; then continue, in the app's Chat",
      );
    });

    await t.step("a failure: its reason, or that none was kept; an ended session: nothing", () => {
      assert.equal(under("work-failed"), "AgentFailedError: The agent demo exited with code 1");
      assert.equal(under("work-failed-silently"), "failed; no reason was kept");
      assert.equal(under("work-ended"), null);
      assert.match(
        under("work-stopped") ?? "",
        /^Interrupted: Sync stopped while .* in the app's Chat/,
      );
    });
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
