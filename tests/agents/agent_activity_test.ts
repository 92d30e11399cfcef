/**
 * What the agent is doing, told while a turn runs: the work performer with
 * the demo agent as a real child process (and `npx` fetching a real package
 * from npm into a temporary cache), the facts heard on the host's bus, and
 * the installation's KV writes counted.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import type { AgentActivity } from "../../runtime/agent_activity.ts";
import { addAgent, demoAgentCommand } from "../../runtime/agents/mod.ts";
import type { EventSubscription } from "../../runtime/event_bus.ts";
import { testHost } from "../internal/packages.ts";
import { performerOver, waitForSession } from "../internal/sessions.ts";

/** An `activity` fact as heard, with when it was heard. */
interface Heard {
  activity: AgentActivity | null;
  at: number;
}

/** Collects the `activity` facts of one session from a subscription, until it is closed. */
function collectActivity(
  subscription: EventSubscription,
  sessionKey: () => string | null,
): { heard: Heard[]; done: Promise<void> } {
  const heard: Heard[] = [];
  const done = (async () => {
    while (!subscription.closed) {
      const event = await subscription.next(200);
      if (event?.type !== "activity") continue;
      if (event.sessionKey !== sessionKey()) continue;
      heard.push({ activity: event.activity, at: Date.now() });
    }
  })();
  return { heard, done };
}

/** Waits until `ready` holds, looking every 20 ms; fails after `timeoutMs` saying what it waited for. */
async function until(what: string, ready: () => boolean, timeoutMs = 20_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!ready()) {
    if (Date.now() > end) throw new Error(`Waited in vain for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** The highest `line N` of the demo agent's chatter in a stderr tail, or 0. */
function lastLine(tail: string | undefined): number {
  const numbers = [...(tail ?? "").matchAll(/working, line (\d+)/g)].map((m) => Number(m[1]));
  return numbers.length === 0 ? 0 : Math.max(...numbers);
}

/** Wraps the KV's atomic operations so that each commit is counted. */
function countCommits(kv: Deno.Kv): { count: () => number; restore: () => void } {
  const atomic = kv.atomic;
  let commits = 0;
  kv.atomic = function () {
    const operation = atomic.call(kv);
    const commit = operation.commit;
    operation.commit = function () {
      commits++;
      return commit.call(operation);
    };
    return operation;
  };
  return { count: () => commits, restore: () => kv.atomic = atomic };
}

Deno.test("`WorkPerformer` tells what the agent is doing while a turn runs", async (t) => {
  const env = await testHost();
  const work = performerOver(env.host);
  const commits = countCommits(env.kv);
  const subscription = env.host.events.subscribe({ project: env.project });
  let key: string | null = null;
  const { heard, done } = collectActivity(subscription, () => key);
  try {
    const begun = await work.begin(env.project, "demo", "chatter hang, please");
    key = begun.session.key;

    let facts = 0;
    let written = 0;
    await t.step("the agent's stderr tail and when it was last heard, live", async () => {
      const at = (n: number) =>
        heard.find((h) => h.activity?.phase === "working" && lastLine(h.activity.stderrTail) >= n);
      await until("the chatter's 20th line", () => at(20) !== undefined);
      const commitsAt20 = commits.count();
      const factsAt20 = heard.length;
      await until("the chatter's 80th line", () => at(80) !== undefined);
      facts = heard.length - factsAt20;
      written = commits.count() - commitsAt20;
      const told = at(80)!.activity!;
      assert.equal(told.heardOn, "stderr");
      assert.ok(told.lastHeardAt !== null && Date.parse(told.lastHeardAt) <= Date.now());
      assert.match(told.stderrTail, /^demo agent: working, line \d+$/m);
      assert.equal(told.download, null);
    });
    await t.step("at most a few facts a second, never one per line", () => {
      // 60 lines came in about 1.2 s: a fact every 250 ms at most is about 5.
      assert.ok(facts >= 2 && facts <= 15, `${facts} facts for 60 lines of stderr`);
    });
    await t.step("nothing is written to the installation for stderr", () => {
      // The turn's transcript may be written once meanwhile; stderr writes nothing.
      assert.ok(written <= 1, `${written} KV commits while 60 lines of stderr came`);
    });

    await t.step("a page opened mid-turn reads it with the session", async () => {
      const view = await work.view(env.project, key!);
      assert.equal(view.session.state, "running");
      assert.equal(view.activity?.phase, "working");
      assert.ok(lastLine(view.activity?.stderrTail) >= 80);
    });

    await t.step("cancel still works, and the activity is told over", async () => {
      await work.cancel(env.project, key!);
      await waitForSession(env.kv, env.project, key!, (s) => s.state === "ended");
      await until("the last activity fact", () => heard.at(-1)?.activity === null);
      assert.equal((await work.view(env.project, key!)).activity, null);
    });
  } finally {
    subscription.close();
    await done;
    commits.restore();
    await work.stop();
    await env.close();
  }
});

Deno.test("`WorkPerformer` waits for an agent npm is downloading, and says so", async (t) => {
  const env = await testHost();
  // Far shorter than the silence of the download: only the download's allowance lets it through.
  const work = performerOver(env.host, { initializeTimeoutMs: 1_500 });
  const subscription = env.host.events.subscribe({ project: env.project });
  let key: string | null = null;
  const { heard, done } = collectActivity(subscription, () => key);
  try {
    const demo = demoAgentCommand(["download-start"]);
    await addAgent(env.kv, {
      name: "fetched",
      command: demo.command,
      args: [...demo.args],
      env: {},
    });
    const begun = await work.begin(env.project, "fetched", "no-permission hello");
    key = begun.session.key;
    const ended = await waitForSession(
      env.kv,
      env.project,
      key,
      (s) => s.state === "ended" || s.state === "failed",
    );
    await until("the last activity fact", () => heard.at(-1)?.activity === null);

    await t.step("the turn ran, though the agent was silent past the deadline", () => {
      assert.equal(ended.state, "ended", ended.error?.message);
    });
    await t.step("starting, then downloading, then working", () => {
      const phases = heard.map((h) => h.activity?.phase ?? null)
        .filter((phase, i, all) => i === 0 || all[i - 1] !== phase);
      assert.deepEqual(phases, ["starting", "downloading", "starting", "working", null]);
      const downloading = heard.find((h) => h.activity?.phase === "downloading")!.activity!;
      // The demo agent is not run by npx: which package is not known, only that npm fetches it.
      assert.deepEqual(downloading.download, { package: null, tool: "npm" });
      assert.match(downloading.stderrTail, /^npm http fetch GET 200 .* \(cache miss\)$/m);
    });
  } finally {
    subscription.close();
    await done;
    await work.stop();
    await env.close();
  }
});

Deno.test("`WorkPerformer` shows `npx` downloading an agent's package on first use", async () => {
  const env = await testHost();
  const cache = await Deno.makeTempDir({ prefix: "sync-npm-cache-" });
  const work = performerOver(env.host);
  const subscription = env.host.events.subscribe({ project: env.project });
  let key: string | null = null;
  const { heard, done } = collectActivity(subscription, () => key);
  try {
    // A small real package, into an empty cache: npx fetches it from the registry. It is
    // not an ACP agent, so the session fails once it has run; the download is what is looked at.
    await addAgent(env.kv, {
      name: "fetched",
      command: "npx",
      args: ["-y", "semver@7.6.3"],
      env: { npm_config_cache: join(cache, "npm"), npm_config_update_notifier: "false" },
    });
    const begun = await work.begin(env.project, "fetched", "hello");
    key = begun.session.key;
    await waitForSession(env.kv, env.project, key, (s) => s.state === "failed", 60_000);
    await until("the last activity fact", () => heard.at(-1)?.activity === null);
    const downloading = heard.find((h) => h.activity?.phase === "downloading")?.activity;
    assert.ok(downloading, `no downloading fact among ${JSON.stringify(heard)}`);
    assert.deepEqual(downloading.download, { package: "semver", tool: "npx" });
    assert.match(
      downloading.stderrTail,
      /^npm http fetch GET 200 https:\/\/registry\.npmjs\.org\/semver \d+ms \(cache miss\)$/m,
    );
  } finally {
    subscription.close();
    await done;
    await work.stop();
    await env.close();
    await Deno.remove(cache, { recursive: true });
  }
});

Deno.test("`WorkPerformer.cancel()` stops an agent still being raised, however much it writes", async () => {
  const env = await testHost();
  const work = performerOver(env.host);
  const subscription = env.host.events.subscribe({ project: env.project });
  let key: string | null = null;
  const { heard, done } = collectActivity(subscription, () => key);
  try {
    const demo = demoAgentCommand(["slow-start", "no-init"]);
    await addAgent(env.kv, { name: "slow", command: demo.command, args: [...demo.args], env: {} });
    const begun = await work.begin(env.project, "slow", "hello");
    key = begun.session.key;
    await until(
      "the agent's first lines",
      () =>
        heard.some((h) =>
          h.activity?.phase === "starting" && /getting ready/.test(h.activity.stderrTail)
        ),
    );
    assert.equal((await work.view(env.project, key)).activity?.phase, "starting");
    await work.cancel(env.project, key);
    const stopped = await waitForSession(env.kv, env.project, key, (s) => s.state === "failed");
    assert.equal(
      stopped.error?.message,
      "The agent slow was cancelled while it was starting, so Sync stopped its process",
    );
    assert.match(stopped.error?.stderrTail ?? "", /getting ready/);
    assert.equal(stopped.error?.name, "Cancelled");
    // The transcript says it as the person's cancel, which Chat shows as Cancelled, not in red.
    const failure = (await work.view(env.project, key)).transcript.findLast((e) =>
      e.kind === "failure"
    );
    assert.ok(failure?.kind === "failure" && failure.cancelled === true, JSON.stringify(failure));
    await until("the last activity fact", () => heard.at(-1)?.activity === null);
  } finally {
    subscription.close();
    await done;
    await work.stop();
    await env.close();
  }
});
