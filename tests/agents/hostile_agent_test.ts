/**
 * Sessions with an agent that misbehaves on purpose (`tests/internal/hostile_agent.ts`),
 * run as a real child process: what it sends is bounded, its states always
 * move, and a person can always stop it.
 */
import assert from "node:assert/strict";
import {
  addAgent,
  AGENT_LIMITS,
  AgentFailedError,
  readTranscript,
  spawnAgent,
  startAcpSession,
} from "../../runtime/agents/mod.ts";
import { rejectsWith } from "../internal/rejects_with.ts";
import { SESSION_LIMITS } from "../../runtime/limits.ts";
import type { TranscriptEntry } from "../../runtime/transcript.ts";
import type { AgentSession, AgentSessionState } from "../../runtime/agent_session.ts";
import { hostileAgentCommand } from "../internal/hostile_agent.ts";
import { testHost } from "../internal/packages.ts";
import { performerOver, waitForSession } from "../internal/sessions.ts";

const encoder = new TextEncoder();
const bytesOf = (value: unknown) => encoder.encode(JSON.stringify(value)).byteLength;

/** A test host with the hostile agent added in a mode, and a performer over it. */
async function hostileHost(mode: string, options: Parameters<typeof performerOver>[1] = {}) {
  const env = await testHost();
  const command = hostileAgentCommand(mode);
  await addAgent(env.kv, {
    name: "hostile",
    command: command.command,
    args: [...command.args],
    env: {},
  });
  const work = performerOver(env.host, options);
  return { env, work };
}

/**
 * Begins a session with the hostile agent in `mode`, told `prompt`, and
 * answers the session once it reaches `state`; the host goes afterwards.
 */
async function settledSession(
  mode: string,
  prompt: string,
  state: AgentSessionState,
  options: Parameters<typeof performerOver>[1] = {},
): Promise<AgentSession> {
  const { env, work } = await hostileHost(mode, options);
  try {
    const { session } = await work.begin(env.project, "hostile", prompt);
    return await waitForSession(env.kv, env.project, session.key, (s) => s.state === state);
  } finally {
    await work.stop();
    await env.close();
  }
}

Deno.test("`WorkPerformer` bounds every string of an entry before it is kept or told", async (t) => {
  const { env, work } = await hostileHost("ok");
  const watcher = env.host.events.subscribe({
    project: env.project,
    types: new Set(["transcript"]),
  });
  try {
    const { session } = await work.begin(env.project, "hostile", "big-tool");
    await waitForSession(env.kv, env.project, session.key, (s) => s.state === "ended");
    const told: TranscriptEntry[] = [];
    for (let event = await watcher.next(1); event !== null; event = await watcher.next(1)) {
      if (event.type === "transcript") told.push(event.entry);
    }
    await t.step("the tool call's id, title and paths are cut, and its paths counted", () => {
      const call = told.find((e) => e.kind === "tool_call");
      assert.ok(call?.kind === "tool_call");
      assert.ok(call.toolCallId.length <= AGENT_LIMITS.maxIdChars);
      assert.ok(call.title.length <= AGENT_LIMITS.maxTitleChars);
      assert.equal(call.paths?.length, AGENT_LIMITS.maxToolPaths);
      for (const path of call.paths ?? []) assert.ok(path.length <= AGENT_LIMITS.maxPathChars);
      const message = told.find((e) => e.kind === "message");
      assert.ok(message?.kind === "message");
      assert.ok((message.messageId ?? "").length <= AGENT_LIMITS.maxIdChars);
    });
    await t.step("what is told is what is stored, each within one stored value", async () => {
      for (const entry of told) assert.ok(bytesOf(entry) <= SESSION_LIMITS.maxStoredEntryBytes);
      const { entries } = await readTranscript(env.kv, env.project, session.key);
      assert.deepEqual(
        entries.filter((e) => e.kind === "tool_call"),
        told.filter((e) => e.kind === "tool_call"),
      );
    });
  } finally {
    watcher.close();
    await work.stop();
    await env.close();
  }
});

Deno.test("`WorkPerformer` keeps an agent's long words out of a session's state, which always moves", async (t) => {
  await t.step("a session id longer than Sync keeps fails the session, saying so", async () => {
    const failed = await settledSession("big-session-id", "hello", "failed");
    assert.match(
      failed.error?.message ?? "",
      /^The agent hostile answered session\/new with a session id of 200000 characters, more than the 1000 Sync keeps/,
    );
    assert.equal(failed.agentSessionId, null);
  });
  await t.step("a sign-in of huge names and words waits, its text cut", async () => {
    const waiting = await settledSession("big-sign-in", "hello", "waiting");
    assert.equal(waiting.waitingFor?.kind, "sign-in");
    const text = waiting.waitingFor?.kind === "sign-in" ? waiting.waitingFor.text : "";
    assert.match(
      text,
      /^The agent hostile needs a person to sign in before session\/new \(A+… \[cut: /,
    );
    assert.ok(text.length <= AGENT_LIMITS.maxReasonChars);
  });
  await t.step(
    "thousands of sign-in methods: a few tried, commands shown only whole and quoted",
    async () => {
      const waiting = await settledSession("many-sign-ins", "hello", "waiting");
      const wait = waiting.waitingFor?.kind === "sign-in" ? waiting.waitingFor : null;
      const tried = Number(/authenticate was called (\d+) times/.exec(wait?.text ?? "")?.[1]);
      assert.ok(tried >= 1 && tried <= AGENT_LIMITS.maxSignInWays, `tried ${tried} times`);
      const ways = new Map((wait?.ways ?? []).map((way) => [way.id, way]));
      assert.equal(ways.get("rigged")?.command, undefined, "no command to paste");
      assert.match(ways.get("rigged")?.description ?? "", /Sync does not show its command/);
      const quoted = ways.get("quoted")?.command ?? "";
      assert.match(quoted, /^FOO='\$\(id\)' /);
      assert.ok(quoted.endsWith(` '$(id)' '\`id\`' 'it'\\''s'`), quoted);
      assert.ok(!(wait?.text ?? "").includes("touch /tmp/sync-pwned"));
      assert.equal(
        ways.get("preload")?.command,
        undefined,
        "no command setting a loader's variable",
      );
      assert.match(ways.get("preload")?.description ?? "", /it sets LD_PRELOAD/);
      assert.equal(ways.get("loader")?.envVars, undefined, "no form for a loader's variable");
      assert.match(ways.get("loader")?.description ?? "", /Sync offers no form for LD_PRELOAD/);
    },
  );
  await t.step("an error of 200,000 characters fails the turn, its message cut", async () => {
    const failed = await settledSession("ok", "big-error", "failed");
    assert.match(failed.error?.message ?? "", /^The agent hostile refused the turn: E+… \[cut: /);
    assert.ok((failed.error?.message ?? "").length <= AGENT_LIMITS.maxReasonChars);
  });
});

Deno.test("`AcpSession.cancel()` stops an agent that has no session yet", async () => {
  const project = await Deno.makeTempDir({ prefix: "sync-hostile-" });
  const peer = spawnAgent(hostileAgentCommand("no-new"), { cwd: project });
  const session = await startAcpSession(peer, {
    agentName: "hostile",
    project,
    askPermission: () => Promise.resolve("cancelled"),
  });
  try {
    const made = session.newSession();
    await new Promise((resolve) => setTimeout(resolve, 100));
    await session.cancel();
    await rejectsWith(
      made,
      AgentFailedError,
      /^The agent hostile was cancelled while it was starting, so Sync stopped its process$/,
    );
    assert.equal((await peer.exited).signal, "SIGTERM");
  } finally {
    await session.close();
    await Deno.remove(project, { recursive: true });
  }
});

Deno.test("`WorkPerformer` never waits on an agent that does not answer or ignores a cancel", async (t) => {
  await t.step("session/new unanswered past its deadline fails the session", async () => {
    const failed = await settledSession("no-new", "hello", "failed", { sessionTimeoutMs: 300 });
    assert.match(
      failed.error?.message ?? "",
      /^The agent hostile did not answer session\/new within 0\.3 s: /,
    );
  });
  await t.step("a cancel the agent ignores stops it, and the session fails saying so", async () => {
    const { env, work } = await hostileHost("ok", { cancelGraceMs: 300 });
    try {
      const { session } = await work.begin(env.project, "hostile", "ignore-cancel");
      // The turn is under way once its prompt is in the transcript.
      const until = Date.now() + 10_000;
      while (
        !(await work.view(env.project, session.key)).transcript.some((e) => e.kind === "user")
      ) {
        assert.ok(Date.now() < until, "the turn began");
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      await work.cancel(env.project, session.key);
      const failed = await waitForSession(
        env.kv,
        env.project,
        session.key,
        (s) => s.state === "failed",
      );
      assert.match(
        failed.error?.message ?? "",
        /^The agent hostile did not end the turn within 0\.3 s of being cancelled, so Sync stopped its process$/,
      );
    } finally {
      await work.stop();
      await env.close();
    }
  });
});

Deno.test("`WorkPerformer.answer()` keeps a session waiting while another request is open", async () => {
  const { env, work } = await hostileHost("ok");
  try {
    const { session } = await work.begin(env.project, "hostile", "two-asks");
    const both = await waitForSession(
      env.kv,
      env.project,
      session.key,
      (s) => s.state === "waiting",
    );
    assert.equal(both.waitingFor?.kind, "permission");
    const until = Date.now() + 10_000;
    let asked: string[] = [];
    while (asked.length < 2) {
      assert.ok(Date.now() < until, "both permissions were asked");
      asked = (await work.view(env.project, session.key)).transcript.flatMap((e) =>
        e.kind === "permission" ? [e.requestId] : []
      );
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const { session: one } = await work.answer(env.project, session.key, asked[1], "allow");
    assert.equal(one.state, "waiting");
    assert.deepEqual(one.waitingFor, { kind: "permission", requestId: asked[0] });
    await work.answer(env.project, session.key, asked[0], "allow");
    await waitForSession(env.kv, env.project, session.key, (s) => s.state === "ended");
  } finally {
    await work.stop();
    await env.close();
  }
});

Deno.test("`WorkPerformer.answer()` allows a permission of many large options, cut when asked", async () => {
  const { env, work } = await hostileHost("ok");
  try {
    const { session } = await work.begin(env.project, "hostile", "big-ask");
    await waitForSession(env.kv, env.project, session.key, (s) => s.state === "waiting");
    const until = Date.now() + 10_000;
    let asked: TranscriptEntry | undefined;
    while (asked === undefined) {
      assert.ok(Date.now() < until, "the permission was asked");
      asked = (await readTranscript(env.kv, env.project, session.key)).entries.find((e) =>
        e.kind === "permission"
      );
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    assert.ok(asked.kind === "permission", "the stored entry is the request, not a failure");
    assert.equal(asked.options.length, AGENT_LIMITS.maxPermissionOptions);
    for (const option of asked.options) {
      assert.ok(option.optionId.length <= AGENT_LIMITS.maxIdChars);
      assert.ok(option.name.length <= AGENT_LIMITS.maxOptionNameChars);
    }
    await work.answer(env.project, session.key, asked.requestId, asked.options[0].optionId);
    await waitForSession(env.kv, env.project, session.key, (s) => s.state === "ended");
    const { entries } = await readTranscript(env.kv, env.project, session.key);
    const reply = entries.flatMap((e) => e.kind === "message" ? [e.text] : []).join("");
    // The agent is answered its own option id, whole.
    assert.ok(reply.includes(`"optionId":"0-${"o".repeat(300)}"`), reply.slice(0, 200));
  } finally {
    await work.stop();
    await env.close();
  }
});
