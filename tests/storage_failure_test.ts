import assert from "node:assert/strict";
import { basename, join } from "node:path";
import { StorageError } from "../runtime/errors.ts";
import { httpStatusOf } from "../runtime/error_status.ts";
import { storageFailure } from "../runtime/storage_failure.ts";
import { listReceipts } from "../runtime/host/mod.ts";
import { installPackage, removePackage } from "../runtime/lifecycle/mod.ts";
import { writeRecord } from "../runtime/memory/write_record.ts";
import { getRecord, removeProjectMemory } from "../runtime/memory/store.ts";
import { openInstallation, readDeclaredIds, readProject } from "../runtime/projects/mod.ts";
import { Host } from "../runtime/host/host.ts";
import { DEFAULT_LIMITS } from "../runtime/limits.ts";
import { readApproval, readPackageRef } from "../runtime/packages/mod.ts";
import { ApprovalRequiredError } from "../runtime/errors.ts";
import { reportFailure } from "../runtime/cli/report_failure.ts";
import { packageArchive, runSync } from "./internal/cli.ts";
import { spawnMcp } from "./internal/mcp_child.ts";
import { keepConversation } from "../runtime/agents/keep_conversation.ts";
import { createSession, readSession } from "../runtime/agents/session_store.ts";
import { UploadStore } from "../runtime/web/upload_store.ts";
import { testHost } from "./internal/packages.ts";
import { type SmallDisk, smallDisk } from "./internal/small_disk.ts";

/** A package whose handler writes a record of the size asked. */
const DISK_PACKAGE = {
  id: "disk",
  handlers: ["disk.write"],
  service: `import { memory } from "@sync/extension-api/service";
export default function register() {
  return {
    "disk.write": (payload) =>
      memory.write({ key: payload.key, title: "note", content: "x".repeat(payload.bytes) }),
  };
}`,
};

/** Why a step that needs a disk of its own skips, or null when it runs. */
function skipped(disk: SmallDisk | string): string | false {
  return typeof disk === "string" ? `skipped: ${disk}` : false;
}

Deno.test("`storageFailure()` tells a disk's failure as a named refusal wherever Sync writes", async (t) => {
  const env = await testHost();
  const packageDir = await env.install(DISK_PACKAGE);
  const disks: SmallDisk[] = [];
  const diskOf = async (kib: number) => {
    const disk = await smallDisk(kib);
    if (typeof disk !== "string") disks.push(disk);
    return disk;
  };
  const write = (project: string, key: string, bytes: number) =>
    env.host.callHandler(project, "disk", "disk.write", {
      occasion: { kind: "extension" },
      source: { kind: "person" },
      payload: { key, bytes },
    });
  const lastReceipt = async (project: string) =>
    (await listReceipts(env.kv, project, { packageId: "disk", limit: 1 }))[0];
  const printed = (error: unknown) => {
    const lines: string[] = [];
    reportFailure(error, "call", { out: () => {}, err: (line) => lines.push(line) });
    return lines.join("\n");
  };
  try {
    await t.step(
      "a memory.kv that is a folder is refused naming it, its receipt kept",
      async () => {
        const file = join(env.project, ".sync", "memory.kv");
        await env.host.forgetProject(env.project);
        await removeProjectMemory(env.project);
        await Deno.mkdir(file);
        const error = await write(env.project, "disk.note/1", 10).then(() => null, (e) => e);
        assert.ok(error instanceof StorageError, String(error?.stack ?? error));
        assert.equal(error.problem, "not-a-file");
        assert.equal(
          error.message,
          `${file} is a folder, where Sync keeps a database file: nothing of this call was ` +
            `written. Move that folder aside (or remove it), then call again`,
        );
        assert.equal(httpStatusOf(error), 409);
        assert.equal(printed(error), `sync call: ${error.message}`);
        const receipt = await lastReceipt(env.project);
        assert.equal(receipt.outcome, "failed");
        assert.deepEqual(receipt.error, { name: "StorageError", message: error.message });
      },
    );

    await t.step(
      "an install refused by a memory.kv that is a folder leaves no approval, ref or id",
      async () => {
        const project = await Deno.makeTempDir({ prefix: "sync-refused-install-" });
        try {
          await Deno.mkdir(join(project, ".sync", "memory.kv"), { recursive: true });
          const ref = await readPackageRef(env.kv, "disk");
          await assert.rejects(
            installPackage(env.host, packageDir, project, { approve: true }),
            (error: unknown) => error instanceof StorageError && error.problem === "not-a-file",
          );
          assert.equal(await readApproval(env.kv, project, "disk"), null);
          assert.deepEqual(await readPackageRef(env.kv, "disk"), ref);
          assert.deepEqual(await readDeclaredIds(project), []);
        } finally {
          await env.host.forgetProject(project);
          await Deno.remove(project, { recursive: true });
        }
      },
    );

    await t.step("the CLI says it in words, with no stack", async () => {
      const home = await Deno.makeTempDir({ prefix: "sync-test-home-" });
      try {
        const result = await runSync(home, ["records", "--project", env.project]);
        assert.equal(result.code, 1);
        assert.match(result.stderr, /^sync records: \S+memory\.kv is a folder/);
        assert.doesNotMatch(result.stderr, /unexpected failure|\n\s+at /);
      } finally {
        await Deno.remove(home, { recursive: true });
      }
    });

    const full = await diskOf(1024);
    await t.step({
      name: "a full disk refuses the write whole (507), keeps its receipt, and takes it once freed",
      ignore: skipped(full) !== false,
      fn: async () => {
        const disk = full as SmallDisk;
        const project = join(disk.path, "project");
        await Deno.mkdir(project);
        await installPackage(env.host, packageDir, project, { approve: true });
        await write(project, "disk.note/small", 10);
        const filler = await disk.fill();
        const error = await write(project, "disk.note/big", 200_000).then(() => null, (e) => e);
        assert.ok(error instanceof StorageError, String(error?.stack ?? error));
        assert.equal(error.problem, "full");
        assert.equal(httpStatusOf(error), 507);
        const file = join(project, ".sync", "memory.kv");
        assert.equal(
          error.message,
          `The disk holding ${file} is full: nothing of this call was written. Free some ` +
            `space on that disk, then call again`,
        );
        const receipt = await lastReceipt(project);
        assert.equal(receipt.outcome, "failed");
        assert.equal(receipt.error?.name, "StorageError");
        await Deno.remove(filler);
        const memory = await env.host.projectMemory(project);
        assert.equal(await getRecord(memory, "disk.note/big"), null);
        await write(project, "disk.note/big", 200_000);
        assert.equal((await getRecord(memory, "disk.note/big"))?.title, "note");
        await env.host.forgetProject(project);
      },
    });

    const fullClosed = await diskOf(1024);
    await t.step({
      name: "a memory and an installation closed cleanly, then their disk filled, are refused " +
        "as full (507), not as unreachable",
      ignore: skipped(fullClosed) !== false,
      fn: async () => {
        const disk = fullClosed as SmallDisk;
        const project = join(disk.path, "project");
        const home = join(disk.path, "home");
        await Deno.mkdir(project);
        await Deno.mkdir(home);
        await installPackage(env.host, packageDir, project, { approve: true });
        await write(project, "disk.note/small", 10);
        (await openInstallation(home)).close();
        // Closed cleanly, a database has no -shm beside it: SQLite must make
        // one on opening, and says only "disk I/O error" when it cannot.
        await env.host.forgetProject(project);
        const file = join(project, ".sync", "memory.kv");
        assert.equal(await Deno.lstat(`${file}-shm`).then(() => true, () => false), false);
        const filler = await disk.fill();
        const error = await write(project, "disk.note/full", 10).then(() => null, (e) => e);
        assert.ok(error instanceof StorageError, String(error?.stack ?? error));
        assert.equal(error.problem, "full");
        assert.equal(httpStatusOf(error), 507);
        assert.equal(
          error.message,
          `The disk holding ${file} is full: nothing of this call was written. Free some ` +
            `space on that disk, then call again`,
        );
        await assert.rejects(
          () => openInstallation(home),
          (error: unknown) =>
            error instanceof StorageError && error.problem === "full" &&
            error.message.startsWith(`The disk holding ${join(home, "sync.kv")} is full`),
        );
        await Deno.remove(filler);
        await write(project, "disk.note/freed", 10);
        await env.host.forgetProject(project);
      },
    });

    const fullInstall = await diskOf(1024);
    await t.step({
      name: "an install refused by a full disk leaves no approval: once freed, it asks again",
      ignore: skipped(fullInstall) !== false,
      fn: async () => {
        const disk = fullInstall as SmallDisk;
        const project = join(disk.path, "project");
        await Deno.mkdir(project);
        const filler = await disk.fill();
        await assert.rejects(
          installPackage(env.host, packageDir, project, { approve: true }),
          (error: unknown) => error instanceof StorageError && error.problem === "full",
        );
        assert.equal(await readApproval(env.kv, project, "disk"), null);
        await Deno.remove(filler);
        await assert.rejects(
          installPackage(env.host, packageDir, project),
          ApprovalRequiredError,
        );
        await env.host.forgetProject(project);
      },
    });

    const readOnly = await diskOf(1024);
    await t.step({
      name: "a read-only project is refused naming its memory (409), its receipt kept",
      ignore: skipped(readOnly) !== false,
      fn: async () => {
        const disk = readOnly as SmallDisk;
        const project = join(disk.path, "project");
        await Deno.mkdir(project);
        await installPackage(env.host, packageDir, project, { approve: true });
        await write(project, "disk.note/before", 10);
        // Nothing may be open for writing on a disk remounted read-only.
        await env.host.forgetProject(project);
        await disk.remount("ro");
        try {
          const error = await write(project, "disk.note/after", 10).then(() => null, (e) => e);
          assert.ok(error instanceof StorageError, String(error?.stack ?? error));
          assert.equal(error.problem, "read-only");
          assert.equal(httpStatusOf(error), 409);
          assert.match(
            error.message,
            /memory\.kv cannot be written: its folder is read-only for Sync \(.*Read-only file system/,
          );
          const receipt = await lastReceipt(project);
          assert.equal(receipt.outcome, "failed");
          assert.equal(receipt.error?.name, "StorageError");
        } finally {
          await env.host.forgetProject(project);
          await disk.remount("rw");
        }
      },
    });

    const readOnlyOpen = await diskOf(1024);
    await t.step({
      name: "a memory Deno KV opened read-only is refused as read-only at every write, and " +
        "opened afresh once the disk is writable",
      ignore: skipped(readOnlyOpen) !== false,
      fn: async () => {
        const disk = readOnlyOpen as SmallDisk;
        const project = join(disk.path, "project");
        await Deno.mkdir(project);
        await installPackage(env.host, packageDir, project, { approve: true });
        await env.host.forgetProject(project);
        // A process that ended without closing its memory leaves the files
        // SQLite keeps beside it; with them, Deno KV opens a file on a
        // read-only disk read-only, and refuses only the first commit.
        const ended = await new Deno.Command(Deno.execPath(), {
          args: [
            "eval",
            "--unstable-kv",
            `const kv = await Deno.openKv(${
              JSON.stringify(join(project, ".sync", "memory.kv"))
            });` +
            `await kv.set(["left"], 1); Deno.exit(0);`,
          ],
        }).output();
        assert.equal(ended.success, true, new TextDecoder().decode(ended.stderr));
        await disk.remount("ro");
        const readOnlyRefusal = (error: unknown) => {
          assert.ok(error instanceof StorageError, String((error as Error)?.stack ?? error));
          assert.equal(error.problem, "read-only");
          assert.match(
            error.message,
            /memory\.kv cannot be written: its folder is read-only for Sync \(Can not write/,
          );
          assert.equal(httpStatusOf(error), 409);
          return true;
        };
        try {
          await assert.rejects(write(project, "disk.note/call", 10), readOnlyRefusal);
          const receipt = await lastReceipt(project);
          assert.equal(receipt.outcome, "failed");
          assert.equal(receipt.error?.name, "StorageError");
          await assert.rejects(
            async () =>
              writeRecord(await env.host.projectMemory(project), {
                key: "disk.note/person",
                title: "note",
              }),
            readOnlyRefusal,
          );
          await assert.rejects(removePackage(env.host, "disk", project), readOnlyRefusal);
        } finally {
          await disk.remount("rw");
        }
        // The handle opened read-only was let go of: the next call opens it afresh, writable.
        await write(project, "disk.note/after", 10);
        const memory = await env.host.projectMemory(project);
        assert.equal((await getRecord(memory, "disk.note/after"))?.title, "note");
        await env.host.forgetProject(project);
      },
    });

    const readOnlyFolder = await diskOf(256);
    await t.step({
      name:
        "sync open and sync install refuse a read-only folder as a refusal (exit 1), saying why",
      ignore: skipped(readOnlyFolder) !== false,
      fn: async () => {
        const disk = readOnlyFolder as SmallDisk;
        await disk.remount("ro");
        const home = await Deno.makeTempDir({ prefix: "sync-test-home-" });
        try {
          for (const args of [["open"], ["install", packageDir, "--approve"]]) {
            const result = await runSync(home, [...args, "--project", disk.path]);
            assert.equal(result.code, 1, result.stderr);
            assert.match(
              result.stderr,
              /^sync \w+: Cannot open \S+ as a project: this user cannot write in it/,
            );
          }
        } finally {
          await Deno.remove(home, { recursive: true });
          await disk.remount("rw");
        }
      },
    });

    const fullHome = await diskOf(512);
    await t.step({
      name: "an installation on a full disk is refused naming it, by openInstallation and the CLI",
      ignore: skipped(fullHome) !== false,
      fn: async () => {
        const disk = fullHome as SmallDisk;
        const home = join(disk.path, "home");
        await Deno.mkdir(home);
        await disk.fill();
        await assert.rejects(
          () => openInstallation(home),
          (error: unknown) =>
            error instanceof StorageError && error.problem === "full" &&
            error.message.startsWith(`The disk holding ${join(home, "sync.kv")} is full`),
        );
        const result = await runSync(home, ["list", "--project", env.project]);
        assert.equal(result.code, 1);
        assert.match(result.stderr, /^sync list: The disk holding \S+ is full/);
        assert.doesNotMatch(result.stderr, /unexpected failure|\n\s+at /);
      },
    });

    const fullRemoveHome = await diskOf(4096);
    await t.step({
      name: "`removePackage()` refused by a full installation disk keeps the id declared " +
        "and approved",
      ignore: skipped(fullRemoveHome) !== false,
      fn: async () => {
        const disk = fullRemoveHome as SmallDisk;
        const home = join(disk.path, "home");
        await Deno.mkdir(home);
        const project = await Deno.realPath(
          await Deno.makeTempDir({ prefix: "sync-refused-remove-" }),
        );
        // The installation opened before its disk fills, as a running serve's is.
        const kv = await openInstallation(home);
        const host = new Host({ kv, home, limits: DEFAULT_LIMITS });
        try {
          await installPackage(host, packageDir, project, { approve: true });
          const approval = await readApproval(kv, project, "disk");
          const filler = await disk.fill();
          await assert.rejects(
            removePackage(host, "disk", project),
            (error: unknown) =>
              error instanceof StorageError && error.problem === "full" &&
              error.message.startsWith(`The disk holding ${join(home, "sync.kv")} is full`),
          );
          assert.deepEqual(await readDeclaredIds(project), ["disk"]);
          await Deno.remove(filler);
          assert.deepEqual(await readApproval(kv, project, "disk"), approval);
          assert.deepEqual((await readProject(kv, project))?.extensionIds, ["disk"]);
        } finally {
          await host.close();
          kv.close();
          await Deno.remove(project, { recursive: true });
        }
      },
    });

    const fullStore = await diskOf(4096);
    await t.step({
      name: "`storePackage()` and `UploadStore.save()` refuse a full installation disk naming " +
        "the store (507), leaving nothing",
      ignore: skipped(fullStore) !== false,
      fn: async () => {
        const disk = fullStore as SmallDisk;
        const home = join(disk.path, "home");
        await Deno.mkdir(home);
        const project = await Deno.realPath(
          await Deno.makeTempDir({ prefix: "sync-refused-archive-" }),
        );
        const archive = join(project, "..", `${basename(project)}.tgz`);
        await Deno.writeFile(
          archive,
          packageArchive({
            id: "probe",
            version: "1.0.0",
            permissions: ["background"],
            handlers: ["probe.run"],
            service: `export default function register() { return { "probe.run": () => 1 }; }`,
          }),
        );
        const kv = await openInstallation(home);
        const host = new Host({ kv, home, limits: DEFAULT_LIMITS });
        try {
          const filler = await disk.fill();
          const store = join(home, "extensions", "store");
          const fullStore = (folder: string) => (error: unknown) => {
            assert.ok(error instanceof StorageError, String((error as Error)?.stack ?? error));
            assert.equal(error.problem, "full");
            assert.equal(httpStatusOf(error), 507);
            assert.ok(
              error.message.startsWith(`The disk holding ${folder} is full`),
              error.message,
            );
            return true;
          };
          await assert.rejects(
            installPackage(host, archive, project, { approve: true }),
            fullStore(store),
          );
          assert.deepEqual(await readDeclaredIds(project), []);
          assert.equal(await readPackageRef(kv, "probe"), null);
          const uploads = new UploadStore(home, { now: Date.now });
          await assert.rejects(
            uploads.save(new Blob([new Uint8Array(512 * 1024)]).stream()),
            fullStore(join(home, "cache", "uploads")),
          );
          await Deno.remove(filler);
          assert.deepEqual(
            [...Deno.readDirSync(join(home, "cache", "uploads"))].map((entry) => entry.name),
            [],
          );
          await installPackage(host, archive, project, { approve: true });
          assert.deepEqual(await readDeclaredIds(project), ["probe"]);
        } finally {
          await host.close();
          kv.close();
          await Deno.remove(project, { recursive: true });
          await Deno.remove(archive);
        }
      },
    });

    const fullKeep = await diskOf(4096);
    await t.step({
      name: "`keepConversation()` refused by a full installation disk writes no record",
      ignore: skipped(fullKeep) !== false,
      fn: async () => {
        const disk = fullKeep as SmallDisk;
        const home = join(disk.path, "home");
        await Deno.mkdir(home);
        const project = await Deno.realPath(
          await Deno.makeTempDir({ prefix: "sync-refused-keep-" }),
        );
        const kv = await openInstallation(home);
        try {
          const at = new Date(0).toISOString();
          await createSession(kv, {
            key: "work-kept",
            project: project,
            agent: "demo",
            agentSessionId: null,
            orderKey: null,
            extensionId: null,
            extensionName: null,
            source: { kind: "person" },
            title: "A conversation",
            state: "ended",
            waitingFor: null,
            onInterrupted: "wait",
            createdAt: at,
            updatedAt: at,
            error: null,
            keptAs: null,
          });
          const memory = await env.host.projectMemory(project);
          const filler = await disk.fill();
          await assert.rejects(
            keepConversation(kv, memory, project, "work-kept", () => new Date()),
            (error: unknown) => error instanceof StorageError && error.problem === "full",
          );
          assert.equal(await getRecord(memory, "chat.conversation/work-kept"), null);
          await Deno.remove(filler);
          assert.equal((await readSession(kv, project, "work-kept"))?.keptAs, null);
          await keepConversation(kv, memory, project, "work-kept", () => new Date());
          assert.equal(
            (await getRecord(memory, "chat.conversation/work-kept"))?.title,
            "A conversation",
          );
        } finally {
          kv.close();
          await env.host.forgetProject(project);
          await Deno.remove(project, { recursive: true });
        }
      },
    });

    const readOnlyHome = await diskOf(256);
    await t.step({
      name: "`findInstallationOwner()` refuses a read-only installation in words: sync mcp " +
        "exits 1, with no stack",
      ignore: skipped(readOnlyHome) !== false,
      fn: async () => {
        const disk = readOnlyHome as SmallDisk;
        const home = join(disk.path, "home");
        await Deno.mkdir(home);
        // A lock an earlier serve left, as every installation that was ever owned has.
        await Deno.writeTextFile(join(home, "owner.lock"), "");
        await disk.remount("ro");
        try {
          const child = spawnMcp(home, env.project);
          await child.stdin.close();
          const { code, stderr } = await child.output();
          const said = new TextDecoder().decode(stderr);
          assert.equal(code, 1, said);
          assert.match(
            said,
            /^sync mcp: \S+owner\.lock cannot be written: its folder is read-only/,
          );
          assert.doesNotMatch(said, /unexpected failure|\n\s+at /);
        } finally {
          await disk.remount("rw");
        }
      },
    });

    await t.step(
      "what SQLite says of a failing or vanished file system is told as such (503)",
      () => {
        for (const message of ["disk I/O error", "Stale file handle (os error 116)"]) {
          const error = storageFailure(new Error(message), "/p/.sync/memory.kv");
          assert.ok(error instanceof StorageError, message);
          assert.equal(error.problem, "unreachable");
          assert.equal(httpStatusOf(error), 503);
          assert.match(error.message, /^The file system holding \/p\/\.sync\/memory\.kv cannot be/);
        }
        assert.equal(storageFailure(new Error("record too large"), "/p"), null);
      },
    );
  } finally {
    // The host lets go of the memories on the disks first, so they unmount.
    await env.close();
    for (const disk of disks) await disk.close();
  }
});
