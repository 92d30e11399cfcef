import assert from "node:assert/strict";
import { join } from "node:path";
import { checkBuiltPackage, type CheckProblem, formatProblem } from "../../runtime/author/mod.ts";
import type { InstallCard } from "../../runtime/web/api/events_types.ts";
import { createApp } from "../../runtime/web/app.ts";
import { runSync } from "../internal/cli.ts";
import { testHost, writePackage } from "../internal/packages.ts";

const TOKEN = "t".repeat(48);
const ORIGIN = "http://127.0.0.1:4321";
const HEADERS = { cookie: `sync_token_4321=${TOKEN}`, origin: ORIGIN };

// A source with two problems check finds only in the source: a timer, and a
// handler the manifest does not declare.
const BROKEN_SOURCE = `export default function register() {
  return {
    "stale.run": () => {
      setTimeout(() => 0, 1);
      return 1;
    },
    "stale.extra": () => 2,
  };
}
`;
const FIXED_SOURCE = `export default function register() {
  return { "stale.run": () => 1 };
}
`;

/**
 * A package folder whose built `service/index.js` is clean while its
 * `src/service.ts` has problems: the built file is stale.
 */
async function stalePackage(root: string): Promise<{ dir: string; stale: string }> {
  const dir = await writePackage(root, {
    id: "stale",
    handlers: ["stale.run"],
    service: `export default function register() { return { "stale.run": () => 1 }; }\n`,
  });
  await Deno.mkdir(join(dir, "src"));
  await Deno.writeTextFile(join(dir, "src", "service.ts"), BROKEN_SOURCE);
  const stale = await Deno.readTextFile(join(dir, "service", "index.js"));
  return { dir, stale };
}

/** What `deno task check <dir> --json` reports, with the stale built file put back after. */
async function checkJson(dir: string, stale: string, home: string): Promise<CheckProblem[]> {
  const run = await runSync(home, ["check", dir, "--json"]);
  assert.equal(run.code, 1, run.stderr);
  await Deno.writeTextFile(join(dir, "service", "index.js"), stale);
  return JSON.parse(run.stdout).problems;
}

Deno.test("`sync install` of a folder builds and checks it as `deno task check` does", async (t) => {
  const root = await Deno.makeTempDir({ prefix: "sync-install-check-" });
  const home = join(root, "home");
  const project = join(root, "project");
  await Deno.mkdir(project);
  const sync = (...args: string[]) => runSync(home, args, { startFolder: root });
  try {
    const { dir, stale } = await stalePackage(root);
    // The built file alone passes: only building shows the source's problems.
    assert.deepEqual(await checkBuiltPackage(dir), []);
    const problems = await checkJson(dir, stale, home);
    assert.ok(problems.length >= 2, JSON.stringify(problems));

    await t.step(
      "a stale built file: refused with check's problems, in check's order",
      async () => {
        const result = await sync("install", dir, "--project", "project", "--approve");
        assert.equal(result.code, 1, result.stderr);
        assert.equal(result.stdout, "");
        const lines = result.stderr.split("\n");
        assert.match(
          lines[0],
          /^sync install: (?:PackageCheckError: )?Cannot install stale@1\.0\.0: .* does not pass check:$/,
        );
        const shown = lines.slice(1).join("\n");
        const expected = problems.map(formatProblem).join("\n");
        assert.ok(shown.startsWith(`${expected}\nFix these `), `${shown}\n---\n${expected}`);
        assert.ok(problems.every((p) => p.file === "src/service.ts" && p.line !== undefined));
        const list = await sync("list", "--project", "project");
        assert.doesNotMatch(list.stdout, /stale/);
      },
    );

    await t.step("an up-to-date folder installs as before", async () => {
      await Deno.writeTextFile(join(dir, "src", "service.ts"), FIXED_SOURCE);
      const result = await sync("install", dir, "--project", "project", "--approve");
      assert.equal(result.code, 0, result.stderr);
      assert.match(result.stdout, /^Installed stale@1\.0\.0 \(folder: /);
      const call = await sync("call", "stale", "stale.run", "--project", "project");
      assert.equal(call.code, 0, call.stderr);
      assert.equal(call.stdout.trim(), "1");
    });
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("`POST /api/install` of a folder builds and checks it as the card does", async () => {
  const env = await testHost();
  const root = await Deno.makeTempDir({ prefix: "sync-install-check-api-" });
  const app = createApp(env.host, { token: TOKEN, port: 4321 });
  const post = (path: string, body: unknown) =>
    app.request(`${ORIGIN}${path}`, {
      method: "POST",
      headers: { ...HEADERS, "content-type": "application/json" },
      body: JSON.stringify(body),
    });
  try {
    const { dir, stale } = await stalePackage(root);
    const problems = await checkJson(dir, stale, env.home);
    const card: InstallCard = await (await post("/api/install/card", {
      project: env.project,
      source: dir,
    })).json();
    assert.deepEqual(card.problems.map((p) => p.text), problems.map(formatProblem));
    await Deno.writeTextFile(join(dir, "service", "index.js"), stale);

    const response = await post("/api/install", {
      project: env.project,
      source: dir,
      approve: true,
    });
    const answer = await response.json();
    assert.equal(response.status, 400, JSON.stringify(answer));
    assert.equal(answer.name, "PackageCheckError");
    const message: string = answer.error;
    assert.ok(
      message.includes(
        `does not pass check:\n${problems.map(formatProblem).join("\n")}\nFix these`,
      ),
      message,
    );
  } finally {
    await env.close();
    await Deno.remove(root, { recursive: true });
  }
});
