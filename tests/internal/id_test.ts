import assert from "node:assert/strict";
import { newId } from "../../runtime/internal/id.ts";

Deno.test("`newId()` makes ids that sort by time, then by order made, and never repeat", async (t) => {
  const at = Date.UTC(2030, 0, 1);
  // More than one batch of random bytes (1,024 ids' worth) is drawn.
  const ids = Array.from({ length: 3_000 }, (_, i) => newId(at + Math.floor(i / 1_000)));
  await t.step("each has the time, a counter and twelve hex digits", () => {
    for (const id of ids) assert.match(id, /^[0-9a-z]{10}-[0-9a-z]{4}-[0-9a-f]{12}$/);
  });
  await t.step("they sort in the order they were made", () => {
    assert.deepEqual([...ids].sort(), ids);
  });
  await t.step("no two are the same, nor are their random tails", () => {
    assert.equal(new Set(ids).size, ids.length);
    assert.equal(new Set(ids.map((id) => id.slice(-12))).size, ids.length);
  });
});
