import assert from "node:assert/strict";
import { join } from "node:path";
import { archiveDigest, exists, packageArchive, runSync } from "../internal/cli.ts";

const HELLO = "extensions/hello";

/** The ids a project's `.sync/extensions.json` lists, or null when there is none. */
async function declaredIds(project: string): Promise<string[] | null> {
  try {
    const text = await Deno.readTextFile(join(project, ".sync", "extensions.json"));
    return (JSON.parse(text) as { extensions: string[] }).extensions;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return null;
    throw error;
  }
}

/** The non-empty lines of some output. */
function lines(text: string): string[] {
  return text.split("\n").filter((line) => line.trim() !== "");
}

Deno.test("the sync CLI, as a person uses it with the hello package", async (t) => {
  const root = await Deno.makeTempDir({ prefix: "sync-cli-" });
  const home = join(root, "home");
  const project = join(root, "project");
  await Deno.mkdir(project);
  const sync = (...args: string[]) => runSync(home, args);

  try {
    await t.step(
      "`sync install` refuses without --approve and prints the permissions",
      async () => {
        const result = await sync("install", HELLO, "--project", project);
        assert.equal(result.code, 1, result.stderr);
        assert.match(
          result.stderr,
          /^sync install: Cannot install hello@[\d.]+ into .* without approval/,
        );
        assert.match(result.stderr, /background — may run handlers when nobody is looking/);
        assert.match(result.stderr, /--approve/);
        assert.equal(result.stdout, "");

        const list = await sync("list", "--project", project);
        assert.equal(list.code, 0, list.stderr);
        assert.equal(list.stdout.trim(), "Nothing is installed in this project.");
        assert.ok(!(await declaredIds(project) ?? []).includes("hello"));
      },
    );

    await t.step("`sync install --approve` installs and `sync list` shows it", async () => {
      const result = await sync("install", HELLO, "--project", project, "--approve");
      assert.equal(result.code, 0, result.stderr);
      assert.match(result.stdout, /^Installed hello@1\.0\.0 \(folder: /);
      assert.match(result.stdout, /Approved: background/);

      const list = await sync("list", "--project", project);
      assert.equal(list.code, 0, list.stderr);
      assert.match(list.stdout, /^hello@1\.0\.0 {2}Hello {2}\[folder\] {2}approved$/m);
      assert.match(list.stdout, /background — may run handlers when nobody is looking/);
      assert.deepEqual(await declaredIds(project), ["hello"]);
    });

    await t.step(
      "`sync call` prints the answer as one JSON line; console goes to stderr",
      async () => {
        const result = await sync(
          "call",
          "hello",
          "hello.greet",
          "--project",
          project,
          "--payload",
          '{"name":"Ada"}',
        );
        assert.equal(result.code, 0, result.stderr);
        assert.equal(result.stdout, '{"key":"hello.greeting/1","greeting":"Hello, Ada!"}\n');
        assert.match(result.stderr, /^\[hello\] greeted Ada \(extension\)$/m);
      },
    );

    await t.step("`sync records --kind` prints one JSON line per record", async () => {
      await sync(
        "call",
        "hello",
        "hello.greet",
        "--project",
        project,
        "--payload",
        '{"name":"Bo"}',
      );
      const result = await sync("records", "--project", project, "--kind", "hello.greeting");
      assert.equal(result.code, 0, result.stderr);
      const records = lines(result.stdout).map((line) => JSON.parse(line));
      assert.deepEqual(
        records.map((r) => [r.key, r.kind, r.title, r.fields, r.updatedBy]),
        [
          ["hello.greeting/1", "hello.greeting", "Hello, Ada!", { name: "Ada" }, "hello"],
          ["hello.greeting/2", "hello.greeting", "Hello, Bo!", { name: "Bo" }, "hello"],
        ],
      );
    });

    await t.step("`sync receipts` shows each call with its outcome and who called it", async () => {
      const text = await sync("receipts", "--project", project);
      assert.equal(text.code, 0, text.stderr);
      const rows = lines(text.stdout);
      assert.equal(rows.length, 2);
      for (const row of rows) {
        // The person's own call says so, as the command they typed.
        assert.match(row, /^\S+Z {2}ok {6}hello\.greet \(sync call, \d+ ms\)$/);
      }

      const json = await sync("receipts", "--project", project, "--json");
      assert.equal(json.code, 0, json.stderr);
      const receipts = lines(json.stdout).map((line) => JSON.parse(line));
      assert.equal(receipts.length, 2);
      for (const receipt of receipts) {
        assert.equal(receipt.packageId, "hello");
        assert.equal(receipt.handler, "hello.greet");
        assert.equal(receipt.outcome, "ok");
        assert.deepEqual(receipt.occasion, { kind: "extension" });
        assert.deepEqual(receipt.source, { kind: "person", via: "cli" });
        assert.equal(receipt.error, undefined);
        assert.equal(receipt.project, await Deno.realPath(project));
      }
      assert.ok(receipts[0].startedAt >= receipts[1].startedAt, "newest first");
    });

    await t.step(
      "a receipt of a handler named under another package says the package",
      async () => {
        const refused = await sync("call", "nothere", "hello.greet", "--project", project);
        assert.equal(refused.code, 1, refused.stderr);
        const text = await sync("receipts", "--project", project, "--limit", "1");
        assert.match(
          text.stdout,
          /^\S+Z {2}failed {2}nothere: hello\.greet \(sync call, \d+ ms\) {2}nothere is not installed in /,
        );
      },
    );

    await t.step(
      "`sync call` of an undeclared handler fails and names the declared ones",
      async () => {
        const result = await sync("call", "hello", "hello.wave", "--project", project);
        assert.equal(result.code, 1);
        assert.equal(result.stdout, "");
        assert.match(result.stderr, /hello has no handler hello\.wave/);
        assert.match(result.stderr, /it declares hello\.greet, hello\.count/);

        const json = await sync("receipts", "--project", project, "--json", "--limit", "1");
        const [receipt] = lines(json.stdout).map((line) => JSON.parse(line));
        assert.equal(receipt.handler, "hello.wave");
        assert.equal(receipt.outcome, "failed");
        assert.equal(receipt.error.name, "NotFoundError");
      },
    );

    await t.step("bad usage exits 2 and says what was wrong", async () => {
      const payload = await sync(
        "call",
        "hello",
        "hello.greet",
        "--project",
        project,
        "--payload",
        "{name: Ada}",
      );
      assert.equal(payload.code, 2);
      assert.match(payload.stderr, /--payload is not JSON/);

      const unknown = await sync("greet", "--project", project);
      assert.equal(unknown.code, 2);
      assert.match(unknown.stderr, /unknown command "greet"/);
      assert.match(unknown.stderr, /Usage: sync <command>/);

      for (const args of [["list"], ["call", "hello", "hello.greet"], ["install", HELLO]]) {
        const missing = await sync(...args);
        assert.equal(missing.code, 2, `sync ${args.join(" ")}`);
        assert.match(missing.stderr, /--project <dir> is required/);
      }

      const bare = await sync();
      assert.equal(bare.code, 2);
      assert.equal(bare.stdout, "");
      assert.match(bare.stderr, /^sync: no command given[^]*\n\nUsage: sync <command>/);
      const help = await sync("help");
      assert.equal(help.code, 0);
      assert.match(help.stdout, /install <folder\|archive> --project <dir> \[--approve\]/);

      const flag = await sync("list", "--project", project, "--frobnicate");
      assert.equal(flag.code, 2);
      assert.match(flag.stderr, /--frobnicate/);
    });

    await t.step("`sync remove` stops the package serving; its records stay", async () => {
      const result = await sync("remove", "hello", "--project", project);
      assert.equal(result.code, 0, result.stderr);
      assert.match(result.stdout, /Removed hello; its records stay/);
      assert.deepEqual(await declaredIds(project), []);

      const call = await sync("call", "hello", "hello.greet", "--project", project);
      assert.equal(call.code, 1);
      assert.match(call.stderr, /hello is not installed in /);

      const list = await sync("list", "--project", project);
      assert.equal(list.stdout.trim(), "Nothing is installed in this project.");

      const records = await sync("records", "--project", project, "--kind", "hello.greeting");
      assert.equal(lines(records.stdout).length, 2);

      const again = await sync("remove", "hello", "--project", project);
      assert.equal(again.code, 1);
      assert.match(again.stderr, /hello is not installed/);
    });

    await t.step("`sync install <file.tgz>` unpacks the archive into the store", async () => {
      const bytes = packageArchive({
        id: "packed",
        version: "2.1.0",
        permissions: ["background"],
        handlers: ["packed.version"],
        service: `export default function register() {
          return { "packed.version": () => ({ version: "2.1.0" }) };
        }`,
      });
      const file = join(root, "packed-2.1.0.tgz");
      await Deno.writeFile(file, bytes);
      const result = await sync("install", file, "--project", project, "--approve");
      assert.equal(result.code, 0, result.stderr);
      const dir = join(
        home,
        "extensions",
        "store",
        "packed",
        `2.1.0-${await archiveDigest(bytes)}`,
      );
      assert.match(result.stdout, /^Installed packed@2\.1\.0 \(archive: /);
      assert.ok(result.stdout.includes(dir), result.stdout);
      assert.ok(await exists(join(dir, "manifest.json")));
      assert.ok(await exists(join(dir, "service", "index.js")));

      const call = await sync("call", "packed", "packed.version", "--project", project);
      assert.equal(call.code, 0, call.stderr);
      assert.equal(call.stdout, '{"version":"2.1.0"}\n');

      const list = await sync("list", "--project", project);
      assert.match(list.stdout, /^packed@2\.1\.0 {2}Packed {2}\[archive\] {2}approved$/m);
    });

    await t.step(
      "`sync install` of a widening update keeps the approved version serving",
      async () => {
        const file = join(root, "packed-2.2.0.tgz");
        await Deno.writeFile(
          file,
          packageArchive({
            id: "packed",
            version: "2.2.0",
            permissions: ["background", "net:example.com"],
            handlers: ["packed.version"],
            service: `export default function register() {
            return { "packed.version": () => ({ version: "2.2.0" }) };
          }`,
          }),
        );
        const result = await sync("install", file, "--project", project);
        assert.equal(result.code, 1);
        assert.match(result.stderr, /Cannot update packed to 2\.2\.0/);
        assert.match(result.stderr, /net:example\.com — may reach example\.com over the network/);
        assert.match(result.stderr, /packed@2\.1\.0 keeps serving this project/);

        const list = await sync("list", "--project", project);
        assert.match(
          list.stdout,
          /^packed@2\.2\.0 .*2\.2\.0 awaits approval of net:example\.com; 2\.1\.0 serves$/m,
        );
        const call = await sync("call", "packed", "packed.version", "--project", project);
        assert.equal(call.stdout, '{"version":"2.1.0"}\n');

        const approved = await sync("install", file, "--project", project, "--approve");
        assert.equal(approved.code, 0, approved.stderr);
        assert.match(approved.stdout, /Approved: net:example\.com$/m);
        const after = await sync("call", "packed", "packed.version", "--project", project);
        assert.equal(after.stdout, '{"version":"2.2.0"}\n');
      },
    );

    await t.step("a hostile archive is refused and leaves nothing in the store", async () => {
      const file = join(root, "hostile-1.0.0.tgz");
      await Deno.writeFile(
        file,
        packageArchive({
          id: "hostile",
          version: "1.0.0",
          permissions: ["background"],
          handlers: ["hostile.run"],
          service: `export default function register() { return { "hostile.run": () => 1 }; }`,
          extra: [{ name: "../evil", data: "escaped" }],
        }),
      );
      const result = await sync("install", file, "--project", project, "--approve");
      assert.equal(result.code, 1);
      assert.match(result.stderr, /Cannot unpack .*: entry "\.\.\/evil" escapes/);
      assert.ok(!(await exists(join(home, "extensions", "store", "hostile"))));
      assert.ok(!(await exists(join(home, "extensions", "store", "evil"))));
      assert.ok(!(await exists(join(home, "extensions", "evil"))));
      assert.ok(!(await exists(join(root, "evil"))));
      assert.ok(!(await declaredIds(project))!.includes("hostile"));
    });
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
