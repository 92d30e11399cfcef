import assert from "node:assert/strict";
import { join } from "node:path";
import { BuildError } from "../../runtime/errors.ts";
import { buildPackage } from "../../runtime/author/build.ts";
import { checkPackage } from "../../runtime/author/check/check.ts";
import { exists } from "../internal/cli.ts";
import { installFolder, runAuthor, serviceManifest, writeFiles } from "../internal/author.ts";
import { testHost } from "../internal/packages.ts";
import { PARSE_MS_PER_KIB } from "../../runtime/author/parse_cost.ts";

const SERVICE = `import { type Handlers, memory } from "@sync/extension-api/service";
import { shout } from "./shout.ts";

interface Payload {
  word?: unknown;
}

export default function register(): Handlers {
  return {
    "built.say": async (payload: Payload | null, occasion) => {
      const word = typeof payload?.word === "string" ? payload.word : "nothing";
      const written = await memory.write({ key: "built.said/1", title: shout(word) });
      return { said: shout(word), revision: written.revision, occasion: occasion.kind };
    },
  };
}
`;

const SHOUT = `export function shout(word: string): string {
  return \`\${word.toUpperCase()}!\`;
}
`;

async function errorOf(promise: Promise<unknown>): Promise<BuildError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof BuildError, `expected a BuildError, got ${error}`);
    return error;
  }
  assert.fail("the build succeeded");
}

Deno.test("`buildPackage()` compiles src/service.ts into a module the isolate runs", async (t) => {
  const env = await testHost();
  const root = await Deno.makeTempDir({ prefix: "sync-build-" });
  try {
    const dir = await writeFiles(root, "built", {
      "manifest.json": serviceManifest("built", ["built.say"]),
      "src/service.ts": SERVICE,
      "src/shout.ts": SHOUT,
    });
    const result = await buildPackage(dir);
    const code = await Deno.readTextFile(join(dir, "service/index.js"));

    await t.step("reports the file it wrote and its size", () => {
      assert.deepEqual(result.outputs, [{
        source: "src/service.ts",
        output: "service/index.js",
        bytes: new TextEncoder().encode(code).byteLength,
      }]);
    });

    await t.step("bundles local imports and leaves only the API import", () => {
      const imports = [...code.matchAll(/^import .* from "([^"]+)";$/gm)].map((m) => m[1]);
      assert.deepEqual(imports, ["@sync/extension-api/service"]);
      assert.match(code, /toUpperCase/);
      assert.doesNotMatch(code, /interface Payload|: string/);
    });

    await t.step("the built module runs in the real isolate", async () => {
      await installFolder(env, dir);
      assert.deepEqual(await env.call("built", "built.say", { word: "hi" }), {
        said: "HI!",
        revision: 1,
        occasion: "extension",
      });
    });

    await t.step("building again writes the same bytes", async () => {
      await buildPackage(dir);
      assert.equal(await Deno.readTextFile(join(dir, "service/index.js")), code);
    });
  } finally {
    await env.close();
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("`buildPackage()` compiles src/index.tsx into the ui file", async () => {
  const root = await Deno.makeTempDir({ prefix: "sync-build-" });
  try {
    const dir = await writeFiles(root, "screen", {
      "manifest.json": JSON.stringify({
        id: "screen",
        name: "Screen",
        version: "1.0.0",
        description: "A screen only",
        ui: "ui/index.js",
      }),
      "src/index.tsx": `const title: string = "Screen";
export function mount(root: { textContent: string }): void {
  root.textContent = title;
}
`,
    });
    const { outputs } = await buildPackage(dir);
    assert.deepEqual(outputs.map((o) => [o.source, o.output]), [["src/index.tsx", "ui/index.js"]]);
    const code = await Deno.readTextFile(join(dir, "ui/index.js"));
    assert.match(code, /export \{\s*mount\s*\}/);
    assert.doesNotMatch(code, /: string/);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("`buildPackage()` with no src/ has nothing to build", async () => {
  const root = await Deno.makeTempDir({ prefix: "sync-build-" });
  try {
    const dir = await writeFiles(root, "plain", {
      "manifest.json": JSON.stringify({
        id: "plain",
        name: "Plain",
        version: "1.0.0",
        description: "Types only",
      }),
    });
    assert.deepEqual(await buildPackage(dir), { outputs: [] });
    assert.equal(await exists(join(dir, "service")), false);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("`buildPackage()` refuses with file:line of the problem", async (t) => {
  const root = await Deno.makeTempDir({ prefix: "sync-build-" });
  try {
    await t.step("a syntax error in the service source", async () => {
      const dir = await writeFiles(root, "broken", {
        "manifest.json": serviceManifest("broken", ["broken.go"]),
        "src/service.ts": `export default function register() {
  return {
    "broken.go": () => { const = 1; },
  };
}
`,
      });
      const error = await errorOf(buildPackage(dir));
      assert.equal(error.file, "src/service.ts");
      assert.equal(error.line, 3);
      assert.equal(error.column, 32);
      assert.match(error.message, /^Cannot build src\/service\.ts: \S.+/);
      assert.doesNotMatch(error.message, /:3:32/, "the place is said once, in file/line/column");
      assert.equal(await exists(join(dir, "service/index.js")), false);
    });

    await t.step("an import that does not resolve, in a file the service imports", async () => {
      const dir = await writeFiles(root, "missing", {
        "manifest.json": serviceManifest("missing", ["missing.go"]),
        "src/service.ts": `import { helper } from "./helper.ts";
export default function register() {
  return { "missing.go": () => helper() };
}
`,
        "src/helper.ts": `// A helper with a typo in its import.
import { nothing } from "./nowhere.ts";
export function helper() {
  return nothing;
}
`,
      });
      const error = await errorOf(buildPackage(dir));
      assert.equal(error.file, "src/helper.ts");
      assert.equal(error.line, 2);
      assert.match(error.message, /^Cannot build src\/service\.ts: Module not found .*nowhere\.ts/);
    });

    await t.step("a manifest that names no service file", async () => {
      const dir = await writeFiles(root, "unnamed", {
        "manifest.json": JSON.stringify({
          id: "unnamed",
          name: "Unnamed",
          version: "1.0.0",
          description: "No service field",
        }),
        "src/service.ts": "export default function register() { return {}; }\n",
      });
      const error = await errorOf(buildPackage(dir));
      assert.equal(error.file, "manifest.json");
      assert.equal(
        error.message,
        `Cannot build src/service.ts: manifest.json names no service file to build it into; ` +
          `add "service": "service/index.js"`,
      );
    });

    await t.step("a folder that does not exist", async () => {
      const error = await errorOf(buildPackage(join(root, "nowhere")));
      assert.match(error.message, /^Cannot build .*nowhere: no such folder; name a package folder/);
    });

    await t.step("a folder with no manifest", async () => {
      const dir = await writeFiles(root, "bare", {
        "src/service.ts": "export default function register() { return {}; }\n",
      });
      const error = await errorOf(buildPackage(dir));
      assert.equal(error.file, "manifest.json");
      assert.match(error.message, /manifest\.json cannot be read \(it is missing\)/);
    });
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("`buildPackage()` bundles only the package's own files", async (t) => {
  const root = await Deno.makeTempDir({ prefix: "sync-build-" });
  const secret = join(root, "secret");
  await Deno.mkdir(secret);
  await Deno.writeTextFile(join(secret, "hosts.json"), `{ "token": "s3cret-json" }\n`);
  await Deno.writeTextFile(join(secret, "token.txt"), "s3cret-text\n");
  const register = `export default function register() {
  return { "leaky.go": () => value };
}
`;
  /** Builds a package whose service starts with `head`; answers the refusal. */
  const refused = async (name: string, head: string, more: Record<string, string> = {}) => {
    const dir = await writeFiles(root, name, {
      "manifest.json": serviceManifest("leaky", ["leaky.go"]),
      "src/service.ts": `${head}\n${register}`,
      ...more,
    });
    const error = await errorOf(buildPackage(dir));
    assert.equal(await exists(join(dir, "service/index.js")), false, "nothing is written");
    return error;
  };
  try {
    await t.step(
      "a JSON file outside the folder, by absolute path, is refused at the import",
      async () => {
        const error = await refused(
          "absolute",
          `import value from "${join(secret, "hosts.json")}" with { type: "json" };`,
        );
        assert.deepEqual([error.file, error.line, error.column], ["src/service.ts", 1, 19]);
        assert.match(
          error.message,
          /^Cannot build src\/service\.ts: src\/service\.ts imports ".*hosts\.json", which is outside the package folder/,
        );
      },
    );

    await t.step("a text import the package's own deno.json enables is refused too", async () => {
      const error = await refused(
        "text",
        `import value from "../../secret/token.txt" with { type: "text" };`,
        { "deno.json": JSON.stringify({ unstable: ["raw-imports"] }) },
      );
      assert.deepEqual([error.file, error.line], ["src/service.ts", 1]);
      assert.match(error.message, /imports "\.\.\/\.\.\/secret\/token\.txt", which is outside/);
    });

    await t.step(
      "an outside file reached through the package's import map is refused",
      async () => {
        const error = await refused(
          "mapped",
          `import value from "config" with { type: "json" };`,
          { "deno.json": JSON.stringify({ imports: { config: `${join(secret, "hosts.json")}` } }) },
        );
        assert.match(error.message, /imports "config", which is outside the package folder/);
      },
    );

    await t.step(
      "a module that is not a file of the package (data:, remote) is refused",
      async () => {
        const error = await refused(
          "data",
          `import value from "data:application/json,{}" with { type: "json" };`,
        );
        assert.match(error.message, /which is not a file in the package folder; .*copy the code/);
      },
    );

    await t.step(
      "the typed API module imported by its path is refused with the import to use",
      async () => {
        const api = new URL("../../runtime/extension_api/service.ts", import.meta.url).pathname;
        const error = await refused(
          "by-path",
          `import { memory as value } from "${api}";`,
        );
        assert.deepEqual([error.file, error.line], ["src/service.ts", 1]);
        assert.match(
          error.message,
          /the typed API module by its path; import it as "@sync\/extension-api\/service"/,
        );
      },
    );

    await t.step("a copy of the typed API module inside the package is refused", async () => {
      const api = await Deno.readTextFile(
        new URL("../../runtime/extension_api/service.ts", import.meta.url),
      );
      const error = await refused(
        "copied",
        `import { memory as value } from "./api.ts";`,
        { "src/api.ts": api },
      );
      assert.match(
        error.message,
        /holds a copy of the typed API module.*"@sync\/extension-api\/service"/,
      );
    });

    await t.step("files inside the package are bundled", async () => {
      const dir = await writeFiles(root, "inside", {
        "manifest.json": serviceManifest("leaky", ["leaky.go"]),
        "src/service.ts":
          `import value from "./data/hosts.json" with { type: "json" };\n${register}`,
        "src/data/hosts.json": `{ "host": "api.example.com" }`,
      });
      await buildPackage(dir);
      assert.match(await Deno.readTextFile(join(dir, "service/index.js")), /api\.example\.com/);
    });
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("`sync build` says what a large service module costs every call", async (t) => {
  const root = await Deno.makeTempDir({ prefix: "sync-build-large-" });
  try {
    // 48 KiB of words the handler uses, so that the bundle keeps them.
    const words = Array.from({ length: 4_000 }, (_, n) => `"word number ${n}"`).join(", ");
    const dir = await writeFiles(root, "large", {
      "manifest.json": serviceManifest("large", ["large.pick"]),
      "src/service.ts": `import type { Handlers } from "@sync/extension-api/service";
const WORDS = [${words}];
export default function register(): Handlers {
  return { "large.pick": (n: unknown) => WORDS[Number(n) % WORDS.length] };
}
`,
    });

    await t.step("the size, then what parsing it at every call costs", async () => {
      const run = await runAuthor(["build", dir], root);
      assert.equal(run.code, 0, run.stderr);
      const bytes = (await Deno.stat(join(dir, "service/index.js"))).size;
      assert.ok(bytes > 32 * 1024, `${bytes} bytes`);
      const lines = run.stdout.trimEnd().split("\n");
      assert.match(
        lines[1],
        /^ {2}service\/index\.js {2}\d+\.\d KiB {2}\(from src\/service\.ts\)$/,
      );
      assert.equal(
        lines[2],
        `  Every handler call parses service/index.js afresh, in a fresh isolate: at this size ` +
          `about ${
            Math.round(bytes / 1024 * PARSE_MS_PER_KIB)
          } ms a call on a 2-core machine if it is mostly code (strings and data parse faster). ` +
          `Bundle only what the handlers use.`,
      );
    });

    await t.step("check says the same as a warning, in --json too, and passes", async () => {
      const report = await checkPackage(dir);
      assert.equal(report.ok, true, JSON.stringify(report.problems));
      const bytes = (await Deno.stat(join(dir, "service/index.js"))).size;
      assert.deepEqual(report.warnings.map((w) => [w.rule, w.file]), [
        ["large-service", "service/index.js"],
      ]);
      assert.equal(
        report.warnings[0].message,
        `is ${(bytes / 1024).toFixed(1)} KiB, and every handler call parses it afresh, in a ` +
          `fresh isolate: about ${Math.round(bytes / 1024 * PARSE_MS_PER_KIB)} ms a call on a ` +
          `2-core machine if it is mostly code (strings and data parse faster)`,
      );
      const json = await new Deno.Command(Deno.execPath(), {
        args: [
          "run",
          "--unstable-kv",
          "--unstable-worker-options",
          "--allow-read",
          "--allow-write",
          "--allow-env=INIT_CWD",
          "--allow-run",
          "main.ts",
          "check",
          "--json",
          dir,
        ],
        cwd: new URL("../..", import.meta.url).pathname,
        env: { INIT_CWD: root, NO_COLOR: "1" },
        stdin: "null",
        stdout: "piped",
        stderr: "piped",
      }).output();
      assert.equal(json.code, 0, new TextDecoder().decode(json.stderr));
      const printed = JSON.parse(new TextDecoder().decode(json.stdout));
      assert.deepEqual(printed.warnings, report.warnings);
    });
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("`sync build` prints what it wrote, from the author's folder", async (t) => {
  const root = await Deno.makeTempDir({ prefix: "sync-build-cli-" });
  try {
    const dir = await writeFiles(root, "built", {
      "manifest.json": serviceManifest("built", ["built.say"]),
      "src/service.ts": SERVICE,
      "src/shout.ts": SHOUT,
    });
    const name = dir.slice(root.length + 1);

    await t.step("a relative folder is taken from INIT_CWD; exit 0", async () => {
      const run = await runAuthor(["build", name], root);
      assert.equal(run.code, 0, run.stderr);
      const bytes = (await Deno.stat(join(dir, "service/index.js"))).size;
      const size = bytes < 1024 ? `${bytes} B` : `${(bytes / 1024).toFixed(1)} KiB`;
      assert.equal(
        run.stdout,
        `Built ${dir}\n  service/index.js  ${size}  (from src/service.ts)\n`,
      );
    });

    await t.step("a folder that does not exist is refused with exit 1", async () => {
      const run = await runAuthor(["build", "nowhere"], root);
      assert.equal(run.code, 1);
      assert.equal(run.stdout, "");
      assert.match(run.stderr, /^sync build: Cannot build .*nowhere: no such folder/);
    });

    await t.step("a bundler error prints file:line:col and exits 1", async () => {
      await Deno.writeTextFile(
        join(dir, "src/shout.ts"),
        "export function shout(word: string): string {\n  return = word;\n}\n",
      );
      const run = await runAuthor(["build", name], root);
      assert.equal(run.code, 1);
      assert.match(
        run.stderr,
        /^src\/shout\.ts:2:10 {2}Cannot build src\/service\.ts: \S/,
      );
    });
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
