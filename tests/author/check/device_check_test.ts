import assert from "node:assert/strict";
import { join } from "node:path";
import { checkBuiltPackage } from "../../../runtime/author/check/check.ts";
import type { CheckProblem } from "../../../runtime/author/check/problem.ts";
import { IsolatePool } from "../../../runtime/isolate/pool.ts";

const SERVICE = `export default function register() {
  return {
    "mail.sync": async () => ({ coverage: { read: 0, of: 0, failed: 0 } }),
  };
}
`;

/** An applet's manifest: a Maildir read on a schedule, on change and on demand. */
function applet(): Record<string, unknown> {
  return {
    id: "mail",
    name: "Mail",
    version: "1.0.0",
    description: "Reads your mail.",
    permissions: ["background", "account.folder"],
    service: "service/index.js",
    handlers: { "mail.sync": { description: "Reads new and changed mail" } },
    device: {
      name: "Mail",
      description: "Reads a Maildir folder",
      modes: ["scheduled", "observation", "on-demand"],
      account: { kind: "folder", description: "Your Maildir" },
      tasks: {
        sync: { handler: "mail.sync", every: "15m", description: "Reads new and changed mail" },
      },
    },
  };
}

/** Writes a built package with `manifest` into a temp folder and checks it as install does. */
async function check(
  pool: IsolatePool,
  manifest: Record<string, unknown>,
): Promise<{ problems: CheckProblem[]; lineOf: (needle: string) => number }> {
  const dir = await Deno.makeTempDir({ prefix: "sync-test-" });
  try {
    const text = JSON.stringify(manifest, null, 2);
    await Deno.writeTextFile(join(dir, "manifest.json"), text);
    if (manifest.service !== undefined) {
      await Deno.mkdir(join(dir, "service"));
      await Deno.writeTextFile(join(dir, "service", "index.js"), SERVICE);
    }
    const lineOf = (needle: string) => {
      const at = text.indexOf(needle);
      assert.notEqual(at, -1, `${needle} is in the manifest`);
      return text.slice(0, at).split("\n").length;
    };
    return { problems: await checkBuiltPackage(dir, { pool }), lineOf };
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/** `[rule, message's field path, line]` of each problem. */
function summary(problems: CheckProblem[]): Array<[string, string, number | undefined]> {
  return problems.map((p) => [p.rule, p.message.split(":")[0], p.line]);
}

Deno.test("`checkBuiltPackage()` reports a device's problems at their lines, with hints", async (t) => {
  const pool = new IsolatePool({ size: 1 });
  try {
    await t.step("a sound applet passes", async () => {
      const { problems } = await check(pool, applet());
      assert.deepEqual(problems, []);
    });

    await t.step("a sound website device passes", async () => {
      const { problems } = await check(pool, {
        id: "webmail",
        name: "Webmail",
        version: "1.0.0",
        description: "Your mail provider's site.",
        device: {
          name: "Webmail",
          description: "Your mail provider's site",
          modes: ["website"],
          url: "https://mail.example.com",
        },
      });
      assert.deepEqual(problems, []);
    });

    await t.step("a task handler that is not declared", async () => {
      const manifest = applet();
      const device = manifest.device as { tasks: { sync: { handler: string } } };
      device.tasks.sync.handler = "mail.fetch";
      const { problems, lineOf } = await check(pool, manifest);
      assert.deepEqual(summary(problems), [
        ["device-task-handler", "device.tasks.sync.handler", lineOf('"mail.fetch"')],
      ]);
      assert.match(problems[0].hint, /declare it under "handlers"/);
    });

    await t.step("observation without a folder account, and its permission", async () => {
      const manifest = applet();
      (manifest.device as { account: { kind: string } }).account.kind = "remote";
      const { problems, lineOf } = await check(pool, manifest);
      assert.deepEqual(summary(problems), [
        ["manifest", "permissions", lineOf('"permissions"')],
        ["device", "device.modes[1]", lineOf('"observation"')],
      ]);
      assert.match(problems[0].message, /needs the account\.remote permission/);
      assert.match(problems[0].hint, /add the permission to "permissions"/);
      assert.match(problems[1].hint, /observation watches a folder for changes/);
    });

    await t.step("scheduled with a task without every", async () => {
      const manifest = applet();
      delete (manifest.device as { tasks: { sync: { every?: string } } }).tasks.sync.every;
      const { problems, lineOf } = await check(pool, manifest);
      assert.deepEqual(summary(problems), [
        ["device", "device.tasks.sync.every", lineOf('"sync"')],
      ]);
      assert.match(problems[0].message, /required field "every" is missing/);
      assert.match(problems[0].hint, /or drop "scheduled" from device\.modes/);
    });

    await t.step("a website without a url, and with tasks", async () => {
      const { problems, lineOf } = await check(pool, {
        id: "webmail",
        name: "Webmail",
        version: "1.0.0",
        description: "Your mail provider's site.",
        device: {
          name: "Webmail",
          description: "Your mail provider's site",
          modes: ["website"],
          tasks: {},
        },
      });
      assert.deepEqual(summary(problems), [
        ["device", "device.url", lineOf('"device"')],
        ["device", "device.tasks", lineOf('"tasks"')],
      ]);
      assert.match(problems[0].hint, /"modes": \["website"\] with "url": "https:\/\/…"/);
      assert.match(problems[1].hint, /"website"\] alone, with a "url" and no account or tasks/);
    });
  } finally {
    pool.close();
  }
});
