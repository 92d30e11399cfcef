import assert from "node:assert/strict";
import { join } from "node:path";
import { listBundledExamples } from "../../runtime/web/bundled_examples.ts";

function manifest(id: string): string {
  return JSON.stringify({
    id,
    name: id[0].toUpperCase() + id.slice(1),
    version: "1.0.0",
    description: `The ${id} example`,
  });
}

Deno.test("`listBundledExamples()` reads only regular manifests of the folder's own", async (t) => {
  const root = await Deno.makeTempDir({ prefix: "sync-examples-" });
  try {
    const examples = join(root, "extensions");
    const outside = join(root, "outside");
    await Deno.mkdir(outside);
    await Deno.writeTextFile(join(outside, "manifest.json"), manifest("secret"));
    await Deno.mkdir(join(examples, "good"), { recursive: true });
    await Deno.writeTextFile(join(examples, "good", "manifest.json"), manifest("good"));

    await t.step("a manifest.json that is a link out of the folder is left out", async () => {
      await Deno.mkdir(join(examples, "linked"));
      await Deno.symlink(join(outside, "manifest.json"), join(examples, "linked", "manifest.json"));
      const listed = await listBundledExamples(examples);
      assert.deepEqual(listed.map((example) => example.id), ["good"]);
    });

    await t.step("a FIFO named manifest.json is left out, and the listing answers", async () => {
      await Deno.mkdir(join(examples, "fifo"));
      const made = await new Deno.Command("mkfifo", {
        args: [join(examples, "fifo", "manifest.json")],
      }).output();
      assert.ok(made.success, new TextDecoder().decode(made.stderr));
      const listed = await listBundledExamples(examples);
      assert.deepEqual(listed.map((example) => example.id), ["good"]);
    });

    await t.step("a manifest.json over 256 KiB is left out", async () => {
      await Deno.mkdir(join(examples, "huge"));
      await Deno.writeTextFile(
        join(examples, "huge", "manifest.json"),
        manifest("huge").replace("}", `, "pad": "${"x".repeat(300 * 1024)}" }`),
      );
      const listed = await listBundledExamples(examples);
      assert.deepEqual(listed.map((example) => example.id), ["good"]);
    });
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
