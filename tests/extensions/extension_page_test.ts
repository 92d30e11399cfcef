import assert from "node:assert/strict";
import { join } from "node:path";
import { describeExtension, listExtensions } from "../../runtime/extensions/mod.ts";
import { installPackage } from "../../runtime/lifecycle/mod.ts";
import { EXTENSION_PAGE_LIMITS } from "../../runtime/limits.ts";
import { writeDeclaredIds } from "../../runtime/projects/mod.ts";
import { testHost, writePackage } from "../internal/packages.ts";

const SPEC = {
  id: "feed",
  handlers: ["feed.read"],
  service: `export default function register() { return { "feed.read": () => null }; }`,
};

Deno.test("describeExtension() describes what serves, and shows only what an update adds", async () => {
  const env = await testHost();
  try {
    await env.install(SPEC);
    const wider = await writePackage(join(env.home, "..", "packages"), {
      ...SPEC,
      version: "2.0.0",
      permissions: ["background", "work.agent"],
      manifest: { description: "Reads the feed, now with an agent" },
    });
    // Another folder of the id: the person agreed to replace; approval still waits.
    await assert.rejects(installPackage(env.host, wider, env.project, { replace: true }), {
      name: "ApprovalRequiredError",
    });
    const page = await describeExtension(env.kv, env.project, "feed", env.host);
    assert.equal(page.version, "1.0.0");
    assert.equal(page.description, "The feed test package");
    assert.deepEqual(page.permissions.map((p) => p.permission), ["background"]);
    assert.deepEqual(page.update, {
      version: "2.0.0",
      widened: [{
        permission: "work.agent",
        text: "may order agent sessions, which spend your agent's tokens, even while you are away",
        wide: false,
      }],
      serves: "1.0.0",
    });
    assert.equal(page.lamp.state, "red");
  } finally {
    await env.close();
  }
});

Deno.test("describeExtension() reads the package's own files only so far", async (t) => {
  const env = await testHost();
  try {
    const dir = await writePackage(join(env.home, "..", "packages"), {
      ...SPEC,
      types: { "item.json": "feed.item", "big.json": "feed.big", "bad.json": "feed.bad" },
      manifest: { prompt: "prompt/instructions.md" },
    });
    await Deno.mkdir(join(dir, "prompt"));
    await Deno.writeTextFile(join(dir, "prompt", "instructions.md"), "Read the feed.\n");
    await installPackage(env.host, dir, env.project, { approve: true });
    // The folder is linked; its author goes on writing after install.
    const long = "x".repeat(EXTENSION_PAGE_LIMITS.maxPromptChars + 10);
    await Deno.writeTextFile(join(dir, "prompt", "instructions.md"), long);
    await Deno.writeTextFile(
      join(dir, "types", "big.json"),
      JSON.stringify({ kind: "feed.big", pad: "y".repeat(EXTENSION_PAGE_LIMITS.maxTypeFileChars) }),
    );
    await Deno.writeTextFile(join(dir, "types", "bad.json"), "{ not json");
    const page = await describeExtension(env.kv, env.project, "feed", env.host);
    // Then its prompt and a type become links to a file outside the package.
    const secret = join(env.home, "..", "secret.txt");
    await Deno.writeTextFile(secret, JSON.stringify({ kind: "feed.item", title: "TOP SECRET" }));
    for (const file of [join(dir, "prompt", "instructions.md"), join(dir, "types", "item.json")]) {
      await Deno.remove(file);
      await Deno.symlink(secret, file);
    }
    const linked = await describeExtension(env.kv, env.project, "feed", env.host);

    await t.step("a long prompt is cut, visibly", () => {
      assert.ok(page.prompt!.text.length <= EXTENSION_PAGE_LIMITS.maxPromptChars);
      assert.ok(
        page.prompt!.text.startsWith("x".repeat(EXTENSION_PAGE_LIMITS.maxPromptChars - 100)),
      );
      assert.match(page.prompt!.text, /… \[cut: [\d,]+ more characters\]$/);
    });

    await t.step("each type is read, or listed with why it was not", () => {
      const byFile = Object.fromEntries(page.types.map((type) => [type.file, type]));
      assert.equal(byFile["types/item.json"].kind, "feed.item");
      assert.equal(byFile["types/item.json"].title, "feed.item");
      assert.equal(byFile["types/big.json"].kind, null);
      assert.match(byFile["types/big.json"].problem!, /longer than 100000 characters/);
      assert.match(byFile["types/bad.json"].problem!, /not JSON/);
    });

    await t.step("a prompt or a type that links outside the package shows nothing of it", () => {
      assert.equal(linked.prompt!.text, "");
      const item = linked.types.find((type) => type.file === "types/item.json")!;
      assert.equal(item.title, null);
      assert.match(item.problem!, /leads outside the package/);
      assert.ok(!JSON.stringify(linked).includes("TOP SECRET"));
    });
  } finally {
    await env.close();
  }
});

Deno.test("listExtensions() lists a package that is not on this machine, dark", async () => {
  const env = await testHost();
  try {
    await env.install(SPEC);
    await writeDeclaredIds(env.project, ["feed", "ghost"]);
    const rows = await listExtensions(env.kv, env.project, env.host);
    assert.deepEqual(
      rows.map((row) => [row.id, row.name, row.version, row.lamp.state]),
      [["feed", "Feed", "1.0.0", "steady"], ["ghost", "ghost", null, "dark"]],
    );
    await assert.rejects(describeExtension(env.kv, env.project, "ghost", env.host), {
      name: "NotFoundError",
      message: /ghost is listed in .* but is not on this machine/,
    });
  } finally {
    await env.close();
  }
});
