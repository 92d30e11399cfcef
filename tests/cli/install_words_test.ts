import assert from "node:assert/strict";
import { join } from "node:path";
import { runSync } from "../internal/cli.ts";
import { runAuthor } from "../internal/author.ts";
import { writePackage } from "../internal/packages.ts";

const SERVICE = `export default function register() { return { "hello.greet": () => "hi" }; }`;

Deno.test("`sync install` says what to type, in the person's own words", async (t) => {
  const root = await Deno.makeTempDir({ prefix: "sync-install-words-" });
  const home = join(root, "home");
  const project = join(root, "project");
  await Deno.mkdir(project);
  const sync = (...args: string[]) => runSync(home, args, { startFolder: root });

  try {
    const first = await writePackage(root, {
      id: "hello",
      version: "1.0.0",
      handlers: ["hello.greet"],
      service: SERVICE,
    });
    const firstName = first.slice(root.length + 1);
    const other = await writePackage(root, {
      id: "hello",
      version: "0.1.0",
      handlers: ["hello.greet"],
      service: SERVICE,
    });
    const otherName = other.slice(root.length + 1);

    await t.step("with no folder: the usage, an example, exit 2", async () => {
      const result = await sync("install", "--project", "project");
      assert.equal(result.code, 2, result.stderr);
      assert.equal(result.stdout, "");
      assert.match(
        result.stderr,
        /^sync install: needs the package folder or archive to install\n/,
      );
      assert.match(result.stderr, /Usage:\n {2}install <folder\|archive> --project <dir>/);
      assert.match(
        result.stderr,
        /Example:\n {2}sync install \.\/hello --project ~\/code\/site --approve/,
      );
    });

    await t.step("a refusal for approval names the command typed, with --approve", async () => {
      const result = await sync("install", `./${firstName}`, "--project", "project");
      assert.equal(result.code, 1, result.stderr);
      assert.match(
        result.stderr,
        new RegExp(
          `To approve these for this project and install it: ` +
            `sync install \\./${firstName} --project project --approve\\n?$`,
        ),
      );
      const approved = await sync("install", `./${firstName}`, "--project", "project", "--approve");
      assert.equal(approved.code, 0, approved.stderr);
    });

    await t.step(
      "another package of the same id: refused, naming what is installed and --replace",
      async () => {
        const result = await sync("install", otherName, "--project", "project", "--approve");
        assert.equal(result.code, 1, result.stderr);
        assert.equal(result.stdout, "");
        assert.match(
          result.stderr,
          new RegExp(
            `Cannot install hello 0\\.1\\.0 from ${other} into .* without your word: it would ` +
              `replace hello 1\\.0\\.0 from ${first} in every project that lists hello; the new ` +
              `one is older and comes from another folder\\.\\n` +
              `To replace it: sync install ${otherName} --project project --approve --replace\\n?$`,
          ),
        );
        const list = await sync("list", "--project", "project");
        assert.match(list.stdout, /^hello@1\.0\.0 /m);
      },
    );

    await t.step("what reaches past what Sync guards is listed first, marked", async () => {
      const runner = await writePackage(root, {
        id: "runner",
        handlers: ["runner.run"],
        service: `export default function register() { return { "runner.run": () => 1 }; }`,
        permissions: ["background", "host.processes"],
        manifest: { host: { processes: [{ id: "tail", program: "tail", args: ["-F", "log"] }] } },
      });
      const result = await sync("install", runner, "--project", "project");
      assert.equal(result.code, 1, result.stderr);
      assert.match(
        result.stderr,
        new RegExp(
          "It asks for:\\n" +
            " {2}Beyond what Sync guards \\(approve only a package you trust\\):\\n" +
            " {2}! host\\.processes — may start the programs it declares[^\\n]*\\n" +
            " {2}! process:tail tail -F log — full user access[^\\n]*\\n" +
            " {2}background — may run handlers when nobody is looking\\n",
        ),
      );
    });

    await t.step("with --replace it installs", async () => {
      const result = await sync(
        "install",
        otherName,
        "--project",
        "project",
        "--approve",
        "--replace",
      );
      assert.equal(result.code, 0, result.stderr);
      assert.match(result.stdout, /^Installed hello@0\.1\.0 \(folder: /);
      assert.doesNotMatch(
        result.stdout,
        /connect/,
        "a package with no device has nothing to connect",
      );
    });

    await t.step("an applet: the line after says how to connect its account", async () => {
      const mail = await writePackage(root, {
        id: "mail",
        permissions: ["background", "account.folder"],
        handlers: ["mail.sync"],
        service: `export default function register() { return { "mail.sync": () => ({}) }; }`,
        manifest: {
          device: {
            name: "Mail",
            description: "Reads a Maildir",
            modes: ["on-demand"],
            account: { kind: "folder", description: "Your Maildir" },
            tasks: { sync: { handler: "mail.sync", description: "Reads mail" } },
          },
        },
      });
      const result = await sync("install", mail, "--project", "project", "--approve");
      assert.equal(result.code, 0, result.stderr);
      const real = await Deno.realPath(project);
      assert.match(
        result.stdout,
        new RegExp(
          `\\nIt reads nothing until you connect its account \\(Your Maildir\\): ` +
            `sync devices connect mail --folder <dir> --project ${real}\\n?$`,
        ),
      );
    });
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("`sync new` refuses an id a package in the same folder has", async () => {
  const root = await Deno.makeTempDir({ prefix: "sync-new-id-" });
  try {
    await writePackage(root, {
      id: "hello",
      handlers: ["hello.greet"],
      service: SERVICE,
    });
    const taken = await runAuthor(["new", "hello", "greeter"], root);
    assert.equal(taken.code, 2, taken.stderr);
    assert.match(
      taken.stderr,
      new RegExp(
        `Cannot create package hello in ${root}/greeter: ${root}/hello-1\\.0\\.0-\\w+ already ` +
          `has a package with the id hello, and installing one would replace the other; choose ` +
          `another id`,
      ),
    );
    assert.equal(await Deno.stat(join(root, "greeter")).then(() => true, () => false), false);

    const fresh = await runAuthor(["new", "greeter"], root);
    assert.equal(fresh.code, 0, fresh.stderr);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
