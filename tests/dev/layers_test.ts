import assert from "node:assert/strict";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import {
  checkLayers,
  DOMAIN_RANKS,
  layerFindings,
  type LayersReport,
  readModuleGraph,
  repositoryEntries,
} from "../../runtime/dev/layers.ts";

const REPOSITORY = fileURLToPath(new URL("../../", import.meta.url));
const LAYERS_MODULE = fileURLToPath(new URL("../../runtime/dev/layers.ts", import.meta.url));

/**
 * A small repository that keeps every rule: each rank, a private file used in
 * its folder and by its mirrored tests, a worker, main.ts, and a fixture
 * folder whose sources would break the rules if they were read.
 */
const CLEAN_TREE: Record<string, string> = {
  "runtime/errors.ts": "export class SyncError extends Error {}\n",
  "runtime/internal/id.ts": "export const ID = 1;\n",
  "runtime/extension_api/service.ts": 'export const API_VERSION = "1.0.0";\n',
  "runtime/memory/store.ts": 'import { SyncError } from "../errors.ts";\nexport { SyncError };\n',
  "runtime/memory/record.ts":
    'import type { SyncError } from "./store.ts";\nexport type R = SyncError;\n',
  "runtime/memory/mod.ts": 'export { SyncError } from "./store.ts";\n',
  "runtime/isolate/protocol.ts": 'export { API_VERSION } from "../extension_api/service.ts";\n',
  "runtime/isolate/mod.ts": 'export { API_VERSION } from "./protocol.ts";\n',
  "runtime/host/host.ts": 'import "../memory/mod.ts";\nimport "../isolate/mod.ts";\n' +
    "export const HOST = 1;\n",
  "runtime/host/mod.ts": 'export { HOST } from "./host.ts";\n',
  "runtime/author/check/_scan.ts": "export const SCAN = 1;\n",
  "runtime/author/check/check.ts":
    'import { SCAN } from "./_scan.ts";\nimport "../../host/mod.ts";\n' +
    "export { SCAN };\n",
  "runtime/author/mod.ts": 'export { SCAN } from "./check/check.ts";\n',
  "runtime/cli/sync.ts": 'import "../author/mod.ts";\nimport "../internal/id.ts";\n' +
    "export const CLI = 1;\n",
  "runtime/cli/mod.ts": 'export { CLI } from "./sync.ts";\n',
  "runtime/dev/tool.ts": 'import "../host/host.ts";\nimport "../internal/id.ts";\n',
  "workers/_shim.ts": 'import { API_VERSION } from "../runtime/isolate/protocol.ts";\n' +
    "export { API_VERSION };\n",
  "workers/worker.ts": 'import "./_shim.ts";\nimport "npm:zod@4.6.7";\n',
  "main.ts": 'import "./runtime/cli/mod.ts";\nimport "node:path";\n',
  "tests/helper.ts": "export const HELP = 1;\n",
  "tests/author/check/check_test.ts": 'import "../../../runtime/author/check/_scan.ts";\n' +
    'import "../../../runtime/dev/tool.ts";\nimport "../../helper.ts";\n',
  "tests/fixtures/package/src/service.ts": 'import "../../../../runtime/author/check/_scan.ts";\n',
  "runtime/web/api/types.ts": "export interface Answer {\n  ok: boolean;\n}\n",
  "ui/main.ts":
    'import "./app.ts";\nimport "npm:preact@10.29.8";\nimport "npm:@preact/signals@2.11.4";\n',
  "ui/app.ts":
    'import type { Answer } from "../runtime/web/api/types.ts";\nexport type A = Answer;\n',
  // The bundle is built from ui/ and checked there; its own imports are not read.
  "ui/dist/app.js": 'import "../../runtime/host/host.ts";\n',
};

async function withTree(
  extra: Record<string, string>,
  body: (root: string) => Promise<void>,
): Promise<void> {
  const root = await Deno.makeTempDir({ prefix: "sync-layers-" });
  try {
    for (const [path, text] of Object.entries({ ...CLEAN_TREE, ...extra })) {
      await Deno.mkdir(dirname(join(root, path)), { recursive: true });
      await Deno.writeTextFile(join(root, path), text);
    }
    await body(root);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
}

async function checkTree(root: string): Promise<LayersReport> {
  return await checkLayers(await repositoryEntries(root), { root });
}

async function messagesFor(extra: Record<string, string>): Promise<string[]> {
  let messages: string[] = [];
  await withTree(extra, async (root) => {
    messages = (await checkTree(root)).findings.map((finding) =>
      finding.message.replaceAll(root, "ROOT")
    );
  });
  return messages;
}

Deno.test("layer check", async (t) => {
  await t.step("`checkLayers()` finds nothing in this repository", async () => {
    const report = await checkLayers(await repositoryEntries(REPOSITORY), { root: REPOSITORY });
    assert.deepEqual(report.findings.map((finding) => finding.message), []);
    assert.ok(report.modules > 80, `only ${report.modules} modules read`);
    assert.ok(report.imports > report.modules);
  });

  await t.step("`DOMAIN_RANKS` ranks every folder of runtime/ but dev/", async () => {
    const folders: string[] = [];
    for await (const item of Deno.readDir(join(REPOSITORY, "runtime"))) {
      if (item.isDirectory && item.name !== "dev") folders.push(item.name);
    }
    assert.deepEqual(
      folders.sort(),
      Object.keys(DOMAIN_RANKS).filter((domain) => domain !== "base").sort(),
    );
  });

  await t.step(
    "`repositoryEntries()` lists runtime/, workers/, ui/, tests/ and main.ts, not fixtures or ui/dist",
    async () => {
      await withTree({}, async (root) => {
        const entries = (await repositoryEntries(root)).map((path) => path.slice(root.length + 1));
        assert.deepEqual(
          entries,
          Object.keys(CLEAN_TREE).filter((path) =>
            !path.startsWith("tests/fixtures/") && !path.startsWith("ui/dist/")
          ).sort(),
        );
      });
    },
  );

  await t.step(
    "`checkLayers()` passes a tree that keeps the rules, and counts what it read",
    async () => {
      await withTree({}, async (root) => {
        const report = await checkTree(root);
        assert.deepEqual(report.findings, []);
        assert.equal(report.modules, 24);
        assert.equal(report.imports, 24);
      });
    },
  );

  await t.step(
    "`readModuleGraph()` holds imports between repository files with their lines",
    async () => {
      await withTree({}, async (root) => {
        const graph = await readModuleGraph(["main.ts", join(root, "runtime/memory/record.ts")], {
          root,
        });
        assert.deepEqual(graph.errors, []);
        assert.deepEqual(graph.modules.get("main.ts"), [
          { target: "runtime/cli/mod.ts", line: 1, typeOnly: false },
        ]);
        assert.deepEqual(graph.modules.get("runtime/memory/record.ts"), [
          { target: "runtime/memory/store.ts", line: 1, typeOnly: true },
        ]);
        assert.deepEqual(graph.modules.get("runtime/author/check/check.ts"), [
          { target: "runtime/author/check/_scan.ts", line: 1, typeOnly: false },
          { target: "runtime/host/mod.ts", line: 2, typeOnly: false },
        ]);
        assert.equal(graph.modules.has("workers/worker.ts"), false);
      });
    },
  );

  await t.step("an import up the ranks is named with its file, line and rule", async () => {
    assert.deepEqual(
      await messagesFor({
        "runtime/memory/store.ts": '// Reads the host.\nimport "../host/host.ts";\nexport {};\n',
      }),
      [
        "import cycle: runtime/host/host.ts:1 → runtime/memory/mod.ts:1 → runtime/memory/store.ts:2 → " +
        "runtime/host/host.ts",
        "runtime/memory/store.ts:2 imports runtime/host/host.ts: memory (rank 2) may not import " +
        "host (rank 3)",
      ],
    );
    assert.deepEqual(
      await messagesFor({
        "runtime/memory/access.ts": '\n\nimport type { SCAN } from "../author/check/check.ts";\n' +
          "export type A = typeof SCAN;\n",
      }),
      [
        "runtime/memory/access.ts:3 imports runtime/author/check/check.ts: memory (rank 2) may not " +
        "import author (rank 4)",
      ],
    );
  });

  await t.step("another domain's file imported past its public entry fails", async () => {
    assert.deepEqual(
      await messagesFor({
        "runtime/author/check/check.ts":
          'import { SCAN } from "./_scan.ts";\nimport "../../host/host.ts";\n' +
          "export { SCAN };\n",
      }),
      [
        "runtime/author/check/check.ts:2 imports runtime/host/host.ts: another domain reaches " +
        "host through its public entry runtime/host/mod.ts; import it from there (add the " +
        "export to runtime/host/mod.ts if it is missing)",
      ],
    );
  });

  await t.step("the base files may import the extension API, and not the other way", async () => {
    assert.deepEqual(
      await messagesFor({
        "runtime/types.ts": 'import type { API_VERSION } from "./extension_api/service.ts";\n' +
          "export type Version = typeof API_VERSION;\n",
      }),
      [],
    );
    assert.deepEqual(
      await messagesFor({
        "runtime/extension_api/service.ts":
          'import "../errors.ts";\nexport const API_VERSION = "1.0.0";\n',
      }),
      [
        "runtime/extension_api/service.ts:1 imports runtime/errors.ts: extension_api (rank 0) " +
        "may not import base (rank 1)",
      ],
    );
  });

  await t.step("an import sideways to a sibling domain fails", async () => {
    assert.deepEqual(
      await messagesFor({ "runtime/packages/store.ts": 'import "../memory/record.ts";\n' }),
      [
        "runtime/packages/store.ts:1 imports runtime/memory/record.ts: packages (rank 2) may not " +
        "import memory (rank 2), a sibling domain",
      ],
    );
    assert.deepEqual(
      await messagesFor({ "runtime/internal/id.ts": 'import "../errors.ts";\n' }),
      [
        "runtime/internal/id.ts:1 imports runtime/errors.ts: internal (rank 1) may not import " +
        "base (rank 1), a sibling domain",
      ],
    );
  });

  await t.step("an import cycle fails, naming each file and import in order", async () => {
    assert.deepEqual(
      await messagesFor({
        "runtime/clock/clock.ts": 'import "./lease.ts";\n',
        "runtime/clock/lease.ts": '\nimport "./stamps.ts";\n',
        "runtime/clock/stamps.ts": 'import "../errors.ts";\nimport type {} from "./clock.ts";\n',
      }),
      [
        "import cycle: runtime/clock/clock.ts:1 → runtime/clock/lease.ts:2 → " +
        "runtime/clock/stamps.ts:2 (import type) → runtime/clock/clock.ts",
      ],
    );
    assert.deepEqual(
      await messagesFor({ "runtime/work/order.ts": 'import "./order.ts";\n' }),
      ["import cycle: runtime/work/order.ts:1 → runtime/work/order.ts"],
    );
    // Two cycles through one file are both named.
    assert.deepEqual(
      await messagesFor({
        "tests/a.ts": 'import "./b.ts";\nimport "./c.ts";\n',
        "tests/b.ts": 'import "./a.ts";\n',
        "tests/c.ts": 'import "./a.ts";\n',
      }),
      [
        "import cycle: tests/a.ts:1 → tests/b.ts:1 → tests/a.ts",
        "import cycle: tests/a.ts:2 → tests/c.ts:1 → tests/a.ts",
      ],
    );
  });

  await t.step("a private file imported from another folder fails", async () => {
    const rule =
      "_scan.ts is private to runtime/author/check/ (and the tests in tests/author/check/)";
    assert.deepEqual(
      await messagesFor({ "runtime/author/build.ts": 'import "./check/_scan.ts";\n' }),
      [`runtime/author/build.ts:1 imports runtime/author/check/_scan.ts: ${rule}`],
    );
    assert.deepEqual(
      await messagesFor({
        "tests/author/build_test.ts": 'import "../../runtime/author/check/_scan.ts";\n',
      }),
      [`tests/author/build_test.ts:1 imports runtime/author/check/_scan.ts: ${rule}`],
    );
    assert.deepEqual(
      await messagesFor({ "tests/other_test.ts": 'import "../workers/_shim.ts";\n' }),
      [
        "tests/other_test.ts:1 imports workers/_shim.ts: _shim.ts is private to workers/ " +
        "(and the tests in tests/workers/)",
      ],
    );
  });

  await t.step(
    "workers/ may import only the isolate protocol, main.ts only runtime/cli/mod.ts",
    async () => {
      assert.deepEqual(
        await messagesFor({
          "workers/_shim.ts":
            'import { API_VERSION } from "../runtime/extension_api/service.ts";\n' +
            "export { API_VERSION };\n",
        }),
        [
          "workers/_shim.ts:1 imports runtime/extension_api/service.ts: workers/ may import only " +
          "runtime/isolate/protocol.ts",
        ],
      );
      assert.deepEqual(
        await messagesFor({
          "main.ts": 'import "./runtime/cli/mod.ts";\nimport "./runtime/errors.ts";\n',
        }),
        ["main.ts:2 imports runtime/errors.ts: main.ts may import only runtime/cli/mod.ts"],
      );
    },
  );

  await t.step(
    "the runtime imports neither runtime/dev/ nor anything outside runtime/",
    async () => {
      assert.deepEqual(
        await messagesFor({
          "runtime/cli/sync.ts": 'import "../dev/tool.ts";\nimport "../../tests/helper.ts";\n',
        }),
        [
          "runtime/cli/sync.ts:1 imports runtime/dev/tool.ts: runtime/dev/ holds build-time tools, " +
          "outside the ranks; nothing in the runtime imports it",
          "runtime/cli/sync.ts:2 imports tests/helper.ts: runtime/ may import only runtime/ modules",
        ],
      );
    },
  );

  await t.step(
    "ui/ imports its own files, preact and its signals, and the API's shapes as types only",
    async () => {
      assert.deepEqual(
        await messagesFor({
          "ui/app.ts": 'import { type Answer } from "../runtime/web/api/types.ts";\n' +
            'import type { HOST } from "../runtime/host/mod.ts";\n' +
            "export type A = Answer | typeof HOST;\n",
        }),
        [
          "ui/app.ts:1 imports runtime/web/api/types.ts: ui/ imports the API's shapes with " +
          "`import type` only: the bundle carries nothing of the runtime",
          "ui/app.ts:2 imports runtime/host/mod.ts: ui/ may import only its own files, and with " +
          "`import type` runtime/web/api/types.ts, runtime/web/api/events_types.ts, " +
          "runtime/web/api/chat_types.ts, runtime/web/api/process_types.ts, " +
          "runtime/web/api/records_types.ts, runtime/web/api/devices_types.ts and runtime/extension_api/ui.ts",
        ],
      );
      assert.deepEqual(
        await messagesFor({
          "ui/main.ts": 'import "./app.ts";\nimport "npm:preact@10.29.8/hooks";\n' +
            'import "npm:zod@4.6.7";\nimport "node:path";\n',
        }),
        [
          "ui/main.ts:3 imports npm:zod@4.6.7: ui/ may import only its own files and the npm " +
          "packages preact, @preact/signals",
          "ui/main.ts:4 imports node:path: ui/ may import only its own files and the npm " +
          "packages preact, @preact/signals",
        ],
      );
    },
  );

  await t.step("nothing in runtime/ or workers/ imports ui/", async () => {
    assert.deepEqual(
      await messagesFor({
        "runtime/cli/sync.ts": 'import "../author/mod.ts";\nimport "../../ui/app.ts";\n' +
          "export const CLI = 1;\n",
        "workers/worker.ts": 'import "./_shim.ts";\nimport "../ui/app.ts";\n',
      }),
      [
        "runtime/cli/sync.ts:2 imports ui/app.ts: nothing in runtime/ imports the browser app in ui/",
        "workers/worker.ts:2 imports ui/app.ts: nothing in workers/ imports the browser app in ui/",
      ],
    );
  });

  await t.step("a folder of runtime/ without a rank is named once", async () => {
    assert.deepEqual(
      await messagesFor({
        "runtime/plugins/plugin.ts": 'import "./session.ts";\n',
        "runtime/plugins/session.ts": 'import "../host/host.ts";\n',
      }),
      [
        "runtime/plugins/plugin.ts: runtime/plugins/ has no rank; give it one in DOMAIN_RANKS " +
        "(runtime/dev/layers.ts)",
      ],
    );
  });

  await t.step("what deno cannot read or resolve is named where it is imported", async () => {
    assert.deepEqual(
      await messagesFor({
        "runtime/memory/store.ts": 'import "./gone.ts";\nimport "unmapped";\n',
        "runtime/memory/record.ts": "export const = ;\n",
      }),
      [
        "runtime/memory/record.ts: SyntaxError: Unexpected token `=`. Expected yield, an " +
        "identifier, [ or { (at file://ROOT/runtime/memory/record.ts:1:14)",
        "runtime/memory/store.ts:1 imports runtime/memory/gone.ts: Module not found " +
        '"file://ROOT/runtime/memory/gone.ts".',
        'runtime/memory/store.ts:2: Import "unmapped" not a dependency',
      ],
    );
  });

  await t.step("`layerFindings()` checks a graph however it was built", () => {
    const findings = layerFindings({
      modules: new Map([
        ["runtime/web/app.ts", [{ target: "runtime/cli/sync.ts", line: 7, typeOnly: true }]],
        ["runtime/cli/sync.ts", []],
      ]),
      errors: [],
    });
    assert.deepEqual(findings, [{
      rule: "rank",
      file: "runtime/web/app.ts",
      line: 7,
      message: "runtime/web/app.ts:7 imports runtime/cli/sync.ts: web (rank 6) may not import " +
        "cli (rank 7)",
    }]);
  });

  await t.step("`deno task layers` exits 0 with one line, or 1 with every finding", async () => {
    const run = (cwd: string) =>
      new Deno.Command(Deno.execPath(), {
        args: ["run", "--allow-read=.", "--allow-run=deno", LAYERS_MODULE],
        cwd,
        env: { NO_COLOR: "1" },
        stdout: "piped",
        stderr: "piped",
      }).output();
    const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
    await withTree({}, async (root) => {
      const output = await run(root);
      assert.equal(output.code, 0, decode(output.stderr));
      assert.equal(decode(output.stdout), "layers: 24 modules, 24 imports checked, all in order\n");
    });
    await withTree(
      { "runtime/memory/store.ts": 'import "../host/host.ts";\n' },
      async (root) => {
        const output = await run(root);
        assert.equal(output.code, 1);
        assert.equal(decode(output.stdout), "");
        assert.equal(
          decode(output.stderr),
          "import cycle: runtime/host/host.ts:1 → runtime/memory/mod.ts:1 → " +
            "runtime/memory/store.ts:1 → runtime/host/host.ts\n" +
            "runtime/memory/store.ts:1 imports runtime/host/host.ts: memory (rank 2) may not import " +
            "host (rank 3)\n" +
            "layers: 2 findings in 24 modules, 24 imports\n",
        );
      },
    );
  });
});
