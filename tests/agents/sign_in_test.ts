/**
 * Signing in to an agent through a session, and a person's messages kept
 * until the agent can take them: the demo agent with `--needs-key` as a real
 * child process, the installation in `:memory:`.
 */
import assert from "node:assert/strict";
import {
  addAgent,
  demoAgentCommand,
  readSession,
  readTranscript,
  setAgentEnv,
  spawnAgent,
  type WorkPerformer,
} from "../../runtime/agents/mod.ts";
import { AGENT_LIMITS } from "../../runtime/agents/agent_limits.ts";
import { pendingTurnsPrefix } from "../../runtime/agents/keys.ts";
import { InvalidInputError } from "../../runtime/errors.ts";
import { SESSION_LIMITS } from "../../runtime/limits.ts";
import type { TranscriptEntry } from "../../runtime/transcript.ts";
import { testHost } from "../internal/packages.ts";
import { performerOver, waitForSession } from "../internal/sessions.ts";
import { until } from "../internal/until.ts";
import { dirname, join } from "node:path";

const texts = (entries: TranscriptEntry[], kind: TranscriptEntry["kind"]): string[] =>
  entries.filter((e) => e.kind === kind).map((e) => "text" in e ? e.text ?? "" : "");

/** Adds `keyed`: the demo agent that needs `DEMO_KEY` to open a session. */
async function addKeyedAgent(kv: Deno.Kv): Promise<void> {
  const demo = demoAgentCommand(["needs-key=DEMO_KEY"]);
  await addAgent(kv, { name: "keyed", command: demo.command, args: [...demo.args], env: {} });
}

Deno.test("`WorkPerformer` waits for a key, signs in with it on Continue, and answers the first message", async (t) => {
  const env = await testHost();
  let running = 0;
  // Agents are stopped as soon as a turn ends, so each step raises the agent again.
  const work = performerOver(env.host, {
    envHas: () => false,
    limits: { ...SESSION_LIMITS, idleAgentMs: 0 },
    launch: (command, { cwd, onStderr }) => {
      const peer = spawnAgent(command, { cwd, onStderr });
      running++;
      peer.exited.then(() => running--);
      return Promise.resolve(peer);
    },
  });
  try {
    await addKeyedAgent(env.kv);
    await work.start();
    let key = "";
    await t.step("the first message is kept and shown while the session waits", async () => {
      const begun = await work.begin(env.project, "keyed", "no-permission my first words");
      key = begun.session.key;
      assert.deepEqual(begun.session.pending?.map((p) => p.text), [
        "no-permission my first words",
      ]);
      const waiting = await waitForSession(env.kv, env.project, key, (s) => s.state === "waiting");
      assert.equal(waiting.waitingFor?.kind, "sign-in");
      const wait = waiting.waitingFor?.kind === "sign-in" ? waiting.waitingFor : null;
      assert.match(wait?.text ?? "", /add DEMO_KEY to the agent keyed's definition/);
      assert.deepEqual(wait?.ways?.map((w) => [w.id, w.envVars?.map((v) => v.name)]), [
        ["demo-key", ["DEMO_KEY"]],
      ]);
      assert.deepEqual(waiting.pending?.map((p) => p.text), ["no-permission my first words"]);
    });

    await t.step("a message sent while it waits is kept too, not refused", async () => {
      const view = await work.prompt(env.project, key, "no-permission and my second");
      assert.equal(view.session.state, "waiting");
      assert.deepEqual(view.session.pending?.map((p) => p.text), [
        "no-permission my first words",
        "no-permission and my second",
      ]);
    });

    await t.step("with the key in the definition, Continue signs in and sends both", async () => {
      await setAgentEnv(env.kv, "keyed", "DEMO_KEY", "key-1");
      await work.continue(env.project, key);
      const ended = await waitForSession(
        env.kv,
        env.project,
        key,
        (s) => s.state === "ended" && (s.pending?.length ?? 0) === 0,
      );
      assert.ok(ended.agentSessionId);
      const { entries } = await readTranscript(env.kv, env.project, key);
      assert.deepEqual(texts(entries, "user"), [
        "no-permission my first words",
        "no-permission and my second",
      ]);
      const replies = texts(entries, "message");
      assert.match(replies[0] ?? "", /You said: «no-permission my first words»/);
      assert.match(replies[1] ?? "", /and my second/);
    });

    await t.step(
      "a session/load refused for a sign-in waits with its session, and resumes after it",
      async () => {
        const before = (await readSession(env.kv, env.project, key))!;
        // The agent of the turn before has stopped: the next one is raised and loads the session.
        await until("the agent of the turn before is gone", () => running === 0);
        await setAgentEnv(env.kv, "keyed", "DEMO_KEY", null);
        await work.prompt(env.project, key, "no-permission third words");
        const waiting = await waitForSession(
          env.kv,
          env.project,
          key,
          (s) => s.state === "waiting",
        );
        assert.equal(waiting.waitingFor?.kind, "sign-in");
        assert.match(
          waiting.waitingFor?.kind === "sign-in" ? waiting.waitingFor.text : "",
          /before session\/load/,
        );
        assert.equal(waiting.agentSessionId, before.agentSessionId, "the agent's session is kept");
        assert.deepEqual(waiting.pending?.map((p) => p.text), ["no-permission third words"]);

        await setAgentEnv(env.kv, "keyed", "DEMO_KEY", "key-2");
        await work.continue(env.project, key);
        const ended = await waitForSession(
          env.kv,
          env.project,
          key,
          (s) => s.state === "ended" && (s.pending?.length ?? 0) === 0,
        );
        assert.ok(ended.agentSessionId);
        const { entries } = await readTranscript(env.kv, env.project, key);
        assert.equal(texts(entries, "user").at(-1), "no-permission third words");
        assert.match(texts(entries, "message").at(-1) ?? "", /third words/);
      },
    );
  } finally {
    await work.stop();
    await env.close();
  }
});

Deno.test("`WorkPerformer` keeps a first message that waits for a sign-in across a restart", async () => {
  const env = await testHost();
  const performer = (): WorkPerformer => performerOver(env.host, { envHas: () => false });
  let work = performer();
  try {
    await addKeyedAgent(env.kv);
    await work.start();
    const { session } = await work.begin(env.project, "keyed", "no-permission kept across");
    await waitForSession(env.kv, env.project, session.key, (s) => s.state === "waiting");
    await work.stop();

    work = performer();
    await work.start();
    const interrupted = (await readSession(env.kv, env.project, session.key))!;
    assert.equal(interrupted.state, "interrupted");
    assert.deepEqual(interrupted.pending?.map((p) => p.text), ["no-permission kept across"]);
    assert.deepEqual(
      (await work.view(env.project, session.key)).session.pending?.map((p) => p.text),
      ["no-permission kept across"],
    );

    await setAgentEnv(env.kv, "keyed", "DEMO_KEY", "key-3");
    await work.continue(env.project, session.key);
    await waitForSession(
      env.kv,
      env.project,
      session.key,
      (s) => s.state === "ended" && (s.pending?.length ?? 0) === 0,
    );
    const { entries } = await readTranscript(env.kv, env.project, session.key);
    assert.deepEqual(texts(entries, "user"), ["no-permission kept across"]);
    assert.match(texts(entries, "message")[0] ?? "", /kept across/);
  } finally {
    await work.stop();
    await env.close();
  }
});

Deno.test("`WorkPerformer.prompt()` keeps no more messages than it says, when they come at once", async () => {
  const env = await testHost();
  const work = performerOver(env.host, { envHas: () => false });
  try {
    await addKeyedAgent(env.kv);
    await work.start();
    const { session } = await work.begin(env.project, "keyed", "the first");
    await waitForSession(env.kv, env.project, session.key, (s) => s.state === "waiting");
    // Twenty at once: each is answered kept only if it is, and the bound holds.
    const sent = Array.from({ length: 20 }, (_, i) => `message ${i}`);
    const answers = await Promise.allSettled(
      sent.map((text) => work.prompt(env.project, session.key, text)),
    );
    const kept = sent.filter((_, i) => answers[i].status === "fulfilled");
    const max = AGENT_LIMITS.maxPendingTurns;
    assert.equal(kept.length, max - 1, "the first message counts among those waiting");
    for (const answer of answers) {
      if (answer.status === "rejected") {
        assert.match(answer.reason.message, new RegExp(`has ${max} messages waiting to be sent`));
      }
    }
    const pointer = await readSession(env.kv, env.project, session.key);
    assert.deepEqual(pointer?.pending?.map((p) => p.text), ["the first", ...kept]);
    assert.equal(pointer?.state, "waiting");
    // Nothing is kept of a message that was refused.
    let parts = 0;
    for await (const _ of env.kv.list({ prefix: pendingTurnsPrefix(env.project, session.key) })) {
      parts++;
    }
    assert.equal(parts, max);
  } finally {
    await work.stop();
    await env.close();
  }
});

Deno.test("`setAgentEnv()` refuses a variable or a value no environment carries, naming it", async (t) => {
  const kv = await Deno.openKv(":memory:");
  try {
    const refused = async (variable: string, value: string, words: RegExp) => {
      await assert.rejects(setAgentEnv(kv, "codex", variable, value), (error: Error) => {
        assert.ok(error instanceof InvalidInputError, error.message);
        assert.match(error.message, words);
        return true;
      });
    };
    await t.step(
      "a name past 256 characters, or one that is an object's own machinery",
      async () => {
        await refused("K".repeat(10_000), "v", /is not a variable it may be given .* at most 256/);
        await refused("__proto__", "v", /"__proto__" is not a variable it may be given/);
        await refused("SYNC_TOKEN", "v", /no SYNC_ variable/);
      },
    );
    await t.step("a value with a NUL, or half of a UTF-16 pair", async () => {
      await refused(
        "OPENAI_API_KEY",
        "a\0b",
        /holds a character no environment variable can carry/,
      );
      await refused("OPENAI_API_KEY", "a\uD800b", /holds a character no environment variable/);
    });
    await t.step("a plain name is kept as a variable, not an object's property", async () => {
      const listed = await setAgentEnv(kv, "codex", "constructor", "x");
      assert.ok(Object.hasOwn(listed.env, "constructor"));
      assert.deepEqual(Object.keys(listed.env), ["constructor"]);
      const removed = await setAgentEnv(kv, "codex", "constructor", null);
      assert.deepEqual(Object.keys(removed.env), []);
    });
  } finally {
    kv.close();
  }
});

Deno.test("`WorkPerformer.prompt()` keeps a message sent while the agent opens its session", async () => {
  const env = await testHost();
  const gate = join(await Deno.makeTempDir({ prefix: "sync-gate-" }), "open");
  const work = performerOver(env.host, { envHas: () => false });
  try {
    const demo = demoAgentCommand([`session-gate=${gate}`, "no-permission"]);
    await addAgent(env.kv, { name: "slow", command: demo.command, args: [...demo.args], env: {} });
    await work.start();
    const { session } = await work.begin(env.project, "slow", "the first");
    // Initialized (its one answer so far came on stdout), its session not open yet:
    // `session/new` waits for the gate.
    await until("the agent is up and opening its session", async () => {
      const view = await work.view(env.project, session.key);
      return view.activity?.heardOn === "stdout" && view.session.agentSessionId === null;
    });
    const view = await work.prompt(env.project, session.key, "the second");
    assert.deepEqual(view.session.pending?.map((p) => p.text), ["the first", "the second"]);
    await Deno.writeTextFile(gate, "");
    await waitForSession(
      env.kv,
      env.project,
      session.key,
      (s) => s.state === "ended" && (s.pending?.length ?? 0) === 0,
    );
    const { entries } = await readTranscript(env.kv, env.project, session.key);
    assert.deepEqual(texts(entries, "user"), ["the first", "the second"]);
  } finally {
    await work.stop();
    await env.close();
    await Deno.remove(dirname(gate), { recursive: true });
  }
});

Deno.test("`WorkPerformer.prompt()` raises one agent at a time for a failed session, and loses no message", async () => {
  const env = await testHost();
  let running = 0;
  let most = 0;
  const work = performerOver(env.host, {
    envHas: () => false,
    launch: (command, { cwd, onStderr }) => {
      const peer = spawnAgent(command, { cwd, onStderr });
      running++;
      most = Math.max(most, running);
      peer.exited.then(() => running--);
      return Promise.resolve(peer);
    },
  });
  try {
    const demo = demoAgentCommand(["slow-start", "no-permission"]);
    await addAgent(env.kv, { name: "slow", command: demo.command, args: [...demo.args], env: {} });
    await work.start();
    // Cancelled while it starts: the session fails, its first message still waiting.
    const { session } = await work.begin(env.project, "slow", "message 0");
    await until("the agent is starting", async () => {
      const view = await work.view(env.project, session.key);
      return view.activity !== null && view.activity.heardOn === "stderr";
    });
    await work.cancel(env.project, session.key);
    await waitForSession(env.kv, env.project, session.key, (s) => s.state === "failed");
    const sent = Array.from({ length: 30 }, (_, i) => `message ${i + 1}`);
    const answers = await Promise.allSettled(
      sent.map((text) => work.prompt(env.project, session.key, text)),
    );
    const kept = sent.filter((_, i) => answers[i].status === "fulfilled");
    // At least as many as may wait; more when the agent took some meanwhile.
    assert.ok(kept.length >= AGENT_LIMITS.maxPendingTurns - 1, `${kept.length} kept`);
    for (const answer of answers) {
      if (answer.status === "rejected") {
        assert.match(answer.reason.message, /messages waiting to be sent|is running: wait/);
      }
    }
    await waitForSession(
      env.kv,
      env.project,
      session.key,
      (s) => s.state === "ended" && (s.pending?.length ?? 0) === 0,
      90_000,
    );
    const { entries } = await readTranscript(env.kv, env.project, session.key);
    // Each kept message once; sent at once, they have no order of their own but the one kept.
    const delivered = texts(entries, "user");
    assert.equal(delivered[0], "message 0");
    assert.deepEqual(delivered.slice(1).sort(), [...kept].sort());
    assert.equal(most, 1, "one agent at a time for the session");
  } finally {
    await work.stop();
    await env.close();
  }
});

Deno.test("`WorkPerformer.prompt()` goes on after the demo agent failed a turn on purpose", async () => {
  const env = await testHost();
  const work = performerOver(env.host, { limits: { ...SESSION_LIMITS, idleAgentMs: 0 } });
  try {
    await work.start();
    const { session } = await work.begin(env.project, "demo", "no-permission fail now");
    await waitForSession(env.kv, env.project, session.key, (s) => s.state === "failed");
    // The agent is raised again and given what was said before, "fail" among it: only the
    // person's new words tell it what to do.
    await work.prompt(env.project, session.key, "no-permission go on");
    const ended = await waitForSession(
      env.kv,
      env.project,
      session.key,
      (s) => s.state === "ended" || (s.state === "failed" && (s.pending?.length ?? 0) === 0),
    );
    assert.equal(ended.state, "ended", JSON.stringify(ended.error));
    const { entries } = await readTranscript(env.kv, env.project, session.key);
    assert.match(texts(entries, "message").at(-1) ?? "", /go on/);
  } finally {
    await work.stop();
    await env.close();
  }
});
