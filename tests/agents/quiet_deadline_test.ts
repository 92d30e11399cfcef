/**
 * The `initialize` deadline counted from the agent's last sign of life: the
 * demo agent as a real child process, writing on stderr (or silent) before
 * it answers, and its stderr and stdout heard by an activity tracker.
 */
import assert from "node:assert/strict";
import type { AgentActivity } from "../../runtime/agent_activity.ts";
import {
  ActivityTracker,
  AgentFailedError,
  demoAgentCommand,
  spawnAgent,
  startAcpSession,
  watchedPeer,
} from "../../runtime/agents/mod.ts";
import { rejectsWith } from "../internal/rejects_with.ts";

/** Starts the demo agent with `flags`, heard by a tracker, and initializes a session with it. */
async function startHeard(
  flags: string[],
  limits: { initializeTimeoutMs: number; initializeMaxMs?: number },
) {
  const project = await Deno.makeTempDir({ prefix: "sync-quiet-" });
  const told: (AgentActivity | null)[] = [];
  const tracker = new ActivityTracker({ publish: (activity) => told.push(activity) });
  tracker.show("starting");
  const peer = watchedPeer(
    spawnAgent(demoAgentCommand(flags), {
      cwd: project,
      onStderr: (text) => tracker.stderr(text),
    }),
    tracker,
  );
  const started = Date.now();
  const session = startAcpSession(peer, {
    agentName: "demo",
    project,
    askPermission: () => Promise.resolve("cancelled"),
    signsOfLife: tracker,
    ...limits,
  });
  return { project, peer, session, told, started, tracker };
}

// The deadlines leave a loaded machine room to start the agent (a Deno process) and hear its
// first line: 2.5 s of silence, never less than what these steps need to tell apart.
Deno.test("`startAcpSession()` counts the initialize deadline from the agent's last sign of life", async (t) => {
  await t.step("an agent writing on stderr all along is waited for past the deadline", async () => {
    const { project, session, started } = await startHeard(["slow-start"], {
      initializeTimeoutMs: 2_500,
    });
    try {
      const ready = await session;
      // It wrote for 3 s before answering: longer than the 2.5 s it may be silent.
      assert.ok(Date.now() - started >= 2_900);
      assert.equal(ready.facts.info?.name, "sync-demo");
      await ready.close();
    } finally {
      await session.then((s) => s.close()).catch(() => {});
      await Deno.remove(project, { recursive: true });
    }
  });

  await t.step(
    "one that keeps writing is given up on once the whole bound has passed",
    async () => {
      const { project, session, peer } = await startHeard(["slow-start"], {
        initializeTimeoutMs: 2_500,
        initializeMaxMs: 2_600,
      });
      try {
        await rejectsWith(
          session,
          AgentFailedError,
          /^The agent demo did not answer initialize within 2\.6 s, though it was still writing; .*; the last line it wrote on stderr: demo agent: getting ready \(\d+\/30\)$/,
        );
        assert.equal((await peer.exited).signal, "SIGTERM");
      } finally {
        await Deno.remove(project, { recursive: true });
      }
    },
  );

  await t.step("npm's download line gives a silent download more time", async () => {
    const { project, session, told } = await startHeard(["download-start"], {
      initializeTimeoutMs: 2_500,
    });
    try {
      const ready = await session;
      assert.ok(told.some((activity) => activity?.phase === "downloading"));
      await ready.close();
    } finally {
      await session.then((s) => s.close()).catch(() => {});
      await Deno.remove(project, { recursive: true });
    }
  });

  await t.step("a silence as long as the deadline after its last line fails it", async () => {
    // It writes for 3 s, then says nothing and never answers.
    const { project, session, started } = await startHeard(["slow-start", "no-init"], {
      initializeTimeoutMs: 2_500,
    });
    try {
      await rejectsWith(
        session,
        AgentFailedError,
        /^The agent demo did not answer initialize and wrote nothing for 2\.5 s; .*; the last line it wrote on stderr: demo agent: getting ready \(30\/30\)$/,
      );
      assert.ok(Date.now() - started >= 5_400, "counted from its last line, not from the start");
    } finally {
      await Deno.remove(project, { recursive: true });
    }
  });

  await t.step("an agent that says nothing fails when the deadline has passed", async () => {
    const { project, session, started } = await startHeard(["no-init"], {
      initializeTimeoutMs: 2_500,
    });
    try {
      await rejectsWith(
        session,
        AgentFailedError,
        /^The agent demo did not answer initialize within 2\.5 s; /,
      );
      assert.ok(Date.now() - started < 4_000);
    } finally {
      await Deno.remove(project, { recursive: true });
    }
  });
});
