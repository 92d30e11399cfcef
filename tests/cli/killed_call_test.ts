import assert from "node:assert/strict";
import { join } from "node:path";
import { REPO_ROOT, runSync, SYNC_RUN_ARGS } from "../internal/cli.ts";
import { writePackage } from "../internal/packages.ts";

/** Reads a child's stderr until a line matches, and answers what it read. */
async function waitForLine(
  stream: ReadableStream<Uint8Array>,
  pattern: RegExp,
  timeoutMs: number,
): Promise<string> {
  const reader = stream.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  const deadline = setTimeout(() => reader.cancel(), timeoutMs);
  try {
    while (!pattern.test(text)) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`the child never wrote ${pattern}; it wrote:\n${text}`);
      text += value;
    }
    return text;
  } finally {
    clearTimeout(deadline);
    reader.releaseLock();
  }
}

Deno.test("a `sync call` killed with kill -9 leaves a receipt of outcome interrupted", async (t) => {
  const root = await Deno.makeTempDir({ prefix: "sync-killed-call-" });
  const home = join(root, "home");
  const project = join(root, "project");
  await Deno.mkdir(project);
  const sync = (...args: string[]) => runSync(home, args);
  try {
    const folder = await writePackage(join(root, "packages"), {
      id: "slow",
      handlers: ["slow.run"],
      service: `export default function register() {
  return {
    "slow.run": (payload) => {
      if (!payload?.spin) return "done";
      console.log("started");
      const until = Date.now() + 4000;
      while (Date.now() < until) {}
      return "spun";
    },
  };
}
`,
    });
    const installed = await sync("install", folder, "--project", project, "--approve");
    assert.equal(installed.code, 0, installed.stderr);

    await t.step("the call is killed while its handler runs", async () => {
      const child = new Deno.Command(Deno.execPath(), {
        args: [
          ...SYNC_RUN_ARGS,
          "call",
          "slow",
          "slow.run",
          "--project",
          project,
          "--payload",
          '{"spin":true}',
        ],
        cwd: REPO_ROOT,
        env: { SYNC_HOME: home, NO_COLOR: "1" },
        stdin: "null",
        stdout: "null",
        stderr: "piped",
      }).spawn();
      try {
        await waitForLine(child.stderr, /\[slow\] started/, 60_000);
      } finally {
        child.kill("SIGKILL");
        const status = await child.status;
        assert.equal(status.signal, "SIGKILL");
        await child.stderr.cancel().catch(() => {});
      }
    });

    await t.step(
      "the next command to open the installation leaves its receipt, interrupted",
      async () => {
        const listed = await sync("receipts", "--project", project, "--json");
        assert.equal(listed.code, 0, listed.stderr);
        const receipts = listed.stdout.trim().split("\n").map((line) => JSON.parse(line));
        assert.deepEqual(receipts.map((r) => [r.handler, r.outcome]), [[
          "slow.run",
          "interrupted",
        ]]);
        assert.equal(receipts[0].error.name, "ProcessStopped");
        assert.match(
          receipts[0].error.message,
          /^The process that ran the call \(pid \d+\) stopped before the call ended/,
        );
        assert.match(listed.stderr, /A call of slow\.run \(slow\) in .* was interrupted/);
      },
    );
    await t.step(
      "the handler runs again at once",
      async () => {
        const again = await sync("call", "slow", "slow.run", "--project", project);
        assert.equal(again.code, 0, again.stderr);
        assert.equal(again.stdout.trim(), '"done"');
        const listed = await sync("receipts", "--project", project, "--json");
        const receipts = listed.stdout.trim().split("\n").map((line) => JSON.parse(line));
        assert.deepEqual(receipts.map((r) => r.outcome), ["ok", "interrupted"], "one receipt each");
      },
    );
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
