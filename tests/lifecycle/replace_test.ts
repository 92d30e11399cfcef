import assert from "node:assert/strict";
import { dirname, join } from "node:path";
import { ApprovalRequiredError } from "../../runtime/errors.ts";
import { installPackage } from "../../runtime/lifecycle/install.ts";
import { readInstallCard } from "../../runtime/lifecycle/install_card.ts";
import { removePackage } from "../../runtime/lifecycle/remove.ts";
import { readPackageRef } from "../../runtime/packages/store.ts";
import { readDeclaredIds } from "../../runtime/projects/project.ts";
import { packageArchive } from "../internal/cli.ts";
import { type PackageSpec, type TestHost, testHost, writePackage } from "../internal/packages.ts";
import { rejectsWith } from "../internal/rejects_with.ts";

const SERVICE = `export default function register() { return { "hello.greet": () => "hi" }; }`;

function hello(version: string): PackageSpec {
  return { id: "hello", version, handlers: ["hello.greet"], service: SERVICE };
}

/** A folder for a package, beside the test host's home (removed with it). */
function folder(env: TestHost, spec: PackageSpec): Promise<string> {
  return writePackage(join(dirname(env.home), "packages"), spec);
}

/** An archive of a package, beside the test host's home (removed with it). */
async function archive(env: TestHost, version: string): Promise<string> {
  const file = join(dirname(env.home), `hello-${version}.tgz`);
  await Deno.writeFile(
    file,
    packageArchive({
      id: "hello",
      version,
      permissions: ["background"],
      handlers: ["hello.greet"],
      service: SERVICE,
    }),
  );
  return file;
}

Deno.test("installPackage() asks before replacing another package of the same id", async (t) => {
  const env = await testHost();
  try {
    const first = await folder(env, hello("1.0.0"));
    await installPackage(env.host, first, env.project, { approve: true });

    await t.step(
      "another folder with the same id is refused, naming what is installed",
      async () => {
        const other = await folder(env, hello("0.1.0"));
        await rejectsWith(
          installPackage(env.host, other, env.project, {
            approve: true,
            confirm: { approve: "A", replace: `sync install ${other} --approve --replace` },
          }),
          ApprovalRequiredError,
          new RegExp(
            `^Cannot install hello 0\\.1\\.0 from ${other} into ${env.project} without your word: ` +
              `it would replace hello 1\\.0\\.0 from ${first} in every project that lists hello; ` +
              `the new one is older and comes from another folder\\.\\n` +
              `To replace it: sync install ${other} --approve --replace$`,
          ),
        );
        // Nothing moved: the first folder still serves.
        assert.equal((await readPackageRef(env.kv, "hello"))?.dir, first);
      },
    );

    await t.step("the app's words, when no command was typed", async () => {
      const other = await folder(env, hello("2.0.0"));
      const error = await rejectsWith(
        installPackage(env.host, other, env.project, { approve: true }),
        ApprovalRequiredError,
        /the new one comes from another folder\.\nTo replace it: send "replace": true/,
      );
      assert.doesNotMatch(error.message, /is older/);
    });

    await t.step("the same folder again is no replacement", async () => {
      await installPackage(env.host, first, env.project, { approve: true });
    });

    await t.step("with replace, the other folder serves", async () => {
      const other = await folder(env, hello("0.1.0"));
      await installPackage(env.host, other, env.project, { approve: true, replace: true });
      assert.equal((await readPackageRef(env.kv, "hello"))?.dir, other);
    });

    await t.step("an archive where a folder served is another source", async () => {
      const file = await archive(env, "3.0.0");
      await rejectsWith(
        installPackage(env.host, file, env.project, { approve: true }),
        ApprovalRequiredError,
        /the new one comes from an archive\./,
      );
      await installPackage(env.host, file, env.project, { approve: true, replace: true });
    });

    await t.step("a newer archive after an archive is an update; an older one asks", async () => {
      await installPackage(env.host, await archive(env, "3.1.0"), env.project, { approve: true });
      await rejectsWith(
        installPackage(env.host, await archive(env, "3.0.1"), env.project, { approve: true }),
        ApprovalRequiredError,
        /it would replace hello 3\.1\.0 from an archive \(digest [0-9a-f]{16}\) .*; the new one is older\./,
      );
      assert.equal((await readPackageRef(env.kv, "hello"))?.version, "3.1.0");
    });

    await t.step("an id no project lists any more replaces nothing anyone uses", async () => {
      await removePackage(env.host, "hello", env.project);
      assert.deepEqual(await readDeclaredIds(env.project), []);
      await installPackage(env.host, await folder(env, hello("0.0.1")), env.project, {
        approve: true,
      });
    });
  } finally {
    await env.close();
  }
});

Deno.test("readInstallCard() says what an install would replace, as install decides", async (t) => {
  const env = await testHost();
  try {
    const first = await folder(env, hello("1.0.0"));
    await installPackage(env.host, first, env.project, { approve: true });

    await t.step("another folder: its source and version, and why", async () => {
      const other = await folder(env, hello("0.1.0"));
      const card = await readInstallCard(env.host, other, env.project);
      assert.deepEqual(card.replaces && { ...card.replaces }, {
        id: "hello",
        version: "1.0.0",
        source: "folder",
        dir: first,
        reasons: ["older", "another-source"],
        text: `hello 1.0.0 from ${first}`,
        why: "the new one is older and comes from another folder",
      });
    });

    await t.step("the folder installed: nothing replaced", async () => {
      const card = await readInstallCard(env.host, first, env.project);
      assert.equal(card.replaces, null);
    });

    await t.step("an archive of a newer version where a folder served", async () => {
      const card = await readInstallCard(env.host, await archive(env, "2.0.0"), env.project);
      assert.deepEqual(card.replaces?.reasons, ["another-source"]);
      assert.equal(card.replaces?.why, "the new one comes from an archive");
    });
  } finally {
    await env.close();
  }
});

Deno.test("readInstallCard() sets wide permissions apart", async () => {
  const env = await testHost();
  try {
    const dir = await folder(env, {
      id: "wide",
      handlers: ["wide.run"],
      service: `export default function register() { return { "wide.run": () => 1 }; }`,
      permissions: ["background", "host.processes", "net:api.example.com", "net:127.0.0.1:8080"],
      manifest: { host: { processes: [{ id: "tail", program: "tail", args: ["-F", "log"] }] } },
    });
    const card = await readInstallCard(env.host, dir, env.project);
    assert.deepEqual(card.problems, []);
    assert.deepEqual(card.permissions.map((p) => [p.permission, p.wide]), [
      ["background", false],
      ["host.processes", true],
      ["net:api.example.com", false],
      ["net:127.0.0.1:8080", true],
      ["process:tail tail -F log", true],
    ]);
  } finally {
    await env.close();
  }
});
