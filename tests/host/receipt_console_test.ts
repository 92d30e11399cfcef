import assert from "node:assert/strict";
import { ConsoleKeep, readReceiptConsole } from "../../runtime/host/receipt_console.ts";
import { listReceipts } from "../../runtime/host/receipts.ts";
import { testHost } from "../internal/packages.ts";

const LIMITS = { maxLines: 3, maxLineChars: 50, maxChars: 90 };

Deno.test("`ConsoleKeep` keeps lines in order within its limits and counts the rest", async (t) => {
  await t.step("a long line is cut with a mark saying how much was left out", () => {
    const keep = new ConsoleKeep(LIMITS);
    keep.add("log", "x".repeat(200));
    const [line] = keep.stored()!.lines;
    assert.equal(line.text.length, 50);
    assert.match(line.text, /^x+… \[cut: \d+ more characters\]$/);
  });

  await t.step("lines past the count are left out and counted", () => {
    const keep = new ConsoleKeep(LIMITS);
    for (const text of ["one", "two", "three", "four", "five"]) keep.add("info", text);
    assert.deepEqual(keep.stored(), {
      lines: [
        { level: "info", text: "one" },
        { level: "info", text: "two" },
        { level: "info", text: "three" },
      ],
      leftOut: 2,
    });
  });

  await t.step("past the characters, that line and every later one are left out", () => {
    const keep = new ConsoleKeep(LIMITS);
    keep.add("log", "a".repeat(40));
    keep.add("warn", "b".repeat(45));
    keep.add("log", "c".repeat(10));
    keep.add("log", "d");
    const stored = keep.stored()!;
    assert.deepEqual(stored.lines.map((line) => line.text[0]), ["a", "b"]);
    assert.equal(stored.leftOut, 2, "no gap: the short line after the one left out is not kept");
    assert.equal(keep.kept, 2);
  });

  await t.step("a call that wrote nothing stores nothing", () => {
    assert.equal(new ConsoleKeep(LIMITS).stored(), null);
  });
});

Deno.test("`callHandler()` keeps a call's console lines with its receipt", async (t) => {
  const env = await testHost();
  try {
    await env.install({
      id: "chatty",
      handlers: [
        "chatty.talk",
        "chatty.flood",
        "chatty.quiet",
        "chatty.fail",
        "chatty.torrent",
        "chatty.spill",
      ],
      service: `export default function register() {
  return {
    "chatty.talk": (payload) => { console.log("hello", payload?.name ?? "nobody"); console.warn("careful\\nnow"); return 1; },
    "chatty.flood": () => { for (let i = 0; i < 100; i++) console.log(String(i).padStart(3, "0") + "y".repeat(3000)); return 2; },
    "chatty.quiet": () => 3,
    "chatty.torrent": () => { for (let i = 0; i < 20000; i++) console.log("line " + i); return 4; },
    "chatty.spill": () => { for (let i = 0; i < 5000; i++) console.log("line " + i); throw new Error("spilt"); },
    "chatty.fail": () => { console.error("about to fail"); throw new Error("it broke"); },
  };
}`,
    });
    const receiptOf = async (handler: string) =>
      (await listReceipts(env.kv, env.project, { packageId: "chatty" })).find((receipt) =>
        receipt.handler === handler
      )!;

    await t.step("the lines of a call, in order, with their levels", async () => {
      await env.call("chatty", "chatty.talk", { name: "Ada" });
      const receipt = await receiptOf("chatty.talk");
      assert.equal(receipt.consoleLines, 2);
      assert.deepEqual(await readReceiptConsole(env.kv, env.project, "chatty", receipt.id), {
        lines: [
          { level: "log", text: "hello Ada" },
          { level: "warn", text: "careful\nnow" },
        ],
        leftOut: 0,
      });
    });

    await t.step("many long lines are kept bounded, the rest counted", async () => {
      await env.call("chatty", "chatty.flood");
      const receipt = await receiptOf("chatty.flood");
      const kept = (await readReceiptConsole(env.kv, env.project, "chatty", receipt.id))!;
      const chars = kept.lines.reduce((sum, line) => sum + line.text.length, 0);
      assert.ok(chars <= 16_000, `${chars} characters kept`);
      assert.equal(kept.lines.length, receipt.consoleLines);
      assert.ok(kept.lines.length >= 1 && kept.lines.length < 100, `${kept.lines.length} kept`);
      assert.match(kept.lines[0].text, /^000y+… \[cut: [\d,]+ more characters\]$/);
      assert.equal(kept.lines.length + kept.leftOut, 100, "every line is kept or counted");
      assert.ok(new TextEncoder().encode(JSON.stringify(kept)).byteLength < 64 * 1024);
    });

    await t.step("past the worker's line budget, every line written is counted", async () => {
      await env.call("chatty", "chatty.torrent");
      const receipt = await receiptOf("chatty.torrent");
      const kept = (await readReceiptConsole(env.kv, env.project, "chatty", receipt.id))!;
      assert.equal(kept.lines.length, 100);
      assert.equal(kept.lines[99].text, "line 99", "the worker's own notice is not a kept line");
      assert.equal(kept.leftOut, 20000 - 100);
      assert.equal(kept.atLeast, undefined, "counted exactly");

      await assert.rejects(env.call("chatty", "chatty.spill"), { name: "HandlerFailedError" });
      const spilt = await readReceiptConsole(
        env.kv,
        env.project,
        "chatty",
        (await receiptOf("chatty.spill")).id,
      );
      assert.equal(spilt!.lines.length + spilt!.leftOut, 5000, "a failed call counts them too");
    });

    await t.step("a failed call keeps the lines it wrote", async () => {
      await assert.rejects(env.call("chatty", "chatty.fail"), { name: "HandlerFailedError" });
      const receipt = await receiptOf("chatty.fail");
      assert.equal(receipt.outcome, "failed");
      assert.deepEqual(
        (await readReceiptConsole(env.kv, env.project, "chatty", receipt.id))?.lines,
        [{ level: "error", text: "about to fail" }],
      );
    });

    await t.step("a call that wrote nothing keeps nothing", async () => {
      await env.call("chatty", "chatty.quiet");
      const receipt = await receiptOf("chatty.quiet");
      assert.equal(receipt.consoleLines, undefined);
      assert.equal(await readReceiptConsole(env.kv, env.project, "chatty", receipt.id), null);
    });
  } finally {
    await env.close();
  }
});

Deno.test("`callHandler()` names on its receipt the work an ok call ordered", async () => {
  const env = await testHost();
  try {
    await env.install({
      id: "asker",
      permissions: ["background", "work.agent"],
      handlers: ["asker.ask"],
      service: `import { work } from "@sync/extension-api/service";
export default function register() {
  return {
    "asker.ask": async () => {
      const { key } = await work.order({ kind: "agent.session", agent: "demo", title: "Look",
        prompt: { text: "look" }, onInterrupted: "wait", about: "asker.note/7" });
      return { key };
    },
  };
}`,
    });
    const answer = await env.call("asker", "asker.ask") as { key: string };
    const [receipt] = await listReceipts(env.kv, env.project, { packageId: "asker" });
    assert.deepEqual(receipt.ordered, [answer.key]);
  } finally {
    await env.close();
  }
});
