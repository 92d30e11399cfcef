/**
 * The presets, proven: the real adapters, at the versions the presets pin,
 * run through the work performer and the process supervisor as `sync serve`
 * runs them, offline, to the point each gets — and nothing of them is left
 * running.
 *
 * Offline on purpose: the agents get a home folder of their own (no
 * person's sign-in is used), no API key unless a step gives one, and a
 * proxy on a closed port (`HTTPS_PROXY`); codex honours it (its requests are
 * refused at once), gemini does not (its turn would wait on the network for
 * minutes, so no step takes it that far); npm honours it too. The presets'
 * commands run unchanged: npx finds the pinned adapters installed in the
 * test cache (`npm_config_prefix`) and, with the presets' own
 * `--prefer-offline`, reads their metadata from npm's cache without asking
 * the registry (`tests/internal/real_adapters.ts`) — were it to ask, the
 * closed proxy would hold it for over a minute and the steps would fail.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import type { AgentSession } from "../../runtime/agent_session.ts";
import {
  addAgent,
  readAgent,
  readTranscript,
  setAgentEnv,
  supervisedLauncher,
} from "../../runtime/agents/mod.ts";
import { Supervisor } from "../../runtime/supervisor/mod.ts";
import { testHost } from "../internal/packages.ts";
import { installAdapters, npmCache, presetPackages } from "../internal/real_adapters.ts";
import { performerOver, waitForSession } from "../internal/sessions.ts";

/** Marks every process of this run's agents: their children inherit it. */
const MARK = "SYNC_TEST_REAL_ADAPTERS";

/**
 * The processes alive whose environment carries `mark`, with their command
 * lines: what the agents left. `ps e` shows each one's environment after its
 * arguments.
 */
async function marked(mark: string): Promise<string[]> {
  const output = await new Deno.Command("ps", {
    args: ["-e", "-ww", "e", "-o", "pid=,stat=,args="],
    env: { LC_ALL: "C" },
    stdout: "piped",
    stderr: "null",
  }).output();
  return new TextDecoder().decode(output.stdout).split("\n")
    .filter((line) => line.includes(mark) && !/^\s*\d+\s+Z/.test(line))
    .map((line) => line.slice(0, line.indexOf(mark)).trim().slice(0, 300));
}

/** Waits until no process carries `mark`; fails naming the ones still there. */
async function noneLeft(mark: string, ms = 20_000): Promise<void> {
  const until = Date.now() + ms;
  let left = await marked(mark);
  while (left.length > 0 && Date.now() < until) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    left = await marked(mark);
  }
  assert.deepEqual(left, [], "left running");
}

/** A port nothing listens on: a proxy there refuses every connection at once. */
function closedPort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  return port;
}

const settled = (s: AgentSession) => s.state === "failed" || s.state === "waiting";

Deno.test("the presets run the real adapters, offline, and say what each needs", async (t) => {
  const packages = await presetPackages();
  const prefix = await installAdapters(packages);
  const cache = await npmCache();
  const root = await Deno.makeTempDir({ prefix: "sync-real-adapters-" });
  const home = join(root, "home");
  await Deno.mkdir(home);
  const keyedHome = join(root, "home-with-key");
  await Deno.mkdir(keyedHome);
  const run = crypto.randomUUID();
  const proxy = `http://127.0.0.1:${closedPort()}`;
  const environment = (): Record<string, string> => {
    const env = Deno.env.toObject();
    // No key of the person running the tests reaches the agents.
    for (const key of Object.keys(env)) {
      if (/_API_KEY$|^ANTHROPIC_|^OPENAI_|^GEMINI_|^GOOGLE_|^CODEX_/.test(key)) delete env[key];
    }
    return {
      ...env,
      HOME: home,
      npm_config_prefix: prefix,
      npm_config_cache: cache,
      npm_config_update_notifier: "false",
      HTTPS_PROXY: proxy,
      HTTP_PROXY: proxy,
      https_proxy: proxy,
      http_proxy: proxy,
    };
  };
  const mark = `${MARK}_RUN=${run}`;
  const supervisor = new Supervisor({
    recordFolder: join(root, "processes"),
    environment,
  });
  const env = await testHost();
  const work = performerOver(env.host, {
    // The supervisor passes on a SYNC_* variable only when the process's own command sets it.
    launch: async (command, options) =>
      await supervisedLauncher(supervisor)(
        { ...command, env: { ...command.env, [`${MARK}_RUN`]: run } },
        options,
      ),
    initializeTimeoutMs: 90_000,
    sessionTimeoutMs: 90_000,
  });
  const started = Date.now();
  const took = (what: string) =>
    console.error(`${what}: ${((Date.now() - started) / 1000).toFixed(1)} s`);
  try {
    await work.start();
    // The presets run as defined; a person's codex with a key is the preset's command and args.
    const codex = (await readAgent(env.kv, "codex"))!;
    await addAgent(env.kv, {
      name: "codex-with-key",
      command: codex.command,
      args: codex.args,
      // A home of its own: codex keeps the key it signed in with in ~/.codex, where the codex
      // without a key would find it.
      env: { OPENAI_API_KEY: "sk-test-not-a-real-key", HOME: keyedHome },
    });
    // A package npx has never fetched, with the registry out of reach (the closed proxy);
    // without retries, npm says so at once rather than after a minute.
    await addAgent(env.kv, {
      name: "not-fetched",
      command: "npx",
      args: ["-y", "--prefer-offline", "@zed-industries/no-such-adapter-sync-test@1.0.0"],
      env: { npm_config_fetch_retries: "0" },
    });
    // All begin at once: each waits for its own adapter, and the run takes as long as the slowest.
    const [claude, codexNoKey, codexKey, gemini, notFetched] = await Promise.all([
      work.begin(env.project, "claude-code", "Hello"),
      work.begin(env.project, "codex", "Hello"),
      work.begin(env.project, "codex-with-key", "Hello"),
      work.begin(env.project, "gemini", "Hello"),
      work.begin(env.project, "not-fetched", "Hello"),
    ]);
    // The mark is what "nothing left" looks for: it must be on the agents while they run.
    const seenUntil = Date.now() + 30_000;
    while ((await marked(mark)).length === 0 && Date.now() < seenUntil) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    assert.ok((await marked(mark)).length > 0, "the agents' processes carry the mark");
    const wait = (key: string) => waitForSession(env.kv, env.project, key, settled, 150_000);

    await t.step("claude-code without credentials fails, saying how to sign in", async () => {
      const session = await wait(claude.session.key);
      took("claude-code");
      assert.equal(session.state, "failed", JSON.stringify(session));
      const message = session.error?.message ?? "";
      assert.match(
        message,
        /^The agent claude-code could not open a session: Claude Code is not signed in, or cannot reach Anthropic/,
      );
      assert.match(message, /--cli` in a terminal and typing \/login/);
      assert.match(message, /--env ANTHROPIC_API_KEY=<your key>/);
      // The agent's own words stay: in the message after the sentence, and its stderr.
      assert.match(message, /refused session\/new: Internal error/);
      assert.match(session.error?.stderrTail ?? "", /Query closed before response received/);
      const { entries } = await readTranscript(env.kv, env.project, claude.session.key);
      const failure = entries.at(-1);
      assert.equal(failure?.kind, "failure");
      assert.match(
        failure?.kind === "failure" ? failure.message : "",
        /^The agent claude-code could not open a session/,
      );
    });

    await t.step("codex without a key waits for a sign-in, naming the key to add", async () => {
      const session = await wait(codexNoKey.session.key);
      took("codex");
      assert.equal(session.state, "waiting", JSON.stringify(session));
      assert.equal(session.waitingFor?.kind, "sign-in");
      const text = session.waitingFor?.kind === "sign-in" ? session.waitingFor.text : "";
      assert.match(text, /^The agent codex needs an OpenAI API key or a ChatGPT sign-in/);
      assert.match(text, /Use OPENAI_API_KEY/, "the agent's env_var method is listed");
    });

    await t.step("gemini without a key waits for a sign-in, naming the key to add", async () => {
      const session = await wait(gemini.session.key);
      took("gemini");
      assert.equal(session.state, "waiting", JSON.stringify(session));
      const text = session.waitingFor?.kind === "sign-in" ? session.waitingFor.text : "";
      assert.match(text, /^The agent gemini needs a Gemini API key or a Google sign-in/);
      assert.match(text, /Gemini API key is missing or not configured/);
      assert.match(text, /Log in with Google/, "the agent's methods are listed");
      // Its API key method names no variable; Sync knows it reads GEMINI_API_KEY: a form for it.
      const ways = session.waitingFor?.kind === "sign-in" ? session.waitingFor.ways ?? [] : [];
      assert.deepEqual(
        ways.find((way) => way.id === "gemini-api-key")?.envVars,
        [{ name: "GEMINI_API_KEY" }],
        JSON.stringify(ways),
      );
    });

    await t.step(
      "codex with OPENAI_API_KEY in its definition signs in, and its turn fails without network",
      async () => {
        const session = await wait(codexKey.session.key);
        took("codex with a key");
        // Sync calls `authenticate` with the method whose variable the definition sets (ACP
        // sign-in); the turn then reaches for OpenAI through the closed proxy and fails in
        // words, about 30 s later (codex retries five times).
        assert.equal(session.state, "failed", JSON.stringify(session));
        assert.match(
          session.error?.message ?? "",
          /^The agent codex-with-key could not reach OpenAI during the turn: stream disconnected before completion/,
        );
        const { entries } = await readTranscript(env.kv, env.project, codexKey.session.key);
        assert.ok(entries.some((e) => e.kind === "user" && e.text === "Hello"));
      },
    );

    await t.step("an adapter npx cannot download fails, saying what to do", async () => {
      const session = await wait(notFetched.session.key);
      took("not fetched");
      assert.equal(session.state, "failed", JSON.stringify(session));
      assert.match(
        session.error?.message ?? "",
        /^The agent not-fetched cannot start: npx could not download @zed-industries\/no-such-adapter-sync-test@1\.0\.0 because the npm registry cannot be reached \(npm error ECONNREFUSED\)/,
      );
      assert.match(session.error?.stderrTail ?? "", /npm error code ECONNREFUSED/);
    });

    await t.step(
      "once a key is saved, Continue signs codex and gemini in and sends the first message",
      async () => {
        // As Chat's form does: the key beside the preset, then Continue.
        await setAgentEnv(env.kv, "codex", "OPENAI_API_KEY", "sk-test-not-a-real-key");
        await setAgentEnv(env.kv, "gemini", "GEMINI_API_KEY", "not-a-real-gemini-key");
        await work.continue(env.project, codexNoKey.session.key);
        await work.continue(env.project, gemini.session.key);
        const firstSent = async (key: string) => {
          const { entries } = await readTranscript(env.kv, env.project, key);
          return entries.some((e) => e.kind === "user" && e.text === "Hello");
        };
        // Gemini opens its session and sends the message on; its turn would then wait minutes
        // for a network it cannot reach (it does not use the proxy): it is cancelled.
        const opened = await waitForSession(
          env.kv,
          env.project,
          gemini.session.key,
          (s) =>
            s.state === "running" && s.agentSessionId !== null && (s.pending ?? []).length === 0,
          150_000,
        );
        assert.equal(opened.waitingFor, null);
        assert.ok(await firstSent(gemini.session.key), "gemini was sent the first message");
        await work.cancel(env.project, gemini.session.key);
        const cancelled = await waitForSession(
          env.kv,
          env.project,
          gemini.session.key,
          (s) => s.state === "ended" || s.state === "failed",
          60_000,
        );
        assert.notEqual(cancelled.state, "waiting");
        took("gemini with a key");

        const codex = await waitForSession(
          env.kv,
          env.project,
          codexNoKey.session.key,
          (s) =>
            s.state === "failed" || (s.state === "waiting" && s.waitingFor?.kind !== "sign-in"),
          150_000,
        );
        took("codex after its key");
        assert.equal(codex.state, "failed", JSON.stringify(codex));
        assert.match(
          codex.error?.message ?? "",
          /^The agent codex could not reach OpenAI during the turn/,
        );
        assert.deepEqual(codex.pending ?? [], []);
        assert.ok(await firstSent(codexNoKey.session.key), "codex was sent the first message");
      },
    );

    await t.step("nothing of the agents is left running", async () => {
      await work.stop();
      await noneLeft(mark);
      took("all gone");
    });
  } finally {
    await work.stop().catch(() => {});
    await supervisor.close().catch(() => {});
    await env.close();
    await Deno.remove(root, { recursive: true }).catch(() => {});
  }
});

Deno.test("a preset on a computer without Node.js says to install it", async () => {
  const root = await Deno.makeTempDir({ prefix: "sync-no-node-" });
  // Sync looks for the program on its own PATH: here one without npx.
  const supervisor = new Supervisor({
    recordFolder: join(root, "processes"),
    environment: () => ({ ...Deno.env.toObject(), PATH: join(root, "empty") }),
  });
  const env = await testHost();
  const work = performerOver(env.host, { launch: supervisedLauncher(supervisor) });
  try {
    const { session } = await work.begin(env.project, "codex", "Hello");
    const failed = await waitForSession(env.kv, env.project, session.key, settled);
    assert.equal(failed.state, "failed");
    assert.equal(
      failed.error?.message,
      "The agent codex cannot start: its program npx is not installed (or not on PATH). To use " +
        "it, install Node.js 20 or later (it brings npx): https://nodejs.org; then add " +
        "OPENAI_API_KEY to its definition, or sign in with `npx -y @openai/codex login`",
    );
  } finally {
    await work.stop();
    await supervisor.close();
    await env.close();
    await Deno.remove(root, { recursive: true });
  }
});
