import assert from "node:assert/strict";
import { join } from "node:path";
import { checkBuiltPackage, checkPackage } from "../../../runtime/author/check/check.ts";
import type { CheckProblem } from "../../../runtime/author/check/problem.ts";
import { IsolatePool } from "../../../runtime/isolate/pool.ts";
import {
  ES_GLOBALS_NOT_IN_ISOLATE,
  ISOLATE_GLOBALS,
  missingGlobalHint,
} from "../../../runtime/isolate/globals.ts";
import { scanModule } from "../../../runtime/author/check/_scan.ts";
import { typeCheckService } from "../../../runtime/author/check/_types.ts";
import { jsonPlace, parseFieldPath } from "../../../runtime/author/check/_json_place.ts";
import { MANIFEST_LIMITS } from "../../../runtime/limits.ts";
import { REPO_ROOT } from "../../internal/cli.ts";

const FIXTURES = new URL("../../fixtures/", import.meta.url);
const API = "@sync/extension-api/service";

/** Copies a fixture folder into a temp dir, so a build writes nothing into the repository. */
async function copyFixture(path: string): Promise<string> {
  const from = new URL(path, FIXTURES);
  const to = await Deno.makeTempDir({ prefix: "sync-check-test-" });
  const copy = async (source: URL, target: string) => {
    for await (const entry of Deno.readDir(source)) {
      const inner = join(target, entry.name);
      if (entry.isDirectory) {
        await Deno.mkdir(inner);
        await copy(new URL(`${entry.name}/`, source), inner);
      } else await Deno.copyFile(new URL(entry.name, source), inner);
    }
  };
  await copy(from, to);
  return to;
}

type Expected = Omit<CheckProblem, "hint">;

const CONSTRUCTOR_MESSAGE = "calls the constructor of a function, which is the Function " +
  "constructor (or its async or generator kin): it makes code from a string that check cannot " +
  "see into";

/** Every broken fixture and exactly what check says about it. */
const BROKEN: Record<string, Expected[]> = {
  "manifest-json": [{
    rule: "manifest-json",
    file: "manifest.json",
    line: 4,
    column: 1,
    message:
      `manifest.json: not valid JSON at line 4, column 1: expected a property name in double quotes, found "}"`,
  }],
  "manifest-duplicate-key": [{
    rule: "manifest-json",
    file: "manifest.json",
    line: 11,
    column: 3,
    message: 'manifest.json: the key "permissions" appears twice in the manifest, at line 11, ' +
      "column 3 (first at line 6, column 3); JSON would keep only the last one silently: keep one",
  }],
  "manifest-field-missing": [{
    rule: "manifest",
    file: "manifest.json",
    line: 1,
    column: 1,
    message: `version: required field "version" is missing`,
  }],
  "manifest-field-invalid": [{
    rule: "manifest",
    file: "manifest.json",
    line: 4,
    column: 3,
    message: `version: expected a semver version like "1.2.0", got "1.2"`,
  }],
  "schedule-handler": [{
    rule: "schedule-handler",
    file: "manifest.json",
    line: 18,
    column: 7,
    message: `schedule[0].handler: "broken.poll" is not a declared handler; declared: "broken.run"`,
  }],
  "device-task-handler": [{
    rule: "device-task-handler",
    file: "manifest.json",
    line: 26,
    column: 9,
    message: `device.tasks.sync.handler: "broken.sync" is not a declared handler; declared: ` +
      `"broken.run"`,
  }],
  "schedule-description": [{
    rule: "schedule-description",
    file: "manifest.json",
    line: 17,
    column: 5,
    message: `schedule[0].description: required field "description" is missing`,
  }],
  "lifecycle-handler": [{
    rule: "lifecycle-handler",
    file: "manifest.json",
    line: 16,
    column: 5,
    message: `lifecycle.installed: "broken.seed" is not a declared handler; declared: "broken.run"`,
  }],
  "build": [{
    rule: "build",
    file: "src/service.ts",
    line: 3,
    column: 33,
    message:
      "Cannot build src/service.ts: SyntaxError: Unexpected token `=`. Expected yield, an identifier, [ or {",
  }],
  "ui-file": [{
    rule: "ui-file",
    file: "manifest.json",
    line: 15,
    column: 3,
    message: `ui names "ui/index.js", which does not exist`,
  }],
  "type-webassembly": [{
    rule: "type-error",
    file: "src/service.ts",
    line: 6,
    column: 18,
    message: "WebAssembly is not a global in the isolate (TS2304: Cannot find name 'WebAssembly')",
  }],
  "lifecycle-removed-opened": [{
    rule: "lifecycle-handler",
    file: "manifest.json",
    line: 16,
    column: 5,
    message:
      `lifecycle.removed: "broken.cleanup" is not a declared handler; declared: "broken.run"`,
  }, {
    rule: "lifecycle-handler",
    file: "manifest.json",
    line: 17,
    column: 5,
    message: `lifecycle.opened: "broken.open" is not a declared handler; declared: "broken.run"`,
  }],
  "agent-tool-input": [{
    rule: "agent-tool",
    file: "manifest.json",
    line: 16,
    column: 11,
    message:
      `handlers["broken.run"].agent.input.type: expected a JSON Schema whose "type" is "object", got "type": "string"`,
  }],
  "agent-tool-not-returned": [{
    rule: "handler-not-returned",
    file: "manifest.json",
    line: 14,
    column: 5,
    message:
      `handler "broken.ask" is declared (it is an agent tool) but register() does not return it`,
  }],
  "types-missing": [{
    rule: "types-file",
    file: "manifest.json",
    line: 16,
    column: 5,
    message: `types[0] names "types/item.json", which does not exist`,
  }],
  "types-not-json": [{
    rule: "types-file",
    file: "types/item.json",
    line: 4,
    column: 1,
    message: "is not valid JSON: Expected double-quoted property name in JSON",
  }],
  "types-duplicate-key": [{
    rule: "types-file",
    file: "types/item.json",
    line: 4,
    column: 3,
    message: 'the key "kind" appears twice in the type, at line 4, column 3 (first at line 2, ' +
      "column 3); JSON would keep only the last one silently: keep one",
  }],
  "types-foreign-kind": [{
    rule: "types-file",
    file: "types/item.json",
    line: 2,
    column: 3,
    message: `"kind" is "issues.item", which does not start with "broken."`,
  }],
  "prompt-missing": [{
    rule: "prompt-file",
    file: "manifest.json",
    line: 15,
    column: 3,
    message: `prompt names "prompt/instructions.md", which does not exist`,
  }],
  "service-missing": [{
    rule: "service-file",
    file: "manifest.json",
    line: 9,
    column: 3,
    message: `service names "service/index.js", which does not exist`,
  }],
  "type-timer": [{
    rule: "type-error",
    file: "src/service.ts",
    line: 6,
    column: 7,
    message: "setTimeout is not a global in the isolate (TS2304: Cannot find name 'setTimeout')",
  }],
  "type-fetch": [{
    rule: "type-error",
    file: "src/service.ts",
    line: 6,
    column: 30,
    message: "fetch is not a global in the isolate (TS2304: Cannot find name 'fetch')",
  }],
  "type-process": [{
    rule: "type-error",
    file: "src/service.ts",
    line: 6,
    column: 22,
    message: "process is not a global in the isolate (TS2591: Cannot find name 'process')",
  }],
  "type-intl": [{
    rule: "free-global",
    file: "src/service.ts",
    line: 6,
    column: 24,
    message: "uses Intl, which the isolate does not have",
  }],
  "source-place": [{
    rule: "free-global",
    file: "src/util.ts",
    line: 2,
    column: 14,
    message: "uses Intl, which the isolate does not have",
  }],
  "type-mismatch": [{
    rule: "type-error",
    file: "src/service.ts",
    line: 6,
    column: 13,
    message: "TS2322: Type 'string' is not assignable to type 'number'.",
  }],
  "free-global": [{
    rule: "free-global",
    file: "service/index.js",
    line: 4,
    column: 26,
    message: "uses fetch, which the isolate does not have",
  }, {
    rule: "free-global",
    file: "service/index.js",
    line: 5,
    column: 7,
    message: "uses setTimeout, which the isolate does not have (2 places; the first is here)",
  }],
  "globalthis-read": [{
    rule: "free-global",
    file: "service/index.js",
    line: 6,
    column: 15,
    message: "uses TextEncoder, which the isolate does not have",
  }, {
    rule: "free-global",
    file: "service/index.js",
    line: 7,
    column: 17,
    message: "uses fetch, which the isolate does not have",
  }, {
    rule: "free-global",
    file: "service/index.js",
    line: 7,
    column: 35,
    message: "uses setTimeout, which the isolate does not have",
  }],
  "dynamic-code": [{
    rule: "dynamic-code",
    file: "service/index.js",
    line: 3,
    column: 26,
    message: "uses eval, which runs code from a string that check cannot see into",
  }, {
    rule: "dynamic-code",
    file: "service/index.js",
    line: 3,
    column: 52,
    message:
      "calls the Function constructor, which makes code from a string that check cannot see into",
  }],
  "dynamic-code-constructor": [{
    rule: "dynamic-code",
    file: "service/index.js",
    line: 4,
    column: 24,
    message: CONSTRUCTOR_MESSAGE,
  }, {
    rule: "dynamic-code",
    file: "service/index.js",
    line: 5,
    column: 52,
    message: CONSTRUCTOR_MESSAGE,
  }, {
    rule: "dynamic-code",
    file: "service/index.js",
    line: 6,
    column: 26,
    message: CONSTRUCTOR_MESSAGE,
  }],
  "foreign-import": [{
    rule: "foreign-import",
    file: "service/index.js",
    line: 2,
    column: 25,
    message: `imports "lodash"; a service module may import only "${API}"`,
  }],
  "module-syntax": [{
    rule: "module-syntax",
    file: "service/index.js",
    line: 4,
    column: 3,
    message: "does not parse as an ES module: Unexpected token",
  }],
  "module-throws": [{
    rule: "module-load",
    file: "service/index.js",
    line: 2,
    column: 28,
    message: "Loading service/index.js failed: unexpected token: 'not'",
  }],
  "register-missing": [{
    rule: "register",
    file: "service/index.js",
    line: 2,
    column: 1,
    message: "has no default export register(); it exports register by name, and the host " +
      "calls the default export",
  }],
  "register-not-function": [{
    rule: "register",
    file: "service/index.js",
    line: 1,
    column: 1,
    message: "its default export is an object, not a function register()",
  }],
  "register-throws": [{
    rule: "register",
    file: "service/index.js",
    line: 1,
    column: 1,
    message: "register() in service/index.js failed: the tracker token is not set",
  }],
  "register-returns-nothing": [{
    rule: "register",
    file: "service/index.js",
    line: 1,
    column: 1,
    message: "register() returned undefined, not an object of handlers",
  }],
  "register-class-instance": [
    {
      rule: "handler-not-returned",
      file: "manifest.json",
      line: 11,
      column: 5,
      message: `handler "broken.run" is declared but register() does not return it`,
    },
    {
      rule: "register",
      file: "service/index.js",
      line: 7,
      column: 1,
      message: "register() returned a Handlers instance, not a plain object; the host calls only " +
        "the handlers it holds as its own keys",
    },
  ],
  "register-inherited-handler": [{
    rule: "register",
    file: "service/index.js",
    line: 5,
    column: 1,
    message: "register() returned an object whose prototype is not Object.prototype, not a plain " +
      "object; the host calls only the handlers it holds as its own keys",
  }],
  "handler-not-returned": [{
    rule: "handler-not-returned",
    file: "manifest.json",
    line: 14,
    column: 5,
    message: `handler "broken.poll" is declared but register() does not return it`,
  }],
  "handler-not-declared": [{
    rule: "handler-not-declared",
    file: "service/index.js",
    line: 1,
    column: 1,
    message: `register() returns "broken.extra", which manifest.json does not declare`,
  }],
  "source-handler-not-declared": [{
    rule: "handler-not-declared",
    file: "src/service.ts",
    line: 4,
    column: 1,
    message: `register() returns "broken.extra", which manifest.json does not declare`,
  }],
  "handler-not-function": [{
    rule: "handler-not-function",
    file: "service/index.js",
    line: 1,
    column: 1,
    message: `register() returns "broken.run" as an object, not a function`,
  }],
  "work-without-permission": [{
    rule: "work-permission",
    file: "service/index.js",
    line: 6,
    column: 13,
    message: `uses work from "${API}" but the manifest does not declare the work.agent permission`,
  }],
  "work-dynamic-import": [{
    rule: "work-permission",
    file: "service/index.js",
    line: 4,
    column: 25,
    message: `may use work: it uses the whole "${API}" module (a dynamic import of it, its ` +
      `namespace as a value, a computed member or export *), but the manifest does not declare ` +
      `the work.agent permission`,
  }],
  "net-namespace-value": [{
    rule: "net-permission",
    file: "service/index.js",
    line: 3,
    column: 24,
    message: `may use net: it uses the whole "${API}" module (a dynamic import of it, its ` +
      `namespace as a value, a computed member or export *), but the manifest declares no ` +
      `net:<host> permission`,
  }],
  "net-without-permission": [{
    rule: "net-permission",
    file: "service/index.js",
    line: 5,
    column: 37,
    message: `uses net from "${API}" but the manifest declares no net:<host> permission`,
  }],
};

Deno.test("ISOLATE_GLOBALS is what handler code finds on globalThis in the real isolate", async (t) => {
  const pool = new IsolatePool({ size: 1 });
  try {
    await t.step("the list is exactly the isolate's own global names", async () => {
      const names = await pool.call({
        source: `export default function register() {
          return { "probe.globals": () => Object.getOwnPropertyNames(globalThis).sort() };
        }`,
        sourceName: "probe/service/index.js",
        packageId: "probe",
        handler: "probe.globals",
        payload: null,
        occasion: { kind: "extension" },
      }, { host: () => Promise.reject(new Error("no host functions here")) });
      assert.deepEqual(names, [...ISOLATE_GLOBALS]);
    });

    await t.step("the ES globals the isolate lacks are really absent there", async () => {
      const types = await pool.call({
        source: `export default function register() {
          return { "probe.types": (names) => names.map((name) => typeof globalThis[name]) };
        }`,
        sourceName: "probe/service/index.js",
        packageId: "probe",
        handler: "probe.types",
        payload: [...ES_GLOBALS_NOT_IN_ISOLATE, "JSON"],
        occasion: { kind: "extension" },
      }, { host: () => Promise.reject(new Error("no host functions here")) });
      assert.deepEqual(types, [...ES_GLOBALS_NOT_IN_ISOLATE.map(() => "undefined"), "object"]);
    });
  } finally {
    pool.close();
  }
});

Deno.test("typeCheckService() checks against the isolate's globals and nothing else", async (t) => {
  const dir = await Deno.makeTempDir({ prefix: "sync-check-types-" });
  const write = (source: string) =>
    Deno.mkdir(join(dir, "src"), { recursive: true }).then(() =>
      Deno.writeTextFile(join(dir, "src", "service.ts"), source)
    );
  try {
    await t.step("every isolate global type-checks", async () => {
      const uses = ISOLATE_GLOBALS.map((name) => `  typeof ${name},`).join("\n");
      await write(`export const seen = [\n${uses}\n  console.log("x"),\n];\n`);
      assert.deepEqual(await typeCheckService(dir), []);
    });

    await t.step(
      "the ES globals the isolate lacks pass the type-check, so the scan finds them",
      async () => {
        const uses = ES_GLOBALS_NOT_IN_ISOLATE.map((name) => `  ${name},`).join("\n");
        await write(`export const seen = [\n${uses}\n];\n`);
        assert.deepEqual(await typeCheckService(dir), []);
      },
    );

    await t.step("Deno, window, document, fetch and timers are errors at their lines", async () => {
      await write(
        `export const a = Deno.env;\nexport const b = window;\nexport const c = document;\n` +
          `export const d = fetch;\nexport const e = setInterval;\nexport const f = WebAssembly;\n`,
      );
      const problems = await typeCheckService(dir);
      assert.deepEqual(
        problems.map((
          p,
        ) => [p.rule, p.file, p.line, /^(\w+) is not a global/.exec(p.message)?.[1]]),
        [
          ["type-error", "src/service.ts", 1, "Deno"],
          ["type-error", "src/service.ts", 2, "window"],
          ["type-error", "src/service.ts", 3, "document"],
          ["type-error", "src/service.ts", 4, "fetch"],
          ["type-error", "src/service.ts", 5, "setInterval"],
          ["type-error", "src/service.ts", 6, "WebAssembly"],
        ],
      );
      assert.match(problems[4].hint, /no timers/);
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("scanModule() resolves scopes before calling a name free", async (t) => {
  const scan = (source: string) => {
    const result = scanModule(source, API);
    assert.ok("imports" in result, `should parse: ${JSON.stringify(result)}`);
    return result;
  };
  const free = (source: string) => scan(source).free.map((f) => f.name);

  await t.step("locals, parameters, hoisted functions and catch bindings shadow globals", () => {
    assert.deepEqual(
      free(`
        const fetch = () => 1;
        function run(setTimeout, { TextDecoder = 1 }) { var Intl = 2; return hoisted() + Intl; }
        function hoisted() { return fetch(); }
        try { run(); } catch ({ message: process }) { process; }
        for (const window of []) window;
        class Deno { m() { return Deno; } }
        export default function register() { return { a: arguments }; }
      `),
      [],
    );
  });

  await t.step("a typeof guard is not a use; a property named like a global is not one", () => {
    assert.deepEqual(
      free(
        `const has = typeof setTimeout === "function"; const o = { fetch: 1 }; o.fetch; o.Deno = 2;`,
      ),
      [],
    );
  });

  await t.step("a global read through globalThis or an alias of it is a use of that global", () => {
    assert.deepEqual(
      free(`const g = globalThis; g.fetch; globalThis.setTimeout(); globalThis["Deno"];
        const { TextDecoder: T } = globalThis; (0, globalThis).x;`),
      ["globalThis", "fetch", "setTimeout", "Deno", "TextDecoder"],
    );
    assert.deepEqual(
      free(`globalThis.answer = 42; typeof globalThis.fetch; const o = { fetch: 1 }; o.fetch;
        function f(globalThis) { return globalThis.fetch; } let g = 1; g.fetch;`),
      ["globalThis"],
      "a write, a typeof guard, a local object and a shadowed globalThis are not uses",
    );
  });

  await t.step("eval and the Function constructor are code the scan cannot see into", () => {
    const dynamic = (source: string) => scan(source).dynamicCode.map((d) => d.what);
    assert.deepEqual(dynamic(`eval("1"); const e = eval; globalThis.eval("2");`), [
      "eval",
      "eval",
      "eval",
    ]);
    assert.deepEqual(dynamic(`new Function("return 1"); Function("x", "return x");`), [
      "Function",
      "Function",
    ]);
    assert.deepEqual(
      dynamic(
        `function Function() {} new Function(); const f = (Function) => new Function(); x instanceof Function;`,
      ),
      [],
    );
  });

  await t.step(
    "the Function constructor called through a function's constructor is dynamic code",
    () => {
      const dynamic = (source: string) => scan(source).dynamicCode.map((d) => d.what);
      assert.deepEqual(
        dynamic(`(async () => {}).constructor("return 1");
        new (function* () {}).constructor("yield 1");
        Object.getPrototypeOf(async function* () {}).constructor("x");
        Reflect.getPrototypeOf(() => 1)["constructor"]("x");
        Function.prototype.constructor("x"); Function.constructor("x");
        (class {}).constructor("x");`),
        [
          "constructor",
          "constructor",
          "constructor",
          "constructor",
          "constructor",
          "constructor",
          "constructor",
        ],
      );
      assert.deepEqual(
        dynamic(`const AsyncFunction = (async () => {}).constructor; f instanceof AsyncFunction;
        new this.constructor(); x.constructor(1); o.constructor.name;
        const Object = { getPrototypeOf: () => ({ constructor: () => 1 }) };
        Object.getPrototypeOf(() => 1).constructor("x");`),
        [],
        "reading it, a constructor of what may not be a function, a shadowed Object",
      );
    },
  );

  await t.step("a block-scoped name does not leak out of its block", () => {
    assert.deepEqual(free(`{ const fetch = 1; } fetch;`), ["fetch"]);
  });

  await t.step("API bindings are followed through aliases and namespace imports", () => {
    const aliased = scan(`import { work as w, memory } from "${API}"; w.order({}); memory;`);
    assert.deepEqual([...aliased.apiUses.keys()], ["work", "memory"]);
    const namespace = scan(`import * as api from "${API}"; const f = () => api.net.fetch({});`);
    assert.deepEqual([...namespace.apiUses.keys()], ["net"]);
    const unused = scan(`import { work } from "${API}"; const work2 = 1; work2;`);
    assert.deepEqual([...unused.apiUses.keys()], []);
    const shadowed = scan(`import { net } from "${API}"; function f(net) { return net.fetch; }`);
    assert.deepEqual([...shadowed.apiUses.keys()], []);
  });

  await t.step("a use of the whole API module counts as a use of every member", () => {
    const whole = (source: string) => scan(source).apiUses.get("*");
    assert.deepEqual(whole(`const m = await import("${API}"); m.work.order({});`), {
      line: 1,
      column: 17,
    });
    assert.ok(whole(`import * as api from "${API}"; const { work } = api; work.order({});`));
    assert.ok(whole(`import * as api from "${API}"; const k = "wo" + "rk"; api[k].order({});`));
    assert.ok(whole(`import * as api from "${API}"; function f(x) { return x; } f(api);`));
    assert.ok(whole(`export * from "${API}";`));
    assert.ok(whole(`export * as api from "${API}";`));
    assert.deepEqual(
      [...scan(`export { work, net as n } from "${API}";`).apiUses.keys()],
      ["work", "net"],
    );
    assert.deepEqual([
      ...scan(`import * as api from "${API}"; api["net"].fetch({});`).apiUses.keys(),
    ], [
      "net",
    ]);
    assert.equal(whole(`import * as api from "${API}"; api.memory.list({});`), undefined);
    assert.equal(whole(`const m = await import("./other.js");`), undefined);
  });

  await t.step("static, re-exported and dynamic imports are all listed", () => {
    const { imports } = scan(
      `import "a"; export * from "b"; export { x } from "c"; const m = import("d"); import(m);`,
    );
    assert.deepEqual(imports.map((i) => [i.specifier, i.dynamic]), [
      ["a", false],
      ["b", false],
      ["c", false],
      ["d", true],
      [undefined, true],
    ]);
  });
});

Deno.test("jsonPlace() finds the line of a manifest field path", async (t) => {
  const text = `{\n  "handlers": {\n    "a.b": { "agent": { "input": {} } }\n  },\n` +
    `  "schedule": [\n    { "handler": "a.b" },\n    { "every": "1h" }\n  ]\n}\n`;
  await t.step("paths with handler names and indexes", () => {
    assert.deepEqual(parseFieldPath(`handlers["a.b"].agent.input`), [
      "handlers",
      "a.b",
      "agent",
      "input",
    ]);
    assert.deepEqual(jsonPlace(text, parseFieldPath(`handlers["a.b"].agent.input`)), {
      line: 3,
      column: 25,
    });
    assert.deepEqual(jsonPlace(text, parseFieldPath("schedule[1].every")), {
      line: 7,
      column: 7,
    });
  });
  await t.step("a missing field is placed at its nearest parent", () => {
    assert.deepEqual(jsonPlace(text, parseFieldPath("schedule[1].description")), {
      line: 7,
      column: 5,
    });
    assert.deepEqual(jsonPlace(text, ["version"]), { line: 1, column: 1 });
  });
});

Deno.test("checkPackage() refuses every broken fixture with its rule, place and message", async (t) => {
  const folders: string[] = [];
  for await (const entry of Deno.readDir(new URL("broken/", FIXTURES))) {
    if (entry.isDirectory) folders.push(entry.name);
  }
  assert.deepEqual(folders.sort(), Object.keys(BROKEN).sort(), "every fixture has expectations");
  const pool = new IsolatePool({ size: 1 });
  try {
    for (const [fixture, expected] of Object.entries(BROKEN)) {
      await t.step(`${fixture}: ${expected.map((e) => e.rule).join(", ")}`, async () => {
        const dir = await copyFixture(`broken/${fixture}/`);
        try {
          const report = await checkPackage(dir, { pool });
          assert.equal(report.ok, false);
          assert.deepEqual(report.problems.map(({ hint: _, ...problem }) => problem), expected);
          for (const problem of report.problems) {
            assert.ok(problem.hint.length > 20, `${fixture} should give a hint`);
          }
          const hasSource = await Deno.stat(join(dir, "src")).then(() => true, () => false);
          if (!hasSource) {
            // What install runs: the same problems, in the same words.
            assert.deepEqual(await checkBuiltPackage(dir, { pool }), report.problems);
          }
        } finally {
          await Deno.remove(dir, { recursive: true });
        }
      });
    }
  } finally {
    pool.close();
  }
});

Deno.test("checkBuiltPackage() places a problem for each of the most handlers a package may declare", async () => {
  const dir = await Deno.makeTempDir({ prefix: "sync-check-test-" });
  const pool = new IsolatePool({ size: 1 });
  try {
    const names = Array.from({ length: MANIFEST_LIMITS.maxHandlers }, (_, i) => `big.h${i}`);
    const text = JSON.stringify(
      {
        id: "big",
        name: "Big",
        version: "1.0.0",
        description: "Declares many handlers",
        permissions: ["background"],
        service: "service/index.js",
        handlers: Object.fromEntries(names.map((h) => [h, { description: `Does ${h}` }])),
      },
      null,
      2,
    );
    await Deno.writeTextFile(join(dir, "manifest.json"), text);
    await Deno.mkdir(join(dir, "service"));
    await Deno.writeTextFile(
      join(dir, "service", "index.js"),
      "export default function register() { return {}; }\n",
    );
    const problems = await checkBuiltPackage(dir, { pool });
    const lines = text.split("\n");
    assert.deepEqual(
      problems.map((p) => `${p.rule} ${p.line}:${p.column}`),
      names.map((h) => `handler-not-returned ${lines.indexOf(`    "${h}": {`) + 1}:5`),
    );
  } finally {
    pool.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("checkPackage() passes a clean package and says what it built", async (t) => {
  const pool = new IsolatePool({ size: 1 });
  try {
    await t.step(
      "a TypeScript package with schedule, lifecycle, agent tool, work and net",
      async () => {
        const dir = await copyFixture("clean/");
        try {
          const report = await checkPackage(dir, { pool });
          assert.deepEqual(report.problems, []);
          assert.equal(report.ok, true);
          assert.equal(report.build.outputs.length, 1);
          assert.equal(report.build.outputs[0].source, "src/service.ts");
          assert.equal(report.build.outputs[0].output, "service/index.js");
          const built = await Deno.readTextFile(join(dir, "service/index.js"));
          assert.equal(report.build.outputs[0].bytes, new TextEncoder().encode(built).byteLength);
        } finally {
          await Deno.remove(dir, { recursive: true });
        }
      },
    );

    await t.step(
      "every example in extensions/, as committed, passes what install runs",
      async () => {
        const examples = new URL("extensions/", REPO_ROOT);
        for await (const entry of Deno.readDir(examples)) {
          if (!entry.isDirectory) continue;
          const dir = new URL(`${entry.name}/`, examples).pathname;
          assert.deepEqual(await checkBuiltPackage(dir, { pool }), [], entry.name);
        }
      },
    );
  } finally {
    pool.close();
  }
});

Deno.test("IsolatePool.probe() calls register() and no handler", async (t) => {
  const pool = new IsolatePool({ size: 1 });
  const calls: string[] = [];
  try {
    await t.step(
      "a handler that would write is not called; register()'s reads are served",
      async () => {
        const report = await pool.probe({
          source: `import { memory } from "${API}";
          export default async function register() {
            await memory.list({ kind: "probe.note" });
            return { "probe.write": () => memory.write({ key: "probe.note/1" }), "probe.n": 1 };
          }`,
          sourceName: "service/index.js",
          packageId: "probe",
        }, {
          host: (fn) => {
            calls.push(fn);
            return Promise.resolve({ records: [] });
          },
        });
        assert.deepEqual(report, {
          register: "function",
          returned: "object",
          handlers: [{ name: "probe.write", type: "function" }, {
            name: "probe.n",
            type: "number",
          }],
          prototype: "plain",
        });
        assert.deepEqual(calls, ["memory.list"]);
      },
    );
  } finally {
    pool.close();
  }
});

/** Runs `main.ts check` as `deno task check` does, from the folder in `INIT_CWD`. */
async function runCheck(cwd: string, args: string[]) {
  const output = await new Deno.Command(Deno.execPath(), {
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
      ...args,
    ],
    cwd: REPO_ROOT,
    env: { INIT_CWD: cwd, NO_COLOR: "1" },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const decoder = new TextDecoder();
  return {
    code: output.code,
    stdout: decoder.decode(output.stdout),
    stderr: decoder.decode(output.stderr),
  };
}

Deno.test("main.ts check prints problems with hints, --json for tools, exit 0 only when clean", async (t) => {
  const broken = await copyFixture("broken/schedule-handler/");
  const clean = await copyFixture("clean/");
  try {
    await t.step("a broken package: file:line:col, message, hint, summary, exit 1", async () => {
      const parent = join(broken, "..");
      const relative = broken.slice(parent.length + 1);
      const { code, stdout } = await runCheck(parent, [relative]);
      assert.equal(code, 1);
      assert.match(
        stdout,
        /^manifest\.json:18:7 {2}schedule\[0\]\.handler: "broken\.poll" is not a declared handler; declared: "broken\.run"\n {2}hint: a schedule row calls a handler/m,
      );
      assert.match(stdout, /: 1 problem; fix it and run check again\n$/);
    });

    await t.step("--json prints the report", async () => {
      const { code, stdout } = await runCheck(broken, ["--json"]);
      assert.equal(code, 1);
      const report = JSON.parse(stdout);
      assert.equal(report.ok, false);
      assert.deepEqual(report.build, { outputs: [] });
      assert.deepEqual(
        report.problems.map((p: CheckProblem) => [p.rule, p.file, p.line, p.column]),
        [["schedule-handler", "manifest.json", 18, 7]],
      );
    });

    await t.step("a clean package: what was built, no problems, exit 0", async () => {
      const { code, stdout, stderr } = await runCheck(clean, []);
      assert.equal(code, 0, stderr);
      assert.match(
        stdout,
        /^Built service\/index\.js from src\/service\.ts \(\d+(\.\d)? (B|KiB)\)$/m,
      );
      assert.match(stdout, /: no problems\n$/);
      const json = await runCheck(clean, ["--json"]);
      assert.equal(json.code, 0);
      assert.equal(JSON.parse(json.stdout).ok, true);
    });

    await t.step("a folder with no manifest is refused with exit 1", async () => {
      const { code, stderr } = await runCheck(join(clean, "src"), []);
      assert.equal(code, 1);
      assert.match(stderr, /has no manifest\.json; run check in a package folder/);
    });
  } finally {
    await Deno.remove(broken, { recursive: true });
    await Deno.remove(clean, { recursive: true });
  }
});

Deno.test("`checkBuiltPackage()` lists a manifest's problems by line, and names what every accepts", async (t) => {
  const dir = await Deno.makeTempDir({ prefix: "sync-check-order-" });
  try {
    const manifest = {
      id: "order",
      name: "Order",
      version: "1.0.0",
      description: "Problems in line order",
      permissions: ["background", "schedule"],
      schedule: [
        { handler: "order.gone", description: "Runs what is not declared", every: "1h" },
        { handler: "order.run", description: "Runs", every: "30s" },
      ],
      handlers: { "order.run": { description: "Runs" } },
      service: "service/index.js",
    };
    const text = JSON.stringify(manifest, null, 2);
    await Deno.writeTextFile(join(dir, "manifest.json"), text);
    const lineOf = (needle: string) => text.slice(0, text.indexOf(needle)).split("\n").length;
    const problems = await checkBuiltPackage(dir);

    await t.step("each problem at its line, from the first line down", () => {
      assert.deepEqual(problems.map((p) => [p.message.split(":")[0], p.line]), [
        ["schedule[0].handler", lineOf('"order.gone"')],
        ["schedule[1].every", lineOf('"30s"')],
      ]);
    });

    await t.step("an unknown every is told the forms it may take", () => {
      assert.match(
        problems[1].hint,
        /a whole number, then m \(minutes\), h \(hours\) or d \(days\)/,
      );
      assert.match(problems[1].hint, /from "1m" to "30d"/);
      assert.doesNotMatch(problems[1].hint, /docs\/manifest\.md/);
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("`missingGlobalHint()` gives the general hint for a name every object inherits", () => {
  for (const name of ["constructor", "toString", "__proto__", "hasOwnProperty"]) {
    const hint = missingGlobalHint(name);
    assert.equal(typeof hint, "string", name);
    assert.match(
      hint,
      new RegExp(`^the isolate has only the language's built-ins and console; ${name} `),
    );
  }
  assert.match(missingGlobalHint("setTimeout"), /timers/);
});
