import assert from "node:assert/strict";
import { join, relative } from "node:path";
import * as appletKeys from "../runtime/applets/keys.ts";
import * as clockKeys from "../runtime/clock/keys.ts";
import * as hostKeys from "../runtime/host/keys.ts";
import * as memoryKeys from "../runtime/memory/keys.ts";
import * as modelKeys from "../runtime/models/keys.ts";
import * as packageKeys from "../runtime/packages/keys.ts";
import * as projectKeys from "../runtime/projects/keys.ts";
import * as workKeys from "../runtime/work/keys.ts";

/**
 * A place that spells a KV key: an array literal where a key or prefix goes,
 * a prefix cut from a built key, or a key builder.
 */
interface KeyLiteral {
  /** 1-based. */
  line: number;
  /** The source line, trimmed. */
  text: string;
}

// Where a KV key or prefix is written: the first argument of a KV read or
// mutation, a key-ish property, a variable named for a key, a loop over keys.
// An array literal there spells a key outside its domain's keys.ts.
const KEY_PLACES: RegExp[] = [
  /\.(?:get|set|delete|sum|min|max|check)(?:<[^>()]*>)?\(\s*\[/g,
  /\.(?:getMany|watch)(?:<[^>()]*>)?\(\s*\[\s*\[/g,
  /\b(?:key|prefix|start|end)\s*:\s*\[/g,
  /\b(?:const|let|var)\s+\w*(?:[kK]ey|[pP]refix)\s*(?::[^=;]*)?=\s*\[/g,
  /:\s*Deno\.KvKey\s*=\s*\[/g,
  /\bfor\s*\(\s*(?:const|let|var)\s+\w*(?:[kK]ey|[pP]refix)\s+of\s*\[\s*\[/g,
  // A prefix cut from a built key: the keys.ts should build the prefix.
  /\w(?:Key|Prefix)\([^()]*\)\s*(?:\[|\.slice\()/g,
  // A key builder: the rule is that they live in keys.ts.
  /\)\s*:\s*Deno\.KvKey\s*(?:\{|=>)/g,
];

/** Whether the `/` at `at` starts a regular expression rather than dividing. */
function startsRegExp(source: string, at: number, previous: string): boolean {
  if (previous === "" || /[(,=:[!&|?{};+\-*%<>~^]/.test(previous)) return true;
  return /\b(?:return|typeof|case|in|of|void|yield|await|throw|new|else|do)\s*$/
    .test(source.slice(Math.max(0, at - 12), at));
}

/**
 * Blanks comments and the text of strings, templates and regular expressions
 * (keeping line breaks), so that only code is matched.
 */
function codeOnly(source: string): string {
  const out = source.split("");
  const blank = (from: number, to: number) => {
    for (let i = from; i < to; i++) if (out[i] !== "\n") out[i] = " ";
  };
  // Brace depth at which each open template's `${…}` returns to its text.
  const templates: number[] = [];
  let depth = 0;
  let i = 0;
  // The last code character that is not white space; decides whether `/` starts a regexp.
  let previous = "";
  while (i < source.length) {
    const c = source[i];
    const next = source[i + 1];
    if (c === "/" && next === "/") {
      const end = source.indexOf("\n", i);
      const stop = end < 0 ? source.length : end;
      blank(i, stop);
      i = stop;
    } else if (c === "/" && next === "*") {
      const end = source.indexOf("*/", i + 2);
      const stop = end < 0 ? source.length : end + 2;
      blank(i, stop);
      i = stop;
    } else if (c === '"' || c === "'") {
      let j = i + 1;
      while (j < source.length && source[j] !== c && source[j] !== "\n") {
        j += source[j] === "\\" ? 2 : 1;
      }
      blank(i + 1, j);
      i = j + 1;
      previous = c;
    } else if (c === "`" || (c === "}" && templates.at(-1) === depth)) {
      if (c === "}") templates.pop();
      let j = i + 1;
      while (
        j < source.length && source[j] !== "`" && !(source[j] === "$" && source[j + 1] === "{")
      ) {
        j += source[j] === "\\" ? 2 : 1;
      }
      blank(i + 1, j);
      if (source[j] === "$") {
        templates.push(depth);
        i = j + 2;
        previous = "{";
      } else {
        i = j + 1;
        previous = "`";
      }
    } else if (c === "/" && startsRegExp(source, i, previous)) {
      let j = i + 1;
      let inClass = false;
      while (j < source.length && source[j] !== "\n" && (inClass || source[j] !== "/")) {
        if (source[j] === "[") inClass = true;
        else if (source[j] === "]") inClass = false;
        j += source[j] === "\\" ? 2 : 1;
      }
      blank(i + 1, j);
      i = j + 1;
      previous = "/";
    } else {
      if (c === "{") depth++;
      else if (c === "}") depth--;
      if (!/\s/.test(c)) previous = c;
      i++;
    }
  }
  return out.join("");
}

/**
 * Finds array literals written where a Deno KV key or prefix goes, and key
 * builders (functions answering `Deno.KvKey`): outside a domain's `keys.ts`
 * each one spells a key that module should build.
 *
 * @param source A TypeScript module's text.
 * @returns Each place once, by line, in source order.
 */
function findKeyLiterals(source: string): KeyLiteral[] {
  const code = codeOnly(source);
  const lines = source.split("\n");
  const found = new Map<number, KeyLiteral>();
  for (const pattern of KEY_PLACES) {
    for (const match of code.matchAll(pattern)) {
      const line = code.slice(0, match.index).split("\n").length;
      found.set(line, { line, text: lines[line - 1].trim() });
    }
  }
  return [...found.values()].sort((a, b) => a.line - b.line);
}

/**
 * Every `file:line: text` under `root` where a key is spelled outside a
 * `keys.ts` module, paths relative to `root`'s parent.
 */
async function keyLiteralsUnder(root: string): Promise<string[]> {
  const places: string[] = [];
  const walk = async (dir: string): Promise<void> => {
    const entries = [];
    for await (const entry of Deno.readDir(dir)) entries.push(entry);
    entries.sort((a, b) => a.name < b.name ? -1 : 1);
    for (const entry of entries) {
      const path = join(dir, entry.name);
      if (entry.isDirectory) await walk(path);
      else if (entry.name.endsWith(".ts") && entry.name !== "keys.ts") {
        const shown = relative(join(root, ".."), path);
        for (const { line, text } of findKeyLiterals(await Deno.readTextFile(path))) {
          places.push(`${shown}:${line}: ${text}`);
        }
      }
    }
  };
  await walk(root);
  return places;
}

/** Fails naming each `file:line` under `root` that spells a KV key outside a keys.ts. */
async function assertKeysOnlyInKeyModules(root: string): Promise<void> {
  const places = await keyLiteralsUnder(root);
  assert.equal(
    places.length,
    0,
    `KV keys and prefixes are built in their domain's keys.ts; these spell one:\n` +
      places.join("\n"),
  );
}

Deno.test("`findKeyLiterals()` finds array literals where a KV key or prefix goes", async (t) => {
  await t.step("as the key of a read, a write or a delete", () => {
    const source = [
      `const a = await kv.get<ProjectInfo>(["project", path]);`,
      `await kv.set([ "approval", project, id ], approval);`,
      `await kv.delete(\n  ["clock_lease"],\n);`,
      `const many = await kv.getMany([["a"], ["b"]]);`,
      `op.sum(["receipt_count", project, id], 1n);`,
    ].join("\n");
    assert.deepEqual(findKeyLiterals(source).map((found) => found.line), [1, 2, 3, 6, 7]);
  });

  await t.step("as a listing's prefix, start or end, and in a check", () => {
    const source = [
      `for await (const e of kv.list({ prefix: ["project"] })) {}`,
      `kv.list({ start: ["record", a], end: ["record", b] });`,
      `await kv.atomic().check({ key: ["lease"], versionstamp: null }).commit();`,
    ].join("\n");
    assert.deepEqual(findKeyLiterals(source).map((found) => found.line), [1, 2, 3]);
  });

  await t.step("held in a variable or looped over by a name that says key or prefix", () => {
    const source = [
      `const key = ["running", project, id, handler];`,
      `const stampKey: Deno.KvKey = ["schedule_stamp", project];`,
      `let listed: Deno.KvKey = ["x"];`,
      `for (const prefix of [["schedule_stamp", p], ["schedule_skip", p]]) {}`,
    ].join("\n");
    assert.deepEqual(findKeyLiterals(source).map((found) => found.line), [1, 2, 3, 4]);
  });

  await t.step("a prefix cut from a built key", () => {
    const source = [
      `const marks = await listByProject(kv, scheduleSkipKey("")[0] as string);`,
      `const chunks = contentChunkKey(key, "", 0).slice(0, 2);`,
      `const head = entry.key[0];`,
    ].join("\n");
    assert.deepEqual(findKeyLiterals(source).map((found) => found.line), [1, 2]);
  });

  await t.step("a key builder outside keys.ts", () => {
    const source = [
      `export function projectKey(path: string): Deno.KvKey {`,
      `  return [PROJECT, path];`,
      `}`,
      `const leaseKey = (): Deno.KvKey => LEASE;`,
    ].join("\n");
    assert.deepEqual(findKeyLiterals(source), [
      { line: 1, text: "export function projectKey(path: string): Deno.KvKey {" },
      { line: 4, text: "const leaseKey = (): Deno.KvKey => LEASE;" },
    ]);
  });

  await t.step("not builder calls, other arrays, comments or strings", () => {
    const source = [
      `const entry = await kv.get<ProjectInfo>(projectKey(path));`,
      `for await (const e of kv.list({ prefix: projectsPrefix() })) {}`,
      `const keys: Deno.KvKey[] = [scheduleOutcomesKey(project, id)];`,
      `const [stamp, outcomes] = await kv.getMany<[A, B[]]>([stampKey, outcomesKey]);`,
      `for (const prefix of [stampsPrefix(p), skipsPrefix(p)]) {}`,
      `if (!["GET", "HEAD"].includes(method)) seen.set(name, [1]);`,
      `add(["permissions", i], "listed twice");`,
      `// kv.get(["project", path]) in a comment`,
      `/* kv.set(["a"], 1) */ const note = 'kv.delete(["b"])';`,
      "const shown = `kv.list({ prefix: [${head}] }) ${kv.get(x)}`;",
      `const pattern = /kv\\.get\\(\\["project"/;`,
      `function test(s) { return /"\\[/.test(s); }`,
      `function listByProject(kv: Deno.Kv, prefix: Deno.KvKey): void {}`,
    ].join("\n");
    assert.deepEqual(findKeyLiterals(source), []);
  });

  await t.step("code after a template or a regexp is still read", () => {
    const source = [
      'const a = `x ${`nested ${1}`} y`; kv.get(["after-template"]);',
      `const b = /["'\`]/g; kv.get(["after-regexp"]);`,
    ].join("\n");
    assert.deepEqual(findKeyLiterals(source).map((found) => found.line), [1, 2]);
  });
});

Deno.test("`runtime/` spells KV keys only in its domains' keys.ts", async (t) => {
  const runtime = new URL("../runtime", import.meta.url).pathname;

  await t.step("no module outside a keys.ts spells a key or a prefix", async () => {
    await assertKeysOnlyInKeyModules(runtime);
  });

  await t.step("every domain's keys.ts builds keys, so the scan looks where they are", async () => {
    for (const domain of ["packages", "projects", "memory", "host", "clock", "work", "models"]) {
      const source = await Deno.readTextFile(join(runtime, domain, "keys.ts"));
      assert.ok(findKeyLiterals(source).length > 0, `${domain}/keys.ts builds no key`);
    }
  });

  await t.step("a planted bad line fails the scan, naming its file and line", async () => {
    const dir = await Deno.makeTempDir({ prefix: "sync-keys-" });
    try {
      const root = join(dir, "runtime");
      await Deno.mkdir(join(root, "web", "api"), { recursive: true });
      await Deno.mkdir(join(root, "projects"), { recursive: true });
      // A keys.ts may spell keys; a module beside it may not.
      await Deno.copyFile(join(runtime, "projects", "keys.ts"), join(root, "projects", "keys.ts"));
      const route = join("web", "api", "projects.ts");
      const app = (await Deno.readTextFile(join(runtime, route))).split("\n");
      const at = app.findIndex((line) => line.includes("prefix: projectsPrefix()"));
      assert.ok(at >= 0, "web/api/projects.ts lists projects by projectsPrefix()");
      app[at] = app[at].replace("prefix: projectsPrefix()", `prefix: ["project"]`);
      await Deno.writeTextFile(join(root, route), app.join("\n"));

      await assert.rejects(
        () => assertKeysOnlyInKeyModules(root),
        (error: Error) => {
          assert.match(error.message, new RegExp(`runtime/web/api/projects\\.ts:${at + 1}: `));
          assert.match(error.message, /prefix: \["project"\]/);
          assert.doesNotMatch(error.message, /projects\/keys\.ts:/);
          return true;
        },
      );
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  });
});

Deno.test("the keys.ts builders answer the shapes stored data is under", async (t) => {
  // Installations and project memories already hold entries under these
  // shapes; a builder that answered another would lose them without a word.
  await t.step("packages", () => {
    assert.deepEqual(packageKeys.packageRefKey("issues"), ["package_ref", "issues"]);
    assert.deepEqual(packageKeys.approvalKey("/p", "issues"), ["approval", "/p", "issues"]);
    assert.deepEqual(packageKeys.approvalsPrefix(), ["approval"]);
  });

  await t.step("projects", () => {
    assert.deepEqual(projectKeys.projectKey("/p"), ["project", "/p"]);
    assert.deepEqual(projectKeys.projectsPrefix(), ["project"]);
  });

  await t.step("memory", () => {
    assert.deepEqual(memoryKeys.recordKey("a.b/c"), ["record", "a.b/c"]);
    assert.deepEqual(memoryKeys.recordsPrefix(), ["record"]);
    assert.deepEqual(memoryKeys.contentChunkKey("a.b/c", "id", 2), ["content", "a.b/c", "id", 2]);
    assert.deepEqual(memoryKeys.generationKey("issues"), ["generation", "issues"]);
    assert.deepEqual(memoryKeys.accountEpochKey("mail"), ["account_epoch", "mail"]);
    assert.deepEqual(memoryKeys.kindCommitsKey("mail.thread"), ["kind_commits", "mail.thread"]);
    assert.deepEqual(memoryKeys.packageRecordsRange("mail", "record"), {
      start: ["record", "mail."],
      end: ["record", "mail/"],
    });
  });

  await t.step("host", () => {
    assert.deepEqual(hostKeys.receiptKey("/p", "x", "r1"), ["receipt", "/p", "x", "r1"]);
    assert.deepEqual(hostKeys.receiptsPrefix("/p", "x"), ["receipt", "/p", "x"]);
    assert.deepEqual(hostKeys.receiptIndexKey("/p", "r1"), ["receipt_by_time", "/p", "r1"]);
    assert.deepEqual(hostKeys.receiptIndexPrefix("/p"), ["receipt_by_time", "/p"]);
    assert.deepEqual(hostKeys.receiptCountKey("/p", "x"), ["receipt_count", "/p", "x"]);
    assert.deepEqual(hostKeys.runningClaimKey("/p", "x", "x.run"), ["running", "/p", "x", "x.run"]);
    assert.deepEqual(hostKeys.recordCursorSecretKey(), ["secret", "record_cursor"]);
    assert.deepEqual(hostKeys.runningClaimsPrefix(), ["running"]);
  });

  await t.step("applets", () => {
    assert.deepEqual(appletKeys.accountKey("/p", "mail"), ["account", "/p", "mail"]);
    assert.deepEqual(appletKeys.accountsPrefix(), ["account"]);
    assert.deepEqual(appletKeys.accountCredentialKey("/p", "mail"), [
      "account_credential",
      "/p",
      "mail",
    ]);
    assert.deepEqual(appletKeys.consentKey("/p", "mail"), ["consent", "/p", "mail"]);
    assert.deepEqual(appletKeys.deviceKey("/p", "mail"), ["device", "/p", "mail"]);
    assert.deepEqual(appletKeys.taskKey("/p", "mail", "sync"), ["task", "/p", "mail", "sync"]);
    assert.deepEqual(appletKeys.tasksPrefix("/p", "mail"), ["task", "/p", "mail"]);
    assert.deepEqual(appletKeys.taskAttemptKey("/p", "mail", "sync", "a1"), [
      "task_attempt",
      "/p",
      "mail",
      "sync",
      "a1",
    ]);
    assert.deepEqual(appletKeys.taskAttemptsPrefix("/p", "mail"), ["task_attempt", "/p", "mail"]);
    assert.deepEqual(appletKeys.allTaskAttemptsPrefix(), ["task_attempt"]);
  });

  await t.step("clock", () => {
    assert.deepEqual(clockKeys.clockLeaseKey(), ["clock_lease"]);
    assert.deepEqual(clockKeys.scheduledProjectKey("/p"), ["scheduled_project", "/p"]);
    assert.deepEqual(clockKeys.scheduledProjectsPrefix(), ["scheduled_project"]);
    assert.deepEqual(clockKeys.clockOffKey("/p", "x"), ["clock_off", "/p", "x"]);
    assert.deepEqual(clockKeys.clockOffsPrefix(), ["clock_off"]);
    assert.deepEqual(clockKeys.clockOffsPrefix("/p"), ["clock_off", "/p"]);
    assert.deepEqual(clockKeys.scheduleStampKey("/p", "x", "x.run"), [
      "schedule_stamp",
      "/p",
      "x",
      "x.run",
    ]);
    assert.deepEqual(clockKeys.scheduleStampsPrefix(), ["schedule_stamp"]);
    assert.deepEqual(clockKeys.scheduleStampsPrefix("/p"), ["schedule_stamp", "/p"]);
    assert.deepEqual(clockKeys.scheduleStampsPrefix("/p", "x"), ["schedule_stamp", "/p", "x"]);
    assert.deepEqual(clockKeys.scheduleOutcomesKey("/p", "x"), ["schedule_outcomes", "/p", "x"]);
    assert.deepEqual(clockKeys.scheduleSkipKey("/p"), ["schedule_skip", "/p", "", ""]);
    assert.deepEqual(clockKeys.scheduleSkipKey("/p", "x", "x.run"), [
      "schedule_skip",
      "/p",
      "x",
      "x.run",
    ]);
    assert.deepEqual(clockKeys.scheduleSkipsPrefix(), ["schedule_skip"]);
    assert.deepEqual(clockKeys.scheduleSkipsPrefix("/p", "x"), ["schedule_skip", "/p", "x"]);
  });

  await t.step("models", () => {
    assert.deepEqual(modelKeys.modelDefinitionKey("ollama"), ["model", "ollama"]);
    assert.deepEqual(modelKeys.modelDefinitionsPrefix(), ["model"]);
    assert.deepEqual(modelKeys.modelKeyKey("ollama"), ["model_key", "ollama"]);
  });

  await t.step("work", () => {
    assert.deepEqual(workKeys.workOrderKey("work-1"), ["work_order", "work-1"]);
    assert.deepEqual(workKeys.workOrdersPrefix(), ["work_order"]);
  });
});
