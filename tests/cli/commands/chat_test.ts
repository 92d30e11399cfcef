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
  // Times are said in the reader's zone: the test's is UTC.
  const sync = (...args: string[]) => runSync(home, args, { env: { TZ: "UTC" } });
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
          pending: [{ id: "t1", at: "2026-01-02T03:04:05.000Z", text: "my first words" }],
        }),
      );
      await createSession(
        kv,
        session(real, "work-failed", {
          state: "failed",
          error: { name: "AgentFailedError", message: "The agent demo exited with code 1" },
        }),
      );
      await createSession(
        kv,
        session(real, "work-failed-at-length", {
          state: "failed",
          error: {
            name: "AgentFailedError",
            message: "The agent codex could not reach OpenAI during the turn: stream " +
              "disconnected.\n\nThe agent codex refused the turn: Internal error",
            stderrTail: "\x1b[31mERROR\x1b[0m stream disconnected\n",
          },
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
      const row = lines.findIndex((line) => line.startsWith("  work-signs-in\t"));
      assert.equal(
        lines[row + 2],
        "    1 message waits to be sent once the agent's session opens",
      );
    });

    await t.step(
      "a failure: its reason, or that none was kept; an ended session: only who began it",
      () => {
        // The reason in words, with no error class in front of it.
        assert.equal(under("work-failed"), "The agent demo exited with code 1");
        assert.equal(under("work-failed-silently"), "failed; no reason was kept");
        // Only its first line, saying where the rest is; nothing of its stderr, no escapes.
        assert.equal(
          under("work-failed-at-length"),
          "The agent codex could not reach OpenAI during the turn: stream disconnected. " +
            "(sync chat shows the first line only: the app's Chat shows all of it)",
        );
        assert.ok(!chat.stdout.includes("\\u001b") && !chat.stdout.includes("\\n\\n"));
        assert.equal(under("work-ended"), "Begun by the clock at 2026-01-02 03:04");
        assert.match(
          under("work-stopped") ?? "",
          /^Sync stopped while .* in the app's Chat/,
        );
      },
    );
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("`chatCommand.run()` says under each row who began the session, on what occasion and when, and what it is about", async (t) => {
  const root = await Deno.makeTempDir({ prefix: "sync-chat-cli-" });
  const home = join(root, "home");
  const project = join(root, "project");
  await Deno.mkdir(project);
  const real = await Deno.realPath(project);
  const handler = {
    kind: "handler",
    extensionId: "triage",
    extensionName: "Triage",
    handler: "triage.sweep",
  } as const;
  try {
    const kv = await openInstallation(home);
    try {
      await createSession(
        kv,
        session(real, "work-clock", {
          source: {
            ...handler,
            occasion: { kind: "clock" },
            calledBy: { kind: "clock" },
            calledAt: "2026-01-02T03:00:00.000Z",
            description: "Orders an agent session to triage new open issues",
          },
          about: "issues.issue/7",
        }),
      );
      await createSession(
        kv,
        session(real, "work-agent", {
          source: {
            ...handler,
            occasion: { kind: "agent" },
            calledBy: { kind: "agent", name: "claude-code" },
            calledAt: "2026-01-02T02:00:00.000Z",
            description: "Triages open issues",
          },
        }),
      );
      await createSession(
        kv,
        session(real, "work-opened", {
          source: {
            ...handler,
            occasion: { kind: "lifecycle", moment: "opened" },
            calledBy: { kind: "person" },
            calledAt: "2026-01-02T01:00:00.000Z",
          },
        }),
      );
      // A source stored without the occasion is told with what it has.
      await createSession(kv, session(real, "work-older", { source: handler }));
      await createSession(
        kv,
        session(real, "chat-mine", {
          orderKey: null,
          extensionId: null,
          extensionName: null,
          source: { kind: "person" },
        }),
      );
    } finally {
      kv.close();
    }

    const chat = await runSync(home, ["chat", "--project", project], { env: { TZ: "UTC" } });
    assert.equal(chat.code, 0, chat.stderr);
    const lines = chat.stdout.trimEnd().split("\n");
    const under = (key: string) => {
      const row = lines.findIndex((line) => line.startsWith(`  ${key}\t`));
      assert.notEqual(row, -1, `no row for ${key} in\n${chat.stdout}`);
      const rest = lines.slice(row + 1);
      const end = rest.findIndex((line) => !line.startsWith("    "));
      return rest.slice(0, end === -1 ? undefined : end).map((line) => line.slice(4));
    };

    await t.step(
      "the clock: the handler, its schedule row's words, the call's time, and about",
      () => {
        assert.deepEqual(under("work-clock"), [
          "Begun by the Triage sweep on the clock at 2026-01-02 03:00 — " +
          "Orders an agent session to triage new open issues",
          "About issues.issue/7",
        ]);
      },
    );

    await t.step("an agent and a lifecycle moment say who called and when", () => {
      assert.deepEqual(under("work-agent"), [
        "Begun by the Triage sweep, called by the agent claude-code, at 2026-01-02 02:00 — " +
        "Triages open issues",
      ]);
      assert.deepEqual(under("work-opened"), [
        "Begun by the Triage sweep when the project was opened at 2026-01-02 01:00",
      ]);
    });

    await t.step(
      "an older source says what it holds; a person's conversation says a person",
      () => {
        assert.deepEqual(under("work-older"), ["Begun by the Triage sweep at 2026-01-02 03:04"]);
        assert.deepEqual(under("chat-mine"), ["Begun by a person at 2026-01-02 03:04"]);
      },
    );
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
