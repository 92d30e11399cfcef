import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { join } from "node:path";
import { isLockedError, retryWhenLocked } from "../../runtime/internal/retry_when_locked.ts";

Deno.test("`retryWhenLocked()` retries a write while another program holds the database", async (t) => {
  const root = await Deno.makeTempDir({ prefix: "sync-locked-" });
  const path = join(root, "locked.kv");
  const refusals: number[] = [];
  // Another program, as SQLite sees it: a connection holding the file in a write.
  const other = new DatabaseSync(path, { timeout: 0 });
  const raw = await Deno.openKv(path);
  const kv = retryWhenLocked(raw, {
    attempts: 3,
    firstDelayMs: 10,
    onLocked: (attempt) => {
      refusals.push(attempt);
      // The other program lets go after the first refusal.
      if (other.isTransaction) other.exec("COMMIT");
    },
  });
  try {
    await t.step("an atomic commit refused as locked is tried again and commits once", async () => {
      other.exec("BEGIN EXCLUSIVE");
      const result = await kv.atomic().check({ key: ["n"], versionstamp: null })
        .set(["n"], 1).commit();
      assert.ok(result.ok);
      assert.deepEqual(refusals, [1]);
      assert.equal((await kv.get(["n"])).value, 1);
    });

    await t.step("so is a set", async () => {
      refusals.length = 0;
      other.exec("BEGIN EXCLUSIVE");
      await kv.set(["m"], 2);
      assert.deepEqual(refusals, [1]);
      assert.equal((await kv.get(["m"])).value, 2);
    });

    await t.step("past its tries, the refusal is the answer", async () => {
      refusals.length = 0;
      const stubborn = retryWhenLocked(raw, { attempts: 2, firstDelayMs: 10 });
      other.exec("BEGIN EXCLUSIVE");
      try {
        await assert.rejects(
          stubborn.atomic().check({ key: ["o"], versionstamp: null }).set(["o"], 3).commit(),
          (error) => isLockedError(error),
        );
      } finally {
        other.exec("COMMIT");
      }
    });
  } finally {
    kv.close();
    other.close();
    await Deno.remove(root, { recursive: true });
  }
});
