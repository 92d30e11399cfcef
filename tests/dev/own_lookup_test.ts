import assert from "node:assert/strict";
import { join, relative } from "node:path";
import {
  OWN_LOOKUP_ALLOWED,
  OWN_LOOKUP_MESSAGE,
  OWN_LOOKUP_PLUGIN,
} from "../../runtime/dev/own_lookup.ts";
import { fileURLToPath } from "node:url";
import { REPO_ROOT } from "../internal/cli.ts";

const ROOT = fileURLToPath(REPO_ROOT);

/** Every `file:line  text` the rule reports in `source`. */
function findings(file: string, source: string): { line: number; text: string; message: string }[] {
  return Deno.lint.runPlugin(OWN_LOOKUP_PLUGIN, file, source).map((report) => ({
    line: source.slice(0, report.range[0]).split("\n").length,
    text: source.slice(report.range[0], report.range[1]),
    message: report.message,
  }));
}

/** The TypeScript files under `folder`, the built app left out. */
async function* sourceFiles(folder: string): AsyncGenerator<string> {
  for await (const entry of Deno.readDir(folder)) {
    const path = join(folder, entry.name);
    if (entry.isDirectory) {
      if (entry.name !== "dist" && entry.name !== "node_modules") yield* sourceFiles(path);
    } else if (/\.tsx?$/.test(entry.name)) yield path;
  }
}

Deno.test("`OWN_LOOKUP_PLUGIN` finds lookups that answer to names every object inherits", async (t) => {
  await t.step("the in operator, but for a literal no object inherits", () => {
    const found = findings(
      "x.ts",
      `if (name in table) {}
if ("exit" in line) {}
if ("toString" in line) {}
for (const key in table) {}
type Keys = { [K in Name]: string };`,
    );
    assert.deepEqual(found.map((f) => [f.line, f.text, f.message]), [
      [1, "name in table", OWN_LOOKUP_MESSAGE.in],
      [3, `"toString" in line`, OWN_LOOKUP_MESSAGE.in],
    ]);
  });

  await t.step("a constant table read by an outside key, unless Object.hasOwn guards it", () => {
    const found = findings(
      "x.ts",
      `const a = WORDS[status] ?? status;
const b = Object.hasOwn(WORDS, status) ? WORDS[status] : status;
const c = Object.hasOwn(WORDS, status) && WORDS[status];
if (Object.hasOwn(WORDS, status)) use(WORDS[status]);
const d = WORDS["done"] + WORDS.done + TABLE[(c ^ x) & 0xff] + TABLE[i + 1] + words[status];
const e = Object.hasOwn(OTHER, status) ? WORDS[status] : status;
const f = WORDS["constructor"];`,
    );
    assert.deepEqual(found.map((f) => [f.line, f.text]), [
      [1, "WORDS[status]"],
      [6, "WORDS[status]"],
      [7, `WORDS["constructor"]`],
    ]);
  });
});

Deno.test("runtime/, workers/ and ui/ look names up as own properties only", async () => {
  const reported: string[] = [];
  const allowed = new Set<string>();
  for (const folder of ["runtime", "workers", "ui"]) {
    for await (const path of sourceFiles(join(ROOT, folder))) {
      const file = relative(ROOT, path);
      for (const found of findings(file, await Deno.readTextFile(path))) {
        const allowing = OWN_LOOKUP_ALLOWED.find((a) => a.file === file && a.text === found.text);
        if (allowing) allowed.add(`${file} ${found.text}`);
        else reported.push(`${file}:${found.line}  ${found.text}: ${found.message}`);
      }
    }
  }
  assert.deepEqual(reported, [], `\n${reported.join("\n")}\n`);
  assert.deepEqual(
    OWN_LOOKUP_ALLOWED.map((a) => `${a.file} ${a.text}`).filter((a) => !allowed.has(a)),
    [],
    "every entry of the allow-list still names a place the rule reports",
  );
});
