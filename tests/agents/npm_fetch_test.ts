/**
 * Reading npm's log of what it fetches, on lines npm 11.19 wrote on this
 * kind of machine for `npx -y semver@7.6.3` with `npm_config_loglevel=http`
 * (an empty cache, then again with the package cached), and what a
 * command that runs npx is given.
 */
import assert from "node:assert/strict";
import {
  ActivityTracker,
  cleanTail,
  npmFetchLine,
  npmRunner,
  withFetchLog,
} from "../../runtime/agents/mod.ts";

/** Written by `npm_config_loglevel=http npx -y semver@7.6.3 1.2.3` with an empty cache. */
const FIRST_USE = [
  "npm http fetch GET 200 https://registry.npmjs.org/semver 72ms (cache miss)",
  "npm http fetch GET 200 https://registry.npmjs.org/semver 15ms (cache miss)",
  "npm http cache semver@https://registry.npmjs.org/semver/-/semver-7.6.3.tgz 0ms (cache hit)",
  "npm http fetch GET 200 https://registry.npmjs.org/semver/-/semver-7.6.3.tgz 49ms (cache miss)",
];
/** Written by the same command run again: npm checks the registry and finds it cached. */
const AGAIN = "npm http fetch GET 200 https://registry.npmjs.org/semver 107ms (cache updated)";

Deno.test("`npmFetchLine()` reads npm's lines of what it fetched", async (t) => {
  await t.step("a request answered over the network is a download", () => {
    assert.deepEqual(npmFetchLine(FIRST_USE[0]), { download: true });
    assert.deepEqual(npmFetchLine(FIRST_USE[3]), { download: true });
  });
  await t.step("one answered from the cache is not", () => {
    assert.deepEqual(npmFetchLine(AGAIN), { download: false });
    assert.equal(npmFetchLine(FIRST_USE[2]), null);
  });
  await t.step("other lines are not npm's", () => {
    for (
      const line of [
        "",
        "npm error could not determine executable to run",
        "error: fetch failed (cache miss)",
        "  npm http fetch GET 200 https://example.org (cache miss) and more",
      ]
    ) {
      assert.equal(npmFetchLine(line), null, line);
    }
  });
});

Deno.test("`npmRunner()` says which package a command has npm fetch", async (t) => {
  await t.step("npx with its options", () => {
    const run = (...args: string[]) => npmRunner({ command: "npx", args });
    assert.deepEqual(run("-y", "@zed-industries/codex-acp@0.16.0"), {
      tool: "npx",
      package: "@zed-industries/codex-acp",
    });
    assert.deepEqual(run("--yes", "@google/gemini-cli@0.61.0", "--acp"), {
      tool: "npx",
      package: "@google/gemini-cli",
    });
    assert.deepEqual(run("-p", "semver@7", "semver", "1.2.3"), { tool: "npx", package: "semver" });
    assert.deepEqual(run("--package=cowsay", "cowsay"), { tool: "npx", package: "cowsay" });
    assert.deepEqual(run("semver"), { tool: "npx", package: "semver" });
    assert.deepEqual(
      npmRunner({ command: "/usr/local/bin/npx", args: ["-y", "semver"] }),
      { tool: "npx", package: "semver" },
    );
  });
  await t.step("npm exec, and its short form", () => {
    assert.deepEqual(npmRunner({ command: "npm", args: ["exec", "--yes", "--", "semver@1"] }), {
      tool: "npm",
      package: "semver",
    });
    assert.deepEqual(npmRunner({ command: "npm", args: ["x", "semver"] }), {
      tool: "npm",
      package: "semver",
    });
  });
  await t.step("anything else is not npm's", () => {
    assert.equal(npmRunner({ command: "npm", args: ["run", "agent"] }), null);
    assert.equal(npmRunner({ command: "codex-acp", args: [] }), null);
    assert.equal(npmRunner({ command: "/home/me/npx-wrapper", args: [] }), null);
  });
});

Deno.test("`withFetchLog()` asks npm to log its requests, unless the definition says otherwise", () => {
  const command = { command: "npx", args: ["-y", "semver"], env: { KEY: "1" } };
  assert.deepEqual(withFetchLog(command).env, { KEY: "1", npm_config_loglevel: "http" });
  assert.deepEqual(command.env, { KEY: "1" }, "the definition's own is left as it was");
  const own = { command: "npx", args: ["-y", "semver"], env: { NPM_CONFIG_LOGLEVEL: "silent" } };
  assert.equal(withFetchLog(own), own);
  const flag = { command: "npx", args: ["--loglevel=warn", "semver"] };
  assert.equal(withFetchLog(flag), flag);
});

Deno.test("`ActivityTracker` recognises npm's download lines however stderr is cut", () => {
  const told: unknown[] = [];
  const tracker = new ActivityTracker({
    publish: (activity) => told.push(activity),
    runner: { tool: "npx", package: "semver" },
  });
  tracker.show("starting");
  const text = FIRST_USE.join("\n") + "\n";
  // In pieces that cut lines (and the word "miss") in the middle.
  for (let at = 0; at < text.length; at += 7) tracker.stderr(text.slice(at, at + 7));
  assert.equal(tracker.downloading, true);
  const now = tracker.snapshot()!;
  assert.equal(now.phase, "downloading");
  assert.deepEqual(now.download, { package: "semver", tool: "npx" });
  tracker.ready();
  assert.equal(tracker.snapshot()!.phase, "starting");
  assert.equal(tracker.downloading, false);
  tracker.rest();
  assert.equal(told.at(-1), null);
});

Deno.test("`cleanTail()` keeps stderr as text a page can show", async (t) => {
  await t.step("terminal colours and controls are removed", () => {
    assert.equal(cleanTail("\x1b[31mred\x1b[0m and \x07bell\n", 100), "red and bell\n");
  });
  await t.step("a line redrawn with carriage returns shows how it ended", () => {
    assert.equal(cleanTail("10%\r50%\r100%\ndone\r\n", 100), "100%\ndone\n");
  });
  await t.step("a long tail is cut at a line's start", () => {
    assert.equal(cleanTail("first line\nsecond\nthird\n", 14), "second\nthird\n");
    assert.equal(cleanTail("first line\nsecond\nthird\n", 12), "third\n");
  });
});
