import assert from "node:assert/strict";
import {
  addReceipt,
  boundReceipt,
  latestReceipt,
  listReceipts,
  RECEIPTS_KEPT,
  trimReceiptsNowAndThen,
  writeReceipt,
} from "../../runtime/host/receipts.ts";
import { countingKv } from "../internal/counting_kv.ts";
import { RECEIPT_LIMITS } from "../../runtime/limits.ts";
import { receiptCountKey } from "../../runtime/host/keys.ts";
import type { Outcome, Receipt } from "../../runtime/types.ts";

const P = "/projects/alpha";
const T0 = Date.UTC(2030, 0, 1, 9, 0, 0);

/** A receipt whose id orders it `n`th; ids sort as the time they were made. */
function receipt(n: number, packageId = "mail", overrides: Partial<Receipt> = {}): Receipt {
  const outcome: Outcome = "ok";
  return {
    id: `r${String(n).padStart(5, "0")}`,
    project: P,
    packageId,
    handler: `${packageId}.run`,
    occasion: { kind: "clock" },
    startedAt: new Date(T0 + n * 1_000).toISOString(),
    endedAt: new Date(T0 + n * 1_000 + 5).toISOString(),
    outcome,
    ...overrides,
  };
}

/** The ids of receipts, for comparing order. */
function ids(receipts: Receipt[]): string[] {
  return receipts.map((r) => r.id);
}

Deno.test("`writeReceipt()` and `listReceipts()` keep what every attempt left", async (t) => {
  using kv = await Deno.openKv(":memory:");

  await t.step("a project with no attempts has no receipts", async () => {
    assert.deepEqual(await listReceipts(kv, P), []);
    assert.deepEqual(await listReceipts(kv, P, { packageId: "mail" }), []);
  });

  await t.step("a receipt is listed as it was written", async () => {
    const failed = receipt(1, "mail", {
      occasion: { kind: "lifecycle", moment: "installed" },
      outcome: "failed",
      error: { name: "HandlerFailedError", message: "the tracker is down" },
    });
    await writeReceipt(kv, failed);
    assert.deepEqual(await listReceipts(kv, P), [failed]);
  });

  await t.step("receipts of every package are listed together, newest first", async () => {
    // Written out of order: the id, not the moment of writing, orders them.
    await writeReceipt(kv, receipt(4, "issues"));
    await writeReceipt(kv, receipt(2, "issues"));
    await writeReceipt(kv, receipt(3, "mail"));
    assert.deepEqual(ids(await listReceipts(kv, P)), ["r00004", "r00003", "r00002", "r00001"]);
  });

  await t.step("one package's receipts are listed alone, newest first", async () => {
    assert.deepEqual(ids(await listReceipts(kv, P, { packageId: "mail" })), ["r00003", "r00001"]);
    assert.deepEqual(ids(await listReceipts(kv, P, { packageId: "issues" })), [
      "r00004",
      "r00002",
    ]);
    assert.deepEqual(await listReceipts(kv, P, { packageId: "calendar" }), []);
  });

  await t.step("a limit keeps the newest", async () => {
    assert.deepEqual(ids(await listReceipts(kv, P, { limit: 2 })), ["r00004", "r00003"]);
    assert.deepEqual(ids(await listReceipts(kv, P, { packageId: "mail", limit: 1 })), [
      "r00003",
    ]);
  });

  await t.step("another project's receipts are its own", async () => {
    const beta = { ...receipt(5, "mail"), project: "/projects/beta" };
    await writeReceipt(kv, beta);
    assert.deepEqual(await listReceipts(kv, "/projects/beta"), [beta]);
    assert.equal((await listReceipts(kv, P)).length, 4);
  });

  await t.step("a receipt id written twice keeps the first and counts once", async () => {
    await writeReceipt(kv, receipt(3, "mail", { outcome: "skipped" }));
    const mail = await listReceipts(kv, P, { packageId: "mail" });
    assert.deepEqual(mail.map((r) => [r.id, r.outcome]), [["r00003", "ok"], ["r00001", "failed"]]);
    assert.equal((await kv.get<Deno.KvU64>(receiptCountKey(P, "mail"))).value?.value, 2n);
  });
});

Deno.test("`listReceipts()` answers 50 unless told otherwise", async () => {
  using kv = await Deno.openKv(":memory:");
  for (let n = 1; n <= 60; n++) await writeReceipt(kv, receipt(n, n % 2 ? "mail" : "issues"));
  const newest = await listReceipts(kv, P);
  assert.equal(newest.length, 50);
  assert.equal(newest[0].id, "r00060");
  assert.equal(newest[49].id, "r00011");
  assert.equal((await listReceipts(kv, P, { packageId: "mail", limit: 100 })).length, 30);
});

Deno.test("`writeReceipt()` drops a package's oldest receipts past the number kept", async (t) => {
  using kv = await Deno.openKv(":memory:");
  const slack = 50;

  await t.step("up to the number kept plus slack, nothing is dropped", async () => {
    assert.equal(RECEIPTS_KEPT, 500);
    await writeReceipt(kv, receipt(0, "issues"));
    for (let n = 1; n <= RECEIPTS_KEPT + slack; n++) await writeReceipt(kv, receipt(n));
    const mail = await listReceipts(kv, P, { packageId: "mail", limit: 10_000 });
    assert.equal(mail.length, RECEIPTS_KEPT + slack);
  });

  await t.step("one more drops the oldest down to the number kept", async () => {
    const last = RECEIPTS_KEPT + slack + 1;
    await writeReceipt(kv, receipt(last));
    const mail = await listReceipts(kv, P, { packageId: "mail", limit: 10_000 });
    assert.equal(mail.length, RECEIPTS_KEPT);
    assert.equal(mail[0].id, receipt(last).id);
    assert.equal(mail[RECEIPTS_KEPT - 1].id, receipt(last - RECEIPTS_KEPT + 1).id);
    assert.equal((await kv.get<Deno.KvU64>(receiptCountKey(P, "mail"))).value?.value, 500n);
  });

  await t.step("the dropped receipts leave the project's list too", async () => {
    const all = await listReceipts(kv, P, { limit: 10_000 });
    assert.equal(all.length, RECEIPTS_KEPT + 1);
    assert.equal(all.at(-1)?.id, receipt(0, "issues").id, "another package's are kept");
    assert.equal(all.at(-2)?.id, receipt(RECEIPTS_KEPT + slack + 1 - RECEIPTS_KEPT + 1).id);
  });

  await t.step(
    "hundreds past the number kept go in a few writes, and the count stays exact",
    async () => {
      using many = await Deno.openKv(":memory:");
      // Written without trimming, as receipts released with their claims are between trims.
      for (let n = 1; n <= 750; n++) {
        const op = many.atomic();
        await addReceipt(many, op, receipt(n, "bulk"));
        assert.ok((await op.commit()).ok);
      }
      const commit = Deno.AtomicOperation.prototype.commit;
      let writes = 0;
      Deno.AtomicOperation.prototype.commit = function () {
        writes++;
        return commit.call(this);
      };
      try {
        await writeReceipt(many, receipt(751, "bulk"));
      } finally {
        Deno.AtomicOperation.prototype.commit = commit;
      }
      const bulk = await listReceipts(many, P, { packageId: "bulk", limit: 10_000 });
      assert.equal(bulk.length, RECEIPTS_KEPT);
      assert.equal(bulk.at(-1)?.id, receipt(252, "bulk").id);
      assert.equal((await many.get<Deno.KvU64>(receiptCountKey(P, "bulk"))).value?.value, 500n);
      assert.equal((await listReceipts(many, P, { limit: 10_000 })).length, RECEIPTS_KEPT);
      // The receipt's own write, then 251 dropped 90 at a time.
      assert.equal(writes, 1 + 3);
    },
  );
});

Deno.test("`trimReceiptsNowAndThen()` reads a package's count at its first receipt and once the receipts since pass the bound", async () => {
  using raw = await Deno.openKv(":memory:");
  const { kv, count } = countingKv(raw);
  const countReads: number[] = [];
  // Receipts written as a claim's release writes them, each followed by its look at the count.
  for (let n = 1; n <= 600; n++) {
    const op = kv.atomic();
    await addReceipt(kv, op, receipt(n, "flow"));
    assert.ok((await op.commit()).ok);
    count.keysRead = [];
    await trimReceiptsNowAndThen(kv, receipt(n, "flow"));
    if (count.keysRead.some((key) => key.startsWith("receipt_count"))) countReads.push(n);
  }
  // The first, then the one that brings the count known past 500 + 50, which trims to 500.
  assert.deepEqual(countReads, [1, 551]);
  const flow = await listReceipts(kv, P, { packageId: "flow", limit: 10_000 });
  assert.equal(flow.length, 549);
  assert.equal((await kv.get<Deno.KvU64>(receiptCountKey(P, "flow"))).value?.value, 549n);
});

Deno.test("`writeReceipt()` keeps every receipt within what one value may hold, cut visibly", async (t) => {
  using kv = await Deno.openKv(":memory:");

  await t.step("a name, message and handler past their limits are cut with a mark", async () => {
    await writeReceipt(
      kv,
      receipt(1, "mail", {
        handler: "h".repeat(100_000),
        outcome: "failed",
        error: { name: "N".repeat(100_000), message: "m".repeat(1_000_000) },
      }),
    );
    const [kept] = await listReceipts(kv, P);
    assert.ok(kept.handler.length <= RECEIPT_LIMITS.maxHandlerChars);
    assert.ok(kept.error!.name.length <= RECEIPT_LIMITS.maxErrorNameChars);
    assert.ok(kept.error!.message.length <= RECEIPT_LIMITS.maxErrorMessageChars);
    assert.match(kept.error!.message, /^m+… \[cut: 99\d,\d{3} more characters\]$/);
    assert.match(kept.error!.name, /^N+… \[cut: 99,9\d\d more characters\]$/);
  });

  await t.step("what fits is kept as it is", async () => {
    const fits = receipt(2, "mail", {
      outcome: "failed",
      error: {
        name: "HandlerFailedError",
        message: "m".repeat(RECEIPT_LIMITS.maxErrorMessageChars),
      },
    });
    assert.equal(boundReceipt(fits), fits);
    await writeReceipt(kv, fits);
    assert.deepEqual((await listReceipts(kv, P, { limit: 1 }))[0], fits);
  });
});

Deno.test("`writeReceipt()` replaces an interrupted receipt with the call's own outcome, and nothing else", async () => {
  using kv = await Deno.openKv(":memory:");
  await writeReceipt(kv, receipt(1, "mail", { outcome: "interrupted" }));
  await writeReceipt(kv, receipt(1, "mail", { outcome: "failed" }));
  await writeReceipt(kv, receipt(1, "mail", { outcome: "ok" }));
  await writeReceipt(kv, receipt(1, "mail", { outcome: "interrupted" }));
  assert.deepEqual((await listReceipts(kv, P)).map((r) => r.outcome), ["failed"]);
  assert.equal((await kv.get<Deno.KvU64>(receiptCountKey(P, "mail"))).value?.value, 1n);
});

Deno.test("`latestReceipt()` answers the newest receipt that matches, of one package", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    await writeReceipt(
      kv,
      receipt(1, "mail", { occasion: { kind: "lifecycle", moment: "opened" } }),
    );
    await writeReceipt(
      kv,
      receipt(2, "mail", {
        occasion: { kind: "lifecycle", moment: "opened" },
        outcome: "failed",
        error: { name: "Error", message: "stuck" },
      }),
    );
    await writeReceipt(kv, receipt(3, "mail"));
    await writeReceipt(
      kv,
      receipt(4, "feed", { occasion: { kind: "lifecycle", moment: "opened" } }),
    );
    const lifecycle = (r: Receipt) => r.occasion.kind === "lifecycle";
    assert.equal((await latestReceipt(kv, P, "mail", lifecycle))?.id, "r00002");
    assert.equal((await latestReceipt(kv, P, "feed", lifecycle))?.id, "r00004");
    assert.equal(await latestReceipt(kv, P, "mail", (r) => r.outcome === "interrupted"), null);
    assert.equal(await latestReceipt(kv, P, "none", lifecycle), null);
  } finally {
    kv.close();
  }
});
