import assert from "node:assert/strict";
import {
  declaredHosts,
  handlerNames,
  type Manifest,
  parseManifest,
  validateManifest,
} from "../../runtime/packages/manifest.ts";
import { ManifestError, type ManifestIssue } from "../../runtime/errors.ts";
import { MANIFEST_LIMITS } from "../../runtime/limits.ts";

/** A manifest that uses every field. */
function fullManifest(): Record<string, unknown> {
  return {
    id: "issues",
    name: "Issues",
    version: "1.2.0",
    description: "Keeps the project's issues in memory and checks the tracker for new ones.",
    permissions: ["background", "schedule", "work.agent", "net:api.example.com", "host.processes"],
    service: "service/index.js",
    ui: "ui/index.js",
    handlers: {
      "issues.poll": {
        description: "Checks the tracker for new issues",
        agent: {
          description: "Check the tracker now",
          input: { type: "object", properties: { since: { type: "string" } } },
        },
      },
      "issues.seed": { description: "Writes the first records" },
    },
    schedule: [
      { handler: "issues.poll", description: "Checks the tracker for new issues", every: "15m" },
    ],
    lifecycle: { installed: "issues.seed", opened: "issues.poll" },
    types: ["types/issue.json"],
    prompt: "prompt/instructions.md",
    host: {
      processes: [{ id: "lsp", program: "typescript-language-server", args: ["--stdio"] }],
    },
  };
}

/** The least a manifest may say. */
function minimalManifest(): Record<string, unknown> {
  return { id: "notes", name: "Notes", version: "0.1.0", description: "Plain notes." };
}

type Segment = string | number;

/** A copy of `manifest` with the value at `path` replaced (or removed when `value` is omitted). */
function change(
  manifest: Record<string, unknown>,
  path: Segment[],
  ...value: [unknown?]
): Record<string, unknown> {
  const copy = structuredClone(manifest);
  let at: Record<Segment, unknown> = copy;
  for (const segment of path.slice(0, -1)) at = at[segment] as Record<Segment, unknown>;
  const last = path[path.length - 1];
  if (value.length === 0) delete at[last];
  else at[last] = value[0];
  return copy;
}

/** Several changes, applied in order. */
function changes(
  manifest: Record<string, unknown>,
  ...edits: Array<[Segment[], unknown?]>
): Record<string, unknown> {
  return edits.reduce(
    (m, [path, ...value]) => change(m, path, ...(value as [unknown?])),
    manifest,
  );
}

/** The issues `run` throws; fails if it does not throw a ManifestError. */
function issuesOf(run: () => unknown): ManifestIssue[] {
  try {
    run();
  } catch (error) {
    assert.ok(error instanceof ManifestError, `expected a ManifestError, got ${error}`);
    return error.issues;
  }
  assert.fail("expected a ManifestError, but the manifest was accepted");
}

/** Asserts one issue has exactly `path` and a message containing `message`. */
function assertIssue(issues: ManifestIssue[], path: string, message: string) {
  const found = issues.some((issue) => issue.path === path && issue.message.includes(message));
  assert.ok(
    found,
    `no issue at ${JSON.stringify(path)} containing ${JSON.stringify(message)}; got:\n` +
      issues.map((i) => `  ${i.path}: ${i.message}`).join("\n"),
  );
}

interface Case {
  name: string;
  manifest: unknown;
  path: string;
  message: string;
}

async function refuses(t: Deno.TestContext, cases: Case[]) {
  for (const c of cases) {
    await t.step(c.name, () => {
      assertIssue(issuesOf(() => validateManifest(c.manifest, "test")), c.path, c.message);
    });
  }
}

const full = fullManifest();
const minimal = minimalManifest();

Deno.test("`validateManifest()` accepts a valid manifest", async (t) => {
  await t.step("a full manifest returns typed data", () => {
    const manifest: Manifest = validateManifest(fullManifest(), "test");
    assert.deepEqual(manifest, fullManifest());
    assert.equal(manifest.schedule[0].every, "15m");
    assert.equal(manifest.handlers["issues.poll"].agent?.input.type, "object");
    assert.equal(manifest.host?.processes?.[0].program, "typescript-language-server");
  });

  await t.step("a minimal manifest gets defaults for permissions, handlers and schedule", () => {
    const manifest = validateManifest(minimalManifest(), "test");
    assert.deepEqual(manifest.permissions, []);
    assert.deepEqual(manifest.handlers, {});
    assert.deepEqual(manifest.schedule, []);
    assert.equal(manifest.service, undefined);
    assert.equal(manifest.host, undefined);
  });

  await t.step("pre-release and build versions are semver", () => {
    for (const version of ["1.0.0-beta.1", "1.0.0+build.5", "2.0.0-rc.1+20260101"]) {
      assert.equal(validateManifest({ ...minimal, version }, "test").version, version);
    }
  });

  await t.step("net: hosts may be IPv4 addresses and carry a port", () => {
    const permissions = ["net:10.0.0.2", "net:localhost:8080", "net:api.example.com:443"];
    assert.deepEqual(
      validateManifest({ ...minimal, permissions }, "test").permissions,
      permissions,
    );
  });

  await t.step("the host.processes permission is allowed without processes", () => {
    validateManifest({ ...minimal, permissions: ["host.processes"] }, "test");
    validateManifest({ ...minimal, permissions: ["host.processes"], host: {} }, "test");
  });

  await t.step("intervals from 1m to 30d are accepted", () => {
    for (const every of ["1m", "60m", "24h", "30d"]) {
      validateManifest(change(full, ["schedule", 0, "every"], every), "test");
    }
  });

  await t.step("exactly 32 schedule rows and 16 processes are accepted", () => {
    const row = { handler: "issues.poll", description: "Polls", every: "1h" };
    const processes = Array.from({ length: 16 }, (_, i) => ({ id: `p${i}`, program: "x" }));
    validateManifest(
      changes(full, [["schedule"], Array(32).fill(row)], [["host", "processes"], processes]),
      "test",
    );
  });
});

Deno.test("`parseManifest()` reads JSON text", async (t) => {
  await t.step("valid text returns the manifest", () => {
    const manifest = parseManifest(JSON.stringify(fullManifest(), null, 2), "issues/manifest.json");
    assert.deepEqual(manifest, fullManifest());
  });

  await t.step("a leading byte-order mark is ignored", () => {
    assert.equal(parseManifest("\uFEFF" + JSON.stringify(minimal), "test").id, "notes");
  });

  await t.step("refuses text that is not JSON, naming the line and column", () => {
    const issues = issuesOf(() => parseManifest('{\n  "id": "issues",\n  "name": }\n', "test"));
    assert.equal(issues.length, 1);
    assertIssue(issues, "", "not valid JSON at line 3, column 11");
  });

  await t.step("refuses text that ends early", () => {
    assertIssue(issuesOf(() => parseManifest('{"id": "issues"', "test")), "", "not valid JSON");
  });

  await t.step("refuses an empty file", () => {
    assertIssue(issuesOf(() => parseManifest("  \n", "test")), "", "the file is empty");
  });

  await t.step("refuses JSON that is not an object", () => {
    assertIssue(issuesOf(() => parseManifest("[1, 2]", "test")), "", "expected a JSON object");
  });

  await t.step("refuses a key written twice in one object, at the second one's line", () => {
    const text = [
      "{",
      '  "id": "notes",',
      '  "name": "Notes",',
      '  "version": "1.0.0",',
      '  "description": "Notes",',
      '  "service": "service/index.js",',
      '  "handlers": {',
      '    "notes.run": { "description": "Runs" },',
      '    "notes.run": { "description": "Runs again" }',
      "  },",
      '  "\\u0069d": "other"',
      "}",
    ].join("\n");
    const issues = issuesOf(() => parseManifest(text, "test"));
    assert.deepEqual(issues, [{
      path: "",
      message: 'the key "notes.run" appears twice in handlers, at line 9, column 5 (first at ' +
        "line 8, column 5); JSON would keep only the last one silently: keep one",
    }, {
      path: "",
      message: 'the key "id" appears twice in the manifest, at line 11, column 3 (first at ' +
        "line 2, column 3); JSON would keep only the last one silently: keep one",
    }]);
    const apart = '{"id": "notes", "handlers": {"a": {"description": "x"}}, "x": {"a": 1}}';
    assert.doesNotThrow(() => {
      try {
        parseManifest(apart, "test");
      } catch (error) {
        assert.ok(error instanceof ManifestError);
        assert.ok(!error.issues.some((i) => /appears twice/.test(i.message)), error.message);
      }
    }, "the same key in two objects is not a duplicate");
  });

  await t.step("the error message says where and lists each issue by path", () => {
    const text = JSON.stringify(change(full, ["schedule", 0, "every"], "30s"));
    assert.throws(
      () => parseManifest(text, "extensions/issues/manifest.json"),
      (error: unknown) => {
        assert.ok(error instanceof ManifestError);
        assert.match(error.message, /^Invalid manifest extensions\/issues\/manifest\.json:\n/);
        assert.match(
          error.message,
          /\n {2}schedule\[0\]\.every: "30s" is shorter than the 1m minimum/,
        );
        return true;
      },
    );
  });
});

Deno.test("`validateManifest()` refuses what is not a manifest object", async (t) => {
  await refuses(t, [
    { name: "an array", manifest: [], path: "", message: "expected a JSON object, got an array" },
    { name: "null", manifest: null, path: "", message: "expected a JSON object, got null" },
    { name: "a string", manifest: "issues", path: "", message: `got "issues"` },
  ]);
});

Deno.test("`validateManifest()` refuses missing or malformed identity fields", async (t) => {
  await refuses(t, [
    {
      name: "a missing id",
      manifest: change(full, ["id"]),
      path: "id",
      message: `required field "id" is missing`,
    },
    {
      name: "a missing name",
      manifest: change(full, ["name"]),
      path: "name",
      message: `required field "name" is missing`,
    },
    {
      name: "a missing version",
      manifest: change(full, ["version"]),
      path: "version",
      message: `required field "version" is missing`,
    },
    {
      name: "a missing description",
      manifest: change(full, ["description"]),
      path: "description",
      message: `required field "description" is missing`,
    },
    {
      name: "an id with characters outside a-z, 0-9 and -",
      manifest: change(minimal, ["id"], "is_sues"),
      path: "id",
      message: `expected an id like "issues"`,
    },
    {
      name: "an uppercase id",
      manifest: change(minimal, ["id"], "Issues"),
      path: "id",
      message: `"Issues" has uppercase letters; ids are lowercase, like "issues"`,
    },
    {
      name: "a one-letter id",
      manifest: change(minimal, ["id"], "i"),
      path: "id",
      message: `got "i"`,
    },
    {
      name: "an id that starts with a digit",
      manifest: change(minimal, ["id"], "1issues"),
      path: "id",
      message: `got "1issues"`,
    },
    {
      name: "a version that is not semver",
      manifest: change(minimal, ["version"], "1.2"),
      path: "version",
      message: `expected a semver version like "1.2.0", got "1.2"`,
    },
    {
      name: "a semver version too long to name a folder",
      manifest: change(minimal, ["version"], `1.0.0-${"a".repeat(300)}`),
      path: "version",
      message: "is 306 characters long; a version is at most 64",
    },
    {
      name: "a version with a leading v",
      manifest: change(minimal, ["version"], "v1.2.0"),
      path: "version",
      message: `(without the leading "v")`,
    },
    {
      name: "a name that is a number",
      manifest: change(minimal, ["name"], 3),
      path: "name",
      message: "expected a string, got 3",
    },
    {
      name: "an empty name",
      manifest: change(minimal, ["name"], " "),
      path: "name",
      message: "is empty; expected 1 to 80 characters",
    },
    {
      name: "a name longer than 80 characters",
      manifest: change(minimal, ["name"], "n".repeat(81)),
      path: "name",
      message: "is 81 characters long; at most 80 are allowed",
    },
    {
      name: "a description longer than 500 characters",
      manifest: change(minimal, ["description"], "d".repeat(501)),
      path: "description",
      message: "at most 500 are allowed",
    },
  ]);
});

Deno.test("`validateManifest()` refuses unknown fields, suggesting the near one", async (t) => {
  await refuses(t, [
    {
      name: "an unknown top-level field",
      manifest: { ...minimal, sevice: "service/index.js" },
      path: "sevice",
      message: `unknown field "sevice" (did you mean "service"?)`,
    },
    {
      name: "an unknown top-level field with nothing near it",
      manifest: { ...minimal, colour: "red" },
      path: "colour",
      message: `unknown field "colour"; expected "id", "name"`,
    },
    {
      name: "an unknown field in a handler",
      manifest: change(full, ["handlers", "issues.seed", "descripton"], "Seeds"),
      path: `handlers["issues.seed"].descripton`,
      message: `unknown field "descripton" (did you mean "description"?)`,
    },
    {
      name: "an unknown field in a schedule row",
      manifest: change(full, ["schedule", 0, "interval"], "15m"),
      path: "schedule[0].interval",
      message: `unknown field "interval"`,
    },
    {
      name: "an unknown field in a handler's agent",
      manifest: change(full, ["handlers", "issues.poll", "agent", "inputs"], {}),
      path: `handlers["issues.poll"].agent.inputs`,
      message: `(did you mean "input"?)`,
    },
    {
      name: "an unknown field in a host process",
      manifest: change(full, ["host", "processes", 0, "cwd"], "/tmp"),
      path: "host.processes[0].cwd",
      message: `unknown field "cwd"`,
    },
  ]);
});

Deno.test("`validateManifest()` refuses bad permissions", async (t) => {
  const withPermissions = (permissions: unknown) => ({ ...minimal, permissions });
  await refuses(t, [
    {
      name: "permissions that are not a list",
      manifest: withPermissions("background"),
      path: "permissions",
      message: `expected an array, got "background"`,
    },
    {
      name: "an unknown permission",
      manifest: withPermissions(["camera"]),
      path: "permissions[0]",
      message: `unknown permission "camera"; expected one of background, schedule`,
    },
    {
      name: "a misspelt permission",
      manifest: withPermissions(["schedule", "work:agent"]),
      path: "permissions[1]",
      message: `unknown permission "work:agent" (did you mean "work.agent"?)`,
    },
    {
      name: "net: with a scheme",
      manifest: withPermissions(["net:https://api.example.com"]),
      path: "permissions[0]",
      message: "has a scheme; write the host only",
    },
    {
      name: "net: with a path",
      manifest: withPermissions(["net:api.example.com/v1"]),
      path: "permissions[0]",
      message: "has a path; write the host only",
    },
    {
      name: "net: with a wildcard",
      manifest: withPermissions(["net:*.example.com"]),
      path: "permissions[0]",
      message: "wildcards are not supported",
    },
    {
      name: "net: with no host",
      manifest: withPermissions(["net:"]),
      path: "permissions[0]",
      message: `"net:" names no host`,
    },
    {
      name: "net: with a port out of range",
      manifest: withPermissions(["net:api.example.com:70000"]),
      path: "permissions[0]",
      message: "expected a port from 1 to 65535",
    },
    {
      name: "net: with an invalid host name",
      manifest: withPermissions(["net:api_example.com"]),
      path: "permissions[0]",
      message: "does not name a valid host",
    },
    {
      name: "net: with an IPv4 address out of range",
      manifest: withPermissions(["net:300.1.1.1"]),
      path: "permissions[0]",
      message: "does not name a valid host",
    },
    {
      name: "net: naming the unspecified address",
      manifest: withPermissions(["background", "net:0.0.0.0:47399"]),
      path: "permissions[1]",
      message: `"net:0.0.0.0:47399" names an unspecified address, which as a destination is ` +
        `this machine; to reach a server on this machine declare net:127.0.0.1:47399 instead`,
    },
    {
      name: "net: naming an address of 0/8, without a port",
      manifest: withPermissions(["net:0.1.2.3"]),
      path: "permissions[0]",
      message: "to reach a server on this machine declare net:127.0.0.1 instead",
    },
    {
      name: "a duplicate permission",
      manifest: withPermissions(["background", "schedule", "background"]),
      path: "permissions[2]",
      message: `"background" is listed twice (also permissions[0])`,
    },
  ]);
});

Deno.test("`validateManifest()` refuses a service module and handlers that do not agree", async (t) => {
  await refuses(t, [
    {
      name: "a service module without the background permission",
      manifest: change(full, ["permissions"], ["schedule", "host.processes"]),
      path: "permissions",
      message: "a service module needs the background permission",
    },
    {
      name: "a service module without handlers",
      manifest: changes(minimal, [["service"], "service/index.js"], [["permissions"], [
        "background",
      ]]),
      path: "handlers",
      message: "a service module is named but no handlers are declared",
    },
    {
      name: "handlers without a service module",
      manifest: change(full, ["service"]),
      path: "service",
      message: "handlers are declared but no service module is named",
    },
    {
      name: "a handler name not prefixed with the package id",
      manifest: change(full, ["handlers", "tracker.poll"], { description: "Polls" }),
      path: `handlers["tracker.poll"]`,
      message: `"tracker.poll" does not start with the package id "issues."`,
    },
    {
      name: "a handler name with no dot",
      manifest: change(full, ["handlers", "poll"], { description: "Polls" }),
      path: `handlers["poll"]`,
      message: `expected a handler name like "issues.poll"`,
    },
    {
      name: "a handler name whose local part starts with a digit",
      manifest: change(full, ["handlers", "issues.9poll"], { description: "Polls" }),
      path: `handlers["issues.9poll"]`,
      message: `got "issues.9poll"`,
    },
    {
      name: "a handler without a description",
      manifest: change(full, ["handlers", "issues.poll", "description"]),
      path: `handlers["issues.poll"].description`,
      message: `required field "description" is missing`,
    },
    {
      name: "a handler description longer than 300 characters",
      manifest: change(full, ["handlers", "issues.seed", "description"], "x".repeat(301)),
      path: `handlers["issues.seed"].description`,
      message: "at most 300 are allowed",
    },
    {
      name: "an agent input that is not an object",
      manifest: change(full, ["handlers", "issues.poll", "agent", "input"], ["since"]),
      path: `handlers["issues.poll"].agent.input`,
      message: "expected an object, got an array",
    },
    {
      name: `an agent input whose "type" is not "object"`,
      manifest: change(full, ["handlers", "issues.poll", "agent", "input"], { type: "string" }),
      path: `handlers["issues.poll"].agent.input.type`,
      message: `expected a JSON Schema whose "type" is "object", got "type": "string"`,
    },
    {
      name: "handlers that are a list",
      manifest: change(full, ["handlers"], ["issues.poll"]),
      path: "handlers",
      message: "expected an object, got an array",
    },
  ]);
});

Deno.test("`validateManifest()` refuses more handlers than a package may declare, in one issue", async (t) => {
  const withHandlers = (count: number, handler: Record<string, unknown>) =>
    change(
      full,
      ["handlers"],
      Object.fromEntries([
        ...Object.entries(full.handlers as Record<string, unknown>),
        ...Array.from({ length: count - 2 }, (_, i) => [`issues.h${i}`, handler]),
      ]),
    );
  await t.step("the most a package may declare is accepted", () => {
    validateManifest(withHandlers(MANIFEST_LIMITS.maxHandlers, { description: "Does it" }), "test");
  });
  await t.step("one more is refused, and its handlers are not each reported", () => {
    const issues = issuesOf(() => validateManifest(withHandlers(20_000, {}), "test"));
    assert.equal(issues.length, 1, `${issues.length} issues, the first: ${issues[0]?.message}`);
    assert.deepEqual(issues, [{
      path: "handlers",
      message: `declares 20000 handlers; at most ${MANIFEST_LIMITS.maxHandlers} are allowed`,
    }]);
  });
});

Deno.test("`validateManifest()` refuses bad schedules", async (t) => {
  const every = (value: string) => change(full, ["schedule", 0, "every"], value);
  await refuses(t, [
    {
      name: "a schedule without the schedule permission",
      manifest: change(full, ["permissions"], ["background", "host.processes"]),
      path: "permissions",
      message: "a schedule needs the schedule permission",
    },
    {
      name: "a schedule row without a description",
      manifest: change(full, ["schedule", 0, "description"]),
      path: "schedule[0].description",
      message: `required field "description" is missing`,
    },
    {
      name: "an interval in seconds",
      manifest: every("30s"),
      path: "schedule[0].every",
      message: `"30s" is shorter than the 1m minimum`,
    },
    {
      name: "a zero interval",
      manifest: every("0m"),
      path: "schedule[0].every",
      message: `"0m" is zero`,
    },
    {
      name: "an interval in weeks",
      manifest: every("1w"),
      path: "schedule[0].every",
      message: `unknown unit "w" in "1w"`,
    },
    {
      name: "cron syntax",
      manifest: every("*/5 * * * *"),
      path: "schedule[0].every",
      message: "cron syntax is not supported; use an interval like 15m, 1h or 1d",
    },
    {
      name: "an interval over 30 days",
      manifest: every("31d"),
      path: "schedule[0].every",
      message: `"31d" is longer than the 30d maximum`,
    },
    {
      name: "a schedule row naming an undeclared handler",
      manifest: change(full, ["schedule", 0, "handler"], "issues.pol"),
      path: "schedule[0].handler",
      message: `"issues.pol" is not a declared handler; declared: "issues.poll", "issues.seed"`,
    },
    {
      name: "more than 32 schedule rows",
      manifest: change(
        full,
        ["schedule"],
        Array(33).fill({ handler: "issues.poll", description: "Polls", every: "1h" }),
      ),
      path: "schedule",
      message: "has 33 rows; at most 32 are allowed",
    },
  ]);
});

Deno.test("`validateManifest()` refuses bad lifecycle moments", async (t) => {
  await refuses(t, [
    {
      name: "a lifecycle moment naming an undeclared handler",
      manifest: change(full, ["lifecycle", "installed"], "issues.setup"),
      path: "lifecycle.installed",
      message: `"issues.setup" is not a declared handler; declared: "issues.poll", "issues.seed"`,
    },
    {
      name: "an unknown lifecycle moment",
      manifest: change(full, ["lifecycle", "install"], "issues.seed"),
      path: "lifecycle.install",
      message: `unknown field "install" (did you mean "installed"?)`,
    },
    {
      name: "a lifecycle handler when no handlers are declared",
      manifest: { ...minimal, lifecycle: { removed: "notes.tidy" } },
      path: "lifecycle.removed",
      message: `"notes.tidy" is not a declared handler; no handlers are declared`,
    },
  ]);
});

Deno.test("`validateManifest()` refuses paths that leave the package", async (t) => {
  await refuses(t, [
    {
      name: "a types path with ..",
      manifest: change(full, ["types"], ["../other/types/issue.json"]),
      path: "types[0]",
      message: `contains ".."; paths may not leave the package`,
    },
    {
      name: "a types path not ending in .json",
      manifest: change(full, ["types"], ["types/issue.json", "types/comment.ts"]),
      path: "types[1]",
      message: `does not end in ".json"`,
    },
    {
      name: "an absolute service path",
      manifest: change(full, ["service"], "/service/index.js"),
      path: "service",
      message: `"/service/index.js" is absolute`,
    },
    {
      name: "a Windows drive service path",
      manifest: change(full, ["service"], "C:/service/index.js"),
      path: "service",
      message: "is absolute",
    },
    {
      name: "a ui path with a backslash",
      manifest: change(full, ["ui"], "ui\\index.js"),
      path: "ui",
      message: `contains a backslash; use "/" between folders`,
    },
    {
      name: "a prompt path with an empty segment",
      manifest: change(full, ["prompt"], "prompt//instructions.md"),
      path: "prompt",
      message: "has an empty segment",
    },
    {
      name: "a path starting with ./",
      manifest: change(full, ["ui"], "./ui/index.js"),
      path: "ui",
      message: `contains "."`,
    },
  ]);
});

Deno.test("`validateManifest()` refuses bad host processes", async (t) => {
  const process = (i: number) => ({ id: `p${i}`, program: "server" });
  await refuses(t, [
    {
      name: "more than 16 processes",
      manifest: change(
        full,
        ["host", "processes"],
        Array.from({ length: 17 }, (_, i) => process(i)),
      ),
      path: "host.processes",
      message: "declares 17 processes; at most 16 are allowed",
    },
    {
      name: "a duplicate process id",
      manifest: change(full, ["host", "processes"], [process(1), process(2), process(1)]),
      path: "host.processes[2].id",
      message: `process id "p1" is used twice (also host.processes[0].id)`,
    },
    {
      name: "processes without the host.processes permission",
      manifest: change(full, ["permissions"], ["background", "schedule"]),
      path: "permissions",
      message: "needs the host.processes permission",
    },
    {
      name: "a process id with uppercase letters",
      manifest: change(full, ["host", "processes", 0, "id"], "LSP"),
      path: "host.processes[0].id",
      message: `expected a process id like "lsp"`,
    },
    {
      name: "an empty program",
      manifest: change(full, ["host", "processes", 0, "program"], ""),
      path: "host.processes[0].program",
      message: "is empty; expected a program to run",
    },
    {
      name: "arguments that are not strings",
      manifest: change(full, ["host", "processes", 0, "args"], ["--port", 8080]),
      path: "host.processes[0].args[1]",
      message: "expected a string, got 8080",
    },
  ]);
});

Deno.test("`validateManifest()` refuses with every problem at once", () => {
  const manifest = changes(
    full,
    [["id"], "Issues"],
    [["version"], "1.2"],
    [["schedule", 0, "every"], "30s"],
    [["lifecycle", "installed"], "issues.setup"],
    [["permissions"], ["schedule", "schedule", "host.processes"]],
    [["colour"], "red"],
  );
  const issues = issuesOf(() => validateManifest(manifest, "test"));
  assert.deepEqual(issues.map((issue) => issue.path), [
    "id",
    "version",
    "permissions[1]",
    "permissions",
    "schedule[0].every",
    "lifecycle.installed",
    "colour",
  ]);
});

Deno.test("`handlerNames()` and `declaredHosts()` read a validated manifest", async (t) => {
  const manifest = validateManifest(
    change(full, ["permissions"], [
      "background",
      "schedule",
      "net:api.example.com",
      "host.processes",
      "net:10.0.0.2:8080",
    ]),
    "test",
  );
  await t.step("handlerNames lists the declared handlers in order", () => {
    assert.deepEqual(handlerNames(manifest), ["issues.poll", "issues.seed"]);
  });
  await t.step("declaredHosts lists the net: hosts with their ports", () => {
    assert.deepEqual(declaredHosts(manifest), ["api.example.com", "10.0.0.2:8080"]);
  });
  await t.step("a minimal manifest has neither", () => {
    const bare = validateManifest(minimalManifest(), "test");
    assert.deepEqual(handlerNames(bare), []);
    assert.deepEqual(declaredHosts(bare), []);
  });
});

Deno.test("`parseManifest()` refuses a handler named like what every object inherits, naming its path", async (t) => {
  const names = [...new Set([...Object.getOwnPropertyNames(Object.prototype), "__proto__"])];
  for (const name of names) {
    await t.step(name, () => {
      const text = JSON.stringify({
        ...minimalManifest(),
        permissions: ["background"],
        service: "service/index.js",
        handlers: { "notes.run": { description: "Runs" } },
      }).replace(`"handlers":{`, `"handlers":{${JSON.stringify(name)}:{"description":"Hidden"},`);
      const issues = issuesOf(() => parseManifest(text, "manifest.json"));
      assert.deepEqual(issues, [{
        path: `handlers[${JSON.stringify(name)}]`,
        message: `expected a handler name like "notes.poll" (the package id, a dot, then a ` +
          `letter and up to 63 letters, digits, "_" or "-"), got ${JSON.stringify(name)}`,
      }]);
    });
  }
});

Deno.test("`parseManifest()` refuses an id every object inherits, naming its path", () => {
  const text = JSON.stringify({ ...minimalManifest(), id: "constructor" });
  assert.deepEqual(
    issuesOf(() => parseManifest(text, "manifest.json")).filter((i) => i.path === "id"),
    [{
      path: "id",
      message:
        '"constructor" cannot be an id: every JavaScript object has a property of that name; ' +
        "choose another",
    }],
  );
});

Deno.test("`parseManifest()` refuses an id Sync writes kinds under, saying what they are", () => {
  const text = JSON.stringify({ ...minimalManifest(), id: "chat" });
  assert.deepEqual(
    issuesOf(() => parseManifest(text, "manifest.json")).filter((i) => i.path === "id"),
    [{
      path: "id",
      message: "the id chat is Sync's own: its records are the conversations Chat keeps " +
        "(chat.conversation); choose another id",
    }],
  );
});

/** A manifest whose package is an applet: a Maildir read on a schedule, on change and on demand. */
function appletManifest(): Record<string, unknown> {
  return {
    id: "mail",
    name: "Mail",
    version: "1.0.0",
    description: "Reads your mail.",
    permissions: ["background", "account.folder"],
    service: "service/index.js",
    handlers: {
      "mail.sync": { description: "Reads new and changed mail" },
      "mail.analyze": { description: "Finds what mail asks of you" },
    },
    device: {
      name: "Mail",
      description: "Reads a Maildir folder: the one mbsync, offlineimap or notmuch keep",
      modes: ["scheduled", "observation", "on-demand"],
      account: {
        kind: "folder",
        description: "Your Maildir (the folder holding cur/, new/ and tmp/)",
      },
      tasks: {
        sync: { handler: "mail.sync", every: "15m", description: "Reads new and changed mail" },
      },
    },
  };
}

/** A website device: a site a person opens, with nothing that runs. */
function websiteManifest(): Record<string, unknown> {
  return {
    ...minimalManifest(),
    id: "webmail",
    device: {
      name: "Webmail",
      description: "Your mail provider's site",
      modes: ["website"],
      url: "https://mail.example.com/inbox",
    },
  };
}

Deno.test("`validateManifest()` accepts a device", async (t) => {
  const applet = appletManifest();

  await t.step("a folder device returns its declaration as written", () => {
    const manifest = validateManifest(appletManifest(), "test");
    assert.deepEqual(manifest.device, applet.device);
    assert.equal(manifest.device?.tasks.sync?.every, "15m");
    assert.equal(manifest.device?.account?.kind, "folder");
  });

  await t.step("a remote device on demand, with sync and analyze and no intervals", () => {
    const manifest = validateManifest(
      changes(
        applet,
        [["permissions"], ["background", "account.remote"]],
        [["device", "modes"], ["on-demand"]],
        [["device", "account", "kind"], "remote"],
        [["device", "tasks"], {
          sync: { handler: "mail.sync", description: "Reads" },
          analyze: { handler: "mail.analyze", description: "Finds" },
        }],
      ),
      "test",
    );
    assert.deepEqual(Object.keys(manifest.device!.tasks), ["sync", "analyze"]);
  });

  await t.step("a website device has no account, and its tasks default to none", () => {
    const manifest = validateManifest(websiteManifest(), "test");
    assert.equal(manifest.device?.url, "https://mail.example.com/inbox");
    assert.equal(manifest.device?.account, undefined);
    assert.deepEqual(manifest.device?.tasks, {});
  });

  await t.step("the account permissions are allowed without a device", () => {
    validateManifest({ ...minimal, permissions: ["account.folder", "account.remote"] }, "test");
  });

  await t.step("a package without a device has none", () => {
    assert.equal(validateManifest(minimalManifest(), "test").device, undefined);
  });
});

Deno.test("`validateManifest()` refuses a bad device, at the field to change", async (t) => {
  const applet = appletManifest();
  const website = websiteManifest();
  await refuses(t, [
    {
      name: "an unknown mode, with a guess",
      manifest: change(applet, ["device", "modes", 0], "schedule"),
      path: "device.modes[0]",
      message: `got "schedule" (did you mean "scheduled"?)`,
    },
    {
      name: "no modes",
      manifest: change(applet, ["device", "modes"], []),
      path: "device.modes",
      message: "is empty; expected one or more of",
    },
    {
      name: "a mode listed twice",
      manifest: change(applet, ["device", "modes"], ["on-demand", "scheduled", "on-demand"]),
      path: "device.modes[2]",
      message: `"on-demand" is listed twice (also device.modes[0])`,
    },
    {
      name: "a task handler that is not declared",
      manifest: change(applet, ["device", "tasks", "sync", "handler"], "mail.fetch"),
      path: "device.tasks.sync.handler",
      message: `"mail.fetch" is not a declared handler; declared: "mail.sync", "mail.analyze"`,
    },
    {
      name: "observation without a folder account",
      manifest: changes(
        applet,
        [["permissions"], ["background", "account.remote"]],
        [["device", "account", "kind"], "remote"],
      ),
      path: "device.modes[1]",
      message: `"observation" watches a folder for changes, and this device's account is "remote"`,
    },
    {
      name: "scheduled with a task without every",
      manifest: change(applet, ["device", "tasks", "sync", "every"]),
      path: "device.tasks.sync.every",
      message: `required field "every" is missing: a scheduled device runs each task`,
    },
    {
      name: "a task's every that is not an interval",
      manifest: change(applet, ["device", "tasks", "sync", "every"], "30s"),
      path: "device.tasks.sync.every",
      message: `"30s" is shorter than the 1m minimum`,
    },
    {
      name: "a folder account without account.folder",
      manifest: change(applet, ["permissions"], ["background"]),
      path: "permissions",
      message: "a folder account (device.account) needs the account.folder permission",
    },
    {
      name: "a remote account without account.remote",
      manifest: changes(
        applet,
        [["device", "modes"], ["on-demand"]],
        [["device", "account", "kind"], "remote"],
      ),
      path: "permissions",
      message: "a remote account (device.account) needs the account.remote permission",
    },
    {
      name: "an account of an unknown kind",
      manifest: change(applet, ["device", "account", "kind"], "imap"),
      path: "device.account.kind",
      message: `expected "folder" or "remote", got "imap"`,
    },
    {
      name: "an account without a description",
      manifest: change(applet, ["device", "account", "description"], " "),
      path: "device.account.description",
      message: "is empty; expected 1 to 300 characters",
    },
    {
      name: "a device without an account",
      manifest: change(applet, ["device", "account"]),
      path: "device.account",
      message: `required field "account" is missing`,
    },
    {
      name: "a device without tasks",
      manifest: change(applet, ["device", "tasks"]),
      path: "device.tasks",
      message: `required field "tasks" is missing`,
    },
    {
      name: "tasks without sync",
      manifest: change(applet, ["device", "tasks"], {
        analyze: { handler: "mail.analyze", description: "Finds", every: "1h" },
      }),
      path: "device.tasks.sync",
      message: `required field "sync" is missing`,
    },
    {
      name: "a task of another name",
      manifest: change(applet, ["device", "tasks", "fetch"], {
        handler: "mail.sync",
        description: "x",
      }),
      path: "device.tasks.fetch",
      message: `unknown field "fetch"; expected "sync", "analyze"`,
    },
    {
      name: "a misspelt field of a device",
      manifest: change(applet, ["device", "mode"], ["scheduled"]),
      path: "device.mode",
      message: `unknown field "mode" (did you mean "modes"?)`,
    },
    {
      name: "a device without a name",
      manifest: change(applet, ["device", "name"]),
      path: "device.name",
      message: `required field "name" is missing`,
    },
    {
      name: "a task without a description",
      manifest: change(applet, ["device", "tasks", "sync", "description"]),
      path: "device.tasks.sync.description",
      message: `required field "description" is missing`,
    },
    {
      name: "a url on a device that is not a website",
      manifest: change(applet, ["device", "url"], "https://mail.example.com"),
      path: "device.url",
      message: "only a website device has a url",
    },
    {
      name: "a website without a url",
      manifest: change(website, ["device", "url"]),
      path: "device.url",
      message: `required field "url" is missing: a website device opens at its https address`,
    },
    {
      name: "a website with tasks",
      manifest: change(website, ["device", "tasks"], {}),
      path: "device.tasks",
      message: "a website device runs no tasks",
    },
    {
      name: "a website with an account",
      manifest: change(website, ["device", "account"], { kind: "folder", description: "x" }),
      path: "device.account",
      message: "a website device has no account to read",
    },
    {
      name: "a website beside other modes",
      manifest: change(website, ["device", "modes"], ["website", "on-demand"]),
      path: "device.modes",
      message: `"website" stands alone`,
    },
    {
      name: "a website at http",
      manifest: change(website, ["device", "url"], "http://mail.example.com"),
      path: "device.url",
      message: `"http://mail.example.com" is not https`,
    },
    {
      name: "a website url with a password",
      manifest: change(website, ["device", "url"], "https://ada:secret@mail.example.com"),
      path: "device.url",
      message: "holds a user or password",
    },
    {
      name: "a website url longer than the limit",
      manifest: change(
        website,
        ["device", "url"],
        `https://mail.example.com/${"a".repeat(MANIFEST_LIMITS.maxDeviceUrlChars)}`,
      ),
      path: "device.url",
      message: `characters long; at most ${MANIFEST_LIMITS.maxDeviceUrlChars} are allowed`,
    },
    {
      name: "a website url that is no URL",
      manifest: change(website, ["device", "url"], "mail.example.com"),
      path: "device.url",
      message: `"mail.example.com" is not a URL`,
    },
  ]);

  await t.step("every problem of a device at once, after the fields before it", () => {
    const manifest = changes(
      applet,
      [["version"], "1.0"],
      [["permissions"], ["background"]],
      [["device", "modes"], ["scheduled", "observation", "website"]],
      [["device", "tasks", "sync", "every"]],
    );
    const issues = issuesOf(() => validateManifest(manifest, "test"));
    assert.deepEqual(issues.map((issue) => issue.path), [
      "version",
      "permissions",
      "device.modes",
      "device.url",
      "device.account",
      "device.tasks",
      "device.tasks.sync.every",
    ]);
  });
});
