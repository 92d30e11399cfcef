import assert from "node:assert/strict";
import { textLines } from "../../runtime/supervisor/mod.ts";

/** A stream giving `chunks` one by one. */
function chunks(...parts: string[]): ReadableStream<string> {
  return ReadableStream.from(parts);
}

Deno.test("`textLines()` reads text line by line", async (t) => {
  await t.step("lines split across chunks are joined, and newlines dropped", async () => {
    const lines = await Array.fromAsync(textLines(chunks("one\ntw", "o\r\nthr", "ee\n\n")));
    assert.deepEqual(lines, ["one", "two", "three", ""]);
  });

  await t.step("a last line without a newline is answered", async () => {
    assert.deepEqual(await Array.fromAsync(textLines(chunks("a\nb"))), ["a", "b"]);
  });
});
