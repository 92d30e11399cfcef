import assert from "node:assert/strict";
import {
  addAgent,
  createSession,
  demoAgentCommand,
  readSession,
  readTranscript,
  updateSession,
} from "../../runtime/agents/mod.ts";
import { ConflictError } from "../../runtime/errors.ts";
import { SESSION_LIMITS } from "../../runtime/limits.ts";
import type { TranscriptEntry } from "../../runtime/transcript.ts";
import { testHost } from "../internal/packages.ts";
import {
  commitOrder,
  countingLauncher,
  performerOver,
  waitForSession,
} from "../internal/sessions.ts";

const texts = (entries: TranscriptEntry[], kind: TranscriptEntry["kind"]): string[] =>
  entries.filter((e) => e.kind === kind).map((e) => "text" in e ? e.text ?? "" : "");

Deno.test("`WorkPerformer` performs orders and a person's conversations over real stdio", async (t) => {
  const env = await testHost();
  const logs: string[] = [];
  const work = performerOver(env.host, { log: (line) => logs.push(line) });
  const memory = await env.host.projectMemory(env.project);
  try {
    await t.step(
      "an order in the outbox is begun once, with the order's prompt, and ends",
      async () => {
        await commitOrder(memory, env.project, {
          key: "work-1",
          title: "Say hello",
          prompt: { text: "no-permission please say hello" },
          about: "tester.thing/1",
        });
        await work.start();
        // The project is not one the installation remembers: it is named, as a receipt names it.
        await work.scan(env.project);
        const ended = await waitForSession(
          env.kv,
          env.project,
          "work-1",
          (s) => s.state === "ended",
        );
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
        assert.match(
          prompt,
          /ordered by the Tester extension's tester\.order handler in .*, about tester\.thing\/1\./,
        );
        assert.equal(texts(entries, "message").length, 1, "the reply's chunks are joined");
        assert.match(texts(entries, "message")[0] ?? "", /please say hello/);
        assert.equal(entries.at(-1)?.kind, "turn_end");
      },
    );
    await t.step("a person's conversation runs turn after turn, told as facts", async () => {
      const watcher = env.host.events.subscribe({ project: env.project });
      const begun = await work.begin(env.project, "demo", "no-permission Hello there");
      assert.equal(begun.session.state, "running");
      assert.equal(begun.session.title, "no-permission Hello there");
      assert.deepEqual(begun.session.source, { kind: "person" });
      assert.equal(begun.session.extensionId, null);
      assert.match(begun.session.key, /^chat-/);
      const key = begun.session.key;
      await waitForSession(env.kv, env.project, key, (s) => s.state === "ended");
      await work.prompt(env.project, key, "no-permission And again");
      await waitForSession(env.kv, env.project, key, (s) => s.state === "ended");
      const view = await work.view(env.project, key);
      assert.deepEqual(texts(view.transcript, "user"), [
        "no-permission Hello there",
        "no-permission And again",
      ]);
      const kinds = new Set<string>();
      for (let event = await watcher.next(0); event; event = await watcher.next(0)) {
        if (event.type === "transcript" && event.sessionKey === key) kinds.add(event.entry.kind);
        if (event.type === "session" && event.session.key === key) kinds.add(event.session.state);
      }
      watcher.close();
      for (const kind of ["running", "ended", "user", "message", "tool_call", "plan", "turn_end"]) {
        assert.ok(kinds.has(kind), `${kind} was told`);
      }
    });

    await t.step(
      "an agent that exits mid-turn fails the session with its stderr tail",
      async () => {
        const { session } = await work.begin(env.project, "demo", "no-permission crash now");
        const failed = await waitForSession(
          env.kv,
          env.project,
          session.key,
          (s) => s.state === "failed",
        );
        assert.equal(failed.error?.name, "AgentFailedError");
        assert.match(failed.error?.message ?? "", /exited with code 1 during the turn/);
        assert.ok((failed.error?.stderrTail ?? "").length > 0, "the stderr tail is kept");
        const { entries } = await readTranscript(env.kv, env.project, session.key);
        assert.equal(entries.at(-1)?.kind, "failure");
      },
    );

    await t.step("an agent that prints lines that are not JSON-RPC goes on", async () => {
      const { session } = await work.begin(env.project, "demo", "no-permission junk please");
      await waitForSession(env.kv, env.project, session.key, (s) => s.state === "ended");
      const { entries } = await readTranscript(env.kv, env.project, session.key);
      assert.match(texts(entries, "message")[0] ?? "", /junk please/);
    });

    await t.step("an agent whose program is missing fails saying what to install", async () => {
      await addAgent(env.kv, {
        name: "absent",
        command: "/nonexistent/sync-agent",
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
        /program \/nonexistent\/sync-agent is not installed/,
      );
      assert.match(failed.error?.message ?? "", /install \/nonexistent\/sync-agent/);
    });

    await t.step(
      "an agent that needs a sign-in makes the session wait, saying what to run",
      async () => {
        const demo = demoAgentCommand(["needs-sign-in"]);
        await addAgent(env.kv, {
          name: "locked",
          command: demo.command,
          args: [...demo.args],
          env: {},
        });
        const { session } = await work.begin(env.project, "locked", "hello");
        const waiting = await waitForSession(
          env.kv,
          env.project,
          session.key,
          (s) => s.state === "waiting",
        );
        assert.equal(waiting.waitingFor?.kind, "sign-in");
        assert.match(
          waiting.waitingFor?.kind === "sign-in" ? waiting.waitingFor.text : "",
          /sign in/,
        );
        await work.cancel(env.project, session.key);
        assert.equal((await readSession(env.kv, env.project, session.key))?.state, "ended");
      },
    );

    await t.step("two orders run at once", async () => {
      await commitOrder(memory, env.project, {
        key: "work-2",
        prompt: { text: "hang until cancelled" },
      });
      await commitOrder(memory, env.project, {
        key: "work-3",
        prompt: { text: "no-permission quick" },
      });
      await work.scan(env.project);
      await waitForSession(env.kv, env.project, "work-3", (s) => s.state === "ended");
      const hanging = await readSession(env.kv, env.project, "work-2");
      assert.ok(hanging?.state === "running" || hanging?.state === "waiting", hanging?.state);
      // Cancelled once its prompt is on its way, so the agent itself ends the turn.
      const until = Date.now() + 10_000;
      while (
        !(await work.view(env.project, "work-2")).transcript.some((e) => e.kind === "user") &&
        Date.now() < until
      ) await new Promise((resolve) => setTimeout(resolve, 20));
      await work.cancel(env.project, "work-2");
      await waitForSession(env.kv, env.project, "work-2", (s) => s.state === "ended");
      const { entries } = await readTranscript(env.kv, env.project, "work-2");
      const end = entries.findLast((e) => e.kind === "turn_end");
      assert.equal(end?.kind === "turn_end" ? end.stopReason : null, "cancelled");
    });

    await t.step("an order is begun once, however many performers look", async () => {
      const one = countingLauncher();
      const two = countingLauncher();
      const first = performerOver(env.host, { launch: one.launch });
      const second = performerOver(env.host, { launch: two.launch });
      await commitOrder(memory, env.project, {
        key: "work-4",
        prompt: { text: "no-permission once" },
      });
      await Promise.all([first.scan(env.project), second.scan(env.project)]);
      await waitForSession(env.kv, env.project, "work-4", (s) => s.state === "ended");
      assert.deepEqual([...one.started, ...two.started], ["work ordered by tester"]);
      assert.equal(
        texts((await readTranscript(env.kv, env.project, "work-4")).entries, "user").length,
        1,
      );
      await first.stop();
      await second.stop();
    });

    await t.step("the source of a session cannot be changed after it is ordered", async () => {
      await assert.rejects(
        updateSession(env.kv, env.project, "work-1", (s) => ({ ...s, source: { kind: "person" } })),
        (error) => error instanceof ConflictError && /source cannot be changed/.test(error.message),
      );
      await assert.rejects(
        updateSession(env.kv, env.project, "work-1", (s) => ({ ...s, extensionId: "other" })),
        ConflictError,
      );
      assert.equal((await readSession(env.kv, env.project, "work-1"))?.source.kind, "handler");
    });
  } finally {
    if (logs.length) console.error(logs.join("\n"));
    await work.stop();
    await env.close();
  }
});

Deno.test("`WorkPerformer` fails a session whose agent never answers initialize", async () => {
  const env = await testHost();
  const work = performerOver(env.host, { initializeTimeoutMs: 300 });
  try {
    const demo = demoAgentCommand(["no-init"]);
    await addAgent(env.kv, { name: "mute", command: demo.command, args: [...demo.args], env: {} });
    const { session } = await work.begin(env.project, "mute", "hello");
    const failed = await waitForSession(
      env.kv,
      env.project,
      session.key,
      (s) => s.state === "failed",
    );
    assert.match(
      failed.error?.message ?? "",
      /The agent mute did not answer initialize within 0\.3 s/,
    );
    const { entries } = await readTranscript(env.kv, env.project, session.key);
    assert.equal(entries.at(-1)?.kind, "failure", "Chat shows why");
  } finally {
    await work.stop();
    await env.close();
  }
});

Deno.test("`WorkPerformer` marks what a stopped Sync left interrupted, and a person continues it", async (t) => {
  const env = await testHost();
  const before = performerOver(env.host);
  const after = performerOver(env.host);
  try {
    // The demo agent asks a permission, and the session waits for a person when Sync stops.
    const { session } = await before.begin(env.project, "demo", "Sync stops meanwhile");
    await waitForSession(env.kv, env.project, session.key, (s) => s.state === "waiting");
    const firstId = (await readSession(env.kv, env.project, session.key))?.agentSessionId;

    await t.step(
      "the next start finds it waiting and marks it interrupted; nothing resumes",
      async () => {
        await after.start();
        const interrupted = await readSession(env.kv, env.project, session.key);
        assert.equal(interrupted?.state, "interrupted");
        assert.equal(interrupted?.onInterrupted, "wait");
        assert.match(
          interrupted?.error?.message ?? "",
          /Sync stopped while this session was waiting/,
        );
        assert.match(
          interrupted?.error?.message ?? "",
          /press Continue in the app's Chat to pick it up/,
        );
        await before.stop();
        assert.equal((await readSession(env.kv, env.project, session.key))?.state, "interrupted");
      },
    );

    await t.step("Continue raises the agent again; the person types the next turn", async () => {
      await after.continue(env.project, session.key);
      const ended = await waitForSession(
        env.kv,
        env.project,
        session.key,
        (s) => s.state === "ended",
      );
      // The demo agent that made the session is gone, so a new one is seeded with the transcript.
      assert.notEqual(ended.agentSessionId, firstId);
      await after.prompt(env.project, session.key, "no-permission go on");
      await waitForSession(env.kv, env.project, session.key, (s) => s.state === "ended");
      const { transcript } = await after.view(env.project, session.key);
      assert.deepEqual(texts(transcript, "user"), ["Sync stops meanwhile", "no-permission go on"]);
      assert.match(texts(transcript, "message").at(-1) ?? "", /Sync stops meanwhile/, "seeded");
    });
  } finally {
    await before.stop();
    await after.stop();
    await env.close();
  }
});

Deno.test("`WorkPerformer` stops an agent left idle, and raises it again for the next turn", async () => {
  const env = await testHost();
  const counting = countingLauncher();
  const work = performerOver(env.host, {
    launch: counting.launch,
    limits: { ...SESSION_LIMITS, idleAgentMs: 100 },
  });
  try {
    const { session } = await work.begin(env.project, "demo", "no-permission first");
    await waitForSession(env.kv, env.project, session.key, (s) => s.state === "ended");
    // Once idle, the agent is stopped; the session's pointer and transcript stay.
    await new Promise((resolve) => setTimeout(resolve, 500));
    assert.equal((await readSession(env.kv, env.project, session.key))?.state, "ended");
    await work.prompt(env.project, session.key, "no-permission second");
    await waitForSession(env.kv, env.project, session.key, (s) => s.state === "ended");
    assert.equal(counting.started.length, 2, "the agent was raised again");
    const { transcript } = await work.view(env.project, session.key);
    assert.deepEqual(texts(transcript, "user"), ["no-permission first", "no-permission second"]);
  } finally {
    await work.stop();
    await env.close();
  }
});

Deno.test("`WorkPerformer` offers a session the MCP servers its seam gives", async () => {
  const env = await testHost();
  const offered: string[] = [];
  const released: string[] = [];
  const work = performerOver(env.host, {
    limits: { ...SESSION_LIMITS, idleAgentMs: 50 },
    mcpServersFor: (session, agent) => {
      offered.push(`${session.key} ${agent.mcpHttp ? "http" : "stdio"}`);
      return Promise.resolve({
        servers: [{ name: "sync", command: "/bin/true", args: [], env: [] }],
        release: () => Promise.resolve(void released.push(session.key)),
      });
    },
  });
  try {
    const { session } = await work.begin(env.project, "demo", "no-permission look around");
    await waitForSession(env.kv, env.project, session.key, (s) => s.state === "ended");
    // The seam is told what the agent takes: the demo agent takes MCP over HTTP.
    assert.deepEqual(offered, [`${session.key} http`]);
    const { transcript } = await work.view(env.project, session.key);
    const calls = transcript.filter((e) => e.kind === "tool_call").map((e) =>
      e.kind === "tool_call" ? e.title : ""
    );
    assert.ok(calls.some((title) => /sync/.test(title)), JSON.stringify(calls));
    // The agent left idle is stopped; what was issued for the session ends with it.
    const until = Date.now() + 10_000;
    while (released.length === 0 && Date.now() < until) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    assert.deepEqual(released, [session.key]);
  } finally {
    await work.stop();
    await env.close();
  }
});

Deno.test("`WorkPerformer.scan()` reads only the orders after those begun and settled", async (t) => {
  const env = await testHost();
  const memory = await env.host.projectMemory(env.project);
  // Counts the outbox entries each scan reads.
  let read = 0;
  const counted = new Proxy(memory, {
    get(target, property) {
      if (property === "list") {
        return (selector: Deno.KvListSelector, options?: Deno.KvListOptions) => {
          const entries = target.list(selector, options);
          return (async function* () {
            for await (const entry of entries) {
              if (entry.key[0] === "work_order") read++;
              yield entry;
            }
          })();
        };
      }
      const value = Reflect.get(target, property, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  const launched = countingLauncher();
  const work = performerOver(env.host, {
    launch: launched.launch,
    projectMemory: () => Promise.resolve(counted),
  });
  const begun = async (key: string, orderedAt: string) => {
    const order = await commitOrder(memory, env.project, {
      key,
      prompt: { text: "done long ago" },
      orderedAt,
    });
    // Its session was begun already, as by an earlier serve.
    await createSession(env.kv, {
      key: order.key,
      project: env.project,
      agent: order.agent,
      agentSessionId: null,
      orderKey: order.key,
      extensionId: order.extensionId ?? null,
      extensionName: "Tester",
      source: order.source,
      title: order.title,
      state: "ended",
      waitingFor: null,
      onInterrupted: order.onInterrupted,
      createdAt: orderedAt,
      updatedAt: orderedAt,
      error: null,
      keptAs: null,
    });
  };
  try {
    const old = new Date(Date.now() - 20 * 60_000).toISOString();
    for (let n = 1; n <= 5; n++) await begun(`work-old-${n}`, old);

    await t.step("the first scan reads every order", async () => {
      await work.scan(env.project);
      assert.equal(read, 5);
    });

    await t.step("the next reads none of those, all begun and settled", async () => {
      read = 0;
      await work.scan(env.project);
      assert.equal(read, 0);
    });

    await t.step("a recent order is read again until it has settled", async () => {
      await begun("work-recent", new Date().toISOString());
      read = 0;
      await work.scan(env.project);
      await work.scan(env.project);
      assert.equal(read, 2);
    });

    await t.step("nothing already begun was begun again", () => {
      assert.deepEqual(launched.started, []);
    });
  } finally {
    await work.stop();
    await env.close();
  }
});

Deno.test("`WorkPerformer.stop()` ends a turn Sync stopped as stopped, not as the agent's failure", async () => {
  const env = await testHost();
  const work = performerOver(env.host);
  try {
    // The demo agent asks a permission: the turn is under way when Sync stops.
    const { session } = await work.begin(env.project, "demo", "Sync stops during this turn");
    await waitForSession(env.kv, env.project, session.key, (s) => s.state === "waiting");
    await work.stop();
    const { entries } = await readTranscript(env.kv, env.project, session.key);
    assert.deepEqual(
      entries.filter((e) => e.kind === "failure"),
      [],
      "stopping the agent is not its failure",
    );
    assert.equal(entries.at(-1)?.kind, "stopped");
    assert.equal((await readSession(env.kv, env.project, session.key))?.state, "interrupted");
  } finally {
    await work.stop();
    await env.close();
  }
});
