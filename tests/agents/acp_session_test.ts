/**
 * The ACP session over real stdio: the bundled demo agent runs as a child
 * process and the session speaks to it through the SDK, as it will to any
 * agent.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import {
  type AcpSession,
  AgentFailedError,
  type AgentPeer,
  AgentSignInRequiredError,
  appendEntry,
  demoAgentCommand,
  type PermissionAnswer,
  type PermissionRequest,
  spawnAgent,
  startAcpSession,
  type TranscriptEntry,
} from "../../runtime/agents/mod.ts";
import { rejectsWith } from "../internal/rejects_with.ts";

/** A demo agent and a session with it, and what it reported. */
interface Running {
  session: AcpSession;
  peer: AgentPeer;
  entries: TranscriptEntry[];
  asked: PermissionRequest[];
  project: string;
}

/** Options for {@linkcode startDemo}. */
interface StartDemo {
  /** Words the demo agent obeys on every turn, as flags. */
  flags?: string[];
  /** What the person answers to a permission; `allow` by default. */
  answer?: (request: PermissionRequest, signal: AbortSignal) => Promise<PermissionAnswer>;
  /** The project folder; a new one by default. */
  project?: string;
  /** Called with each entry as it arrives. */
  onEntry?: (entry: TranscriptEntry) => void;
  initializeTimeoutMs?: number;
  /** Extra environment the agent's process gets. */
  env?: Record<string, string>;
  /** What the session is told the agent's environment sets. */
  envHas?: (name: string) => boolean;
}

/** Starts the demo agent in a project and initializes a session with it. */
async function startDemo(options: StartDemo = {}): Promise<Running> {
  const project = options.project ?? await Deno.makeTempDir({ prefix: "sync-acp-" });
  const command = demoAgentCommand(options.flags);
  const peer = spawnAgent(options.env ? { ...command, env: options.env } : command, {
    cwd: project,
  });
  const entries: TranscriptEntry[] = [];
  const asked: PermissionRequest[] = [];
  const session = await startAcpSession(peer, {
    agentName: "demo",
    project,
    initializeTimeoutMs: options.initializeTimeoutMs,
    envHas: options.envHas,
    agentCommand: [command.command, ...command.args],
    askPermission: (request, signal) => {
      asked.push(request);
      return options.answer?.(request, signal) ?? Promise.resolve({ optionId: "allow" });
    },
    onEntry: (entry) => {
      entries.push(entry);
      options.onEntry?.(entry);
    },
  });
  return { session, peer, entries, asked, project };
}

/** The text of the agent's reply in a turn, its chunks joined. */
function replyOf(entries: TranscriptEntry[]): string {
  return entries.flatMap((entry) => entry.kind === "message" ? [entry.text] : []).join("");
}

/** Resolves with the first entry `match` accepts. */
function waitForEntry(
  match: (entry: TranscriptEntry) => boolean,
): { onEntry: (entry: TranscriptEntry) => void; seen: Promise<TranscriptEntry> } {
  let resolve!: (entry: TranscriptEntry) => void;
  const seen = new Promise<TranscriptEntry>((r) => resolve = r);
  return { onEntry: (entry) => match(entry) && resolve(entry), seen };
}

Deno.test("`startAcpSession()` initializes the demo agent over stdio", async (t) => {
  const { session, project } = await startDemo();
  try {
    await t.step("and reads what the agent says of itself", () => {
      assert.equal(session.facts.info?.name, "sync-demo");
      assert.equal(session.facts.loadSession, true);
      assert.equal(session.facts.protocolVersion, 1);
      assert.deepEqual(session.facts.authMethods, []);
    });
    await t.step("`newSession()` answers the agent's session id", async () => {
      const id = await session.newSession();
      assert.match(id, /^[0-9a-f-]{36}$/);
      assert.equal(session.sessionId, id);
    });
  } finally {
    await session.close();
    await Deno.remove(project, { recursive: true });
  }
});

Deno.test("`AcpSession.prompt()` streams a turn as transcript entries", async (t) => {
  const running = await startDemo();
  const { session, entries, asked } = running;
  try {
    await session.newSession();
    const prompt = "Please look at the failing build in the issues list";
    const stop = await session.prompt(prompt);

    await t.step("the turn ends with end_turn, reported last", () => {
      assert.equal(stop, "end_turn");
      assert.deepEqual(entries.at(-1), {
        at: entries.at(-1)!.at,
        kind: "turn_end",
        stopReason: "end_turn",
      });
    });
    await t.step("the prompt is the turn's first entry", () => {
      assert.equal(entries[0].kind, "user");
      assert.equal(entries[0].kind === "user" && entries[0].text, prompt);
    });
    await t.step("the reply quotes the prompt, in several chunks", () => {
      const chunks = entries.filter((entry) => entry.kind === "message");
      assert.ok(chunks.length >= 3, `${chunks.length} chunks`);
      assert.match(replyOf(entries), new RegExp(`You said: «${prompt}»`));
    });
    await t.step("a plan, and a thought", () => {
      const plans = entries.filter((entry) => entry.kind === "plan");
      assert.ok(plans.length >= 2);
      const last = plans.at(-1)!;
      assert.ok(last.kind === "plan");
      assert.deepEqual(last.steps.map((step) => step.status), [
        "completed",
        "completed",
        "completed",
      ]);
      assert.ok(entries.some((entry) => entry.kind === "thought"));
    });
    await t.step("a tool call goes pending → in_progress → completed", () => {
      const call = entries.find((entry) => entry.kind === "tool_call");
      assert.ok(call?.kind === "tool_call");
      assert.equal(call.status, "pending");
      assert.equal(call.toolKind, "read");
      const statuses = entries.flatMap((entry) =>
        entry.kind === "tool_call_update" && entry.toolCallId === call.toolCallId
          ? [entry.status]
          : []
      );
      assert.deepEqual(statuses, ["in_progress", "completed"]);
    });
    await t.step("the permission is asked with the agent's own options, and allowed", () => {
      assert.equal(asked.length, 1);
      assert.deepEqual(asked[0].options, [
        { optionId: "allow", name: "Allow", optionKind: "allow_once" },
        { optionId: "deny", name: "Deny", optionKind: "reject_once" },
      ]);
      const asking = entries.find((entry) => entry.kind === "permission");
      const answer = entries.find((entry) => entry.kind === "permission_answer");
      assert.ok(asking?.kind === "permission" && answer?.kind === "permission_answer");
      assert.equal(answer.requestId, asking.requestId);
      assert.equal(answer.outcome, "selected");
      assert.equal(answer.optionId, "allow");
      assert.match(replyOf(entries), /You allowed it\./);
    });
    await t.step("`appendEntry()` joins the chunks into one reply entry", () => {
      const stored: TranscriptEntry[] = [];
      for (const entry of entries) appendEntry(stored, entry);
      const messages = stored.filter((entry) => entry.kind === "message");
      assert.equal(messages.length, 1);
      assert.ok(messages[0].kind === "message");
      assert.equal(messages[0].text, replyOf(entries));
    });
    await t.step("a second turn runs in the same session", async () => {
      entries.length = 0;
      assert.equal(await session.prompt("again"), "end_turn");
      assert.match(replyOf(entries), /You said: «again»/);
    });
  } finally {
    await session.close();
    await Deno.remove(running.project, { recursive: true });
  }
});

Deno.test("`AcpSession.prompt()` tells the agent what the person chose", async (t) => {
  await t.step("denied: the reply says so, the turn still ends", async () => {
    const running = await startDemo({ answer: () => Promise.resolve({ optionId: "deny" }) });
    try {
      await running.session.newSession();
      assert.equal(await running.session.prompt("May I?"), "end_turn");
      assert.match(replyOf(running.entries), /You denied it\./);
      const answer = running.entries.find((entry) => entry.kind === "permission_answer");
      assert.ok(answer?.kind === "permission_answer");
      assert.equal(answer.optionId, "deny");
    } finally {
      await running.session.close();
      await Deno.remove(running.project, { recursive: true });
    }
  });
  await t.step("no-permission: nobody is asked", async () => {
    const running = await startDemo();
    try {
      await running.session.newSession();
      assert.equal(await running.session.prompt("no-permission please"), "end_turn");
      assert.equal(running.asked.length, 0);
      assert.match(replyOf(running.entries), /You were not asked\./);
    } finally {
      await running.session.close();
      await Deno.remove(running.project, { recursive: true });
    }
  });
  await t.step("an option the agent did not offer answers cancelled", async () => {
    const running = await startDemo({ answer: () => Promise.resolve({ optionId: "maybe" }) });
    try {
      await running.session.newSession();
      assert.equal(await running.session.prompt("May I?"), "cancelled");
      const answer = running.entries.find((entry) => entry.kind === "permission_answer");
      assert.ok(answer?.kind === "permission_answer");
      assert.equal(answer.outcome, "cancelled");
    } finally {
      await running.session.close();
      await Deno.remove(running.project, { recursive: true });
    }
  });
});

Deno.test("`AcpSession.cancel()` ends the turn with cancelled", async (t) => {
  await t.step("a turn that hangs until cancelled", async () => {
    const hanging = waitForEntry((entry) =>
      entry.kind === "message" && entry.text.includes("Hanging")
    );
    const running = await startDemo({ onEntry: hanging.onEntry });
    try {
      await running.session.newSession();
      const turn = running.session.prompt("hang");
      await hanging.seen;
      await running.session.cancel();
      assert.equal(await turn, "cancelled");
      assert.equal(running.entries.at(-1)?.kind, "turn_end");
    } finally {
      await running.session.close();
      await Deno.remove(running.project, { recursive: true });
    }
  });
  await t.step("a permission still waiting is answered cancelled", async () => {
    let signalled: AbortSignal | undefined;
    const asked = Promise.withResolvers<void>();
    const running = await startDemo({
      // The person never answers.
      answer: (_request, signal) => {
        signalled = signal;
        asked.resolve();
        return new Promise(() => {});
      },
    });
    try {
      await running.session.newSession();
      const turn = running.session.prompt("May I?");
      await asked.promise;
      await running.session.cancel();
      assert.equal(await turn, "cancelled");
      assert.equal(signalled?.aborted, true);
      const answer = running.entries.find((entry) => entry.kind === "permission_answer");
      assert.ok(answer?.kind === "permission_answer");
      assert.equal(answer.outcome, "cancelled");
    } finally {
      await running.session.close();
      await Deno.remove(running.project, { recursive: true });
    }
  });
});

Deno.test("`AcpSession.prompt()` fails with the agent's words and its stderr", async (t) => {
  await t.step("the agent exits mid-turn: its exit code and stderr tail", async () => {
    const running = await startDemo();
    try {
      await running.session.newSession();
      const error = await rejectsWith(
        running.session.prompt("crash now"),
        AgentFailedError,
        /^The agent demo exited with code 1 during the turn; the last line it wrote on stderr: .*crashing in the middle of the turn, as told$/,
      );
      assert.ok(error instanceof AgentFailedError);
      assert.equal(error.exit?.code, 1);
      assert.match(error.stderrTail, /crashing/);
      // What the agent said before it crashed is in the transcript, and the failure last.
      assert.match(replyOf(running.entries), /Starting, then crashing/);
      const last = running.entries.at(-1);
      assert.ok(last?.kind === "failure");
      assert.equal(last.message, error.message);
      assert.match(last.stderrTail ?? "", /crashing/);
    } finally {
      await running.session.close();
      await Deno.remove(running.project, { recursive: true });
    }
  });
  await t.step("the agent answers the turn with an error", async () => {
    const running = await startDemo();
    try {
      await running.session.newSession();
      const error = await rejectsWith(
        running.session.prompt("fail please"),
        AgentFailedError,
        /^The agent demo refused the turn: The demo agent was told to fail this turn: /,
      );
      assert.equal((error as AgentFailedError).code, -32603);
      assert.equal((error as AgentFailedError).exit, null);
      // The process lives on: the next turn works.
      assert.equal(await running.session.prompt("no-permission"), "end_turn");
    } finally {
      await running.session.close();
      await Deno.remove(running.project, { recursive: true });
    }
  });
});

Deno.test("`AcpSession` sets aside lines that are not JSON-RPC", async () => {
  const running = await startDemo();
  try {
    await running.session.newSession();
    assert.equal(await running.session.prompt("junk, then the usual"), "end_turn");
    assert.match(replyOf(running.entries), /You said: «junk, then the usual»/);
    assert.deepEqual(running.session.noise(), [
      "this line is not JSON",
      "{not json either",
      "[1, 2, 3]",
      '{"hello": "a JSON object that is not JSON-RPC"}',
    ]);
    // Nothing was sent back about them: the agent's stderr has no complaint.
    assert.doesNotMatch(running.session.stderrTail(), /response|Invalid/i);
  } finally {
    await running.session.close();
    await Deno.remove(running.project, { recursive: true });
  }
});

Deno.test("`startAcpSession()` fails when the agent does not answer initialize", async () => {
  const project = await Deno.makeTempDir({ prefix: "sync-acp-" });
  try {
    const peer = spawnAgent(demoAgentCommand(["no-init"]), { cwd: project });
    const error = await rejectsWith(
      startAcpSession(peer, {
        agentName: "demo",
        project,
        initializeTimeoutMs: 1_500,
        askPermission: () => Promise.resolve("cancelled"),
      }),
      AgentFailedError,
      /^The agent demo did not answer initialize within 1\.5 s; it may not speak ACP on stdio, or may be waiting for input: it wrote nothing on stderr$/,
    );
    assert.equal((error as AgentFailedError).exit, null);
    // The agent was stopped.
    const exit = await peer.exited;
    assert.equal(exit.signal, "SIGTERM");
  } finally {
    await Deno.remove(project, { recursive: true });
  }
});

Deno.test("`startAcpSession()` fails when the agent is gone before it answers", async () => {
  const project = await Deno.makeTempDir({ prefix: "sync-acp-" });
  try {
    const peer = spawnAgent({
      command: Deno.execPath(),
      args: ["eval", "console.error('no such model: x'); Deno.exit(3)"],
    }, { cwd: project });
    await rejectsWith(
      startAcpSession(peer, {
        agentName: "broken",
        project,
        askPermission: () => Promise.resolve("cancelled"),
      }),
      AgentFailedError,
      /^The agent broken exited with code 3 during initialize; the last line it wrote on stderr: no such model: x$/,
    );
  } finally {
    await Deno.remove(project, { recursive: true });
  }
});

Deno.test("`startAcpSession()` keeps the agent's stderr as plain text, without npm's request lines", async () => {
  const project = await Deno.makeTempDir({ prefix: "sync-acp-" });
  try {
    // What codex (coloured log lines) and npx with `npm_config_loglevel=http` write.
    const stderr = [
      "npm http fetch GET 200 https://registry.npmjs.org/@zed-industries%2fcodex-acp 81ms (cache stale)",
      "\x1b[2m2026-12-01T10:00:00Z\x1b[0m \x1b[31mERROR\x1b[0m codex_core: stream disconnected",
      "npm http fetch GET 200 https://registry.npmjs.org/semver 5ms (cache revalidated)",
      `\x1b[31mERROR\x1b[0m ${"x".repeat(400)}`,
      "",
    ].join("\n");
    const peer = spawnAgent({
      command: Deno.execPath(),
      args: [
        "eval",
        `Deno.stderr.writeSync(new TextEncoder().encode(${JSON.stringify(stderr)})); Deno.exit(3)`,
      ],
    }, { cwd: project });
    const error = await rejectsWith(
      startAcpSession(peer, {
        agentName: "noisy",
        project,
        askPermission: () => Promise.resolve("cancelled"),
      }),
      AgentFailedError,
      /^The agent noisy exited with code 3 during initialize; the last line it wrote on stderr: ERROR x+…$/,
    );
    assert.ok(error instanceof AgentFailedError);
    assert.ok(!error.message.includes("\n"), "the message is one line");
    assert.ok(error.message.length < 400, `a short message: ${error.message.length} characters`);
    assert.equal(
      error.stderrTail,
      `2026-12-01T10:00:00Z ERROR codex_core: stream disconnected\nERROR ${"x".repeat(400)}\n`,
    );
  } finally {
    await Deno.remove(project, { recursive: true });
  }
});

Deno.test("`AcpSession.newSession()` asks for a sign-in the agent needs", async () => {
  const running = await startDemo({ flags: ["needs-sign-in"] });
  try {
    assert.deepEqual(running.session.facts.authMethods, [
      { id: "demo-login", name: "Demo login", description: "Run `demo login`" },
    ]);
    const error = await rejectsWith(
      running.session.newSession(),
      "AgentSignInRequiredError",
      /^The agent demo needs a person to sign in before session\/new \(Authentication required: sign in with `demo login` first\): sign in one of these ways: Demo login \(Run `demo login`\); then continue$/,
    );
    assert.deepEqual((error as AgentSignInRequiredError).authMethods.map((m) => m.id), [
      "demo-login",
    ]);
  } finally {
    await running.session.close();
    await Deno.remove(running.project, { recursive: true });
  }
});

Deno.test("`AcpSession.newSession()` signs in itself with a key the agent's environment sets", async (t) => {
  const key = "needs-key=DEMO_KEY";
  await t.step("the env_var method is read with its variable", async () => {
    const running = await startDemo({ flags: [key] });
    try {
      assert.deepEqual(running.session.facts.authMethods, [{
        id: "demo-key",
        name: "Use DEMO_KEY",
        description: "Requires setting the `DEMO_KEY` environment variable.",
        envVars: [{ name: "DEMO_KEY", label: "Demo key" }],
      }]);
    } finally {
      await running.session.close();
      await Deno.remove(running.project, { recursive: true });
    }
  });
  await t.step("with the key set, authenticate comes first and the session opens", async () => {
    const running = await startDemo({
      flags: [key],
      env: { DEMO_KEY: "k-123" },
      envHas: (name) => name === "DEMO_KEY",
    });
    try {
      const sessionId = await running.session.newSession();
      assert.ok(sessionId);
      assert.equal(await running.session.prompt("no-permission hi"), "end_turn");
      assert.match(replyOf(running.entries), /hi/);
    } finally {
      await running.session.close();
      await Deno.remove(running.project, { recursive: true });
    }
  });
  await t.step("without it, the sign-in names the variable to add", async () => {
    const running = await startDemo({ flags: [key], envHas: () => false });
    try {
      const error = await rejectsWith(
        running.session.newSession(),
        "AgentSignInRequiredError",
        /^The agent demo needs a person to sign in before session\/new \(Authentication required: set DEMO_KEY and authenticate with demo-key\): sign in one of these ways: Use DEMO_KEY \(add DEMO_KEY to the agent demo's definition\); then continue$/,
      );
      assert.deepEqual((error as AgentSignInRequiredError).ways, [{
        id: "demo-key",
        name: "Use DEMO_KEY",
        description: "Requires setting the `DEMO_KEY` environment variable.",
        envVars: [{ name: "DEMO_KEY", label: "Demo key" }],
      }]);
    } finally {
      await running.session.close();
      await Deno.remove(running.project, { recursive: true });
    }
  });
  await t.step("a key Sync thinks is set but the agent lacks: its refusal is told", async () => {
    const running = await startDemo({ flags: [key], envHas: () => true });
    try {
      await rejectsWith(
        running.session.newSession(),
        "AgentSignInRequiredError",
        /it refused to sign in with Use DEMO_KEY: Authentication required: DEMO_KEY is not set in the demo agent's environment/,
      );
    } finally {
      await running.session.close();
      await Deno.remove(running.project, { recursive: true });
    }
  });
});

Deno.test("`AcpSession.load()` replays a session before it answers", async (t) => {
  const running = await startDemo();
  try {
    const id = await running.session.newSession();
    await running.session.prompt("no-permission: remember this");
    const first = running.entries.length;

    await t.step("into entries marked replay, the person's words included", async () => {
      await running.session.load(id);
      const replayed = running.entries.slice(first);
      assert.ok(replayed.length > 5);
      assert.ok(replayed.every((entry) => entry.replay === true));
      assert.equal(replayed[0].kind, "user");
      assert.equal(replayed[0].kind === "user" && replayed[0].text, "no-permission: remember this");
      assert.match(replyOf(replayed), /You said: «no-permission: remember this»/);
    });
    await t.step("and the loaded session takes the next turn", async () => {
      const before = running.entries.length;
      assert.equal(await running.session.prompt("no-permission"), "end_turn");
      assert.ok(running.entries.slice(before).every((entry) => entry.replay === undefined));
    });
    await t.step("an agent that restarted has no such session: a clear error", async () => {
      const again = await startDemo({ project: running.project });
      try {
        const error = await rejectsWith(
          again.session.load(id),
          AgentFailedError,
          new RegExp(`^The agent demo refused session/load: The demo agent has no session ${id}: `),
        );
        assert.equal((error as AgentFailedError).code, -32002);
        assert.equal(again.session.sessionId, null);
        // Continue falls back to a new session.
        await again.session.newSession();
        assert.equal(await again.session.prompt("no-permission"), "end_turn");
      } finally {
        await again.session.close();
      }
    });
  } finally {
    await running.session.close();
    await Deno.remove(running.project, { recursive: true });
  }
});

Deno.test("`AcpSession` reads and writes files for the agent only inside the project", async (t) => {
  const outside = await Deno.makeTempDir({ prefix: "sync-acp-outside-" });
  const running = await startDemo();
  const { session, project } = running;
  try {
    await session.newSession();
    await Deno.writeTextFile(join(project, "notes.md"), "hello from the project");
    await Deno.writeTextFile(join(outside, "secret.txt"), "not for agents");
    await Deno.symlink(outside, join(project, "link"));

    const turn = async (text: string) => {
      running.entries.length = 0;
      await session.prompt(`no-permission ${text}`);
      return replyOf(running.entries);
    };

    await t.step("a file inside is read", async () => {
      assert.match(
        await turn(`read ${join(project, "notes.md")}`),
        /Read .*notes\.md: hello from the project/,
      );
    });
    await t.step("a file inside is written, folders made", async () => {
      const path = join(project, "new", "deeper", "out.txt");
      assert.match(await turn(`write ${path}`), /Wrote .*out\.txt\./);
      assert.equal(await Deno.readTextFile(path), "written by the demo agent\n");
    });
    await t.step("a file outside is refused", async () => {
      const reply = await turn(`read ${join(outside, "secret.txt")}`);
      assert.match(reply, /Could not read .*secret\.txt: .*is outside the project folder/);
      assert.doesNotMatch(reply, /not for agents/);
    });
    await t.step("a path that leads out through .. or a link is refused", async () => {
      assert.match(
        await turn(`read ${project}/../${outside.split("/").at(-1)}/secret.txt`),
        /is outside the project folder/,
      );
      assert.match(
        await turn(`read ${join(project, "link", "secret.txt")}`),
        /is outside the project folder/,
      );
      assert.match(
        await turn(`write ${join(project, "link", "planted.txt")}`),
        /is outside the project folder/,
      );
      await assert.rejects(Deno.stat(join(outside, "planted.txt")), Deno.errors.NotFound);
    });
    await t.step("the project's .sync folder is refused", async () => {
      assert.match(
        await turn(`write ${join(project, ".sync", "memory.kv")}`),
        /\.sync\/ holds the project's memory/,
      );
    });
  } finally {
    await session.close();
    await Deno.remove(project, { recursive: true });
    await Deno.remove(outside, { recursive: true });
  }
});

Deno.test("`AcpSession.prompt()` takes one turn at a time", async () => {
  const hanging = waitForEntry((entry) =>
    entry.kind === "message" && entry.text.includes("Hanging")
  );
  const running = await startDemo({ onEntry: hanging.onEntry });
  try {
    await running.session.newSession();
    const turn = running.session.prompt("hang");
    await hanging.seen;
    await rejectsWith(running.session.prompt("and this?"), Error, /^A turn is under way/);
    await running.session.cancel();
    assert.equal(await turn, "cancelled");
    assert.equal(await running.session.prompt("no-permission"), "end_turn");
  } finally {
    await running.session.close();
    await Deno.remove(running.project, { recursive: true });
  }
});
