import assert from "node:assert/strict";
import { duplicateJsonKeys } from "../../runtime/internal/duplicate_json_keys.ts";

Deno.test("`duplicateJsonKeys()` finds a key written twice in one object, and only that", async (t) => {
  await t.step("a repeat is placed, with its object's path and its first place", () => {
    const text = '{\n  "a": [1, {"x": 1,\n "x": 2}],\n  "b": {"c": {"\\"}": 1, "\\"}": 2}}\n}';
    assert.deepEqual(duplicateJsonKeys(text), [
      { key: "x", path: ["a", 1], at: { line: 3, column: 2 }, first: { line: 2, column: 13 } },
      { key: '"}', path: ["b", "c"], at: { line: 4, column: 25 }, first: { line: 4, column: 15 } },
    ]);
  });
  await t.step("an escaped spelling is the same key", () => {
    assert.deepEqual(duplicateJsonKeys('{"id": 1, "\\u0069d": 2}').map((d) => d.key), ["id"]);
  });
  await t.step(
    "the same key in two objects, or a string that looks like a key, is no repeat",
    () => {
      assert.deepEqual(
        duplicateJsonKeys(
          '{"a": {"k": 1}, "b": {"k": 1}, "c": ["k", "k"], "d": "{\\"k\\": 1, \\"k\\": 2}"}',
        ),
        [],
      );
    },
  );
});
