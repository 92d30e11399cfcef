import assert from "node:assert/strict";
import { removalOf } from "../../runtime/extensions/mod.ts";

Deno.test("removalOf() says only what applies to the package", async (t) => {
  await t.step("a package with one tool and no schedule, screen or programs", () => {
    const removal = removalOf({
      id: "hello",
      permissions: [],
      handlers: {
        "hello.greet": {
          description: "Greets",
          agent: { description: "Greet someone", input: { type: "object" } },
        },
        "hello.count": { description: "Counts" },
      },
      schedule: [],
      prompt: "prompt/instructions.md",
    });
    assert.deepEqual(removal.stays, [
      "Its records stay in this project's memory; installing it again finds them.",
      "Its receipts stay.",
      "The package stays on this machine for the other projects that use it.",
    ]);
    assert.deepEqual(removal.goes, [
      "hello leaves this project's .sync/extensions.json.",
      "Agents working in this project no longer see its tool hello.greet or its instructions.",
      "If one of its handlers is running now, what it writes is thrown away.",
    ]);
    const all = [...removal.stays, ...removal.goes].join("\n");
    assert.doesNotMatch(all, /clock|schedule|Off switch|program|screen|commits nothing/);
  });

  await t.step("a scheduled package with a screen, programs and a removed handler", () => {
    const removal = removalOf({
      id: "tail",
      permissions: ["background", "schedule", "host.processes"],
      handlers: { "tail.tidy": { description: "Tidies" }, "tail.poll": { description: "Polls" } },
      schedule: [{ handler: "tail.poll", description: "Polls", every: "15m" }],
      lifecycle: { removed: "tail.tidy" },
      ui: "ui/index.js",
      host: {
        processes: [{ id: "follow", program: "tail", args: ["-f"] }, {
          id: "grep",
          program: "grep",
        }],
      },
    });
    assert.deepEqual(removal.goes, [
      "Its removed handler tail.tidy runs first; if it fails, nothing is removed unless you " +
      "remove it anyway.",
      "tail leaves this project's .sync/extensions.json.",
      "This project's approval of what it may do (background, schedule, host.processes); " +
      "installing it again asks again.",
      "Its schedule here: when its handlers last ran, their failures, and its Off switch.",
      "Its screen leaves this project's window.",
      "The programs its screen started here (follow, grep) are stopped, if they run.",
      "If one of its handlers is running now, what it writes is thrown away.",
    ]);
  });

  await t.step("a removed handler that did not run is not named", () => {
    const removal = removalOf({
      id: "tail",
      permissions: [],
      handlers: { "tail.tidy": { description: "Tidies" } },
      schedule: [],
      lifecycle: { removed: "tail.tidy" },
    }, { removedRuns: false });
    assert.ok(!removal.goes.some((line) => /removed handler/.test(line)));
  });

  await t.step(
    "a screen-only package has no records, receipts or running calls to speak of",
    () => {
      const removal = removalOf({
        id: "view",
        permissions: [],
        handlers: {},
        schedule: [],
        ui: "ui/index.js",
      });
      assert.deepEqual(removal.stays, [
        "The package stays on this machine for the other projects that use it.",
      ]);
      assert.deepEqual(removal.goes, [
        "view leaves this project's .sync/extensions.json.",
        "Its screen leaves this project's window.",
      ]);
    },
  );

  await t.step("a package whose manifest cannot be read: what holds of every package", () => {
    const removal = removalOf({ id: "ghost" });
    assert.deepEqual(removal.goes, [
      "ghost leaves this project's .sync/extensions.json.",
      "This project's approval of it.",
    ]);
    assert.deepEqual(removal.stays, [
      "Whatever records it wrote stay in this project's memory; installing it again finds them.",
      "Its receipts stay.",
      "The package stays on this machine for the other projects that use it.",
    ]);
  });

  await t.step("a package not on this machine is not said to stay on it", () => {
    const removal = removalOf({ id: "ghost" }, { onMachine: false });
    assert.ok(!removal.stays.some((line) => line.includes("stays on this machine")));
    assert.ok(removal.stays.some((line) => line.includes("records it wrote stay")));
  });

  await t.step("an applet: its device's account, credential, consent and runs go", () => {
    const removal = removalOf({
      id: "mail",
      permissions: ["background", "account.remote"],
      handlers: { "mail.sync": { description: "Reads mail" } },
      schedule: [],
    });
    assert.ok(removal.goes.includes(
      "Its device's account here, with its credential, the consent to process what it " +
        "reads, and its tasks' runs; what it read stays in this project's memory.",
    ));
    const folder = removalOf({
      id: "mail",
      permissions: ["background", "account.folder"],
      handlers: { "mail.sync": { description: "Reads mail" } },
      schedule: [],
    });
    assert.ok(
      folder.goes.includes(
        "Its device's account here (the folder it reads), the consent to process what it " +
          "reads, and its tasks' runs; what it read stays in this project's memory.",
      ),
      "a folder account has no credential to name",
    );
    const plain = removalOf({ id: "hello", permissions: ["background"], handlers: {} });
    assert.ok(!plain.goes.some((line) => line.includes("device")));
  });
});
