import assert from "node:assert/strict";
import { join } from "node:path";
import { packageFile, readPackageText } from "../../runtime/packages/package_file.ts";
import { readFileAtMost } from "../../runtime/internal/read_file_at_most.ts";
import {
  loadPackage,
  readManifestAt,
  readServiceSource,
  storePackage,
  withPackageFiles,
} from "../../runtime/packages/store.ts";
import { ArchiveError, InvalidInputError, ManifestError } from "../../runtime/errors.ts";
import { checkBuiltPackage } from "../../runtime/author/mod.ts";
import { writePackage } from "../internal/packages.ts";

const SERVICE = `export default function register() { return { "own.run": () => 1 }; }\n`;
const admitAll = async () => {};

/** A temp root (its real path), removed after `run`. */
async function inTemp(run: (root: string) => Promise<void>): Promise<void> {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "sync-package-file-" }));
  try {
    await run(root);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
}

/** Runs `mkfifo`; the FIFO is never opened for writing, so reading it would wait for ever. */
async function makeFifo(path: string): Promise<void> {
  const { success } = await new Deno.Command("mkfifo", { args: [path] }).output();
  assert.ok(success, "mkfifo");
}

Deno.test("`packageFile()` answers only a regular file of the package's own", async (t) => {
  await inTemp(async (root) => {
    const dir = await writePackage(root, { id: "own", handlers: ["own.run"], service: SERVICE });
    const secret = join(root, "secret.txt");
    await Deno.writeTextFile(secret, "TOP SECRET");

    await t.step("a file inside, and a link to a file inside, are its own", async () => {
      assert.equal(await packageFile(dir, "service/index.js"), join(dir, "service", "index.js"));
      await Deno.symlink(join(dir, "service", "index.js"), join(dir, "again.js"));
      assert.equal(await packageFile(dir, "again.js"), join(dir, "service", "index.js"));
    });

    await t.step("a link that leads outside is refused, naming where it leads", async () => {
      await Deno.symlink(secret, join(dir, "prompt.md"));
      await assert.rejects(
        packageFile(dir, "prompt.md"),
        (error) =>
          error instanceof InvalidInputError &&
          error.message.includes(`"prompt.md" of the package in ${dir}: it leads outside`) &&
          error.message.includes(`(to ${secret})`),
      );
      await Deno.symlink(root, join(dir, "up"));
      await assert.rejects(packageFile(dir, "up/secret.txt"), /leads outside the package/);
    });

    await t.step("a FIFO, a device and a folder are refused by what they are", async () => {
      await makeFifo(join(dir, "fifo"));
      await assert.rejects(packageFile(dir, "fifo"), /"fifo" .*: it is a FIFO, not a regular file/);
      await Deno.symlink("/dev/zero", join(dir, "zero"));
      await assert.rejects(packageFile(dir, "zero"), /leads outside the package/);
      await assert.rejects(packageFile(dir, "service"), /it is a folder, not a regular file/);
    });

    await t.step("a missing file is NotFound, as the callers expect", async () => {
      await assert.rejects(packageFile(dir, "nothing.js"), Deno.errors.NotFound);
    });
  });
});

Deno.test("`readPackageText()` and `readFileAtMost()` read no more than the limit", async (t) => {
  await inTemp(async (root) => {
    const dir = await writePackage(root, { id: "own", handlers: ["own.run"], service: SERVICE });

    await t.step("a file within the limit is read whole", async () => {
      assert.equal(await readPackageText(dir, "service/index.js"), SERVICE);
    });

    await t.step("a file over the limit is refused by its size", async () => {
      await assert.rejects(
        readPackageText(dir, "service/index.js", 10),
        /"service\/index\.js" .*: it is larger than 10 bytes/,
      );
    });

    await t.step("a source without end is read only up to the limit", async () => {
      assert.equal(await readFileAtMost("/dev/zero", 1024), null);
      const bytes = await readFileAtMost(join(dir, "service", "index.js"), 1024);
      assert.equal(new TextDecoder().decode(bytes!), SERVICE);
    });
  });
});

Deno.test("the store and check refuse a package's files that are not its own", async (t) => {
  await inTemp(async (root) => {
    const home = join(root, "home");
    const secret = join(root, "secret.js");
    await Deno.writeTextFile(secret, `export default function register() { return {}; }`);

    await t.step("a device or a FIFO given as an archive is refused, not read", async () => {
      await assert.rejects(
        storePackage("/dev/zero", { home, now: () => 0, admit: admitAll }),
        (error) =>
          error instanceof ArchiveError &&
          /Cannot unpack \/dev\/zero: it is neither a folder nor a regular file/.test(
            error.message,
          ),
      );
      const fifo = join(root, "package.tgz");
      await makeFifo(fifo);
      await assert.rejects(
        withPackageFiles(fifo, { home }, () => Promise.resolve()),
        /neither a folder nor a regular file/,
      );
    });

    await t.step(
      "a manifest that is a FIFO or a link to /dev/zero is a ManifestError",
      async () => {
        for (const make of [makeFifo, (path: string) => Deno.symlink("/dev/zero", path)]) {
          const dir = join(root, `odd-${crypto.randomUUID()}`);
          await Deno.mkdir(dir);
          await make(join(dir, "manifest.json"));
          await assert.rejects(
            readManifestAt(dir),
            (error) =>
              error instanceof ManifestError &&
              /manifest\.json.*(FIFO|leads outside)/.test(error.message),
          );
          await assert.rejects(
            storePackage(dir, { home, now: () => 0, admit: admitAll }),
            ManifestError,
          );
        }
      },
    );

    await t.step("check refuses a service module that links outside the package", async () => {
      const dir = await writePackage(root, { id: "own", handlers: ["own.run"], service: SERVICE });
      await Deno.remove(join(dir, "service", "index.js"));
      await Deno.symlink(secret, join(dir, "service", "index.js"));
      const problems = await checkBuiltPackage(dir);
      const problem = problems.find((p) => p.rule === "service-file");
      assert.ok(problem, JSON.stringify(problems));
      assert.match(problem.message, /leads outside the package/);
    });

    await t.step("a linked folder changed into a link outside serves nothing of it", async () => {
      const dir = await writePackage(root, { id: "own", handlers: ["own.run"], service: SERVICE });
      const stored = await storePackage(dir, { home, now: () => 0, admit: admitAll });
      const pkg = await loadPackage(stored.ref);
      assert.equal(await readServiceSource(pkg), SERVICE);
      await Deno.remove(join(dir, "service", "index.js"));
      await Deno.symlink(secret, join(dir, "service", "index.js"));
      await assert.rejects(readServiceSource(pkg), /leads outside the package/);
    });
  });
});
