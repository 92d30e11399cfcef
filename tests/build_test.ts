import assert from "node:assert/strict";
import { join } from "node:path";
import { BuildError } from "../runtime/errors.ts";
import { buildPackage } from "../runtime/package_build.ts";
import { exists } from "./_cli.ts";
import { installFolder, runAuthor, serviceManifest, writeFiles } from "./_author.ts";
import { testHost } from "./_packages.ts";

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
      assert.match(error.message, /^Cannot build src\/service\.ts: src\/service\.ts:3:32: .+/);
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
      assert.match(error.message, /src\/helper\.ts:2:\d+: Module not found .*nowhere\.ts/);
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

    await t.step("a bundler error prints file:line:col and exits 1", async () => {
      await Deno.writeTextFile(
        join(dir, "src/shout.ts"),
        "export function shout(word: string): string {\n  return = word;\n}\n",
      );
      const run = await runAuthor(["build", name], root);
      assert.equal(run.code, 1);
      assert.match(
        run.stderr,
        /^src\/shout\.ts:2:10 {2}Cannot build src\/service\.ts: src\/shout\.ts:2:10: \S/,
      );
    });
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
