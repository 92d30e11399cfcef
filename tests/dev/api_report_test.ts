import assert from "node:assert/strict";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import * as service from "@sync/extension-api/service";
import * as ui from "@sync/extension-api/ui";
import { apiVersionProblem, compareApiShapes, nextApiVersion } from "../../runtime/dev/api_bump.ts";
import {
  API_REPORT_PATH,
  makeApiShape,
  parseApiReport,
  renderApiReport,
  writeApiReport,
} from "../../runtime/dev/api_report.ts";
import type { ApiRole } from "../../runtime/dev/api_roles.ts";
import {
  type ApiShape,
  type ApiSymbol,
  member,
  reduceApiShape,
} from "../../runtime/dev/api_shape.ts";

const ROOT = new URL("../../", import.meta.url);
const DENO = Deno.execPath();

Deno.test("`makeApiShape()` makes what docs/extension_api.report.txt holds", async (t) => {
  const shape = await makeApiShape({ deno: DENO });
  const fresh = renderApiReport(shape);
  const committed = await Deno.readTextFile(new URL(API_REPORT_PATH, ROOT)).catch(() => "");

  await t.step("the checked-in report is the one the API's entries make", () => {
    if (fresh === committed) return;
    const problem = committed === "" ? null : apiVersionProblem(parseApiReport(committed), shape);
    const changes = committed === ""
      ? []
      : compareApiShapes(parseApiReport(committed), shape).changes;
    assert.fail(
      `the extension API's shape changed: ` +
        (problem
          ? `${problem}\nMove API_VERSION in runtime/extension_api/service.ts and ui.ts, then run deno task api:report`
          : `run deno task api:report (API_VERSION ${shape.version} is right for it)` +
            (changes.length > 0 ? `:\n  ${changes.join("\n  ")}` : "")),
    );
  });

  await t.step("it records the API_VERSION both entries export", () => {
    assert.equal(service.API_VERSION, ui.API_VERSION);
    assert.equal(shape.version, service.API_VERSION);
    assert.match(
      committed,
      new RegExp(`^version ${service.API_VERSION.replaceAll(".", "\\.")}$`, "m"),
    );
  });

  await t.step("`parseApiReport()` reads back the shape `renderApiReport()` wrote", () => {
    assert.deepEqual(parseApiReport(fresh), shape);
  });

  await t.step("who makes each interface's values follows where it is used", () => {
    const role = (specifier: string, name: string) =>
      shape.modules.find((m) => m.specifier === specifier)?.symbols.find((s) => s.name === name)
        ?.role;
    const s = "@sync/extension-api/service";
    assert.equal(role(s, "RecordSummary"), "host", "memory.record answers it");
    assert.equal(role(s, "RecordInput"), "author", "memory.write takes it");
    assert.equal(role(s, "Occasion"), "host", "a handler is given it");
    assert.equal(role("@sync/extension-api/ui", "ScreenModule"), "author", "no export names it");
    assert.equal(role("@sync/extension-api/ui", "ScreenContext"), "host", "activate is given it");
  });
});

/** A one-module shape for the comparison's cases. */
function shapeOf(version: string, symbols: ApiSymbol[]): ApiShape {
  return { version, modules: [{ specifier: "@sync/extension-api/service", symbols }] };
}

function iface(name: string, role: ApiRole, members: string[]): ApiSymbol {
  return { name, text: `interface ${name}`, role, members: members.map(member) };
}

Deno.test("`compareApiShapes()` asks for the step docs/authors.md states", async (t) => {
  const input = iface("RecordInput", "author", ["key: string"]);
  const summary = iface("RecordSummary", "host", ["key: string"]);
  const both = iface("NetRequest", "both", ["url: string"]);
  const before = shapeOf("1.1.0", [input, summary, both]);
  const cases: [string, ApiSymbol[], "none" | "minor" | "major"][] = [
    ["nothing changed: the same version", [input, summary, both], "none"],
    [
      "an export added: minor",
      [input, summary, both, { name: "devices", text: "const devices: DevicesApi", members: [] }],
      "minor",
    ],
    ["an export removed: major", [input, summary], "major"],
    [
      "an optional member added to an input the author builds: minor",
      [iface("RecordInput", "author", ["key: string", "title?: string"]), summary, both],
      "minor",
    ],
    [
      "a required member added to an input the author builds: major",
      [iface("RecordInput", "author", ["key: string", "title: string"]), summary, both],
      "major",
    ],
    [
      "a required member added to what only the host makes: minor",
      [input, iface("RecordSummary", "host", ["key: string", "revision: number"]), both],
      "minor",
    ],
    [
      "a required member added to what both make: major",
      [input, summary, iface("NetRequest", "both", ["url: string", "method: string"])],
      "major",
    ],
    [
      "a member removed: major",
      [input, iface("RecordSummary", "host", []), both],
      "major",
    ],
    [
      "a member's type changed, even widened: major",
      [input, iface("RecordSummary", "host", ["key: string | null"]), both],
      "major",
    ],
    [
      "a member made optional: major",
      [input, iface("RecordSummary", "host", ["key?: string"]), both],
      "major",
    ],
    [
      "an export's declaration changed: major",
      [input, summary, { ...both, text: "interface NetRequest extends Base" }],
      "major",
    ],
    [
      "only who makes an interface changed: the same version",
      [input, { ...summary, role: "both" }, both],
      "none",
    ],
  ];
  for (const [name, symbols, bump] of cases) {
    await t.step(name, () => {
      const after = shapeOf("1.1.0", symbols);
      const comparison = compareApiShapes(before, after);
      assert.equal(comparison.bump, bump, comparison.changes.join("\n"));
      assert.equal(comparison.changes.length === 0, bump === "none");
    });
  }

  await t.step("an entry added is minor, an entry removed major", () => {
    const added: ApiShape = {
      ...before,
      modules: [...before.modules, { specifier: "@sync/extension-api/devices", symbols: [input] }],
    };
    assert.equal(compareApiShapes(before, added).bump, "minor");
    assert.equal(compareApiShapes(added, before).bump, "major");
  });
});

Deno.test("`nextApiVersion()` and `apiVersionProblem()` hold API_VERSION to the step", async (t) => {
  await t.step("minor resets the patch, major resets minor and patch", () => {
    assert.equal(nextApiVersion("1.1.3", "none"), "1.1.3");
    assert.equal(nextApiVersion("1.1.3", "minor"), "1.2.0");
    assert.equal(nextApiVersion("1.1.3", "major"), "2.0.0");
    assert.throws(() => nextApiVersion("1.1", "minor"), /not major\.minor\.patch/);
  });

  const before = shapeOf("1.1.0", [iface("RecordSummary", "host", ["key: string"])]);
  const grown = [iface("RecordSummary", "host", ["key: string", "kind: string"])];
  await t.step("an addition with the version left where it was is refused, naming 1.2.0", () => {
    const problem = apiVersionProblem(before, shapeOf("1.1.0", grown));
    assert.match(problem ?? "", /API_VERSION is 1\.1\.0 and must be 1\.2\.0/);
    assert.match(problem ?? "", /minor: added required kind to RecordSummary/);
  });
  await t.step("an addition under a major step is refused too: the step is exact", () => {
    assert.match(apiVersionProblem(before, shapeOf("2.0.0", grown)) ?? "", /must be 1\.2\.0/);
  });
  await t.step("the right step, or no change and no step, is accepted", () => {
    assert.equal(apiVersionProblem(before, shapeOf("1.2.0", grown)), null);
    assert.equal(apiVersionProblem(before, before), null);
    assert.match(
      apiVersionProblem(before, { ...before, version: "1.2.0" }) ?? "",
      /must be 1\.1\.0/,
    );
  });
});

/** A repository with one API entry, `@sync/extension-api/a`, in a temporary folder. */
async function scratchApi(source: string): Promise<{ dir: string; root: URL }> {
  const dir = await Deno.makeTempDir({ prefix: "sync-api-report-" });
  await Deno.mkdir(join(dir, "docs"));
  await Deno.writeTextFile(
    join(dir, "deno.json"),
    JSON.stringify({ imports: { "@sync/extension-api/a": "./a.ts" } }),
  );
  await Deno.writeTextFile(join(dir, "a.ts"), source);
  return { dir, root: pathToFileURL(`${dir}/`) };
}

const A_V1 = `/** The version. */
export const API_VERSION = "1.0.0";
/** What the author passes. */
export interface Input { key: string }
/** What the host answers. */
export interface Output { key: string }
/** Calls. */
export function call(input: Input): Promise<Output> { return Promise.resolve(input); }
`;

Deno.test("`writeApiReport()` writes only when API_VERSION moved by the step", async (t) => {
  const { dir, root } = await scratchApi(A_V1);
  const report = join(dir, API_REPORT_PATH);
  try {
    await t.step("the first report is written for the version the entry exports", async () => {
      const result = await writeApiReport({ deno: DENO, root });
      assert.equal(result.version, "1.0.0");
      const text = await Deno.readTextFile(report);
      assert.match(text, /^version 1\.0\.0$/m);
      assert.match(text, /^ {2}function call\(input: Input\): Promise<Output>$/m);
      assert.match(text, /^ {2}interface Input {2}\[author makes\]$/m);
      assert.match(text, /^ {2}interface Output {2}\[host makes\]$/m);
      assert.doesNotMatch(text, /a\.ts|:\d+:\d+/, "no file paths or line numbers");
    });

    const required = A_V1.replace(
      "interface Input { key: string }",
      "interface Input { key: string; kind: string }",
    );
    await t.step(
      "a required member added to an input, version unmoved: refused, nothing written",
      async () => {
        const written = await Deno.readTextFile(report);
        await Deno.writeTextFile(join(dir, "a.ts"), required);
        await assert.rejects(
          writeApiReport({ deno: DENO, root }),
          /API_VERSION is 1\.0\.0 and must be 2\.0\.0[^]*major: added required kind to Input/,
        );
        assert.equal(await Deno.readTextFile(report), written);
      },
    );

    await t.step("moved to 2.0.0, the report is written with the change", async () => {
      await Deno.writeTextFile(join(dir, "a.ts"), required.replace('"1.0.0"', '"2.0.0"'));
      const result = await writeApiReport({ deno: DENO, root });
      assert.equal(result.version, "2.0.0");
      assert.deepEqual(result.changes, [
        "major: added required kind to Input of @sync/extension-api/a, whose values the author makes",
      ]);
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("`reduceApiShape()` refuses what it cannot describe", async (t) => {
  await t.step("a deno doc format it does not know", () => {
    assert.throws(
      () => reduceApiShape({ version: 3, nodes: {} }, []),
      /format version 3, and the API report reads version 2/,
    );
  });

  await t.step("a kind of declaration it does not describe, by name", async () => {
    const { dir, root } = await scratchApi(
      `${A_V1}/** A namespace. */\nexport namespace N {\n  /** x. */\n  export const x = 1;\n}\n`,
    );
    try {
      await assert.rejects(
        makeApiShape({ deno: DENO, root }),
        /the API exports N as a namespace, a kind the API report does not describe/,
      );
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  });

  await t.step("entries that disagree on API_VERSION", async () => {
    const { dir, root } = await scratchApi(A_V1);
    try {
      await Deno.writeTextFile(
        join(dir, "deno.json"),
        JSON.stringify({
          imports: { "@sync/extension-api/a": "./a.ts", "@sync/extension-api/b": "./b.ts" },
        }),
      );
      await Deno.writeTextFile(join(dir, "b.ts"), 'export const API_VERSION = "1.1.0";\n');
      await assert.rejects(
        makeApiShape({ deno: DENO, root }),
        /disagree on API_VERSION \(@sync\/extension-api\/a: 1\.0\.0, @sync\/extension-api\/b: 1\.1\.0\)/,
      );
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  });
});

Deno.test("`makeApiShape()` describes a type re-exported from a file that is no entry", async () => {
  const { dir, root } = await scratchApi(`${A_V1}export type { Hidden } from "./_hidden.ts";\n`);
  try {
    await Deno.writeTextFile(join(dir, "_hidden.ts"), "export interface Hidden { x: number }\n");
    const shape = await makeApiShape({ deno: DENO, root });
    const hidden = shape.modules[0].symbols.find((symbol) => symbol.name === "Hidden");
    assert.equal(hidden?.text, "interface Hidden");
    assert.deepEqual(hidden?.members.map((m) => m.text), ["x: number"]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
