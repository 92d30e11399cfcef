import assert from "node:assert/strict";
import type { AccountGrant } from "../../runtime/host/account_grant.ts";
import { listReceipts } from "../../runtime/host/receipts.ts";
import { bumpAccountEpoch, readAccountEpoch } from "../../runtime/memory/account_epoch.ts";
import { getRecord } from "../../runtime/memory/store.ts";
import { testHost } from "../internal/packages.ts";

/** Waits until `check` holds, or fails naming `what`. */
async function until(check: () => boolean | Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

Deno.test("`callHandler()` with a device's account commits nothing once the account changed while it ran", async (t) => {
  // The handler writes a record, then waits on a request this test answers when it chooses.
  const arrived: string[] = [];
  let answer = Promise.withResolvers<void>();
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (request) => {
    arrived.push(new URL(request.url).pathname);
    await answer.promise;
    return new Response("read");
  });
  const address = `127.0.0.1:${server.addr.port}`;
  const env = await testHost({ limits: { timeoutMs: 10_000 } });
  try {
    await env.install({
      id: "mail",
      permissions: ["background", `net:${address}`],
      handlers: ["mail.sync"],
      service: `import { memory, net } from "@sync/extension-api/service";
export default function register() {
  return {
    "mail.sync": async (payload) => {
      await memory.write({ key: "mail.message/" + payload.n, title: "read under the old account" });
      await net.fetch("http://${address}/" + payload.n);
      return { coverage: { read: 1, of: 1, failed: 0 } };
    },
  };
}
`,
    });
    const memory = await env.host.projectMemory(env.project);
    const step = async (n: number, epoch: number) => {
      const account: AccountGrant = { id: "acc1", epoch, kind: "folder", folder: "/tmp/mail" };
      return await env.host.callHandler(env.project, "mail", "mail.sync", {
        occasion: {
          kind: "task",
          task: { name: "sync", attempt: `attempt-${n}`, step: 1, trigger: "person" },
        },
        source: { kind: "person" },
        payload: { n },
        account,
      });
    };
    const receiptOf = async (n: number) => {
      const receipts = await listReceipts(env.kv, env.project, { packageId: "mail" });
      return receipts.find((r) => r.occasion.task?.attempt === `attempt-${n}`);
    };

    await t.step("a step under the current epoch commits", async () => {
      answer.resolve();
      const { value } = await step(1, await readAccountEpoch(memory, "mail"));
      assert.deepEqual(value, { coverage: { read: 1, of: 1, failed: 0 } });
      assert.notEqual(await getRecord(memory, "mail.message/1"), null);
      assert.equal((await receiptOf(1))?.outcome, "ok");
    });

    await t.step(
      "a step whose account changed while it ran is refused at commit, and its receipt says so",
      async () => {
        answer = Promise.withResolvers<void>();
        const running = step(2, await readAccountEpoch(memory, "mail"));
        running.catch(() => {});
        // The record is staged before the request: the handler is now waiting on it.
        await until(() => arrived.includes("/2"), "the handler's request");
        await bumpAccountEpoch(memory, "mail");
        answer.resolve();
        await assert.rejects(running, (error: Error) => {
          assert.equal(error.name, "FencedError");
          assert.match(
            error.message,
            /the device's account changed while this run was going; nothing of it was kept/,
          );
          return true;
        });
        assert.equal(await getRecord(memory, "mail.message/2"), null, "nothing was kept");
        await until(async () => (await receiptOf(2)) !== undefined, "the step's receipt");
        const receipt = (await receiptOf(2))!;
        assert.equal(receipt.outcome, "failed");
        assert.equal(receipt.error?.name, "FencedError");
        assert.match(receipt.error?.message ?? "", /nothing of it was kept/);
        assert.equal(receipt.records, undefined);
      },
    );

    await t.step("a step begun under an epoch already moved on is refused too", async () => {
      answer.resolve();
      const stale = (await readAccountEpoch(memory, "mail")) - 1;
      await assert.rejects(step(3, stale), { name: "FencedError" });
      assert.equal(await getRecord(memory, "mail.message/3"), null);
    });
  } finally {
    answer.resolve();
    await env.close();
    await server.shutdown();
  }
});
