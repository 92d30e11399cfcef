import assert from "node:assert/strict";
import { join } from "node:path";
import {
  type LoadedPackage,
  loadPackage,
  type PackageRef,
  publishedKinds,
  readManifestAt,
  readPackageRef,
  readServiceSource,
  setPackageRef,
  storePackage,
} from "../../runtime/packages/store.ts";
import {
  ArchiveError,
  InvalidInputError,
  ManifestError,
  NotFoundError,
} from "../../runtime/errors.ts";
import { ARCHIVE_LIMITS } from "../../runtime/limits.ts";
import { writePackage } from "../internal/packages.ts";
import { archiveDigest, exists, packageArchive } from "../internal/cli.ts";

const T0 = Date.UTC(2030, 0, 1, 9, 0, 0);
const SERVICE = `export default function register() { return { "mail.run": () => 1 }; }\n`;
const admitAll = async () => {};

/** Names in a folder, sorted; none when it does not exist. */
async function namesIn(dir: string): Promise<string[]> {
  const names: string[] = [];
  if (!(await exists(dir))) return names;
  for await (const entry of Deno.readDir(dir)) names.push(entry.name);
  return names.sort();
}

/** A temp root with a home under it, removed after `run`. */
async function inTemp(run: (root: string, home: string) => Promise<void>): Promise<void> {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "sync-store-" }));
  try {
    await run(root, join(root, "home"));
  } finally {
    await Deno.remove(root, { recursive: true });
  }
}

/** Writes the mail package as an archive in `root` and answers its path and bytes. */
async function mailArchive(
  root: string,
  version: string,
): Promise<{ file: string; bytes: Uint8Array }> {
  const bytes = packageArchive({
    id: "mail",
    version,
    permissions: ["background"],
    handlers: ["mail.run"],
    service: SERVICE,
  });
  const file = join(root, `mail-${version}.tgz`);
  await Deno.writeFile(file, bytes);
  return { file, bytes };
}

Deno.test("`storePackage()` links a folder", async (t) => {
  await inTemp(async (root, home) => {
    const dir = await writePackage(join(root, "packages"), {
      id: "mail",
      version: "1.2.0",
      handlers: ["mail.run"],
      service: SERVICE,
    });

    await t.step("the folder is admitted, then linked where it is", async () => {
      const admitted: string[] = [];
      const stored = await storePackage(`${dir}/.`, {
        home,
        now: () => T0,
        admit: (folder) => {
          admitted.push(folder);
          return Promise.resolve();
        },
      });
      assert.deepEqual(admitted, [dir]);
      assert.deepEqual(stored.ref, {
        id: "mail",
        version: "1.2.0",
        source: "folder",
        dir,
        installedAt: new Date(T0).toISOString(),
      });
      assert.equal(stored.dir, dir);
      assert.equal(stored.unpacked, false);
      assert.equal(stored.manifest.id, "mail");
      assert.deepEqual(await namesIn(home), [], "nothing is copied into the store");
    });

    await t.step("a refusal by admit is thrown as it is, before the manifest is read", async () => {
      await Deno.remove(join(dir, "manifest.json"));
      const refusal = new Error("refused by the check");
      await assert.rejects(
        storePackage(dir, {
          home,
          now: () => T0,
          admit: () => Promise.reject(refusal),
        }),
        (error) => error === refusal,
      );
    });

    await t.step("a folder without a manifest is refused as one", async () => {
      const file = join(dir, "manifest.json");
      await assert.rejects(
        storePackage(dir, { home, now: () => T0, admit: admitAll }),
        (error) =>
          error instanceof ManifestError &&
          error.message === `Invalid manifest ${file}:\n  (manifest): manifest.json is missing`,
      );
    });

    await t.step("a path that is neither folder nor archive is not found", async () => {
      const missing = join(root, "nowhere");
      await assert.rejects(
        storePackage(missing, { home, now: () => T0, admit: admitAll }),
        (error) =>
          error instanceof NotFoundError &&
          error.message === `Cannot install ${missing}: no such folder or archive`,
      );
    });
  });
});

Deno.test("`storePackage()` unpacks an archive into the store", async (t) => {
  await inTemp(async (root, home) => {
    const store = join(home, "extensions", "store");
    const { file, bytes } = await mailArchive(root, "1.0.0");
    const digest = await archiveDigest(bytes);
    const dir = join(store, "mail", `1.0.0-${digest}`);

    await t.step("it is admitted from a staging folder, then renamed into place", async () => {
      const admitted: string[][] = [];
      const stored = await storePackage(file, {
        home,
        now: () => T0,
        admit: async (folder) => {
          assert.ok(folder.startsWith(join(store, ".staging") + "/"), folder);
          admitted.push(await namesIn(folder));
        },
      });
      assert.deepEqual(admitted, [["manifest.json", "service"]], "the common folder is gone");
      assert.deepEqual(stored.ref, {
        id: "mail",
        version: "1.0.0",
        source: "archive",
        dir,
        digest,
        installedAt: new Date(T0).toISOString(),
      });
      assert.equal(stored.dir, dir);
      assert.equal(stored.unpacked, true);
      assert.equal(await Deno.readTextFile(join(dir, "service", "index.js")), SERVICE);
      assert.deepEqual(await namesIn(store), ["mail"], "no staging folder is left");
    });

    await t.step("the same archive again is not unpacked twice", async () => {
      const stored = await storePackage(file, { home, now: () => T0 + 1, admit: admitAll });
      assert.equal(stored.unpacked, false);
      assert.equal(stored.dir, dir);
      assert.equal(stored.ref.installedAt, new Date(T0 + 1).toISOString());
      assert.deepEqual(await namesIn(store), ["mail"]);
      assert.deepEqual(await namesIn(join(store, "mail")), [`1.0.0-${digest}`]);
    });

    await t.step("another version is unpacked beside it", async () => {
      const next = await mailArchive(root, "1.1.0");
      const stored = await storePackage(next.file, { home, now: () => T0, admit: admitAll });
      assert.equal(stored.ref.version, "1.1.0");
      assert.deepEqual(await namesIn(join(store, "mail")), [
        `1.0.0-${digest}`,
        `1.1.0-${await archiveDigest(next.bytes)}`,
      ]);
    });

    await t.step("a refusal by admit is thrown as it is and leaves nothing", async () => {
      const other = await mailArchive(root, "2.0.0");
      const refusal = new Error("refused by the check");
      await assert.rejects(
        storePackage(other.file, { home, now: () => T0, admit: () => Promise.reject(refusal) }),
        (error) => error === refusal,
      );
      assert.deepEqual(await namesIn(store), ["mail"]);
      assert.equal(
        (await namesIn(join(store, "mail"))).some((name) => name.startsWith("2.0.0-")),
        false,
      );
    });
  });
});

Deno.test("`storePackage()` refuses a broken archive and leaves nothing", async (t) => {
  await inTemp(async (root, home) => {
    const store = join(home, "extensions", "store");

    await t.step("an archive with a link in it is refused by name", async () => {
      const file = join(root, "evil.tgz");
      await Deno.writeFile(
        file,
        packageArchive({
          id: "evil",
          version: "1.0.0",
          permissions: ["background"],
          handlers: ["evil.run"],
          service: SERVICE,
          extra: [{ name: "package/link", type: "2", linkname: "/etc/passwd" }],
        }),
      );
      await assert.rejects(
        storePackage(file, { home, now: () => T0, admit: admitAll }),
        (error) =>
          error instanceof ArchiveError &&
          error.message ===
            `Cannot unpack ${file}: entry "package/link" is a symbolic link; only files and folders are accepted`,
      );
      assert.deepEqual(await namesIn(store), []);
    });

    await t.step("an archive without a manifest is refused once unpacked", async () => {
      const file = join(root, "hollow.tgz");
      const bytes = packageArchive({
        id: "hollow",
        version: "1.0.0",
        permissions: ["background"],
        handlers: ["hollow.run"],
        service: SERVICE,
      });
      await Deno.writeFile(file, bytes);
      let staged = "";
      await assert.rejects(
        storePackage(file, {
          home,
          now: () => T0,
          admit: async (folder) => {
            staged = folder;
            await Deno.remove(join(folder, "manifest.json"));
          },
        }),
        (error) =>
          error instanceof ManifestError &&
          error.message ===
            `Invalid manifest ${
              join(staged, "manifest.json")
            }:\n  (manifest): manifest.json is missing`,
      );
      assert.deepEqual(await namesIn(store), []);
    });

    await t.step("an archive over the size limit is refused before it is read", async () => {
      const file = join(root, "huge.tgz");
      using handle = await Deno.create(file);
      await handle.truncate(ARCHIVE_LIMITS.maxArchiveBytes + 1);
      await assert.rejects(
        storePackage(file, { home, now: () => T0, admit: admitAll }),
        (error) =>
          error instanceof ArchiveError &&
          error.message ===
            `Cannot unpack ${file}: it is ${
              ARCHIVE_LIMITS.maxArchiveBytes + 1
            } bytes; the limit is ${ARCHIVE_LIMITS.maxArchiveBytes}`,
      );
      assert.deepEqual(await namesIn(store), []);
    });
  });
});

Deno.test("`setPackageRef()` and `readPackageRef()` say which artefact serves an id", async () => {
  using kv = await Deno.openKv(":memory:");
  const ref: PackageRef = {
    id: "mail",
    version: "1.0.0",
    source: "archive",
    dir: "/home/extensions/store/mail/1.0.0-0123456789abcdef",
    digest: "0123456789abcdef",
    installedAt: new Date(T0).toISOString(),
  };
  assert.equal(await readPackageRef(kv, "mail"), null);
  await setPackageRef(kv, ref);
  assert.deepEqual(await readPackageRef(kv, "mail"), ref);
  const next = { ...ref, version: "1.1.0" };
  await setPackageRef(kv, next);
  assert.deepEqual(await readPackageRef(kv, "mail"), next);
});

Deno.test("`loadPackage()` reads the package a ref points at, now", async (t) => {
  await inTemp(async (root) => {
    const dir = await writePackage(root, { id: "mail", handlers: ["mail.run"], service: SERVICE });
    const ref: PackageRef = {
      id: "mail",
      version: "1.0.0",
      source: "folder",
      dir,
      installedAt: new Date(T0).toISOString(),
    };
    const file = join(dir, "manifest.json");
    const manifest = JSON.parse(await Deno.readTextFile(file));

    await t.step("it answers the ref, the manifest and the folder", async () => {
      const loaded = await loadPackage(ref);
      assert.deepEqual(loaded.ref, ref);
      assert.equal(loaded.dir, dir);
      assert.deepEqual(loaded.manifest, await readManifestAt(dir));
    });

    await t.step("an edited manifest is read as it is now", async () => {
      await Deno.writeTextFile(file, JSON.stringify({ ...manifest, description: "Edited" }));
      assert.equal((await loadPackage(ref)).manifest.description, "Edited");
    });

    await t.step("a manifest that names another id is refused at `id`", async () => {
      // A whole manifest of another package: only its id is wrong for this ref.
      const post = {
        ...manifest,
        id: "post",
        handlers: { "post.run": manifest.handlers["mail.run"] },
      };
      await Deno.writeTextFile(file, JSON.stringify(post));
      await assert.rejects(loadPackage(ref), (error) => {
        assert.ok(error instanceof ManifestError);
        assert.equal(
          error.message,
          `Invalid manifest ${file}:\n  id: is "post", but this folder was installed as "mail"`,
        );
        assert.deepEqual(error.issues, [
          { path: "id", message: `is "post", but this folder was installed as "mail"` },
        ]);
        return true;
      });
    });

    await t.step("a manifest that no longer validates is refused", async () => {
      await Deno.writeTextFile(file, JSON.stringify({ ...manifest, version: "one" }));
      await assert.rejects(loadPackage(ref), (error) => {
        assert.ok(error instanceof ManifestError);
        assert.deepEqual(error.issues.map((issue) => issue.path), ["version"]);
        return true;
      });
    });

    await t.step("a folder that is gone says to install it again", async () => {
      await Deno.remove(dir, { recursive: true });
      await assert.rejects(
        loadPackage(ref),
        (error) =>
          error instanceof NotFoundError &&
          error.message === `Cannot load mail: its folder ${dir} is gone; install it again`,
      );
    });
  });
});

Deno.test("`publishedKinds()` answers the kinds of a package's type files", async (t) => {
  await inTemp(async (root) => {
    const dir = await writePackage(root, {
      id: "mail",
      handlers: ["mail.run"],
      service: SERVICE,
      types: { "message.json": "mail.message", "thread.json": "mail.thread" },
    });
    const ref: PackageRef = {
      id: "mail",
      version: "1.0.0",
      source: "folder",
      dir,
      installedAt: new Date(T0).toISOString(),
    };
    const pkg = await loadPackage(ref);
    /** The package as if its manifest listed `files` under `types`. */
    const listing = (files: string[] | undefined): LoadedPackage => ({
      ...pkg,
      manifest: { ...pkg.manifest, types: files },
    });

    await t.step("each file's kind, in the manifest's order", async () => {
      assert.deepEqual(await publishedKinds(pkg), ["mail.message", "mail.thread"]);
    });

    await t.step("a package without types publishes nothing", async () => {
      assert.deepEqual(await publishedKinds(listing(undefined)), []);
      assert.deepEqual(await publishedKinds(listing([])), []);
    });

    await t.step("only kinds under the package's own prefix are published", async () => {
      const kinds = { "other.json": "post.letter", "bare.json": "mail", "near.json": "mailbox.x" };
      for (const [name, kind] of Object.entries(kinds)) {
        await Deno.writeTextFile(join(dir, "types", name), JSON.stringify({ kind }));
      }
      assert.deepEqual(
        await publishedKinds(
          listing(["types/message.json", ...Object.keys(kinds).map((n) => `types/${n}`)]),
        ),
        ["mail.message"],
      );
    });

    await t.step(
      "a file missing, not JSON or without a string kind publishes nothing",
      async () => {
        await Deno.writeTextFile(join(dir, "types", "broken.json"), "{ kind: ");
        await Deno.writeTextFile(join(dir, "types", "numbered.json"), '{ "kind": 7 }');
        await Deno.writeTextFile(join(dir, "types", "null.json"), "null");
        assert.deepEqual(
          await publishedKinds(
            listing([
              "types/gone.json",
              "types/broken.json",
              "types/numbered.json",
              "types/null.json",
              "types/thread.json",
            ]),
          ),
          ["mail.thread"],
        );
      },
    );
  });
});

Deno.test("`readServiceSource()` reads the service module's text", async (t) => {
  await inTemp(async (root) => {
    const dir = await writePackage(root, { id: "mail", handlers: ["mail.run"], service: SERVICE });
    const pkg = await loadPackage({
      id: "mail",
      version: "1.0.0",
      source: "folder",
      dir,
      installedAt: new Date(T0).toISOString(),
    });

    await t.step("it answers the file the manifest names", async () => {
      assert.equal(await readServiceSource(pkg), SERVICE);
    });

    await t.step("a package without a service module is refused", async () => {
      await assert.rejects(
        readServiceSource({ ...pkg, manifest: { ...pkg.manifest, service: undefined } }),
        (error) =>
          error instanceof InvalidInputError && error.message === "mail has no service module",
      );
    });
  });
});
