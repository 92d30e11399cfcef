import assert from "node:assert/strict";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { REPO_ROOT } from "../internal/cli.ts";

const ROOT = fileURLToPath(REPO_ROOT);

/** Files whose temporary folders something else removes, and what does. */
const REMOVED_ELSEWHERE: ReadonlyMap<string, string> = new Map([
  ["tests/internal/temp_folder.ts", "every folder it makes is removed when the test file ends"],
  ["tests/browser/_browser.ts", "Installation.close() removes its root"],
  ["tests/dev/temp_cleanup_test.ts", "what it makes is in text, the example it checks"],
  ["tests/dev/test_all_test.ts", "a test in text litters on purpose; runSuite() removes it"],
]);

/** The TypeScript files under `folder`, fixtures left out. */
async function* testFiles(folder: string): AsyncGenerator<string> {
  for await (const entry of Deno.readDir(folder)) {
    const path = join(folder, entry.name);
    if (entry.isDirectory) {
      if (entry.name !== "fixtures") yield* testFiles(path);
    } else if (entry.name.endsWith(".ts")) yield path;
  }
}

/** Whether `source` removes what `name` holds: `Deno.remove(name…`, or the folder above it. */
function removes(source: string, name: string): boolean {
  const held = `(?:${name}|dirname\\(${name}\\)|join\\(${name}\\b[^)]*\\))`;
  return new RegExp(`\\bremove(?:Sync)?\\(\\s*${held}[,)\\s]`).test(source);
}

/** The name a line binds what it makes to: `const x = …`, `x = …`, or the line above's `const x = f(`. */
function boundName(lines: string[], index: number): string | undefined {
  const here = lines[index].match(/(?:const|let)\s+(\w+)\s*=|^\s*(\w+)\s*=(?!=)/);
  if (here) return here[1] ?? here[2];
  const above = lines[index - 1]?.match(/(?:const|let)\s+(\w+)\s*=[^;]*\($/);
  return above?.[1];
}

/** The function `lines[index]` is in, by its name. */
function enclosingFunction(lines: string[], index: number): string | undefined {
  for (let at = index; at >= 0; at--) {
    const named = lines[at].match(/^(?:export )?(?:async )?function\*? (\w+)\(/);
    if (named) return named[1];
  }
  return undefined;
}

/**
 * Every temporary folder or file a test makes (`Deno.makeTempDir`,
 * `makeTempFile`, or a helper of the same file that answers one) that the
 * same file never removes, as `file:line  text`.
 */
async function unremoved(root: string): Promise<string[]> {
  const found: string[] = [];
  for await (const path of testFiles(join(root, "tests"))) {
    const file = relative(root, path);
    if (REMOVED_ELSEWHERE.has(file)) continue;
    const source = await Deno.readTextFile(path);
    const lines = source.split("\n");
    const makers = ["makeTemp(?:Dir|File)(?:Sync)?"];
    for (let pass = 0; pass < makers.length; pass++) {
      const maker = new RegExp(`\\b${makers[pass]}\\(`);
      lines.forEach((line, index) => {
        if (!maker.test(line) || /^\s*(?:\*|\/\/)/.test(line)) return;
        if (/^(?:export )?(?:async )?function/.test(line)) return;
        const name = boundName(lines, index);
        if (name && removes(source, name)) return;
        if (!name && /\bremove(?:Sync)?\(/.test(line)) return;
        // A helper that answers what it made hands it on: its callers remove it.
        const helper = enclosingFunction(lines, index);
        if (name && helper && new RegExp(`\\breturn ${name}\\b`).test(source)) {
          if (!makers.includes(helper)) makers.push(helper);
          return;
        }
        found.push(`${file}:${index + 1}  ${line.trim()}`);
      });
    }
  }
  return found.sort();
}

Deno.test("every temporary folder a test makes is removed by the file that makes it", async (t) => {
  await t.step("a file that never removes what it made is found, at its line", async () => {
    const root = await Deno.makeTempDir({ prefix: "sync-temp-cleanup-" });
    try {
      await Deno.mkdir(join(root, "tests"));
      await Deno.writeTextFile(
        join(root, "tests", "leaks_test.ts"),
        `Deno.test("x", async () => {\n  const dir = await Deno.makeTempDir();\n});\n` +
          `async function scratch() {\n  const made = await Deno.makeTempDir();\n  return made;\n}\n` +
          `Deno.test("y", async () => {\n  const kept = await scratch();\n});\n`,
      );
      await Deno.writeTextFile(
        join(root, "tests", "tidy_test.ts"),
        `Deno.test("x", async () => {\n  const dir = await Deno.makeTempDir();\n` +
          `  try {} finally {\n    await Deno.remove(dir, { recursive: true });\n  }\n});\n`,
      );
      assert.deepEqual(await unremoved(root), [
        "tests/leaks_test.ts:2  const dir = await Deno.makeTempDir();",
        "tests/leaks_test.ts:9  const kept = await scratch();",
      ]);
    } finally {
      await Deno.remove(root, { recursive: true });
    }
  });

  await t.step("every test file of this repository removes what it makes", async () => {
    assert.deepEqual(
      await unremoved(ROOT),
      [],
      "these make a temporary folder or file and never remove it: remove it in a finally, " +
        "or make it with tests/internal/temp_folder.ts",
    );
  });
});
