import assert from "node:assert/strict";
import { keepNewest } from "../../runtime/internal/keep_newest.ts";

Deno.test("`keepNewest()` keeps a map bounded, forgetting its older half", async (t) => {
  await t.step("below the bound, every entry stays", () => {
    const map = new Map<string, number>();
    for (const [i, key] of ["a", "b", "c"].entries()) keepNewest(map, key, i, 4);
    assert.deepEqual([...map.keys()], ["a", "b", "c"]);
  });

  await t.step("at the bound, the older half goes before the new entry is set", () => {
    const map = new Map<string, number>();
    for (const [i, key] of ["a", "b", "c", "d", "e"].entries()) keepNewest(map, key, i, 4);
    assert.deepEqual([...map.keys()], ["c", "d", "e"]);
  });

  await t.step("a key set again becomes the newest, and is not counted twice", () => {
    const map = new Map<string, number>();
    for (const key of ["a", "b", "c", "a", "d"]) keepNewest(map, key, 0, 4);
    assert.deepEqual([...map.keys()], ["b", "c", "a", "d"]);
  });
});
