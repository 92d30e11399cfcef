import assert from "node:assert/strict";
import { join } from "node:path";
import { BuildError } from "../../runtime/errors.ts";
import { buildPackage } from "../../runtime/author/build.ts";
import { checkPackage } from "../../runtime/author/check/check.ts";
import { installFolder, serviceManifest, writeFiles } from "../internal/author.ts";
import { testHost } from "../internal/packages.ts";

const FIXTURES = new URL("../fixtures/", import.meta.url).pathname;

/** A copy of a fixture package in `root`, so building it writes nothing into the checkout. */
async function copyFixture(root: string, name: string): Promise<string> {
  const dir = join(root, name);
  await Deno.mkdir(dir, { recursive: true });
  const copy = async (from: string, to: string) => {
    for await (const entry of Deno.readDir(from)) {
      if (entry.isDirectory) {
        await Deno.mkdir(join(to, entry.name));
        await copy(join(from, entry.name), join(to, entry.name));
      } else await Deno.copyFile(join(from, entry.name), join(to, entry.name));
    }
  };
  await copy(join(FIXTURES, name), dir);
  return dir;
}

async function errorOf(promise: Promise<unknown>): Promise<BuildError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof BuildError, `expected a BuildError, got ${error}`);
    return error;
  }
  assert.fail("the build succeeded");
}

Deno.test("`buildPackage()` bundles a service module's npm libraries", async (t) => {
  const env = await testHost();
  const root = await Deno.makeTempDir({ prefix: "sync-npm-build-" });
  try {
    const dir = await copyFixture(root, "npm_library");
    const { outputs } = await buildPackage(dir);
    const code = await Deno.readTextFile(join(dir, "service/index.js"));

    await t.step("leaves no npm import, only the extension API's", () => {
      assert.deepEqual(outputs.map((o) => o.output), ["service/index.js"]);
      const imports = [...code.matchAll(/^import .* from "([^"]+)";$/gm)].map((m) => m[1]);
      assert.deepEqual(imports, []); // The service imports the API's types only.
      assert.doesNotMatch(code, /from "npm:|import\("npm:/);
      assert.match(code, /\/\/ npm:ms@2\.1\.3\/index\.js/);
      assert.match(code, /\/\/ npm:escape-html@1\.0\.3\/index\.js/);
    });

    await t.step("names npm files by package, not by this machine's cache", () => {
      assert.doesNotMatch(code, /registry\.npmjs\.org|\.cache\/deno|\.\.\//);
    });

    await t.step("puts the provided TextDecoder and TextEncoder in front of the module", () => {
      assert.match(code, /^\/\/ TextDecoder: provided by the build/);
      assert.match(code, /^const TextDecoder = \(\(\) => \{$/m);
      assert.match(code, /^const TextEncoder = \(\(\) => \{$/m);
    });

    await t.step("check holds the bundle to the isolate's rules and finds nothing", async () => {
      const report = await checkPackage(dir);
      assert.deepEqual(report.problems, []);
    });

    await t.step("the libraries run in the isolate, called through the host", async () => {
      await installFolder(env, dir);
      const { value } = await env.host.callHandler(env.project, "libs", "libs.describe", {
        occasion: { kind: "extension" },
        source: { kind: "person", via: "cli" },
        payload: {
          duration: "2 days",
          title: `<b>"Tom" & Jerry</b>`,
          latin1: [0x63, 0x61, 0x66, 0xE9, 0x80, 0x93],
        },
      });
      assert.deepEqual(value, {
        ms: 172_800_000,
        long: "2 days",
        html: "&lt;b&gt;&quot;Tom&quot; &amp; Jerry&lt;/b&gt;",
        text: "café€“",
        utf8: "aé\uFFFDb",
        bytes: [0xC3, 0xA9, 0xE2, 0x82, 0xAC],
      });
    });
  } finally {
    await env.close();
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("`buildPackage()` provides TextDecoder and TextEncoder only where they are used", async (t) => {
  const env = await testHost();
  const root = await Deno.makeTempDir({ prefix: "sync-npm-build-" });
  try {
    const dir = await writeFiles(root, "bare", {
      "manifest.json": serviceManifest("bare", ["bare.globals"]),
      "src/service.ts": `import type { Handlers } from "@sync/extension-api/service";
import ms from "npm:ms@2.1.3";
export default function register(): Handlers {
  return {
    "bare.globals": () => ({
      text: Object.getOwnPropertyNames(globalThis).filter((name) => name.startsWith("Text")),
      ms: ms(1000),
    }),
  };
}
`,
    });
    await buildPackage(dir);
    const code = await Deno.readTextFile(join(dir, "service/index.js"));

    await t.step("a module that does not use it does not carry it", () => {
      assert.doesNotMatch(code, /TextDecoder|TextEncoder/);
    });

    await t.step("the isolate itself has no TextDecoder or TextEncoder", async () => {
      await installFolder(env, dir);
      const { value } = await env.host.callHandler(env.project, "bare", "bare.globals", {
        occasion: { kind: "extension" },
        source: { kind: "person", via: "cli" },
        payload: null,
      });
      assert.deepEqual(value, { text: [], ms: "1s" });
    });
  } finally {
    await env.close();
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("`buildPackage()` refuses npm libraries a handler cannot run", async (t) => {
  const root = await Deno.makeTempDir({ prefix: "sync-npm-build-" });
  try {
    await t.step("a library that imports node:fs, naming both", async () => {
      const dir = await copyFixture(root, "npm_node");
      const error = await errorOf(buildPackage(dir));
      assert.equal(error.file, "src/service.ts");
      assert.match(
        error.message,
        /^Cannot build src\/service\.ts: npm:isexe@2\.0\.0 imports node:fs, which a handler cannot use/,
      );
      const report = await checkPackage(dir);
      assert.deepEqual(report.problems.map((p) => [p.rule, p.message]), [["build", error.message]]);
    });

    await t.step(
      "check names the library that reaches for a global the isolate lacks",
      async () => {
        const dir = await writeFiles(root, "node-global", {
          "manifest.json": serviceManifest("nodeglobal", ["nodeglobal.go"]),
          "src/service.ts": `import pathKey from "npm:path-key@3.1.1";
export default function register() {
  return { "nodeglobal.go": () => pathKey() };
}
`,
        });
        const report = await checkPackage(dir);
        const found = report.problems.map((p) => [p.rule, p.file, p.message]);
        assert.deepEqual(found, [[
          "free-global",
          "service/index.js",
          "uses process, which the isolate does not have, in the code of npm:path-key@3.1.1 " +
          "(2 places; the first is here)",
        ]]);
        assert.match(report.problems[0].hint, /^npm:path-key@3\.1\.1 needs process/);
      },
    );

    await t.step("a Node built-in imported by the service itself", async () => {
      const dir = await writeFiles(root, "own-node", {
        "manifest.json": serviceManifest("ownnode", ["ownnode.go"]),
        "src/service.ts": `import { readFileSync } from "node:fs";
export default function register() {
  return { "ownnode.go": () => readFileSync("/etc/hostname", "utf8") };
}
`,
      });
      const error = await errorOf(buildPackage(dir));
      assert.deepEqual([error.file, error.line], ["src/service.ts", 1]);
      assert.match(error.message, /imports "node:fs", which a handler cannot use/);
    });

    await t.step("an npm import without one exact version", async () => {
      for (
        const [specifier, words] of [["npm:ms", "no version"], [
          "npm:ms@^2.1.0",
          "the range ^2.1.0",
        ]]
      ) {
        const dir = await writeFiles(root, "loose", {
          "manifest.json": serviceManifest("loose", ["loose.go"]),
          "src/service.ts": `import ms from "${specifier}";
export default function register() {
  return { "loose.go": () => ms(1000) };
}
`,
        });
        const error = await errorOf(buildPackage(dir));
        assert.deepEqual([error.file, error.line], ["src/service.ts", 1]);
        assert.ok(
          error.message.includes(`names ${words} of ms; name one exact version, as "npm:ms@1.2.3"`),
          error.message,
        );
      }
    });
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
