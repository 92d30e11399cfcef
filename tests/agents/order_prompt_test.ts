import assert from "node:assert/strict";
import { join } from "node:path";
import { orderPrompt } from "../../runtime/agents/order_prompt.ts";
import type { WorkOrder } from "../../runtime/work/mod.ts";
import { installPackage } from "../../runtime/lifecycle/mod.ts";
import { testHost, writePackage } from "../internal/packages.ts";

Deno.test("`orderPrompt()` gives the agent the ordering extension's own prompt only", async (t) => {
  const env = await testHost();
  try {
    const dir = await writePackage(join(env.home, "..", "packages"), {
      id: "teller",
      handlers: ["teller.run"],
      service: `export default function register() { return { "teller.run": () => 1 }; }`,
      manifest: { prompt: "prompt.md" },
    });
    await Deno.writeTextFile(join(dir, "prompt.md"), "Answer in one line.\n");
    await installPackage(env.host, dir, env.project, { approve: true });
    const order: WorkOrder = {
      kind: "agent.session",
      agent: "demo",
      title: "Sum it up",
      prompt: { text: "Read the notes." },
      onInterrupted: "wait",
      key: "work-1",
      project: env.project,
      extensionId: "teller",
      source: {
        kind: "handler",
        extensionId: "teller",
        extensionName: "Teller",
        handler: "teller.run",
      },
      state: "ordered",
      orderedAt: new Date(0).toISOString(),
    };
    const secret = join(env.home, "..", "secret.md");
    await Deno.writeTextFile(secret, "TOP SECRET\n");

    await t.step("the package's prompt is part of the first prompt", async () => {
      assert.match(
        await orderPrompt(env.kv, order),
        /What the Teller extension tells agents:\n\nAnswer in one line\./,
      );
    });

    await t.step(
      "the agent is told what began the work: the handler, its occasion, when",
      async () => {
        const before = await orderPrompt(env.kv, order);
        assert.doesNotMatch(before, /Begun by/, "a source without its occasion says only who");
        const onClock: WorkOrder = {
          ...order,
          source: {
            ...order.source,
            occasion: { kind: "clock" },
            calledBy: { kind: "clock" },
            calledAt: "2030-01-01T03:00:00.000Z",
          } as WorkOrder["source"],
        };
        assert.match(
          await orderPrompt(env.kv, onClock),
          /This work was ordered by the Teller extension's teller\.run handler in .*\. Begun by the Teller run on the clock at \d{4}-\d\d-\d\d \d\d:\d\d\.$/,
        );
      },
    );

    await t.step("a prompt that became a link outside the package is left out", async () => {
      await Deno.remove(join(dir, "prompt.md"));
      await Deno.symlink(secret, join(dir, "prompt.md"));
      const text = await orderPrompt(env.kv, order);
      assert.doesNotMatch(text, /TOP SECRET/);
      assert.doesNotMatch(text, /tells agents/);
      assert.match(text, /^Sum it up\n\nRead the notes\./);
    });

    await t.step("a prompt that is a FIFO or /dev/zero is left out at once", async () => {
      await Deno.remove(join(dir, "prompt.md"));
      const { success } = await new Deno.Command("mkfifo", { args: [join(dir, "prompt.md")] })
        .output();
      assert.ok(success, "mkfifo");
      assert.doesNotMatch(await orderPrompt(env.kv, order), /tells agents/);
      await Deno.remove(join(dir, "prompt.md"));
      await Deno.symlink("/dev/zero", join(dir, "prompt.md"));
      assert.doesNotMatch(await orderPrompt(env.kv, order), /tells agents/);
    });
  } finally {
    await env.close();
  }
});
