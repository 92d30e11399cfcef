import assert from "node:assert/strict";
import { join } from "node:path";
import { Host } from "../../runtime/host/host.ts";
import { listReceipts } from "../../runtime/host/receipts.ts";
import { DEFAULT_LIMITS } from "../../runtime/limits.ts";
import { tryOwnInstallation } from "../../runtime/projects/installation_owner.ts";
import type { Receipt } from "../../runtime/types.ts";
import { type CliResult, REPO_ROOT, runSync, SYNC_RUN_ARGS } from "../internal/cli.ts";
import { writePackage } from "../internal/packages.ts";
import { ServeProcess } from "../internal/serve_process.ts";

/**
 * `tally.add` writes one record named by its payload and answers it, so a
 * call's exit code can be held against what it committed; `tally.spin`
 * says it runs, then spins until its deadline.
 */
const TALLY = {
  id: "tally",
  handlers: ["tally.add", "tally.spin"],
  service: `import { memory } from "@sync/extension-api/service";
export default function register() {
  return {
    "tally.add": async (payload) => {
      await memory.write({ key: "tally.call/" + payload.n, title: "call " + payload.n });
      return { n: payload.n };
    },
    "tally.spin": () => {
      console.log("spinning");
      for (;;) {}
    },
  };
}`,
};

/** How many calls the test counts against the rate limit before the twenty start. */
const COUNTED_BEFORE = DEFAULT_LIMITS.rateLimit - 10;

/** A fresh installation with `tally` installed in a project. */
async function tallyInstallation(): Promise<{ root: string; home: string; project: string }> {
  const root = await Deno.makeTempDir({ prefix: "sync-owner-" });
  const home = join(root, "home");
  const project = join(root, "project");
  await Deno.mkdir(project);
  const folder = await writePackage(join(root, "packages"), TALLY);
  const installed = await runSync(home, ["install", folder, "--project", project, "--approve"]);
  assert.equal(installed.code, 0, installed.stderr);
  return { root, home, project: await Deno.realPath(project) };
}

/**
 * Counts `count` calls of `tally.add` against its rate limit, dated an hour
 * ahead so that they stay in the window however long the test runs. Run
 * while nothing else has the installation open.
 */
async function countCallsAhead(home: string, project: string, count: number): Promise<void> {
  const kv = await Deno.openKv(join(home, "sync.kv"));
  const ahead = Date.now() + 3_600_000;
  const host = new Host({ kv, home, now: () => ahead, log: () => {} });
  try {
    for (let i = 0; i < count; i++) {
      await host.callHandler(project, "tally", "tally.add", {
        occasion: { kind: "extension" },
        source: { kind: "person" },
        payload: { n: `ahead-${i}` },
      });
    }
  } finally {
    await host.close();
    kv.close();
  }
}

/** Receipts of `tally.add` left by the twenty (not by the calls counted ahead). */
async function receiptsOfTheTwenty(home: string, project: string): Promise<Receipt[]> {
  const kv = await Deno.openKv(join(home, "sync.kv"));
  try {
    const receipts = await listReceipts(kv, project, { packageId: "tally", limit: 500 });
    const now = Date.now();
    return receipts.filter((r) => r.handler === "tally.add" && Date.parse(r.startedAt) <= now);
  } finally {
    kv.close();
  }
}

/** Runs twenty `sync call tally tally.add` at once, each with its own number. */
function twentyCalls(home: string, project: string): Promise<CliResult[]> {
  return Promise.all(
    Array.from({ length: 20 }, (_, n) =>
      runSync(home, [
        "call",
        "tally",
        "tally.add",
        "--project",
        project,
        "--payload",
        JSON.stringify({ n }),
      ])),
  );
}

/** The numbers of the twenty whose records are in the project's memory. */
async function committedNumbers(home: string, project: string): Promise<Set<number>> {
  const result = await runSync(home, ["records", "--project", project, "--kind", "tally.call"]);
  assert.equal(result.code, 0, result.stderr);
  const numbers = result.stdout.split("\n").filter(Boolean)
    .map((line) => (JSON.parse(line) as { key: string }).key.slice("tally.call/".length))
    .filter((n) => !n.startsWith("ahead-")).map(Number);
  return new Set(numbers);
}

/**
 * Holds the twenty to what a person must be able to rely on: a call that
 * exits 0 printed its answer and committed its record; a call that exits 1
 * said why in one domain error (the rate limit, or the handler already
 * running) and committed nothing; every call left exactly one receipt that
 * says the same. Answers how many ran and how many the rate limit refused.
 */
async function assertNeverMisreported(
  home: string,
  project: string,
  results: CliResult[],
): Promise<{ ok: number; rateLimited: number; busy: number }> {
  const committed = await committedNumbers(home, project);
  let ok = 0, rateLimited = 0, busy = 0;
  for (const [n, result] of results.entries()) {
    const said = `call ${n}: exit ${result.code}\n${result.stdout}${result.stderr}`;
    if (result.code === 0) {
      ok++;
      assert.equal(result.stdout, `{"n":${n}}\n`, said);
      assert.ok(committed.has(n), `call ${n} said it ran, but its record is not there`);
      continue;
    }
    assert.equal(result.code, 1, said);
    assert.equal(result.stdout, "", said);
    assert.ok(!committed.has(n), `call ${n} said it failed, but its record was committed`);
    const refusal = result.stderr.match(
      /^sync call: \S+ (was called .+ in the last|is already running in) /m,
    );
    assert.ok(refusal, `call ${n} was not refused with a clear reason:\n${said}`);
    if (refusal[1].startsWith("was called")) rateLimited++;
    else busy++;
  }
  const receipts = await receiptsOfTheTwenty(home, project);
  assert.equal(receipts.filter((r) => r.outcome === "ok").length, ok, "one ok receipt per success");
  assert.equal(
    receipts.filter((r) => r.outcome === "failed").length,
    rateLimited + busy,
    "one failed receipt per refusal",
  );
  return { ok, rateLimited, busy };
}

Deno.test(
  "twenty `sync call`s at once with no serve each succeed or are refused with a clear reason, and the rate limit counts them all",
  async () => {
    const { root, home, project } = await tallyInstallation();
    try {
      await countCallsAhead(home, project, COUNTED_BEFORE);
      const results = await twentyCalls(home, project);
      const { ok, rateLimited, busy } = await assertNeverMisreported(home, project, results);
      // One command owns the installation at a time, so none finds the handler running,
      // and the count is the installation's, not each process's.
      assert.deepEqual({ ok, rateLimited, busy }, { ok: 10, rateLimited: 10, busy: 0 });
    } finally {
      await Deno.remove(root, { recursive: true });
    }
  },
);

Deno.test(
  "twenty `sync call`s at once against a running serve each succeed or are refused with a clear reason, and the serve counts them all",
  async () => {
    const { root, home, project } = await tallyInstallation();
    await countCallsAhead(home, project, COUNTED_BEFORE);
    const serve = new ServeProcess(home);
    try {
      await serve.url();
      const results = await twentyCalls(home, project);
      const { ok, rateLimited } = await assertNeverMisreported(home, project, results);
      // Every call that got past the re-entry check was counted where the first
      // fifty were: ten of them ran, and the rest were refused by the limit.
      assert.equal(ok, Math.min(10, ok + rateLimited), JSON.stringify({ ok, rateLimited }));
      assert.ok(ok >= 1);
    } finally {
      await serve.stop("SIGTERM");
      await Deno.remove(root, { recursive: true });
    }
  },
);

Deno.test("a `sync call` whose serve is killed while the call runs ends with a clear error", async () => {
  const { root, home, project } = await tallyInstallation();
  const serve = new ServeProcess(home);
  try {
    await serve.url();
    const call = new Deno.Command(Deno.execPath(), {
      args: [...SYNC_RUN_ARGS, "call", "tally", "tally.spin", "--project", project],
      cwd: REPO_ROOT,
      env: { SYNC_HOME: home, NO_COLOR: "1" },
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    const stdout = new Response(call.stdout).text();
    const stderr: string[] = [];
    const reading = (async () => {
      for await (const chunk of call.stderr.pipeThrough(new TextDecoderStream())) {
        stderr.push(chunk);
      }
    })();
    // The handler's console line reaches the person while the serve runs it.
    const until = Date.now() + 60_000;
    while (!stderr.join("").includes("[tally] spinning") && Date.now() < until) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    assert.match(stderr.join(""), /^\[tally\] spinning$/m);
    await serve.stop("SIGKILL");
    const status = await call.status;
    await reading;
    assert.equal(status.code, 1);
    assert.equal(await stdout, "");
    assert.match(
      stderr.join(""),
      /^sync call: The sync serve that owns this installation \(pid \d+\) stopped before the command finished/m,
    );
  } finally {
    await serve.stop("SIGKILL");
    await Deno.remove(root, { recursive: true });
  }
});

/** A `sync` child process whose stderr can be waited on. */
function spawnSync(home: string, args: string[]) {
  const child = new Deno.Command(Deno.execPath(), {
    args: [...SYNC_RUN_ARGS, ...args],
    cwd: REPO_ROOT,
    env: { SYNC_HOME: home, NO_COLOR: "1" },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const stdout = new Response(child.stdout).text();
  let stderr = "";
  const reading = (async () => {
    for await (const chunk of child.stderr.pipeThrough(new TextDecoderStream())) stderr += chunk;
  })();
  return {
    child,
    /** Waits until stderr holds a line like `pattern`. */
    async said(pattern: RegExp, ms = 60_000): Promise<void> {
      const until = Date.now() + ms;
      while (!pattern.test(stderr) && Date.now() < until) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      assert.match(stderr, pattern);
    },
    /** Waits for it to end. */
    async result(): Promise<CliResult> {
      const { code } = await child.status;
      await reading;
      return { code, stdout: await stdout, stderr };
    },
  };
}

Deno.test("a command waits its turn while another process owns the installation, saying so", async () => {
  const { root, home, project } = await tallyInstallation();
  try {
    const held = await tryOwnInstallation(home, "install");
    assert.ok(held);
    let released = false;
    try {
      const list = spawnSync(home, ["list", "--project", project]);
      await list.said(
        new RegExp(`^sync list: waiting for sync install \\(pid ${Deno.pid}\\) to finish`, "m"),
      );
      await held.release();
      released = true;
      const result = await list.result();
      assert.equal(result.code, 0, result.stderr);
      assert.match(result.stdout, /^tally@1\.0\.0 /m);
    } finally {
      if (!released) await held.release();
    }
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("a command killed while it owns the installation leaves nothing to wait for", async () => {
  const { root, home, project } = await tallyInstallation();
  try {
    const spin = spawnSync(home, ["call", "tally", "tally.spin", "--project", project]);
    await spin.said(/^\[tally\] spinning$/m);
    spin.child.kill("SIGKILL");
    await spin.result();
    const list = await runSync(home, ["list", "--project", project]);
    assert.equal(list.code, 0, list.stderr);
    assert.doesNotMatch(list.stderr, /waiting/);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("a person cannot tell whether serve ran a command: the same output, the same exit code", async () => {
  const commands: string[][] = [
    ["list", "--project", "project"],
    ["call", "tally", "tally.add", "--project", "project", "--payload", '{"n":1}'],
    ["call", "tally", "tally.spin", "--project", "project"],
    ["call", "tally", "tally.none", "--project", "project"],
    ["call", "tally", "tally.add", "--project", "no-such-folder"],
    ["records", "--project", "project", "--kind", "tally.call"],
    ["receipts", "--project", "project", "--limit", "0"],
    ["schedule", "--project", "project"],
    ["switch", "tally", "off", "--project", "project"],
    ["projects"],
    ["open", "--project", "project"],
    ["remove", "tally", "--project", "project"],
    ["list", "--project", "project"],
    ["projects", "forget", "project"],
  ];
  /**
   * Runs every command in a fresh installation, from the folder above the
   * project as a person typing relative paths would, and answers what each
   * printed with the installation's own folder written as `<root>` (and
   * times as `<time>`).
   */
  const runAll = async (serving: boolean) => {
    const { root, home } = await tallyInstallation();
    const serve = serving ? new ServeProcess(home) : undefined;
    try {
      await serve?.url();
      const results: CliResult[] = [];
      for (const args of commands) {
        const result = await runSync(home, args, { startFolder: root });
        const real = await Deno.realPath(root);
        const local = (text: string) =>
          text.replaceAll(real, "<root>").replaceAll(root, "<root>")
            .replace(/tally-1\.0\.0-[0-9a-f]{8}/g, "<folder>")
            .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z/g, "<time>");
        results.push({
          code: result.code,
          stdout: local(result.stdout),
          stderr: local(result.stderr),
        });
      }
      return results;
    } finally {
      await serve?.stop("SIGTERM");
      await Deno.remove(root, { recursive: true });
    }
  };
  const here = await runAll(false);
  const served = await runAll(true);
  for (const [i, args] of commands.entries()) {
    assert.deepEqual(served[i], here[i], `sync ${args.join(" ")}`);
  }
  // What was run did what it says, in both.
  assert.equal(here[1].stdout, '{"n":1}\n');
  assert.match(here[2].stderr, /^\[tally\] spinning$/m);
  assert.match(here[2].stderr, /^sync call: /m);
  assert.match(here[4].stderr, /^sync call: .*no-such-folder/m);
  assert.equal(here[6].code, 2);
  assert.match(here[12].stdout, /Nothing is installed in this project/);
});

Deno.test("with serve running, a command refuses a token file other users can read, saying why", async () => {
  const { root, home, project } = await tallyInstallation();
  const serve = new ServeProcess(home);
  try {
    await serve.url();
    await Deno.chmod(join(home, "token"), 0o640);
    const list = await runSync(home, ["list", "--project", project]);
    assert.equal(list.code, 1);
    assert.equal(list.stdout, "");
    assert.match(
      list.stderr,
      /^sync list: The installation's token can be read by other users \(mode 640\): .*chmod 600 /,
    );
  } finally {
    await serve.stop("SIGTERM");
    await Deno.remove(root, { recursive: true });
  }
});
