import assert from "node:assert/strict";
import { join } from "node:path";
import { addAgent, supervisedLauncher } from "../../runtime/agents/mod.ts";
import { Supervisor } from "../../runtime/supervisor/mod.ts";
import { testHost } from "../internal/packages.ts";
import { performerOver, waitForSession } from "../internal/sessions.ts";

Deno.test("`supervisedLauncher()` runs agents under the process supervisor", async (t) => {
  const env = await testHost();
  const supervisor = new Supervisor({ recordFolder: join(env.home, "processes") });
  const work = performerOver(env.host, { launch: supervisedLauncher(supervisor) });
  try {
    await t.step(
      "a session runs over the supervised process, which stays for the next turn",
      async () => {
        const { session } = await work.begin(env.project, "demo", "no-permission hello");
        await waitForSession(env.kv, env.project, session.key, (s) => s.state === "ended");
        const running = supervisor.running();
        assert.equal(running.length, 1);
        assert.equal(running[0].owner, "conversations with agents");
        assert.equal(running[0].cwd, env.project);
      },
    );

    await t.step(
      "an agent that exits mid-turn fails with the stderr the supervisor kept",
      async () => {
        const { session } = await work.begin(env.project, "demo", "no-permission crash");
        const failed = await waitForSession(
          env.kv,
          env.project,
          session.key,
          (s) => s.state === "failed",
        );
        assert.match(failed.error?.stderrTail ?? "", /crashing in the middle of the turn/);
      },
    );

    await t.step("a program that is not there fails saying what to install", async () => {
      await addAgent(env.kv, {
        name: "absent",
        command: "no-such-agent-program",
        args: [],
        env: {},
      });
      const { session } = await work.begin(env.project, "absent", "hello");
      const failed = await waitForSession(
        env.kv,
        env.project,
        session.key,
        (s) => s.state === "failed",
      );
      assert.match(
        failed.error?.message ?? "",
        /its program no-such-agent-program is not installed/,
      );
    });

    await t.step("stopping the performer stops every agent it started", async () => {
      await work.stop();
      assert.equal(supervisor.running().length, 0);
    });
  } finally {
    await work.stop();
    await supervisor.close();
    await env.close();
  }
});
