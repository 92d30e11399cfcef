import assert from "node:assert/strict";
import { join } from "node:path";
import { type PackageSpec, testHost, writePackage } from "../internal/packages.ts";
import { exists, packageArchive } from "../internal/cli.ts";
import { readApproval } from "../../runtime/packages/approval.ts";
import { LifecycleFailedError, SupersededError } from "../../runtime/errors.ts";
import { bumpGeneration, readGeneration } from "../../runtime/memory/generation.ts";
import { installPackage } from "../../runtime/lifecycle/install.ts";
import { removePackage } from "../../runtime/lifecycle/remove.ts";
import { openProject } from "../../runtime/lifecycle/open.ts";
import { readPackageRef } from "../../runtime/packages/store.ts";
import { readDeclaredIds, readProject } from "../../runtime/projects/project.ts";
import { listRecords } from "../../runtime/memory/store.ts";
import { listReceipts } from "../../runtime/host/receipts.ts";
import {
  forgetScheduledProject,
  isScheduledProject,
} from "../../runtime/clock/scheduled_projects.ts";

/**
 * A package whose lifecycle handlers write a `<id>.seen/<moment>-<n>` record
 * with the payload and occasion they were given, and throw when the payload
 * of a `sync call` or the package's `fail` list says so.
 */
function lifecycleSpec(
  id: string,
  options: { version?: string; fail?: string[]; moments?: string[] } = {},
): PackageSpec {
  const moments = options.moments ?? ["installed", "removed", "opened"];
  const fail = JSON.stringify(options.fail ?? []);
  return {
    id,
    version: options.version,
    handlers: moments.map((m) => `${id}.${m}`),
    service: `
import { memory } from "@sync/extension-api/service";
const fail = ${fail};
function seen(moment) {
  return async (payload, occasion) => {
    const { records } = await memory.list({ kind: "${id}.seen" });
    await memory.write({
      key: "${id}.seen/" + moment + "-" + (records.length + 1),
      fields: { payload, occasion },
    });
    if (fail.includes(moment)) throw new Error(moment + " cannot finish: the tracker is down");
  };
}
export default function register() {
  return {
${moments.map((m) => `    "${id}.${m}": seen("${m}"),`).join("\n")}
  };
}
`,
    manifest: {
      version: options.version ?? "1.0.0",
      lifecycle: Object.fromEntries(moments.map((m) => [m, `${id}.${m}`])),
    },
  };
}

async function seenRecords(memory: Deno.Kv, id: string) {
  return (await listRecords(memory, { kind: `${id}.seen`, limit: 100 })).records;
}

Deno.test("installPackage() runs the installed handler", async (t) => {
  const env = await testHost();
  try {
    const dir = await writePackage(join(env.home, "..", "packages"), lifecycleSpec("seed"));
    const result = await installPackage(env.host, dir, env.project, { approve: true });

    await t.step("as a lifecycle occasion, with the version and none before", async () => {
      assert.equal(result.installed?.outcome, "ok");
      assert.equal(result.installed?.handler, "seed.installed");
      const [record] = await seenRecords(await env.host.projectMemory(env.project), "seed");
      assert.equal(record.key, "seed.seen/installed-1");
      assert.deepEqual(record.fields, {
        payload: { version: "1.0.0", previousVersion: null },
        occasion: { kind: "lifecycle", moment: "installed" },
      });
    });

    await t.step("and leaves a receipt naming the moment", async () => {
      const [receipt] = await listReceipts(env.kv, env.project, { packageId: "seed" });
      assert.equal(receipt.handler, "seed.installed");
      assert.equal(receipt.outcome, "ok");
      assert.deepEqual(receipt.occasion, { kind: "lifecycle", moment: "installed" });
    });

    await t.step("an update runs it again and says what it updates from", async () => {
      const v2 = await writePackage(
        join(env.home, "..", "packages"),
        lifecycleSpec("seed", { version: "1.1.0" }),
      );
      // Another folder of the same id: the person agrees to replace the first.
      await installPackage(env.host, v2, env.project, { approve: true, replace: true });
      const records = await seenRecords(await env.host.projectMemory(env.project), "seed");
      assert.deepEqual(records.at(-1)?.fields?.payload, {
        version: "1.1.0",
        previousVersion: "1.0.0",
      });
    });
  } finally {
    await env.close();
  }
});

Deno.test("installPackage() fails when installed throws and nothing remains", async (t) => {
  const env = await testHost();
  try {
    const packages = join(env.home, "..", "packages");

    await t.step("from a folder: no id, approval, ref, memory or records", async () => {
      const dir = await writePackage(packages, lifecycleSpec("broken", { fail: ["installed"] }));
      const error = await installPackage(env.host, dir, env.project, { approve: true })
        .then(() => null, (e) => e);
      assert.ok(error instanceof LifecycleFailedError, String(error));
      assert.match(
        error.message,
        new RegExp(
          `^Cannot install broken@1\\.0\\.0 into ${env.project}: its installed handler ` +
            `broken\\.installed failed: .*installed cannot finish: the tracker is down`,
        ),
      );
      assert.match(error.message, /Nothing was installed; fix the handler and install again$/);
      assert.deepEqual(await readDeclaredIds(env.project), []);
      assert.equal(await readApproval(env.kv, env.project, "broken"), null);
      assert.equal(await readPackageRef(env.kv, "broken"), null);
      assert.equal(await readProject(env.kv, env.project), null);
      assert.equal(await exists(join(env.project, ".sync")), false, "no .sync folder left");
      const [receipt] = await listReceipts(env.kv, env.project, { packageId: "broken" });
      assert.equal(receipt.outcome, "failed", "the attempt still leaves its receipt");
    });

    await t.step("from an archive: nothing is left in the store", async () => {
      const spec = lifecycleSpec("packed", { fail: ["installed"] });
      const archive = join(packages, "packed.tgz");
      await Deno.writeFile(
        archive,
        packageArchive({
          id: "packed",
          version: "1.0.0",
          permissions: ["background"],
          handlers: spec.handlers,
          service: spec.service,
          manifest: spec.manifest,
        }),
      );
      await assert.rejects(
        installPackage(env.host, archive, env.project, { approve: true }),
        LifecycleFailedError,
      );
      const store = join(env.home, "extensions", "store");
      const left: string[] = [];
      for await (const entry of Deno.readDir(store)) left.push(entry.name);
      assert.deepEqual(left, [], "not even an empty folder for the id");
      assert.equal(await readPackageRef(env.kv, "packed"), null);
    });

    await t.step("a clone's project keeps its .sync folder and gains no memory", async () => {
      const clone = join(env.home, "..", "clone");
      await Deno.mkdir(join(clone, ".sync"), { recursive: true });
      await Deno.writeTextFile(
        join(clone, ".sync", "extensions.json"),
        JSON.stringify({ extensions: [] }),
      );
      const dir = await writePackage(packages, lifecycleSpec("again", { fail: ["installed"] }));
      await assert.rejects(
        installPackage(env.host, dir, clone, { approve: true }),
        LifecycleFailedError,
      );
      const left: string[] = [];
      for await (const entry of Deno.readDir(join(clone, ".sync"))) left.push(entry.name);
      assert.deepEqual(left, ["extensions.json"]);
    });

    await t.step("an update that fails keeps the version that served", async () => {
      await env.install(lifecycleSpec("kept"));
      const before = await readPackageRef(env.kv, "kept");
      const v2 = await writePackage(
        packages,
        lifecycleSpec("kept", { version: "2.0.0", fail: ["installed"] }),
      );
      await assert.rejects(
        installPackage(env.host, v2, env.project, { approve: true, replace: true }),
        LifecycleFailedError,
      );
      assert.deepEqual(await readPackageRef(env.kv, "kept"), before);
      assert.equal((await readApproval(env.kv, env.project, "kept"))?.version, "1.0.0");
      assert.deepEqual(await readDeclaredIds(env.project), ["kept"]);
      const records = await seenRecords(await env.host.projectMemory(env.project), "kept");
      assert.deepEqual(records.map((r) => r.key), ["kept.seen/installed-1"]);
    });
  } finally {
    await env.close();
  }
});

Deno.test("installPackage() refused for approval leaves nothing in the store", async () => {
  const env = await testHost();
  try {
    const archive = join(env.home, "..", "plain.tgz");
    await Deno.writeFile(
      archive,
      packageArchive({
        id: "plain",
        version: "1.0.0",
        permissions: ["background"],
        handlers: ["plain.run"],
        service: `export default function register() { return { "plain.run": () => 1 }; }`,
      }),
    );
    await assert.rejects(installPackage(env.host, archive, env.project), /without approval/);
    const store = join(env.home, "extensions", "store", "plain");
    const left: string[] = [];
    if (await exists(store)) {
      for await (const entry of Deno.readDir(store)) left.push(entry.name);
    }
    assert.deepEqual(left, [], "the unpacked archive was taken away again");
  } finally {
    await env.close();
  }
});

Deno.test("removePackage() runs the removed handler first", async (t) => {
  const env = await testHost();
  try {
    await t.step("a clean removal runs it, then removes", async () => {
      await env.install(lifecycleSpec("tidy"));
      const result = await removePackage(env.host, "tidy", env.project);
      assert.equal(result.removed?.outcome, "ok");
      assert.deepEqual(await readDeclaredIds(env.project), []);
      const records = await seenRecords(await env.host.projectMemory(env.project), "tidy");
      assert.deepEqual(records.map((r) => r.key), [
        "tidy.seen/installed-1",
        "tidy.seen/removed-2",
      ]);
      const [receipt] = await listReceipts(env.kv, env.project, { packageId: "tidy" });
      assert.deepEqual(receipt.occasion, { kind: "lifecycle", moment: "removed" });
    });

    await t.step("a failure refuses the removal and commits nothing", async () => {
      await env.install(lifecycleSpec("stuck", { fail: ["removed"] }));
      const error = await removePackage(env.host, "stuck", env.project).then(() => null, (e) => e);
      assert.ok(error instanceof LifecycleFailedError, String(error));
      assert.match(
        error.message,
        /^Cannot remove stuck from .*: its removed handler stuck\.removed failed: .*removed cannot finish/,
      );
      assert.match(
        error.message,
        /\nstuck stays installed\. Fix the handler and remove it again, or remove it anyway\.$/,
      );
      assert.deepEqual(await readDeclaredIds(env.project), ["stuck"]);
      assert.ok(await readApproval(env.kv, env.project, "stuck"));
      const records = await seenRecords(await env.host.projectMemory(env.project), "stuck");
      assert.deepEqual(records.map((r) => r.key), ["stuck.seen/installed-1"]);
    });

    await t.step("force removes it anyway and says the handler failed", async () => {
      const result = await removePackage(env.host, "stuck", env.project, { force: true });
      assert.equal(result.removed?.outcome, "failed");
      assert.deepEqual(await readDeclaredIds(env.project), []);
      assert.equal(await readApproval(env.kv, env.project, "stuck"), null);
    });

    await t.step("a package that cannot serve is removed with a notice", async () => {
      const dir = await env.install(lifecycleSpec("vanished"));
      await Deno.remove(dir, { recursive: true });
      const result = await removePackage(env.host, "vanished", env.project);
      assert.equal(result.removed, null);
      assert.match(
        result.notice ?? "",
        /^vanished could not serve here, so no removed handler ran/,
      );
      assert.deepEqual(await readDeclaredIds(env.project), []);
    });
  } finally {
    await env.close();
  }
});

Deno.test("openProject() runs each opened handler every time", async (t) => {
  const env = await testHost();
  try {
    await env.install(lifecycleSpec("greeter", { moments: ["opened"] }));
    await env.install(lifecycleSpec("grumpy", { moments: ["opened"], fail: ["opened"] }));
    await env.install({
      id: "quiet",
      handlers: ["quiet.run"],
      service: `export default function register() { return { "quiet.run": () => 1 }; }`,
    });

    await t.step("one failing does not stop the others or the opening", async () => {
      const first = await openProject(env.host, env.project);
      assert.deepEqual(first.project.extensionIds, ["greeter", "grumpy", "quiet"]);
      assert.deepEqual(
        first.opened.map((r) => [r.handler, r.outcome]),
        [["greeter.opened", "ok"], ["grumpy.opened", "failed"]],
      );
      assert.match(first.opened[1].error?.message ?? "", /opened cannot finish/);
      assert.equal(first.scheduled, false);
    });

    await t.step("a second open runs them again, each leaving a receipt", async () => {
      await openProject(env.host, env.project);
      const memory = await env.host.projectMemory(env.project);
      assert.deepEqual((await seenRecords(memory, "greeter")).map((r) => r.key), [
        "greeter.seen/opened-1",
        "greeter.seen/opened-2",
      ]);
      assert.deepEqual(await seenRecords(memory, "grumpy"), [], "a failed call commits nothing");
      const receipts = await listReceipts(env.kv, env.project, { packageId: "grumpy" });
      assert.deepEqual(receipts.map((r) => [r.outcome, r.occasion.moment]), [
        ["failed", "opened"],
        ["failed", "opened"],
      ]);
    });

    await t.step("a package that cannot serve is named, not run", async () => {
      await Deno.writeTextFile(
        join(env.project, ".sync", "extensions.json"),
        JSON.stringify({ extensions: ["greeter", "ghost"] }),
      );
      const result = await openProject(env.host, env.project);
      assert.deepEqual(result.unavailable.map((u) => u.packageId), ["ghost"]);
      assert.match(result.unavailable[0].message, /ghost is listed in .* but not approved/);
      assert.deepEqual((await readProject(env.kv, env.project))?.extensionIds, [
        "greeter",
        "ghost",
      ]);
    });
  } finally {
    await env.close();
  }
});

Deno.test("openProject() puts a project with a schedule on the clock's list", async () => {
  const env = await testHost();
  try {
    const root = join(env.home, "..", "other");
    await Deno.mkdir(root);
    const dir = await writePackage(join(env.home, "..", "packages"), {
      id: "ticker",
      permissions: ["background", "schedule"],
      handlers: ["ticker.run"],
      service: `export default function register() { return { "ticker.run": () => 1 }; }`,
      manifest: { schedule: [{ handler: "ticker.run", description: "Ticks", every: "1h" }] },
    });
    // Installed into the project directly (a clone that was approved here before, say).
    await installPackage(env.host, dir, env.project, { approve: true });
    await forgetScheduledProject(env.kv, env.project);
    assert.equal(await isScheduledProject(env.kv, env.project), false);
    const result = await openProject(env.host, env.project);
    assert.equal(result.scheduled, true);
    assert.equal(await isScheduledProject(env.kv, env.project), true);
  } finally {
    await env.close();
  }
});

Deno.test("Host.callHandler() with the generation the caller saw commits nothing once it moved", async () => {
  const env = await testHost();
  try {
    await env.install({
      id: "fenced",
      handlers: ["fenced.write"],
      service: `
import { memory } from "@sync/extension-api/service";
export default function register() {
  return { "fenced.write": () => memory.write({ key: "fenced.note/a", title: "a" }) };
}`,
    });
    const memory = await env.host.projectMemory(env.project);
    const seen = await readGeneration(memory, "fenced");
    // A person switches the clock off (or updates the package) after the caller looked.
    await bumpGeneration(memory, "fenced");
    await assert.rejects(
      env.host.callHandler(env.project, "fenced", "fenced.write", {
        occasion: { kind: "clock" },
        source: { kind: "clock" },
        generation: seen,
      }),
      SupersededError,
    );
    assert.deepEqual((await listRecords(memory, { kind: "fenced.note" })).records, []);
  } finally {
    await env.close();
  }
});
