import assert from "node:assert/strict";
import { dirname, join } from "node:path";
import { readApproval } from "../../runtime/packages/approval.ts";
import { installPackage } from "../../runtime/lifecycle/install.ts";
import { removePackage } from "../../runtime/lifecycle/remove.ts";
import { checkBuiltPackage } from "../../runtime/author/check/check.ts";
import { formatProblem } from "../../runtime/author/check/problem.ts";
import { SYNC_CHECKOUT } from "../../runtime/author/checkout.ts";
import { servingPackage } from "../../runtime/packages/serving.ts";
import { readPackageRef } from "../../runtime/packages/store.ts";
import { readDeclaredIds } from "../../runtime/projects/project.ts";
import { getRecord } from "../../runtime/memory/store.ts";
import { writeRecord } from "../../runtime/memory/write_record.ts";
import { listReceipts } from "../../runtime/host/receipts.ts";
import type { Receipt } from "../../runtime/types.ts";
import { type TestHost, testHost, writePackage } from "../internal/packages.ts";
import { exists, packageArchive } from "../internal/cli.ts";
import { tarGz, type TarSpec } from "../internal/archive_fixtures.ts";
import { rejectsWith } from "../internal/rejects_with.ts";

/** Calls a handler in any project of the host, as a person would. */
async function callIn(
  env: TestHost,
  project: string,
  id: string,
  handler: string,
  payload?: unknown,
) {
  const { value } = await env.host.callHandler(project, id, handler, {
    occasion: { kind: "extension" },
    source: { kind: "person" },
    payload,
  });
  return value;
}

/** A new, empty project folder beside the test host's own (removed with it). */
async function anotherProject(env: TestHost, name: string): Promise<string> {
  const dir = join(dirname(env.home), name);
  await Deno.mkdir(dir, { recursive: true });
  return await Deno.realPath(dir);
}

/** The newest receipts of a package in a project, newest first. */
function receiptsOf(env: TestHost, project: string, id: string, limit = 50): Promise<Receipt[]> {
  return listReceipts(env.kv, project, { packageId: id, limit });
}

/** Asserts the newest receipts, newest first, as `ok` or an error name. */
async function assertReceipts(
  env: TestHost,
  project: string,
  id: string,
  expected: { handler: string; outcome: string }[],
): Promise<void> {
  const receipts = await receiptsOf(env, project, id, expected.length);
  assert.deepEqual(
    receipts.map((r) => ({ handler: r.handler, outcome: r.error?.name ?? r.outcome })),
    expected,
  );
  for (const receipt of receipts) {
    assert.equal(receipt.outcome, receipt.error ? "failed" : "ok");
    assert.ok(receipt.endedAt >= receipt.startedAt);
  }
}

/** Writes an archive package to a file and returns its path. */
async function writeArchive(
  env: TestHost,
  spec: Parameters<typeof packageArchive>[0],
): Promise<string> {
  const file = join(dirname(env.home), `${spec.id}-${spec.version}.tgz`);
  await Deno.writeFile(file, packageArchive(spec));
  return file;
}

/** A `.tgz` of every file in a package folder, under `package/` as npm packs it. */
async function archiveOf(dir: string): Promise<Uint8Array> {
  const entries: TarSpec[] = [{ name: "package/", type: "5" }];
  const walk = async (folder: string, prefix: string) => {
    for await (const entry of Deno.readDir(folder)) {
      const name = `${prefix}${entry.name}`;
      if (entry.isDirectory) {
        entries.push({ name: `package/${name}/`, type: "5" });
        await walk(join(folder, entry.name), `${name}/`);
      } else {
        entries.push({
          name: `package/${name}`,
          data: await Deno.readFile(join(folder, entry.name)),
        });
      }
    }
  };
  await walk(dir, "");
  return tarGz(entries);
}

/** What the package store holds at its top level: package ids, and any staging folder left. */
async function storeEntries(env: TestHost): Promise<string[]> {
  const store = join(env.home, "extensions", "store");
  const names: string[] = [];
  if (!(await exists(store))) return names;
  for await (const entry of Deno.readDir(store)) names.push(entry.name);
  return names.sort();
}

/** Waits until a handler's console line shows up in the host's log. */
async function waitForLog(env: TestHost, line: string): Promise<void> {
  const until = performance.now() + 5_000;
  while (!env.logs.includes(line)) {
    if (performance.now() > until) {
      throw new Error(`no log line ${JSON.stringify(line)}; saw ${JSON.stringify(env.logs)}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/**
 * A handler that writes `gate.note/<note>`, says so on the console, and then
 * holds until the test writes `gate.flag/<note>` into project memory.
 */
const GATE_SERVICE = `
import { memory } from "@sync/extension-api/service";
export default function register() {
  return {
    "gate.hold": async (payload) => {
      await memory.write({ key: "gate.note/" + payload.note, title: payload.note });
      console.log("holding " + payload.note);
      // Polls until shortly before the host's timeout, however slow the machine is.
      const until = Date.now() + 2500;
      while (Date.now() < until) {
        if (await memory.record("gate.flag/" + payload.note)) return { note: payload.note };
        // At most one look every 5 ms (the isolate has no timers), so a hold stays well
        // inside the host's 1,000 host calls per call however fast the machine is.
        const next = Date.now() + 5;
        while (Date.now() < next) { /* wait */ }
      }
      throw new Error("the flag never came");
    },
    "gate.ping": () => "pong",
  };
}`;

/**
 * Starts `gate.hold` in `project` and waits until it holds. The call is
 * answered wrapped, so that awaiting this does not await the call.
 */
async function holdCall(
  env: TestHost,
  project: string,
  note: string,
): Promise<{ call: Promise<unknown> }> {
  const call = callIn(env, project, "gate", "gate.hold", { note });
  // Observed, so a rejection before the test awaits it is not unhandled.
  call.catch(() => {});
  await waitForLog(env, `[gate] holding ${note}`);
  return { call };
}

/** Lets a held call go on. */
async function release(env: TestHost, project: string, note: string): Promise<void> {
  await writeRecord(await env.host.projectMemory(project), {
    key: `gate.flag/${note}`,
    title: "go",
  });
}

async function noteExists(env: TestHost, project: string, note: string): Promise<boolean> {
  return (await getRecord(await env.host.projectMemory(project), `gate.note/${note}`)) !== null;
}

Deno.test("installing a folder links it; a broken package is refused and leaves nothing", async (t) => {
  const env = await testHost({ limits: { timeoutMs: 500, workerGraceMs: 500 } });
  const root = dirname(env.home);
  try {
    await t.step("a folder install is linked: edits serve without reinstalling", async () => {
      const dir = await env.install({
        id: "linked",
        handlers: ["linked.version"],
        service: `export default function register() { return { "linked.version": () => 1 }; }`,
      });
      assert.equal(await env.call("linked", "linked.version"), 1);
      assert.equal((await readPackageRef(env.kv, "linked"))?.source, "folder");

      await Deno.writeTextFile(
        join(dir, "service", "index.js"),
        `export default function register() {
          return { "linked.version": () => 2, "linked.added": () => "new" };
        }`,
      );
      assert.equal(await env.call("linked", "linked.version"), 2);

      const manifestFile = join(dir, "manifest.json");
      const manifest = JSON.parse(await Deno.readTextFile(manifestFile));
      manifest.description = "Rewritten while installed";
      manifest.handlers["linked.added"] = { description: "Added after install" };
      await Deno.writeTextFile(manifestFile, JSON.stringify(manifest));
      const serving = await servingPackage(env.kv, env.project, "linked", {
        declaredIds: await readDeclaredIds(env.project),
      });
      assert.equal(serving.manifest.description, "Rewritten while installed");
      assert.equal(await env.call("linked", "linked.added"), "new");
      await assertReceipts(env, env.project, "linked", [
        { handler: "linked.added", outcome: "ok" },
        { handler: "linked.version", outcome: "ok" },
        { handler: "linked.version", outcome: "ok" },
      ]);
    });

    await t.step(
      "a folder widened in place and installed again says nothing serves until approved",
      async () => {
        const dir = await env.install({
          id: "grown",
          handlers: ["grown.version"],
          service: `export default function register() { return { "grown.version": () => 1 }; }`,
        });
        const manifestFile = join(dir, "manifest.json");
        const manifest = JSON.parse(await Deno.readTextFile(manifestFile));
        manifest.permissions = [...manifest.permissions, "net:a.test"];
        await Deno.writeTextFile(manifestFile, JSON.stringify(manifest));
        const error = await rejectsWith(
          installPackage(env.host, dir, env.project),
          "ApprovalRequiredError",
          /Cannot take grown@1\.0\.0 as it now is into [^]*net:a\.test/,
        );
        assert.match(error.message, /Nothing serves grown in this project until a person approves/);
        assert.doesNotMatch(error.message, /keeps serving/);
        await rejectsWith(
          env.call("grown", "grown.version"),
          "ApprovalRequiredError",
          /net:a\.test/,
        );
      },
    );

    const assertNothingRecorded = async (id: string) => {
      assert.equal(await readPackageRef(env.kv, id), null, "no ref");
      assert.equal(await readApproval(env.kv, env.project, id), null, "no approval");
      assert.ok(!(await readDeclaredIds(env.project)).includes(id), "not in extensions.json");
      assert.ok(!(await exists(join(env.home, "extensions", "store", id))), "nothing stored");
    };

    /** Asserts `install` is refused with PackageCheckError, each problem as check prints it. */
    // The install starts only once check has answered: started earlier, its
    // refusal could come before anything awaits it.
    const refusedAsCheck = async (
      dir: string,
      install: () => Promise<unknown>,
      message: RegExp,
    ) => {
      const problems = await checkBuiltPackage(dir);
      assert.ok(problems.length > 0, "check refuses it");
      const error = await rejectsWith(install(), "PackageCheckError", message) as Error & {
        problems: unknown[];
      };
      for (const problem of problems) {
        assert.ok(error.message.includes(formatProblem(problem)), formatProblem(problem));
      }
      assert.deepEqual(error.problems, problems);
    };

    await t.step(
      "a malformed manifest is refused with PackageCheckError at the field's line",
      async () => {
        const dir = await writePackage(join(root, "packages"), {
          id: "broken",
          handlers: ["broken.run"],
          service: `export default function register() { return { "broken.run": () => 1 }; }`,
          manifest: { version: "v1.0.0", permissions: ["background", "telepathy"] },
        });
        await refusedAsCheck(
          dir,
          () => installPackage(env.host, dir, env.project, { approve: true }),
          /\nmanifest\.json:4:3 {2}version: expected a semver version like "1\.2\.0", got "v1\.0\.0"/,
        );
        await assertNothingRecorded("broken");
      },
    );

    await t.step(
      "a package with the id chat, Sync's own, is refused and checked as such",
      async () => {
        const dir = await writePackage(join(root, "packages"), {
          id: "chat",
          handlers: ["chat.read"],
          service: `export default function register() { return { "chat.read": () => 1 }; }`,
        });
        await refusedAsCheck(
          dir,
          () => installPackage(env.host, dir, env.project, { approve: true }),
          /manifest\.json:2:3 {2}id: the id chat is Sync's own: its records are the conversations Chat keeps \(chat\.conversation\); choose another id/,
        );
        await assertNothingRecorded("chat");
      },
    );

    await t.step(
      "a manifest naming a missing service file is refused, at the service field",
      async () => {
        const dir = await writePackage(join(root, "packages"), {
          id: "hollow",
          handlers: ["hollow.run"],
          service: `export default function register() { return { "hollow.run": () => 1 }; }`,
        });
        await Deno.remove(join(dir, "service", "index.js"));
        await refusedAsCheck(
          dir,
          () => installPackage(env.host, dir, env.project, { approve: true }),
          /manifest\.json:\d+:3 {2}service names "service\/index\.js", which does not exist/,
        );
        await assertNothingRecorded("hollow");
      },
    );

    await t.step(
      "an archive with a malformed manifest is refused in check's words, leaving nothing",
      async () => {
        const unpacked = await writePackage(join(root, "packages"), {
          id: "badpack",
          version: "1.0",
          handlers: ["badpack.run"],
          service: `export default function register() { return { "badpack.run": () => 1 }; }`,
        });
        const file = join(root, "badpack-1.0.tgz");
        await Deno.writeFile(file, await archiveOf(unpacked));
        await refusedAsCheck(
          unpacked,
          () => installPackage(env.host, file, env.project, { approve: true }),
          /^Cannot install badpack@1\.0: .*badpack-1\.0\.tgz does not pass check:\n.*version: expected a semver version/,
        );
        await assertNothingRecorded("badpack");
        assert.deepEqual(await storeEntries(env), [], "no staging folder is left");
      },
    );

    await t.step("a path that is neither folder nor archive is refused", async () => {
      await rejectsWith(
        installPackage(env.host, join(root, "nowhere"), env.project, { approve: true }),
        "NotFoundError",
        /no such folder or archive/,
      );
    });
  } finally {
    await env.close();
  }
});

Deno.test("approvals are per project and live in the installation", async (t) => {
  const env = await testHost({ limits: { timeoutMs: 500, workerGraceMs: 500 } });
  const service = `export default function register() { return { "local.where": () => "here" }; }`;
  try {
    const dir = await env.install({ id: "local", handlers: ["local.where"], service });
    const projectB = await anotherProject(env, "project-b");
    const clone = await anotherProject(env, "clone");

    await t.step("installing into project A does not make it serve in project B", async () => {
      assert.equal(await env.call("local", "local.where"), "here");
      await rejectsWith(
        callIn(env, projectB, "local", "local.where"),
        "NotFoundError",
        /local is not installed in .*project-b \(nothing is installed there\)/,
      );
      await rejectsWith(
        installPackage(env.host, dir, projectB),
        "ApprovalRequiredError",
        /Cannot install local@1\.0\.0 into .*project-b without approval[^]*background — /,
      );
      assert.deepEqual(await readDeclaredIds(projectB), []);
      assert.equal(await readApproval(env.kv, projectB, "local"), null);
      await assertReceipts(env, projectB, "local", [
        { handler: "local.where", outcome: "NotFoundError" },
      ]);
    });

    await t.step("a repository that lists an id cannot approve itself", async () => {
      await Deno.mkdir(join(clone, ".sync"));
      await Deno.copyFile(
        join(env.project, ".sync", "extensions.json"),
        join(clone, ".sync", "extensions.json"),
      );
      assert.deepEqual(await readDeclaredIds(clone), ["local"]);
      await rejectsWith(
        callIn(env, clone, "local", "local.where"),
        "ApprovalRequiredError",
        /local is listed in .*clone but not approved on this machine/,
      );
      // An id this installation never had at all, listed by the repository.
      await Deno.writeTextFile(
        join(clone, ".sync", "extensions.json"),
        JSON.stringify({ extensions: ["local", "stranger"] }),
      );
      await rejectsWith(
        callIn(env, clone, "stranger", "stranger.run"),
        "ApprovalRequiredError",
        /stranger is listed in .*clone but not approved on this machine/,
      );
      await assertReceipts(env, clone, "local", [
        { handler: "local.where", outcome: "ApprovalRequiredError" },
      ]);
      await assertReceipts(env, clone, "stranger", [
        { handler: "stranger.run", outcome: "ApprovalRequiredError" },
      ]);
    });

    await t.step("approving in B serves there; removing from A leaves B serving", async () => {
      const result = await installPackage(env.host, dir, projectB, { approve: true });
      assert.deepEqual(result.approved, ["background"]);
      assert.equal(await callIn(env, projectB, "local", "local.where"), "here");
      await removePackage(env.host, "local", env.project);
      await rejectsWith(env.call("local", "local.where"), "NotFoundError", /not installed/);
      assert.equal(await readApproval(env.kv, env.project, "local"), null);
      assert.equal(await callIn(env, projectB, "local", "local.where"), "here");
      await assertReceipts(env, env.project, "local", [
        { handler: "local.where", outcome: "NotFoundError" },
        { handler: "local.where", outcome: "ok" },
      ]);
    });
  } finally {
    await env.close();
  }
});

Deno.test("an update that widens permissions waits for a person; the approved version serves", async (t) => {
  const env = await testHost({ limits: { timeoutMs: 500, workerGraceMs: 500 } });
  const version = (v: string, permissions: string[]) =>
    writeArchive(env, {
      id: "widen",
      version: v,
      permissions,
      handlers: ["widen.version"],
      service: `export default function register() {
        return { "widen.version": () => "${v}" };
      }`,
    });
  const call = () => env.call("widen", "widen.version");
  try {
    const v1 = await version("1.0.0", ["background"]);
    const v2 = await version("2.0.0", ["background", "net:example.com"]);
    const v3 = await version("3.0.0", ["background", "net:example.com"]);

    await t.step("v1 installed from an archive with approval serves", async () => {
      const result = await installPackage(env.host, v1, env.project, { approve: true });
      assert.equal(result.package.ref.source, "archive");
      assert.deepEqual(result.approved, ["background"]);
      assert.equal(await call(), "1.0.0");
    });

    await t.step(
      "v2 asking for net:example.com is refused without approval; v1 keeps serving",
      async () => {
        const error = await rejectsWith(
          installPackage(env.host, v2, env.project),
          "ApprovalRequiredError",
          /net:example\.com — may reach example\.com over the network/,
        );
        assert.match(
          error.message,
          /widen@1\.0\.0 keeps serving this project until a person approves/,
        );
        assert.doesNotMatch(error.message, /background/, "only what widens is asked for");
        assert.equal(await call(), "1.0.0");
        assert.equal((await readApproval(env.kv, env.project, "widen"))?.version, "1.0.0");
        // Stored on this machine, waiting for a person.
        assert.equal((await readPackageRef(env.kv, "widen"))?.version, "2.0.0");
        assert.equal(
          (await servingPackage(env.kv, env.project, "widen", {
            declaredIds: await readDeclaredIds(env.project),
          })).manifest.version,
          "1.0.0",
        );
      },
    );

    await t.step("v2 approved serves", async () => {
      const result = await installPackage(env.host, v2, env.project, { approve: true });
      assert.deepEqual(result.approved, ["net:example.com"]);
      assert.equal(await call(), "2.0.0");
    });

    await t.step("v3 with the same permissions serves without approval", async () => {
      const result = await installPackage(env.host, v3, env.project);
      assert.deepEqual(result.approved, []);
      assert.equal(await call(), "3.0.0");
      assert.equal((await readApproval(env.kv, env.project, "widen"))?.version, "2.0.0");
    });

    await t.step("each version was unpacked into the store under its digest", async () => {
      const store = join(env.home, "extensions", "store", "widen");
      const dirs = [];
      for await (const entry of Deno.readDir(store)) dirs.push(entry.name);
      assert.deepEqual(
        dirs.map((name) => name.replace(/-[0-9a-f]{16}$/, "")).sort(),
        ["1.0.0", "2.0.0", "3.0.0"],
      );
      await assertReceipts(env, env.project, "widen", [
        { handler: "widen.version", outcome: "ok" },
        { handler: "widen.version", outcome: "ok" },
        { handler: "widen.version", outcome: "ok" },
        { handler: "widen.version", outcome: "ok" },
      ]);
    });
  } finally {
    await env.close();
  }
});

Deno.test("a call running while its package is removed, re-approved or updated commits nothing", async (t) => {
  const env = await testHost({ limits: { timeoutMs: 3_000, workerGraceMs: 500 } });
  const gate = (version: string) =>
    writeArchive(env, {
      id: "gate",
      version,
      permissions: ["background"],
      handlers: ["gate.hold", "gate.ping"],
      service: GATE_SERVICE,
    });
  try {
    const v1 = await gate("1.0.0");
    await installPackage(env.host, v1, env.project, { approve: true });

    await t.step("a call nothing interrupts commits its write", async () => {
      const { call } = await holdCall(env, env.project, "calm");
      await release(env, env.project, "calm");
      assert.deepEqual(await call, { note: "calm" });
      assert.ok(await noteExists(env, env.project, "calm"));
    });

    await t.step("removing the package while a call runs supersedes the call", async () => {
      const { call } = await holdCall(env, env.project, "removed");
      await removePackage(env.host, "gate", env.project);
      await release(env, env.project, "removed");
      await rejectsWith(call, "SupersededError", /"gate" was paused, removed or updated/);
      assert.ok(!(await noteExists(env, env.project, "removed")));
    });

    await t.step("re-approving the package while a call runs supersedes the call", async () => {
      await installPackage(env.host, v1, env.project, { approve: true });
      const { call } = await holdCall(env, env.project, "reapproved");
      await installPackage(env.host, v1, env.project, { approve: true });
      await release(env, env.project, "reapproved");
      await rejectsWith(call, "SupersededError", /nothing was committed/);
      assert.ok(!(await noteExists(env, env.project, "reapproved")));
    });

    await t.step("updating the package while a call runs supersedes the call", async () => {
      const v2 = await gate("1.0.1");
      const { call } = await holdCall(env, env.project, "updated");
      const result = await installPackage(env.host, v2, env.project);
      assert.deepEqual(result.approved, []);
      await release(env, env.project, "updated");
      await rejectsWith(call, "SupersededError", /nothing was committed/);
      assert.ok(!(await noteExists(env, env.project, "updated")));
      assert.equal(await env.call("gate", "gate.ping"), "pong");
    });

    await t.step("an update made from another project supersedes a call running here", async () => {
      const projectB = await Deno.realPath(await Deno.makeTempDir({ prefix: "sync-b-" }));
      try {
        const v2 = await gate("1.0.1");
        await installPackage(env.host, v2, projectB, { approve: true });
        const { call } = await holdCall(env, projectB, "elsewhere");
        // The artefact serving "gate" is machine-wide: updating it in A changes B too.
        await installPackage(env.host, await gate("1.0.2"), env.project);
        await release(env, projectB, "elsewhere");
        await rejectsWith(call, "SupersededError", /nothing was committed/);
        assert.ok(!(await noteExists(env, projectB, "elsewhere")));
      } finally {
        await env.host.forgetProject(projectB);
        await Deno.remove(projectB, { recursive: true });
      }
    });

    await t.step("every attempt left a receipt", async () => {
      await assertReceipts(env, env.project, "gate", [
        { handler: "gate.ping", outcome: "ok" },
        { handler: "gate.hold", outcome: "SupersededError" },
        { handler: "gate.hold", outcome: "SupersededError" },
        { handler: "gate.hold", outcome: "SupersededError" },
        { handler: "gate.hold", outcome: "ok" },
      ]);
    });
  } finally {
    await env.close();
  }
});

Deno.test("a handler is not re-entered in one project, and runs at once in two", async (t) => {
  const env = await testHost({ limits: { timeoutMs: 3_000, workerGraceMs: 500 } });
  try {
    const dir = await env.install({
      id: "gate",
      handlers: ["gate.hold", "gate.ping"],
      service: GATE_SERVICE,
    });
    const projectB = await anotherProject(env, "project-b");
    await installPackage(env.host, dir, projectB, { approve: true });

    await t.step(
      "a second call of a running handler is refused; another project's call runs meanwhile",
      async () => {
        const { call: first } = await holdCall(env, env.project, "first");
        await rejectsWith(
          callIn(env, env.project, "gate", "gate.hold", { note: "second" }),
          "HandlerBusyError",
          /gate\.hold is already running in .*; a handler is not re-entered/,
        );
        // Another handler of the same package is not held up.
        assert.equal(await env.call("gate", "gate.ping"), "pong");

        // The same handler runs in another project meanwhile: both hold at once.
        const { call: other } = await holdCall(env, projectB, "elsewhere");
        await release(env, projectB, "elsewhere");
        assert.deepEqual(await other, { note: "elsewhere" });

        await release(env, env.project, "first");
        assert.deepEqual(await first, { note: "first" });
        assert.ok(await noteExists(env, env.project, "first"));
        assert.ok(!(await noteExists(env, env.project, "second")));
        assert.ok(await noteExists(env, projectB, "elsewhere"));
      },
    );

    await t.step("once it has finished, the handler can be called again", async () => {
      const { call: again } = await holdCall(env, env.project, "again");
      await release(env, env.project, "again");
      assert.deepEqual(await again, { note: "again" });
    });

    await t.step("every attempt left a receipt", async () => {
      await assertReceipts(env, env.project, "gate", [
        { handler: "gate.hold", outcome: "ok" },
        { handler: "gate.ping", outcome: "ok" },
        { handler: "gate.hold", outcome: "HandlerBusyError" },
        { handler: "gate.hold", outcome: "ok" },
      ]);
      await assertReceipts(env, projectB, "gate", [{ handler: "gate.hold", outcome: "ok" }]);
    });
  } finally {
    await env.close();
  }
});

Deno.test("a handler called past its rate limit is refused until the window passes", async (t) => {
  let clock = Date.parse("2025-03-01T09:00:00Z");
  const env = await testHost({
    limits: { timeoutMs: 500, workerGraceMs: 500, rateLimit: 3, rateWindowMs: 60_000 },
    now: () => clock,
  });
  const service = `export default function register() {
    return { "tick.count": (n) => n, "tick.other": () => "other" };
  }`;
  try {
    await env.install({ id: "tick", handlers: ["tick.count", "tick.other"], service });

    await t.step("the fourth call within the window is refused with RateLimitedError", async () => {
      for (const n of [1, 2, 3]) {
        assert.equal(await env.call("tick", "tick.count", n), n);
        clock += 1_000;
      }
      await rejectsWith(
        env.call("tick", "tick.count", 4),
        "RateLimitedError",
        /tick\.count was called 3 times in the last 60 s; the limit is 3/,
      );
      assert.equal(await env.call("tick", "tick.other"), "other", "the limit is per handler");
    });

    await t.step("the refused call did not count: it is refused again, not later", async () => {
      clock += 30_000;
      await rejectsWith(env.call("tick", "tick.count", 5), "RateLimitedError", /called 3 times/);
    });

    await t.step("past the window, calls work again", async () => {
      clock += 60_000;
      assert.equal(await env.call("tick", "tick.count", 6), 6);
    });

    await t.step("every attempt left a receipt", async () => {
      await assertReceipts(env, env.project, "tick", [
        { handler: "tick.count", outcome: "ok" },
        { handler: "tick.count", outcome: "RateLimitedError" },
        { handler: "tick.other", outcome: "ok" },
        { handler: "tick.count", outcome: "RateLimitedError" },
        { handler: "tick.count", outcome: "ok" },
        { handler: "tick.count", outcome: "ok" },
        { handler: "tick.count", outcome: "ok" },
      ]);
    });
  } finally {
    await env.close();
  }
});

Deno.test("a worker that stops answering is terminated and replaced", async (t) => {
  const limits = { timeoutMs: 500, workerGraceMs: 500 };
  const env = await testHost({ limits });
  // QuickJS checks for interrupts in its interpreter loop and in the regexp
  // engine, but Array.prototype.indexOf/includes over a sparse array is one C
  // loop of billions of property lookups that never looks.
  const service = `export default function register() {
    return {
      "stuck.indexOf": () => { const a = []; a.length = 4e9; return a.indexOf(1); },
      "stuck.includes": () => { const a = []; a.length = 4e9; return a.includes(1); },
      "stuck.regex": () => /^(a+)+$/.test("a".repeat(40) + "b"),
      "stuck.ok": () => "still here",
    };
  }`;
  try {
    await env.install({
      id: "stuck",
      handlers: ["stuck.indexOf", "stuck.includes", "stuck.regex", "stuck.ok"],
      service,
    });
    assert.equal(await env.call("stuck", "stuck.ok"), "still here");

    for (const handler of ["stuck.indexOf", "stuck.includes"]) {
      await t.step(
        `${handler} over a sparse array is stopped by terminating its worker`,
        async () => {
          const replaced = env.host.pool.replacedWorkers;
          const started = performance.now();
          await rejectsWith(
            env.call("stuck", handler),
            "HandlerTimeoutError",
            new RegExp(`${handler} did not finish within 500 ms; its isolate was terminated`),
          );
          const took = performance.now() - started;
          assert.ok(took >= limits.timeoutMs, `it took ${took} ms`);
          assert.ok(took < limits.timeoutMs + limits.workerGraceMs + 1_000, `it took ${took} ms`);
          assert.equal(env.host.pool.replacedWorkers, replaced + 1);
          assert.equal(await env.call("stuck", "stuck.ok"), "still here");
        },
      );
    }

    await t.step(
      "catastrophic regex backtracking is interrupted without a new worker",
      async () => {
        const replaced = env.host.pool.replacedWorkers;
        await rejectsWith(
          env.call("stuck", "stuck.regex"),
          "HandlerTimeoutError",
          /stuck\.regex ran past the 500 ms limit/,
        );
        assert.equal(env.host.pool.replacedWorkers, replaced);
        assert.equal(await env.call("stuck", "stuck.ok"), "still here");
      },
    );

    await t.step("every attempt left a receipt", async () => {
      await assertReceipts(env, env.project, "stuck", [
        { handler: "stuck.ok", outcome: "ok" },
        { handler: "stuck.regex", outcome: "HandlerTimeoutError" },
        { handler: "stuck.ok", outcome: "ok" },
        { handler: "stuck.includes", outcome: "HandlerTimeoutError" },
        { handler: "stuck.ok", outcome: "ok" },
        { handler: "stuck.indexOf", outcome: "HandlerTimeoutError" },
        { handler: "stuck.ok", outcome: "ok" },
      ]);
    });
  } finally {
    await env.close();
  }
});

Deno.test("installPackage() refuses what check refuses, in the same words", async (t) => {
  const env = await testHost();
  try {
    const spec = {
      id: "eager",
      version: "1.0.0",
      permissions: ["background"],
      handlers: ["eager.order", "eager.extra"],
      service: `import { work } from "@sync/extension-api/service";
export default function register() {
  return {
    "eager.order": () => work.order({ kind: "agent.session" }),
  };
}
`,
    };

    await t.step("a folder: every problem, at its place, as check words it", async () => {
      const dir = await writePackage(join(dirname(env.home), "packages"), spec);
      const expected = (await checkBuiltPackage(dir)).map(formatProblem);
      assert.deepEqual(expected.map((line) => line.split("  ")[0]), [
        "manifest.json:14:5",
        "service/index.js:4:26",
      ]);
      const error = await rejectsWith(
        installPackage(env.host, dir, env.project, { approve: true }),
        "PackageCheckError",
        /^Cannot install eager@1\.0\.0: .* does not pass check:\n/,
      );
      for (const line of expected) assert.ok(error.message.includes(line), line);
      assert.ok(
        error.message.endsWith(
          `\nFix these (deno task --cwd ${SYNC_CHECKOUT} check ${dir} shows them) and install again`,
        ),
        error.message,
      );
      assert.deepEqual(await readDeclaredIds(env.project), []);
      assert.equal(await readPackageRef(env.kv, "eager"), null);
    });

    await t.step("an archive: refused, and nothing is left in the store", async () => {
      const file = join(dirname(env.home), "eager.tgz");
      await Deno.writeFile(file, packageArchive(spec));
      const error = await rejectsWith(
        installPackage(env.host, file, env.project, { approve: true }),
        "PackageCheckError",
        /work\.agent/,
      );
      assert.ok(
        error.message.endsWith(
          `(deno task --cwd ${SYNC_CHECKOUT} check <source folder> shows them) and install again`,
        ),
        error.message,
      );
      const store = join(env.home, "extensions", "store", "eager");
      const left: string[] = [];
      if (await exists(store)) {
        for await (const entry of Deno.readDir(store)) left.push(entry.name);
      }
      assert.deepEqual(left, []);
    });

    await t.step(
      "a folder not built yet: built first, as check builds it, then installed",
      async () => {
        const dir = await writePackage(join(dirname(env.home), "unbuilt"), {
          id: "unbuilt",
          handlers: ["unbuilt.run"],
          service: `export default function register() { return { "unbuilt.run": () => 1 }; }\n`,
        });
        await Deno.mkdir(join(dir, "src"));
        await Deno.rename(join(dir, "service/index.js"), join(dir, "src/service.ts"));
        const result = await installPackage(env.host, dir, env.project, { approve: true });
        assert.equal(result.package.manifest.id, "unbuilt");
        assert.ok(
          await exists(join(dir, "service/index.js")),
          "the build wrote the service module",
        );
        assert.deepEqual(await readDeclaredIds(env.project), ["unbuilt"]);
      },
    );
  } finally {
    await env.close();
  }
});

Deno.test("installPackage() refuses every broken fixture check refuses, with check's lines", async (t) => {
  const env = await testHost();
  const fixtures = new URL("../fixtures/broken/", import.meta.url);
  try {
    for await (const entry of Deno.readDir(fixtures)) {
      const dir = new URL(`${entry.name}/`, fixtures).pathname;
      // A fixture with sources is built in place, by install as by check: the tests of check
      // and of the install card's check build those, not this one, so the checkout stays as it is.
      if (!entry.isDirectory || await exists(join(dir, "src"))) continue;
      await t.step(entry.name, async () => {
        const lines = (await checkBuiltPackage(dir, { pool: env.host.pool })).map(formatProblem);
        assert.ok(lines.length > 0, "check refuses it");
        const archive = join(dirname(env.home), `${entry.name}.tgz`);
        await Deno.writeFile(archive, await archiveOf(dir));
        for (const source of [dir, archive]) {
          const error = await rejectsWith(
            installPackage(env.host, source, env.project, { approve: true }),
            "PackageCheckError",
            /does not pass check:\n/,
          ) as Error & { problems: unknown[] };
          const shown = error.message.split("\n").slice(1, -1).join("\n");
          assert.equal(shown, lines.join("\n"), source);
          assert.equal(error.problems.length, lines.length);
        }
        assert.deepEqual(await readDeclaredIds(env.project), []);
        assert.deepEqual(await storeEntries(env), [], "nothing is stored, no staging is left");
      });
    }
  } finally {
    await env.close();
  }
});
