import assert from "node:assert/strict";
import { join } from "node:path";
import { REPO_ROOT, runSync, SYNC_RUN_ARGS } from "../../internal/cli.ts";
import { writePackage } from "../../internal/packages.ts";
import { readClockLease } from "../../../runtime/clock/lease.ts";

const TICKER = {
  id: "ticker",
  permissions: ["background", "schedule"],
  handlers: ["ticker.tick"],
  service: `import { memory } from "@sync/extension-api/service";
export default function register() {
  return {
    "ticker.tick": async (_payload, occasion) => {
      const { records } = await memory.list({ kind: "ticker.tick", limit: 500 });
      await memory.write({ key: "ticker.tick/" + (records.length + 1), title: occasion.kind });
    },
  };
}`,
  manifest: {
    schedule: [{ handler: "ticker.tick", description: "Counts the hours", every: "1h" }],
  },
};

Deno.test("the clock, as a person sees it from the CLI and `sync serve`", async (t) => {
  const root = await Deno.makeTempDir({ prefix: "sync-clock-cli-" });
  const home = join(root, "home");
  const project = join(root, "project");
  await Deno.mkdir(project);
  const sync = (...args: string[]) => runSync(home, args);
  try {
    const folder = await writePackage(join(root, "packages"), TICKER);
    const installed = await sync("install", folder, "--project", project, "--approve");
    assert.equal(installed.code, 0, installed.stderr);

    await t.step(
      "installing a scheduled package puts the project on the clock's list",
      async () => {
        const result = await sync("projects");
        assert.equal(result.code, 0, result.stderr);
        assert.equal(result.stdout.trim(), await Deno.realPath(project));
      },
    );

    await t.step("`sync schedule` says what runs, how often, and that it never ran", async () => {
      const result = await sync("schedule", "--project", project);
      assert.equal(result.code, 0, result.stderr);
      assert.match(
        result.stdout,
        /^Ticker \(ticker\): Counts the hours, every hour {2}\[on\] {2}never ran/m,
      );
    });

    await t.step("`sync switch off` stops the clock here; `on` starts it again", async () => {
      const off = await sync("switch", "ticker", "off", "--project", project);
      assert.equal(off.code, 0, off.stderr);
      assert.match(
        (await sync("schedule", "--project", project)).stdout,
        /\[off\].*Off for this project/,
      );
      const on = await sync("switch", "ticker", "on", "--project", project);
      assert.equal(on.code, 0, on.stderr);
      assert.match((await sync("schedule", "--project", project)).stdout, /\[on\]/);
      const bad = await sync("switch", "ticker", "maybe", "--project", project);
      assert.equal(bad.code, 2);
      assert.match(bad.stderr, /"off" or "on"/);
    });

    await t.step("`sync receipts --json` with no receipt yet prints no line", async () => {
      const none = await sync("receipts", "--project", project, "--json");
      assert.deepEqual([none.code, none.stdout], [0, ""], none.stderr);
      const words = await sync("receipts", "--project", project);
      assert.equal(words.stdout, "No receipts yet.\n");
    });

    await t.step("`sync serve` runs the due handler within the minute of start", async () => {
      const server = new Deno.Command(Deno.execPath(), {
        args: [
          ...SYNC_RUN_ARGS,
          "serve",
          "--port",
          "0",
        ],
        cwd: REPO_ROOT,
        env: { SYNC_HOME: home, NO_COLOR: "1" },
        stdin: "null",
        stdout: "null",
        stderr: "null",
      }).spawn();
      try {
        // The clock's first look comes once serve has started, which takes
        // longer on a loaded machine: it looks until the receipt is there.
        let clockReceipt: { outcome: string; occasion: { kind: string } } | undefined;
        const until = Date.now() + 180_000;
        while (!clockReceipt && Date.now() < until) {
          const receipts = await sync("receipts", "--project", project, "--json");
          assert.equal(receipts.code, 0, receipts.stderr);
          clockReceipt = receipts.stdout.split("\n").filter(Boolean).map((line) => JSON.parse(line))
            .find((r) => r.occasion.kind === "clock");
          if (!clockReceipt) await new Promise((resolve) => setTimeout(resolve, 250));
        }
        assert.ok(clockReceipt, "the clock should have run ticker.tick");
        assert.equal(clockReceipt.outcome, "ok");
        const records = await sync("records", "--project", project, "--kind", "ticker.tick");
        assert.match(records.stdout, /"title":"clock"/);
        assert.match((await sync("schedule", "--project", project)).stdout, /last .* ok/);
      } finally {
        server.kill("SIGTERM");
        await server.status;
      }
      // Stopped, it let go of the clock, so a serve started next ticks at once.
      const kv = await Deno.openKv(join(home, "sync.kv"));
      try {
        assert.equal(await readClockLease(kv), null);
      } finally {
        kv.close();
      }
    });

    await t.step("a linked folder whose manifest broke keeps its row, saying why", async () => {
      const manifest = join(folder, "manifest.json");
      const good = await Deno.readTextFile(manifest);
      await Deno.writeTextFile(manifest, good.replace(",", ""));
      try {
        const result = await sync("schedule", "--project", project);
        assert.equal(result.code, 0, result.stderr);
        assert.match(
          result.stdout,
          /^ticker \(ticker\): its schedule cannot be read now, .*last .* passed over \(unavailable\): .*manifest/m,
        );
      } finally {
        await Deno.writeTextFile(manifest, good);
      }
    });

    await t.step("`sync projects forget` takes the project off the list", async () => {
      const result = await sync("projects", "forget", project);
      assert.equal(result.code, 0, result.stderr);
      assert.match((await sync("projects")).stdout, /No project is on the clock's list/);
    });
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
