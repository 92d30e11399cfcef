import assert from "node:assert/strict";
import { join } from "node:path";
import { checkBuiltPackage, checkPackage } from "../../../runtime/author/check/check.ts";
import { buildPackage } from "../../../runtime/author/build.ts";
import { scaffoldPackage } from "../../../runtime/author/scaffold.ts";
import { BuildError } from "../../../runtime/errors.ts";

/** A package folder with a screen source and nothing else to build. */
async function screenPackage(source: string): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix: "sync-screen-check-" });
  await Deno.mkdir(join(dir, "src"));
  await Deno.writeTextFile(
    join(dir, "manifest.json"),
    JSON.stringify({
      id: "board",
      name: "Board",
      version: "1.0.0",
      description: "A board",
      permissions: [],
      ui: "ui/index.js",
      handlers: {},
    }),
  );
  await Deno.writeTextFile(
    join(dir, "deno.json"),
    JSON.stringify({ compilerOptions: { lib: ["esnext", "dom"] } }),
  );
  await Deno.writeTextFile(join(dir, "src", "index.tsx"), source);
  return dir;
}

const CLEAN = `import type { ScreenContext } from "@sync/extension-api/ui";
export async function activate(ctx: ScreenContext): Promise<void> {
  const { records } = await ctx.memory.list({ kind: "board.item" });
  const list = document.createElement("ul");
  for (const record of records) {
    const item = document.createElement("li");
    item.textContent = record.title;
    list.append(item);
  }
  document.body.append(list);
}
`;

Deno.test("`checkPackage()` type-checks and scans a screen", async (t) => {
  await t.step("a screen that uses the DOM and ctx only is clean", async () => {
    const dir = await screenPackage(CLEAN);
    try {
      const report = await checkPackage(dir);
      assert.deepEqual(report.problems, []);
      assert.deepEqual(report.build.outputs.map((o) => o.output), ["ui/index.js"]);
      assert.doesNotMatch(await Deno.readTextFile(join(dir, "ui/index.js")), /extension-api/);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  });

  await t.step("a type error is shown at the author's line", async () => {
    const dir = await screenPackage(
      CLEAN.replace("item.textContent = record.title;", "item.textContent = record.nope;"),
    );
    try {
      const report = await checkPackage(dir);
      const typeError = report.problems.find((p) => p.rule === "type-error");
      assert.ok(typeError, JSON.stringify(report.problems));
      assert.equal(typeError.file, "src/index.tsx");
      assert.equal(typeError.line, 7);
      assert.match(typeError.message, /nope/);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  });

  await t.step("no activate, a connection of its own and eval are each named", async () => {
    const dir = await screenPackage(`export function start(): void {
  void fetch("/api/extensions");
  const socket = new WebSocket("ws://127.0.0.1:1");
  socket.close();
  eval("1");
}
`);
    try {
      const report = await checkPackage(dir);
      const rules = report.problems.map((p) => `${p.rule} ${p.file}:${p.line}`);
      assert.ok(rules.includes("screen-activate ui/index.js:1"), rules.join("\n"));
      assert.ok(rules.includes("screen-global src/index.tsx:2"), rules.join("\n"));
      assert.ok(rules.includes("screen-global src/index.tsx:3"), rules.join("\n"));
      assert.ok(rules.includes("screen-dynamic-code src/index.tsx:5"), rules.join("\n"));
      const fetchProblem = report.problems.find((p) => /uses fetch/.test(p.message));
      assert.match(fetchProblem?.hint ?? "", /ctx\.net\.fetch/);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  });

  await t.step("a built screen that imports a module is refused before it is shown", async () => {
    const dir = await screenPackage(CLEAN);
    try {
      await Deno.mkdir(join(dir, "ui"));
      await Deno.writeTextFile(
        join(dir, "ui", "index.js"),
        'import { x } from "https://cdn.example/x.js";\nexport function activate() { x(); }\n',
      );
      const problems = await checkBuiltPackage(dir);
      assert.deepEqual(problems.map((p) => [p.rule, p.line]), [["screen-import", 1]]);
      assert.match(problems[0].message, /imports "https:\/\/cdn\.example\/x\.js"/);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  });
});

Deno.test("`buildPackage()` refuses the screen's API imported without import type", async (t) => {
  for (
    const [what, line] of [
      ["a value", 'import { API_VERSION } from "@sync/extension-api/ui";'],
      ["an inline type", 'import { type ScreenContext } from "@sync/extension-api/ui";'],
    ]
  ) {
    await t.step(`${what}: says why and names ctx.apiVersion`, async () => {
      const dir = await screenPackage(`${line}
export function activate(): void {
  document.body.textContent = String(${what === "a value" ? "API_VERSION" : "1"});
}
`);
      try {
        await assert.rejects(() => buildPackage(dir), (error: unknown) => {
          assert.ok(error instanceof BuildError);
          assert.match(error.message, /imports "@sync\/extension-api\/ui" without import type;/);
          assert.match(error.message, /API_VERSION, as ctx\.apiVersion$/);
          assert.doesNotMatch(error.message, /types only;|holds types/);
          assert.equal(error.file, "src/index.tsx");
          return true;
        });
      } finally {
        await Deno.remove(dir, { recursive: true });
      }
    });
  }
});

Deno.test("`checkPackage()` gives a screen's build failure the screen's hint", async () => {
  const dir = await screenPackage(`import { API_VERSION } from "@sync/extension-api/ui";
export function activate(): void {
  document.body.textContent = API_VERSION;
}
`);
  try {
    const report = await checkPackage(dir);
    assert.deepEqual(report.problems.map((p) => [p.rule, p.file, p.line]), [
      ["build", "src/index.tsx", 1],
    ]);
    assert.match(report.problems[0].hint, /^the build bundles src\/index\.tsx, .* ui file/);
    assert.doesNotMatch(report.problems[0].hint, /service/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("`scaffoldPackage()` with a screen makes a package that passes check", async () => {
  const root = await Deno.makeTempDir({ prefix: "sync-screen-new-" });
  try {
    const created = await scaffoldPackage("board", join(root, "board"), { screen: true });
    assert.ok(created.files.includes("src/index.tsx"));
    const manifest = JSON.parse(await Deno.readTextFile(join(created.dir, "manifest.json")));
    assert.equal(manifest.ui, "ui/index.js");
    const report = await checkPackage(created.dir);
    assert.deepEqual(report.problems, []);
    assert.deepEqual(report.build.outputs.map((o) => o.output), [
      "service/index.js",
      "ui/index.js",
    ]);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
